"""The units LR values are shown in, one choice for the whole app: natural log (ln, the default) or log10.

The one source of truth is ``_state.LLR_UNITS`` ("ln" or "log10"), filled in once per session, as the operating
point is (``_operating_point.py``). ``app.py`` draws the sidebar control on every page: before it is drawn its widget
state (``_state.LLR_UNITS_CHOICE``) is set from the truth and its ``on_change`` writes the choice back, so a
sidebar page switch, which deletes the state of widgets, cannot lose it. The library computes in natural log; the
pages pass :func:`current` to the figures' ``units=`` and write LLR numbers with :func:`llr_text`.
"""
from __future__ import annotations

import streamlit as st

import llrcore as lc
from app_pages import _state

LABELS = {"ln": "natural log (ln)", "log10": "log10"}


def current() -> str:
    """``"ln"`` or ``"log10"``: the app's choice (natural log until someone changes it)."""
    return _state.LLR_UNITS.get()


def _on_change() -> None:
    chosen = _state.LLR_UNITS_CHOICE.get()
    if chosen in LABELS:  # a click on the chosen option unselects it: keep the choice
        _state.LLR_UNITS.set(chosen)


def sidebar_control() -> str:
    """Draw "LR values in" in the sidebar and return the app's choice."""
    _state.LLR_UNITS_CHOICE.set(current())
    st.sidebar.segmented_control(
        "LR values in", list(LABELS), format_func=LABELS.get, key=_state.LLR_UNITS_CHOICE.name, on_change=_on_change,
        help="How LLRs are shown in figures, thresholds and tables of every page: natural-log LLRs (llrcore's own "
             "units) or log10 LRs (as forensic reports write them). Computation is always in natural log.")
    return current()


def unit() -> str:
    """``"log10 LR"`` or ``"ln LR"``: how a column or an axis of LLRs in the app's units is labelled."""
    return lc.plots.llr_unit(current())


def shown(llr: float) -> float:
    """A natural-log LLR in the app's units."""
    return float(llr) * lc.plots.llr_factor(current())


def llr_text(llr: float, spec: str = "+.3f") -> str:
    """A natural-log LLR written in the app's units with its unit: ``+4.595 (ln LR)``, ``+1.996 (log10 LR)``."""
    return f"{shown(llr):{spec}} ({unit()})"


def odds_name() -> str:
    """``"log-odds"`` or ``"log10-odds"``: prior log-odds in the app's units, as the LLRs they are compared with (the
    Bayes threshold on LLRs is minus the effective prior log-odds, in either unit)."""
    return "log-odds" if current() == "ln" else "log10-odds"
