"""The operating point (P_target, C_miss, C_fa), one for the whole app: every page that asks for it shares it.

The one source of truth is an :class:`llrcore.OperatingPoint` under ``_state.OPERATING_POINT``, filled in once per
session. The widgets (keys ``op_preset``, ``op_p_target``, ``op_c_miss``, ``op_c_fa``) are only its view:
before they are drawn their state is set from it, and their ``on_change`` callbacks write it back. A widget's own
state cannot carry the value across pages: Streamlit deletes the state of widgets a page does not draw, and the
pages draw these widgets in different layouts (the preset box on some pages only), so a page switch used to bring
them back at their minimum, 1e-6, while the preset box still showed a NIST preset.
"""
from __future__ import annotations

import numpy as np
import streamlit as st

import llrcore as lc
from app_pages import _state
from app_pages._units import llr_text, odds_name, shown

CUSTOM = "Custom"
#: label -> (operating point, the evaluation whose primary cost the Cprimary column then follows)
PRESETS = {
    "NIST SRE'12 (P = 0.01; Cprimary adds 0.001)": (lc.OperatingPoint.sre12(), "SRE12"),
    "NIST SRE16, SRE18 CMN2, SRE19 CTS (P = 0.01; Cprimary adds 0.005)": (lc.OperatingPoint(0.01), "SRE16"),
    "NIST SRE21 (P = 0.01; Cprimary adds 0.05)": (lc.OperatingPoint(0.01), "SRE21"),
    "NIST SRE18 VAST, SRE19 AV (P = 0.05)": (lc.OperatingPoint(0.05), "SRE18 VAST"),
    "NIST SRE'10 (P = 0.001, Cmiss = 1, Cfa = 1)": (lc.OperatingPoint.sre10(), "SRE12"),
    "NIST SRE'08 (P = 0.01, Cmiss = 10, Cfa = 1)": (lc.OperatingPoint.sre08(), "SRE12"),
    "EER-like (P = 0.5, Cmiss = 1, Cfa = 1)": (lc.OperatingPoint.equal_error(), "SRE12"),
}
DEFAULT, DEFAULT_PRIMARY = next(iter(PRESETS.values()))
FIELDS = {_state.OP_P_TARGET: "p_target", _state.OP_C_MISS: "c_miss", _state.OP_C_FA: "c_fa"}


def current() -> lc.OperatingPoint:
    """The app's operating point (the default preset until someone changes it)."""
    return _state.OPERATING_POINT.get(DEFAULT)


def primary() -> str:
    """The NIST evaluation whose primary cost the Evaluate page's Cprimary follows (set by the presets)."""
    return _state.PRIMARY_COST.get(DEFAULT_PRIMARY)


def _preset_of(op: lc.OperatingPoint, evaluation: str) -> str:
    values = (op.p_target, op.c_miss, op.c_fa)
    for label, (preset, preset_primary) in PRESETS.items():
        if preset_primary == evaluation and np.allclose(values, (preset.p_target, preset.c_miss, preset.c_fa),
                                                        rtol=1e-9, atol=0):
            return label
    return CUSTOM


def _on_preset() -> None:
    preset = PRESETS.get(_state.OP_PRESET.get())
    if preset is not None:
        _state.OPERATING_POINT.set(preset[0])
        _state.PRIMARY_COST.set(preset[1])


def update(**values: float) -> None:
    """Change some of ``p_target``, ``c_miss``, ``c_fa`` of the app's operating point (a page's own controls)."""
    _state.OPERATING_POINT.set(lc.OperatingPoint(**{**vars(current()), **values}))


def _on_value() -> None:
    update(**{field: key.get() for key, field in FIELDS.items() if key.is_set()})


def operating_point(title: str = "Operating point", *, presets: bool = True, compact: bool = False) \
        -> lc.OperatingPoint:
    """Draw the operating-point controls and return the app's operating point.

    `presets` adds the NIST preset box; `compact` puts P_target above the two costs, for a narrow column.
    """
    op = current()
    for key, field in FIELDS.items():  # the widgets show the one operating point, whatever they held before
        key.set(getattr(op, field))
    _state.OP_PRESET.set(_preset_of(op, primary()))
    st.markdown(f"**{title}**")
    if presets:
        st.selectbox("Preset", [*PRESETS, CUSTOM], key=_state.OP_PRESET.name, on_change=_on_preset)
    if compact:
        p_column = st.container()
        miss_column, fa_column = st.columns(2)
    else:
        p_column, miss_column, fa_column = st.columns(3)
    p_column.number_input(
        "P_target", min_value=1e-6, max_value=1 - 1e-6, step=0.001, format="%g", key=_state.OP_P_TARGET.name,
        on_change=_on_value, help="Prior probability of a target trial.",
    )
    miss_column.number_input("C_miss", min_value=1e-6, step=1.0, format="%g", key=_state.OP_C_MISS.name,
                             on_change=_on_value,
                             help="Cost of missing a target.")
    fa_column.number_input("C_fa", min_value=1e-6, step=1.0, format="%g", key=_state.OP_C_FA.name,
                           on_change=_on_value,
                           help="Cost of a false alarm.")
    st.caption(
        f"Effective prior {odds_name()} **{shown(op.plo_eff):+.3f}** (effective P_target {op.p_eff:.4g}): "
        f"LLRs at or above **{llr_text(op.threshold)}** are accepted as targets."
    )
    return op
