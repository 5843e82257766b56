"""Multiclass: calibration analysis of language-recognition style LLR vectors (Brümmer & van Leeuwen, 2006).

The page keeps its own data, apart from the binary systems: the registry ``SCORE_SETS`` (app_pages/_loaded.py) of
``LoadedScores`` (the two demo sets on the first visit, then uploads); a set's ``id`` identifies its data (demo path,
or upload file id + options) for the cached analysis.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import streamlit as st

import llrcore as lc
from app_pages._demos import MULTICLASS_DEMOS
from app_pages import _state
from app_pages._loaded import SCORE_SETS
from app_pages._registry import LoadedScores
from app_pages._uploads import read_user_file
from app_pages._figures import show_figure


SCORE_TYPES = {"LLRs (log-likelihoods)": "llr", "logits": "logit", "log-posteriors": "log-posterior"}
TRAINING_PRIORS = {"flat": "flat", "class frequencies of the file": "empirical"}
PRIORS = ("flat", "class frequencies", "custom")
UPLOAD_HELP = (
    "CSV/TSV: one score column per class (header = class names) and a label column (named `label`, or the last "
    "one) with class names or numbers 0..N-1. NumPy `.npz` with arrays `scores` and `labels` (and `classes`)."
)


# ----- data ----------------------------------------------------------------------------------------------------------


@_state.cached(entries=8)
def parse_upload(file_id: str, score_type: str, training_prior: str | None, _upload):
    """(MulticlassScores, None) or (None, a sentence for the user), cached by the upload's file id and options."""
    name = getattr(_upload, "name", "the file")
    _upload.seek(0)
    return read_user_file(name, lambda: lc.read_multiclass(
        _upload, score_type=score_type, training_prior=training_prior, name=Path(name).stem))


@_state.cached()
def analyse(key: str, _scores: lc.MulticlassScores):
    """The calibration analysis of one data set (fit, pair-wise and detection tables), once per data key."""
    try:
        return lc.analyse_multiclass(_scores), None
    except ValueError as err:
        return None, str(err)


def upload_box() -> None:
    """File uploader with the score type; a good file is added and chosen, a bad one reported (nothing changes)."""
    with st.expander("Upload a multiclass score file", icon=":material/upload_file:",
                     expanded=_state.MC_UPLOAD.peek() is not None):
        upload = st.file_uploader("Score file", type=["csv", "tsv", "txt", "gz", "npz", "parquet"],
                                  key=_state.MC_UPLOAD.name, help=UPLOAD_HELP)
        kind_column, prior_column = st.columns(2)
        kind = SCORE_TYPES[kind_column.radio("The scores are", list(SCORE_TYPES), key="mc_score_type",
                                             persist_state="session",
                                             help="Logits and log-posteriors carry the classifier's training prior, "
                                                  "which is removed to get LLRs.")]
        training = prior_column.radio("Training prior of the classifier", list(TRAINING_PRIORS), key="mc_training",
                                      disabled=kind == "llr", persist_state="session")
    if upload is None:
        return
    training_prior = None if kind == "llr" else TRAINING_PRIORS[training]
    key = f"upload:{upload.file_id}:{kind}:{training_prior}"
    label = f"{Path(upload.name).stem} (upload)"
    if getattr(SCORE_SETS.sets().get(label), "id", None) == key:
        return
    with st.spinner(f"Reading {upload.name}…"):
        scores, error = parse_upload(upload.file_id, kind, training_prior, upload)
    if error:
        st.error(error, icon=":material/error:")
        return
    SCORE_SETS.put(label, LoadedScores(scores, f"upload: {upload.name}", key))
    _state.MC_SET.set(label)
    st.success(f"Loaded {upload.name}: {len(scores):,} trials of {scores.n_classes} classes.",
               icon=":material/check_circle:")


# ----- results -------------------------------------------------------------------------------------------------------


