"""The app's metrics tables (``app_pages/_tables.py``): intervals in a table of their own, numbers too long for a
cell written as text (a Cllr of 2.39e+305), and those texts right-aligned like the numbers.

Independent reference: the cells the tables must show, written out by hand.
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


def test_metrics_table_intervals_go_to_their_own_table():
    """Values and intervals in one cell made the table wider than the page: they are split in two tables."""
    from app_pages._tables import split_intervals

    table = pd.DataFrame({"system": ["A"], "targets": [10], "EER %": [2.4312], "EER % lower": [2.21],
                          "EER % upper": [2.674], "Cllr": [0.28843], "Cllr lower": [0.25], "Cllr upper": [0.33],
                          "as LLRs": ["good"]})
    numbers, intervals = split_intervals(table)
    assert list(numbers.columns) == ["system", "targets", "EER %", "Cllr", "as LLRs"]
    assert intervals.to_dict("records") == [{"system": "A", "EER %": "[2.21, 2.67]", "Cllr": "[0.2500, 0.3300]"}]
    assert split_intervals(numbers)[1] is None


def test_numbers_too_long_for_a_cell_are_written_by_number():
    from app_pages._tables import fitting_numbers

    table = pd.DataFrame({"system": ["A", "B"], "Cllr": [0.28843, 2.3885679484916614e305], "EER %": [2.43, 11.5]})
    shown = fitting_numbers(table)
    assert shown["Cllr"].tolist() == ["0.2884", "2.39e+305"]
    assert shown["EER %"].tolist() == [2.43, 11.5]  # ordinary columns stay numbers
