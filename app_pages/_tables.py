"""How the app's tables of systems look: counts with thousands separators, the LLR verdict with its rule, metrics with
their digits and, when asked, their confidence intervals."""
from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

import llrcore as lc
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
        shown[column] = [lc.report.with_interval(v, lo, hi, digits) for v, lo, hi in
                         zip(table[column], table[f"{column} lower"], table[f"{column} upper"])]
    return shown.drop(columns=[c for c in shown.columns if c.endswith((" lower", " upper"))])


def split_intervals(table) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """A metrics table as two: its numbers (limits dropped), and its intervals, ``[2.21, 2.67]`` per metric under the
    metric's name with the rows' names (its text columns) first; None when it has no limits.

    Values and intervals in one cell (``0.2213 [0.2043, 0.2509]``) made a table of three systems far wider than the
    page at 1600 px: cells were clipped or the last columns (minCprimary, "as LLRs") needed sideways scrolling."""
    limited = [column for column in INTERVAL_DIGITS if f"{column} lower" in table.columns]
    numbers = table.drop(columns=[c for c in table.columns
                                  if c.endswith((" lower", " upper")) or c == lc.METHOD_COLUMN])
    if not limited:
        return numbers, None
    names = [c for c in numbers.columns if numbers[c].dtype.kind == "O" and c != "as LLRs"]
    intervals = numbers[names].copy()
    for column in limited:
        digits = INTERVAL_DIGITS[column]
        intervals[column] = [f"[{lc.report.number(lo, digits)}, {lc.report.number(hi, digits)}]"
                             for lo, hi in zip(table[f"{column} lower"], table[f"{column} upper"])]
    return numbers, intervals


def show_metrics(table, evaluation: str | None = None, *, level: float | None = None) -> None:
    """A metrics table on the screen: its numbers, then, when it has limits, their intervals in a second table
    (:func:`split_intervals`) under a caption naming their level and method (the table's ``interval method``,
    else the `level` and the default method)."""
    numbers, intervals = split_intervals(table)
    numbers = fitting_numbers(numbers)
    st.dataframe(numbers, width="stretch", hide_index=True, column_config=metric_columns(numbers, evaluation))
    if intervals is not None:
        st.caption(f"Their {interval_methods(table, level)}:")
        st.dataframe(intervals, width="stretch", hide_index=True, column_config={
            column: st.column_config.TextColumn(METRIC_FORMATS.get(column, (column,))[0])
            for column in INTERVAL_DIGITS if column in intervals.columns})


def interval_methods(table, level: float | None = None) -> str:
    """How a metrics table's intervals were made, from its ``interval method`` column: ``"95 % BCa bootstrap
    confidence intervals [lower, upper] (minDCF: 95 % out-of-bag bracket)"``, the metrics made otherwise in brackets; the
    default method at `level` for a table without the column."""
    if lc.METHOD_COLUMN not in table.columns:
        what = f"{100 * level:g} % " if level is not None else ""
        return f"{what}{lc.INTERVAL_METHODS[lc.DEFAULT_INTERVAL_METHOD]} bootstrap confidence intervals [lower, upper]"
    parts = [text.split("; ") for text in table[lc.METHOD_COLUMN].dropna()]
    main = " / ".join(dict.fromkeys(p[0] for p in parts))
    others = "; ".join(dict.fromkeys(other for p in parts for other in p[1:]))
    return f"{main} bootstrap confidence intervals [lower, upper]" + (f" ({others})" if others else "")


def fitting_numbers(table) -> pd.DataFrame:
    """The metric columns holding a number too long for a cell (a Cllr of 2.39e+305 has 306 digits at "%.4f") as
    text written by :func:`lc.report.number <llrcore.report.number>` (``2.39e+305``), with the column's decimals for the others."""
    shown = table.copy()
    for column, (_, digits, _, _) in METRIC_FORMATS.items():
        if column in shown.columns and shown[column].dtype.kind == "f":
            values = shown[column].to_numpy()
            if np.any(np.abs(values[np.isfinite(values)]) >= lc.report.LARGEST_FIXED):
                shown[column] = [lc.report.number(value, int(digits[2:-1])) for value in values]
    return shown


#: How each metric column of a table is shown: its heading, digits, help and width in pixels (the heading and a
#: number of four decimals). Short headings, units in the help, so that a table of every metric of three systems fits
#: the page at 1600 px.
METRIC_FORMATS = {
    "EER %": ("EER %", "%.2f", "ROCCH equal error rate, in %.", 70),
    "minDCF": ("minDCF", "%.4f", None, 74), "actDCF": ("actDCF", "%.4f", None, 74),
    "Cllr": ("Cllr", "%.4f", "Cllr of the scores taken as natural-log LLRs, in bits.", 74),
    "minCllr": ("minCllr", "%.4f", "Cllr after the best monotone recalibration (PAV), in bits.", 76),
    "calibration loss %": ("cal. loss %", "%.1f", "Calibration loss: 100 (Cllr − minCllr) / Cllr.", 84),
    "Cprimary": ("Cprimary", "%.4f", None, 82),
    "minCprimary": ("minCprimary", "%.4f", None, 100),
}


def text_number(heading: str, help_text: str | None):
    """A metric column whose numbers are text (``2.39e+305``, :func:`fitting_numbers`): right-aligned like the
    numbers of the other columns, so that the digits line up."""
    return st.column_config.TextColumn(heading, help=help_text, alignment="right")


def metric_columns(table, evaluation: str | None = None) -> dict:
    """column_config of a metrics table: numbers with their digits; a metric written with its interval is text
    under the same heading. `evaluation` names the primary cost of the Cprimary column (default the app's)."""
    config = {**count_columns("targets", "non-targets"), "as LLRs": VERDICT_COLUMN}
    evaluation = evaluation or _operating_point.primary()
    p_targets = " and ".join(f"{p:g}" for p in lc.primary_p_targets(evaluation))
    cprimary_help = f"NIST {evaluation}'s primary cost: the mean normalised actual DCF at P_target = {p_targets}."
    for column, (heading, digits, help_text, width) in METRIC_FORMATS.items():
        help_text = cprimary_help if column == "Cprimary" else help_text
        if column in table.columns:
            config[column] = (st.column_config.NumberColumn(heading, format=digits, help=help_text, width=width)
                              if table[column].dtype.kind == "f" else text_number(heading, help_text))
    return config