def summary(analysis: lc.MulticlassAnalysis) -> None:
    scores = analysis.scores
    n = scores.n_classes
    raw_col, cal_col, loss_col, ref_col = st.columns(4)
    raw_col.metric("Multiclass Cllr", f"{analysis.cllr:.3f} bits", border=True,
                   delta=f"{analysis.cllr / analysis.reference:.2f} × log₂ N", delta_color="off", delta_arrow="off",
                   help="Flat prior (eq. 17). Below log₂ N the LLRs are useful; above, worse than the prior alone.")
    cal_col.metric("After calibration (Cᵀllr)", f"{analysis.cllr_calibrated:.3f} bits", border=True,
                   delta=f"{analysis.cllr_calibrated / analysis.reference:.2f} × log₂ N", delta_color="off",
                   delta_arrow="off", help="Cllr of α·λ + γ trained on these trials: what the LLRs hold.")
    loss_pct = 100 * analysis.calibration_loss / analysis.cllr if analysis.cllr > 0 else 0.0
    loss_col.metric("Calibration loss", f"{analysis.calibration_loss:.3f} bits", border=True,
                    delta=f"{loss_pct:.0f} % of Cllr", delta_color="inverse" if loss_pct >= 10 else "off",
                    delta_arrow="off", help="Cllr − Cᵀllr: information lost to misinterpretation.")
    ref_col.metric("Useless system", f"{analysis.reference:.3f} bits", border=True,
                   delta=f"log₂ {n}", delta_color="off", delta_arrow="off",
                   help="Cllr of LLRs that are always equal: no information, but well calibrated.")
    offsets = pd.DataFrame([analysis.calibration.offsets], columns=list(scores.classes), index=["γ"])
    st.markdown(f"**Calibration** α·λ + γ: scale **α = {analysis.calibration.scale:.4g}** "
                + ("(the LLRs were over-confident)" if analysis.calibration.scale < 1 else
                   "(the LLRs were under-confident)") + "; offsets γ (sum 0):")
    st.dataframe(offsets, width="stretch", column_config={c: st.column_config.NumberColumn(format="%.3f")
                                                           for c in scores.classes})


COST_COLUMNS = {"cavg": "Cavg", "min_cavg": "minCavg", "cprimary": "LRE Cprimary", "min_cprimary": "min Cprimary"}
COST_ROWS = {"raw": "raw LLRs", "calibrated": "after calibration"}
LRE_OPERATING_POINT = lc.OperatingPoint(0.5)  # Cavg's target prior in the LRE 2017 plan (the other is 0.1)


@_state.cached()
def detection_costs(key: str, _analysis: lc.MulticlassAnalysis, op: lc.OperatingPoint) -> pd.DataFrame:
    """Cavg (at the target prior of `op`; NIST LRE's costs are 1), minCavg and the LRE 2017 primary cost before and
    after calibration, once per data key and operating point."""
    return lc.cavg_table(_analysis.scores, _analysis.calibrated, p_target=op.p_target)


def costs_table(analysis: lc.MulticlassAnalysis, key: str, op: lc.OperatingPoint = LRE_OPERATING_POINT) -> None:
    """The NIST LRE costs of the detection decisions, raw and calibrated (the seed paper's table), at the target
    prior of `op`."""
    table = detection_costs(key, analysis, op).rename(index=COST_ROWS, columns=COST_COLUMNS)
    table = table.rename(columns={"Cavg": f"Cavg (P_target {op.p_target:g})", "minCavg": f"minCavg ({op.p_target:g})"})
    st.markdown("**Detection costs (NIST LRE)**")
    st.table(table.map(lambda value: f"{value:.4f}"))
    st.caption("Each class detected against the others (eq. 9, prior flat over them) at the Bayes threshold; Cavg "
               "averages misses and false alarms over the target classes, normalised as in the LRE 2017 plan (1 = "
               "rejecting everything). minCavg uses the best threshold shared by all targets; LRE Cprimary is the "
               "mean of Cavg at P_target 0.5 and 0.1.")


def pairwise_tab(analysis: lc.MulticlassAnalysis) -> None:
    show_figure(
        lambda: lc.plots.pairwise_bar_matrix_figure(analysis.pairwise, classes=analysis.scores.classes),
        "pairwise_cllr",
        "Every pair of classes as a binary problem with LLR λᵢ − λⱼ (fig. 3 of the paper). The calibration is "
        "monotone on every pair, so minCllr (PAV) is the same before and after, and never above either Cllr.",
        data=lambda: analysis.pairwise,
    )
    st.dataframe(analysis.pairwise, hide_index=True, width="stretch", column_config={
        "class_a": "class a", "class_b": "class b",
        "cllr": st.column_config.NumberColumn("Cllr raw (bits)", format="%.4f"),
        "cllr_calibrated": st.column_config.NumberColumn("Cllr calibrated (bits)", format="%.4f"),
        "min_cllr": st.column_config.NumberColumn("minCllr (bits)", format="%.4f"),
    })


def detection_tab(analysis: lc.MulticlassAnalysis) -> None:
    scores = analysis.scores
    target = st.columns([1, 2])[0].selectbox(
        "Target class", scores.classes, key=f"mc_target_{scores.n_classes}_{scores.classes[0]}",
        persist_state="session", help="Detected against all the other classes, with a prior flat over them (eq. 9).",
    )
    show_figure(
        lambda: lc.plots.detection_ape_figure(scores, analysis.calibrated, target),
        "detection_ape",
        "Bayes error of the detection LLRs at every prior (fig. 2 of the paper), before and after the multiclass "
        "calibration: the area under the solid curve is Cllr, under the dashed one minCllr.",
    )
    show_figure(
        lambda: lc.plots.detection_scatter_figure(scores, analysis.calibrated, target),
        "detection_scatter",
        "Detection LLR of every trial after calibration against before (fig. 1 of the paper): not a function of "
        "it, but close to a line whose slope is near the scale α.",
    )
    st.markdown("**Every target**")
    bits = {f"{metric}{suffix}": st.column_config.NumberColumn(f"{label} {when}", format="%.4f")
            for metric, label in (("cllr", "Cllr"), ("min_cllr", "minCllr"))
            for suffix, when in (("", "raw"), ("_calibrated", "calibrated"))}
    rates = {f"eer{suffix}": st.column_config.NumberColumn(f"EER {when}", format="percent")
             for suffix, when in (("", "raw"), ("_calibrated", "calibrated"))}
    st.dataframe(analysis.detection, hide_index=True, width="stretch", column_config={
        "n_target": st.column_config.NumberColumn("targets", format="localized"),
        "n_non_target": st.column_config.NumberColumn("non-targets", format="localized"), **bits, **rates,
    })


