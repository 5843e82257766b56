"""Text numbers in the app's metrics table (a Cllr of 2.39e+305 written as text) are right-aligned like the numbers.

Independent reference: the text the table must show, written out by hand.
"""
from __future__ import annotations

import pandas as pd


def test_metrics_table_text_numbers_are_right_aligned():
    from app_pages._tables import fitting_numbers, metric_columns

    table = pd.DataFrame({"system": ["a", "b"], "Cllr": [0.25, 2.3885679484916614e305], "minCllr": [0.2, 0.3]})
    shown = fitting_numbers(table)
    assert shown["Cllr"].tolist() == ["0.2500", "2.39e+305"]
    config = metric_columns(shown, "SRE12")
    assert config["Cllr"]["alignment"] == "right" and config["Cllr"]["type_config"]["type"] == "text"
    assert config["minCllr"]["type_config"]["type"] == "number"
