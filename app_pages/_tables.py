"""How the app's tables of systems look: counts with thousands separators, the LLR verdict with its rule, metrics with
their digits and, when asked, their confidence intervals."""
from __future__ import annotations

import pandas as pd
import streamlit as st

import llrcore as lc
from llrcore.words import with_interval
from app_pages import _operating_point
from app_pages._loaded import SYSTEMS

#: The "as LLRs" column of every table of systems: the library's one verdict, its rule in the help.
VERDICT_COLUMN = st.column_config.TextColumn(
    help=f"Can the scores be used as likelihood ratios as they are? {lc.VERDICT_RULE.capitalize()}.")
SUMMARY_COLUMNS = ["system", "role", "targets", "non-targets", "spoof", "min score", "max score", "Cllr", "minCllr",
                   "as LLRs", "source"]


def count_columns(*names: str) -> dict:
    """Column formats for trial counts (thousands separators), for st.dataframe's column_config."""
    return {name: st.column_config.NumberColumn(format="localized") for name in names}


def summary_frame(names=None) -> pd.DataFrame:
    """The table of what is loaded: one row per system (all, or the given names)."""
    rows = [{"system": name, "role": system.role, **system.summary, "source": system.source}
            for name, system in SYSTEMS.sets().items() if names is None or name in names]
    return pd.DataFrame(rows, columns=SUMMARY_COLUMNS)


#: table columns written with their interval, and their digits
INTERVAL_DIGITS = {"EER %": 2, "minDCF": 4, "actDCF": 4, "Cllr": 4, "minCllr": 4, "Cprimary": 4, "min t-DCF": 4}


def with_intervals(table):
    """A metrics table with each metric that has limits written ``2.43 [2.21, 2.67]``, its limits' columns dropped
    (for the screen; the CSV keeps them as numbers)."""
    shown = table.copy()
    for column, digits in INTERVAL_DIGITS.items():
        if f"{column} lower" not in table.columns:
            continue
        shown[column] = [with_interval(v, lo, hi, digits) for v, lo, hi in
                         zip(table[column], table[f"{column} lower"], table[f"{column} upper"])]
    return shown.drop(columns=[c for c in shown.columns if c.endswith((" lower", " upper"))])


#: How each metric column of a table is shown: its heading, digits and help.
METRIC_FORMATS = {
    "EER %": ("EER %", "%.2f", None), "minDCF": ("minDCF", "%.4f", None), "actDCF": ("actDCF", "%.4f", None),
    "Cllr": ("Cllr (bits)", "%.4f", None), "minCllr": ("minCllr (bits)", "%.4f", None),
    "calibration loss %": ("calibration loss %", "%.1f", None),
    "Cprimary": ("Cprimary", "%.4f", None),
    "minCprimary": ("minCprimary", "%.4f", None),
}


def metric_columns(table, evaluation: str | None = None) -> dict:
    """column_config of a metrics table: numbers with their digits; a metric written with its interval is text
    under the same heading. `evaluation` names the primary cost of the Cprimary column (default the app's)."""
    config = {**count_columns("targets", "non-targets"), "as LLRs": VERDICT_COLUMN}
    evaluation = evaluation or _operating_point.primary()
    p_targets = " and ".join(f"{p:g}" for p in lc.prior.primary_p_targets(evaluation))
    cprimary_help = f"NIST {evaluation}'s primary cost: the mean normalised actual DCF at P_target = {p_targets}."
    for column, (heading, digits, help_text) in METRIC_FORMATS.items():
        help_text = cprimary_help if column == "Cprimary" else help_text
        if column in table.columns:
            config[column] = (st.column_config.NumberColumn(heading, format=digits, help=help_text)
                              if table[column].dtype.kind == "f" else st.column_config.TextColumn(heading,
                                                                                                 help=help_text))
    return config