def chosen_prior(scores: lc.MulticlassScores) -> np.ndarray:
    """The prior of the decisions: flat, the class frequencies, or weights typed per class."""
    kind = st.segmented_control("Prior", PRIORS, default="flat", key="mc_prior_kind",
                                persist_state="session") or "flat"
    if kind == "flat":
        return lc.class_prior("flat", scores.n_classes)
    if kind == "class frequencies":
        return scores.empirical_prior
    table = pd.DataFrame({"class": scores.classes, "weight": np.ones(scores.n_classes)})
    edited = st.data_editor(table, key=f"mc_prior_{'_'.join(scores.classes)}", hide_index=True, disabled=["class"],
                            column_config={"weight": st.column_config.NumberColumn(min_value=0.0, format="%.3g")})
    try:
        return lc.class_prior(edited["weight"].fillna(0).to_numpy(), scores.n_classes)
    except ValueError as err:
        st.error(f"{err} The flat prior is used instead.")
        return lc.class_prior("flat", scores.n_classes)


def decisions_tab(analysis: lc.MulticlassAnalysis) -> None:
    scores = analysis.scores
    prior_column, which_column = st.columns([3, 2])
    with prior_column:
        prior = chosen_prior(scores)
    calibrated = which_column.toggle("Use the calibrated LLRs", value=False, key="mc_decide_calibrated",
                                     persist_state="session")
    llrs = analysis.calibrated if calibrated else scores.llrs
    errors = lc.identification_errors(llrs, scores.labels, prior, classes=scores.classes)
    rate_col, default_col, normalised_col = st.columns(3)
    rate_col.metric("Error rate (MAP identification)", f"{100 * errors.error_rate:.2f} %", border=True,
                    help="Σᵢ πᵢ · (share of class i decided as another class).")
    default_col.metric("Prior alone", f"{100 * errors.default_error:.2f} %", border=True,
                       help="Always deciding the class of largest prior: 1 − max πᵢ.")
    normalised_col.metric("Normalised", f"{errors.normalised_error:.3f}", border=True,
                          help="Error rate ÷ that of the prior alone; above 1 the LLRs hurt.")
    show_figure(lambda: lc.plots.confusion_matrix_figure(errors), "confusion_matrix",
                "Rows: true class; columns: the class of largest posterior at the chosen prior. Each row adds up "
                "to 100 %.")


# ----- the page ------------------------------------------------------------------------------------------------------

st.title("Multiclass calibration")
st.caption("Language-recognition style analysis of LLR vectors (Brümmer & van Leeuwen, *On calibration of language "
           "recognition scores*, Odyssey 2006): multiclass Cllr, the direction-preserving calibration α·λ + γ, "
           "pair-wise and one-against-the-rest analyses, MAP decisions.")

TABS = ["Pair-wise", "Detection", "Decisions"]


def main() -> None:
    sets = SCORE_SETS.sets()
    choose_column, upload_column = st.columns([2, 3], gap="medium")
    with upload_column:
        upload_box()
    with choose_column:
        label = st.selectbox("Data set", list(sets), **_state.MC_SET.widget(next(iter(sets)), options=sets))
        loaded = sets[label]
        scores = loaded.scores
        counts = ", ".join(f"{c} {k:,}" for c, k in zip(scores.classes, scores.counts))
        about = next((d.about for d in MULTICLASS_DEMOS if d.name == label), loaded.source)
        st.caption(f"{len(scores):,} trials of {scores.n_classes} classes ({counts}). {about}")

    with st.spinner("Calibrating and analysing…"):
        analysis, error = analyse(loaded.id, scores)
    if error:
        st.error(error, icon=":material/error:")
        return
    summary(analysis)
    costs_table(analysis, loaded.id)
    tabs = dict(zip(TABS, st.tabs(TABS, key="mc_tab", on_change="rerun")))
    for name, draw in (("Pair-wise", pairwise_tab), ("Detection", detection_tab), ("Decisions", decisions_tab)):
        if tabs[name].open:
            with tabs[name]:
                draw(analysis)


main()
