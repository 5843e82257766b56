"""ASVspoof 5's SASV metrics on the "ASV + countermeasure" page: the t-EER of each CM with the ASV and the a-DCF of
the ASV alone, pooled and per attack (``lc.sasv_table``), computed once per pair of systems and set beside the
t-DCF in the page's cards and tables; the t-EER in the organisers' conventions beside ours
(``lc.tandem_teer_conventions``)."""
from __future__ import annotations

import pandas as pd
import streamlit as st

import llrcore as lc
from app_pages import _state
from app_pages._loaded import SYSTEMS

TEER, ADCF = "t-EER %", "min a-DCF (ASV)"
TEER_HELP = ("Concurrent tandem EER (Kinnunen et al., IEEE TPAMI 2023): the CM and the ASV thresholds where the "
             "tandem misses as many targets as it accepts non-targets and spoofs; no cost, no prior, no threshold "
             "fixed (ASVspoof 5's evaluation package).")
ADCF_HELP = ("Minimum a-DCF (Shim et al., Odyssey 2024) of the ASV's own scores taken as SASV scores, with no "
             "countermeasure: ASVspoof 5's cost model (Ptar 0.9405, Pnon 0.0095, Pspoof 0.05; Cmiss 1, Cfa 10 for a "
             "non-target and for a spoof), normalised (1 = no better than accepting or rejecting everything).")


@_state.cached()
def _asv_side(asv_id: str, by: str | None, _result: lc.TandemEvaluation) -> lc.TandemASV:
    """The ASV's t-EER points and min a-DCF per attack, made once for every CM in front of it."""
    return lc.tandem_asv(_result)


@_state.cached(entries=64)
def _table(cm_id: str, asv_id: str, by: str | None, _result: lc.TandemEvaluation) -> pd.DataFrame:
    """One CM's table, computed once per pair of systems (the t-DCF's formulation and costs play no part)."""
    return lc.sasv_table(_result, asv=_asv_side(asv_id, by, _result))


def sasv_tables(asv_name: str, results: dict[str, lc.TandemEvaluation]) -> dict[str, pd.DataFrame]:
    """Each CM's rows (attacks, then ``pooled``): ``attack``, ``t-EER %``, ``min a-DCF (ASV)``."""
    sets = SYSTEMS.sets()
    return {name: _table(sets[name].id, sets[asv_name].id, result.by, result) for name, result in results.items()}


TEER_CONVENTIONS_TITLE = "Why does my t-EER differ from ASVspoof 5's?"
TEER_CONVENTIONS_TEXT = ("ASVspoof 5's evaluation package walks its curves one trial at a time, so a block of tied "
                         "scores is split into operating points that no threshold reaches, and the t-EER can fall on "
                         "one of them; ours keeps only the points a threshold reaches. On scores without ties the two "
                         "are the same number; the more ties (rounded scores), the more they can differ. The "
                         "package reports compute_teer_accelerated (compute_teer near a crossing first found on every "
                         "3000th point).")


@_state.cached(entries=64)
def _conventions(ids: tuple, _results: dict) -> pd.DataFrame:
    return lc.tandem_teer_conventions(_results)


def show_teer_conventions(asv_name: str, results: dict[str, lc.TandemEvaluation]) -> None:
    """The expander with each CM's pooled t-EER in our convention and in ASVspoof 5's, side by side."""
    sets = SYSTEMS.sets()
    with st.expander(TEER_CONVENTIONS_TITLE, icon=":material/compare_arrows:"), st.container(
            key="tandem_teer_conventions"):
        st.caption(TEER_CONVENTIONS_TEXT)
        table = _conventions((sets[asv_name].id, *(sets[name].id for name in results)), results)
        st.table(table.set_index("system").style.format("{:.4f} %"))


def pooled(table: pd.DataFrame) -> pd.Series:
    return table.set_index("attack").loc["pooled"]


def beside_tdcf(frame: pd.DataFrame, table: pd.DataFrame, key: str = "attack") -> pd.DataFrame:
    """`frame` (with a ``min t-DCF`` column, rows keyed by `key`) with the t-EER and the a-DCF right after it (and
    after its interval's limits, when drawn)."""
    frame = frame.copy()
    values = table.set_index("attack")
    position = max(i for i, column in enumerate(frame.columns) if column.startswith("min t-DCF")) + 1  # after limits
    for offset, column in enumerate((TEER, ADCF)):
        frame.insert(position + offset, column, frame[key].map(values[column]) if key == "attack"
                     else values.loc["pooled", column])
    return frame


def summary_beside_tdcf(table: pd.DataFrame, tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """``lc.tandem_table`` (one row per CM) with each CM's pooled t-EER and a-DCF after its min t-DCF."""
    frames = [beside_tdcf(table[table["system"] == name], tables[name], key="system") for name in table["system"]]
    return pd.concat(frames, ignore_index=True)
