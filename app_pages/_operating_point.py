"""The operating point (P_target, C_miss, C_fa), one for the whole app: every page that asks for it shares it.

The values live in ``st.session_state`` under ``op_p_target``, ``op_c_miss``, ``op_c_fa`` (kept across page
switches); ``op_preset`` names the NIST preset they match, or "Custom".
"""
from __future__ import annotations

import numpy as np
import streamlit as st

import llrcore as lc

CUSTOM = "Custom"
PRESETS = {
    "NIST SRE'12 (P = 0.01; Cprimary adds 0.001)": (0.01, 1.0, 1.0),
    "NIST SRE'10 (P = 0.001, Cmiss = 1, Cfa = 1)": (0.001, 1.0, 1.0),
    "NIST SRE'08 (P = 0.01, Cmiss = 10, Cfa = 1)": (0.01, 10.0, 1.0),
    "EER-like (P = 0.5, Cmiss = 1, Cfa = 1)": (0.5, 1.0, 1.0),
}
KEYS = ("op_p_target", "op_c_miss", "op_c_fa")


def _matching_preset() -> str:
    values = tuple(float(st.session_state[key]) for key in KEYS)
    for label, preset in PRESETS.items():
        if np.allclose(values, preset, rtol=1e-9, atol=0):
            return label
    return CUSTOM


def _on_preset() -> None:
    preset = PRESETS.get(st.session_state["op_preset"])
    if preset is not None:
        for key, value in zip(KEYS, preset):
            st.session_state[key] = value


def _on_value() -> None:
    st.session_state["op_preset"] = _matching_preset()


def operating_point(title: str = "Operating point", *, presets: bool = True, compact: bool = False) \
        -> tuple[float, float, float]:
    """Draw the operating-point controls and return ``(p_target, c_miss, c_fa)``.

    `presets` adds the NIST preset box; `compact` puts P_target above the two costs, for a narrow column.
    """
    for key, value in zip(KEYS, next(iter(PRESETS.values()))):
        st.session_state.setdefault(key, value)
    st.session_state.setdefault("op_preset", _matching_preset())
    st.markdown(f"**{title}**")
    if presets:
        st.selectbox("Preset", [*PRESETS, CUSTOM], key="op_preset", on_change=_on_preset, persist_state="session")
    if compact:
        p_column = st.container()
        miss_column, fa_column = st.columns(2)
    else:
        p_column, miss_column, fa_column = st.columns(3)
    p_target = p_column.number_input(
        "P_target", min_value=1e-6, max_value=1 - 1e-6, step=0.001, format="%g", key="op_p_target",
        on_change=_on_value, persist_state="session", help="Prior probability of a target trial.",
    )
    c_miss = miss_column.number_input(
        "C_miss", min_value=1e-6, step=1.0, format="%g", key="op_c_miss", on_change=_on_value,
        persist_state="session", help="Cost of missing a target.",
    )
    c_fa = fa_column.number_input(
        "C_fa", min_value=1e-6, step=1.0, format="%g", key="op_c_fa", on_change=_on_value,
        persist_state="session", help="Cost of a false alarm.",
    )
    plo = float(lc.effective_plo(p_target, c_miss, c_fa))
    st.caption(
        f"Effective prior log-odds **{plo:+.3f}** (effective P_target {lc.rates.sigmoid(plo):.4g}): "
        f"LLRs at or above **{-plo:+.3f}** are accepted as targets."
    )
    return float(p_target), float(c_miss), float(c_fa)
