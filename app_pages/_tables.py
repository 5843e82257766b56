"""How the app's tables of systems look: counts with thousands separators, the LLR verdict with its rule."""
from __future__ import annotations

import pandas as pd
import streamlit as st

import llrcore as lc
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
