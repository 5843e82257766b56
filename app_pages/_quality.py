"""Quality measures (QMF) on the Calibrate and Fusion pages: numeric metadata columns of the trials (duration, SNR,
embedding magnitude, ...) as extra inputs of the affine calibration or of the fusion, shown beside the plain one.

Everything shown comes from :mod:`llrcore.calibration.quality` (``lc.fit_quality_affine(trials, quality)``,
:meth:`~llrcore.QualityCalibration.compare`, ``lc.fuse(..., quality=...)``); this module only draws it.
"""
from __future__ import annotations

from dataclasses import replace

import streamlit as st

import llrcore as lc
from app_pages import _state
from app_pages._calibration_controls import md
from app_pages._tables import fitting_numbers, metric_columns

HELP = ("Numeric metadata columns of the trials (duration, SNR, embedding magnitude, cohort mean, ...) added to the "
        "calibration as extra features: llr = a · score + Σ v_j · q_j + b, trained with the same rule and prior "
        "weighting (quality-measure functions, as WeSpeaker's QMF and BOSARIS's quality fusers).")


def show_table(table) -> None:
    """A metrics table whose ``system`` column is wide enough for the names of the measures."""
    table = fitting_numbers(table)
    config = {**metric_columns(table, "SRE12"), "system": st.column_config.TextColumn("system", width="medium")}
    st.dataframe(table, hide_index=True, width="stretch", column_config=config)


def choose_quality(trials: lc.Trials | None, key: str) -> tuple[str, ...]:
    """The multiselect "Quality measures" of the numeric metadata columns of `trials`; () when there are none."""
    columns = [] if trials is None else lc.numeric_columns(trials)
    if not columns:
        return ()
    chosen = st.multiselect("Quality measures", columns, key=key, persist_state="session", help=HELP,
                            placeholder="none: calibrate the scores alone")
    return tuple(c for c in chosen if c in columns)


@_state.cached()
def quality_calibrated(train_id: str, test_id: str | None, quality: tuple[str, ...], alpha: float | None,
                       beta: float | None, plo: float, op: lc.OperatingPoint, _train: lc.Trials,
                       _test: lc.Trials | None):
    """The quality calibration, the plain affine one by the same recipe, and their comparison on the judged trials
    (the evaluation trials, or the training trials when there are none), keyed by the systems' ids."""
    rule = None if alpha is None else lc.BetaRule(alpha, beta)
    calibration = lc.fit_quality_affine(_train, list(quality), rule=rule, plo=plo)
    plain = lc.fit_affine(_train, rule=rule, plo=plo)
    return calibration, calibration.compare(plain, _train if _test is None else _test, p_target=op)


def show_weights(calibration, spread: str = "of the feature on the training trials: how much it moves the LLR, "
                 "comparable across features") -> None:
    """The formula and the table of weights of a calibration or a fusion; ``weight × spread`` (its help says the
    `spread` of what) is how much each feature or system moves the LLR."""
    st.code(calibration.formula(), language=None, wrap_lines=True)
    st.dataframe(calibration.weights_frame(), hide_index=True, width="content", column_config={
        "weight": st.column_config.NumberColumn(format="%.5g"),
        "weight × spread": st.column_config.NumberColumn(
            format="%.4f", help=f"The weight times the spread (standard deviation) {spread}.")})


def show_quality_calibration(train: str, evaluation: str | None, loaded: dict, choice: dict,
                             op: lc.OperatingPoint) -> None:
    """The Calibrate page's section: the multiselect, then the calibration with the chosen measures beside the plain
    affine one (metrics of the raw, affinely calibrated and quality-calibrated trials)."""
    if choice["method"] != "affine" or not lc.numeric_columns(loaded[train].trials):
        return
    st.subheader("With quality measures (QMF)")
    quality = choose_quality(loaded[train].trials, "cal_quality")
    if not quality:
        st.caption("Choose numeric metadata columns to add them to the affine calibration.")
        return
    rule = choice["rule"]
    test = None if evaluation is None else loaded[evaluation]
    try:
        with st.spinner("Calibrating with quality measures…"):
            calibration, comparison = quality_calibrated(
                loaded[train].id, None if test is None else test.id, quality, None if rule is None else rule.alpha,
                None if rule is None else rule.beta, choice["plo"], op, loaded[train].trials,
                None if test is None else test.trials)
    except (ValueError, TypeError) as err:
        st.error(f"This quality-measure calibration cannot be trained: {err}")
        return
    if calibration.collapsed:
        st.error(f"**This calibration failed:** {md(calibration.failure)}.", icon=":material/error:")
        return
    cards = list(comparison.metrics.items())
    for column, (name, metrics) in zip(st.columns(len(cards)), cards):
        column.metric(f"Cllr, {name}", f"{metrics.cllr:.4f} bits", border=True)
    weights_column, download_column = st.columns([3, 1], vertical_alignment="bottom")
    with weights_column:
        show_weights(calibration)
    table = comparison.to_frame()
    table.index.name = "system"
    table = table.reset_index()
    download_column.download_button(
        "Quality comparison as CSV", table.to_csv(index=False).encode(), file_name="quality_calibration.csv",
        mime="text/csv", icon=":material/download:", key="cal_quality_csv", on_click="ignore", width="stretch")
    download_column.download_button(
        "Quality calibrator as JSON", calibration.to_json, file_name="quality_calibration.json",
        mime="application/json", icon=":material/data_object:", key="cal_quality_json", on_click="ignore",
        width="stretch", help="The calibration with its quality measures, to apply elsewhere to trials that carry "
                              "the same columns: `lc.load_calibrator(path)` or `llrcore calibrate --load`.")
    show_table(table)
    where = (f"the evaluation trials of {md(evaluation)}" if evaluation is not None else
             f"the training trials of {md(train)} (no evaluation set: optimistic, the calibration has seen them)")
    st.caption(f"Judged on {where}: the raw scores, the affine calibration of the scores alone and the one with "
               f"{', '.join(quality)}, trained by the same rule and prior weighting.")


def choose_fusion_quality(dev: dict) -> tuple[str, ...]:
    """The Fusion page's multiselect, of the numeric metadata columns of the first development system."""
    first = next(iter(dev.values()), None)
    return choose_quality(first, "fusion_quality")


def show_fusion_beside_plain(result: lc.FusionResult, plain: lc.FusionResult) -> None:
    """The fusion with quality measures against the plain fusion, on the same judged trials."""
    st.subheader("With and without the quality measures")
    names = ("fusion of the scores", f"fusion + {', '.join(result.fusion.quality)}")
    both = [replace(fusion.metrics[fusion.fusion_name], name=name) for fusion, name in zip((plain, result), names)]
    table = lc.metrics_table(both, eer_percent=True)
    table.index.name = "system"
    show_table(table.reset_index())
    st.caption(f"The same systems fused by the same recipe, with and without the quality measures, on the "
               f"{result.judged_on} trials.")
