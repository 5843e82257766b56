"""The Calibrate page's "Per condition" section: one calibration per condition against one pooled calibration, in a
table, a figure and a sentence (``lc.calibrate_by_condition``; the page trains it, this draws it).

Kept apart from ``calibrate.py`` so that the page stays a description of its screen (issue 29: pages under ~400
lines); the choice of calibrations shown is kept across page switches (``_state.Choice``), the columns by their
widget's ``persist_state="session"``.
"""
from __future__ import annotations

import streamlit as st

import llrcore as lc
from app_pages import _state, _uncertainty
from app_pages._calibration_controls import md
from app_pages._figures import show_figure
from app_pages._loaded import SYSTEMS
from app_pages._tables import count_columns

#: Which calibrations the per-condition table and figure show: (label, stages of the library's table).
CONDITION_VIEWS = {"Both side by side": ("before", "pooled", "per condition"),
                   "One per condition": ("before", "per condition"), "Pooled": ("before", "pooled")}
STAGE_NAMES = {"before": "before", "pooled": "pooled calibration", "per condition": "one per condition"}


def condition_controls(train: str, evaluation: str | None) -> tuple[tuple[str, ...], str]:
    """"Break down by" (the columns both sets have) and which calibrations to show."""
    loaded = SYSTEMS.sets()
    conditions = _uncertainty.condition_columns(loaded[train].trials)
    columns = [c for c in conditions.offered if evaluation is None or c in loaded[evaluation].trials.conditions]
    by_column, view_column = st.columns([3, 4], vertical_alignment="bottom")
    by = _uncertainty.break_down_by(columns, key="cal_by", container=by_column, persist_state="session")
    view = view_column.segmented_control(
        "Calibration", list(CONDITION_VIEWS), **_state.CAL_BY_VIEW.widget(next(iter(CONDITION_VIEWS))), disabled=not by,
        help="One calibration per condition, each trained on that condition's training trials, against one "
             "calibration of all of them (pooled).") or next(iter(CONDITION_VIEWS))
    if not columns:
        st.caption("The chosen sets have no metadata column in common: nothing to break down by.")
    if conditions.left_out:
        st.caption(lc.report.escape_markdown(conditions.note()))
    return by, view


def condition_sentence(result: lc.ConditionCalibrationResult, train: str) -> str:
    by = " × ".join(result.by)
    own, total = sum(label == "own" for label in result.own), len(result.own)
    how = (f"{result.folds}-fold cross-validation of {md(train)} (each fold by the calibrations of the other folds)"
           if result.folds else f"trained on {md(train)}")
    method = lc.calibration_label(result.method, rule=result.rule, plo=result.plo).removeprefix("calibrated ")
    served = ("all have their own" if own == total else "none has its own: all get the pooled one" if own == 0
              else f"{own} have their own, the others the pooled one")
    return (f"One calibration per {md(by)} {method}, {how}: of {total} {md(by)} values {served}. Trials with no "
            f"{md(by)} (e.g. bona fide) count in every condition.")


def condition_frame(result: lc.ConditionCalibrationResult, view: str):
    """The library's table with the columns of the chosen calibrations."""
    frame = result.to_frame(eer_percent=True)
    stages = CONDITION_VIEWS[view]
    hidden = [f"{metric} {stage}" for metric in ("Cllr", "actDCF") for stage in STAGE_NAMES if stage not in stages]
    return frame.drop(columns=hidden + ([] if "per condition" in stages else ["calibration"]))


def condition_intervals(result: lc.ConditionCalibrationResult, stages: tuple[str, ...], key: tuple) -> dict:
    """With confidence intervals on: each shown calibration's bootstrap per condition, kept for the session."""
    if not _state.CAL_CI.peek():
        return {}
    replicates, level = _uncertainty.bootstrap_settings()  # those of the Replicates and Level controls
    metrics = {"before": result.before, "pooled": result.pooled, "per condition": result.per_condition}
    return {STAGE_NAMES[stage]: _uncertainty.run_once(
        ("calibrate by condition", *key, result.by, stage, replicates, level),
        f"Bootstrap per condition, {STAGE_NAMES[stage]}",
        lambda progress, stage=stage: metrics[stage].bootstrap(n=replicates, level=level, progress=progress))
        for stage in stages}


def show_condition_calibration(result: lc.ConditionCalibrationResult, train: str, view: str, key: tuple) -> None:
    st.markdown(condition_sentence(result, train))
    frame = condition_frame(result, view)
    st.dataframe(frame, hide_index=True, width="stretch", column_config={
        **count_columns("targets", "non-targets"),
        **{column: st.column_config.NumberColumn(format="%.4f") for column in frame.columns
           if column.startswith(("Cllr", "actDCF", "minCllr"))},
        "EER %": st.column_config.NumberColumn(format="%.2f")})
    for note in result.notes():
        st.caption(f":material/info: {md(note)}")
    metric_column, _ = st.columns([2, 3])
    metric = metric_column.segmented_control("Metric per condition", ["cllr", "act_dcf"], default="cllr",
                                             key="cal_by_metric", format_func=lc.METRIC_COLUMNS.get) or "cllr"
    metrics = {"before": result.before, "pooled": result.pooled, "per condition": result.per_condition}
    stages = {STAGE_NAMES[stage]: metrics[stage] for stage in CONDITION_VIEWS[view]}
    intervals = condition_intervals(result, CONDITION_VIEWS[view], key)
    replicates, level = _uncertainty.bootstrap_settings()
    bars = (f", with {100 * level:g} % {_uncertainty.METHOD} bootstrap intervals ({replicates:,} replicates)"
            if intervals else "")
    show_figure(lambda: lc.plots.condition_figure(stages, metric, intervals=intervals or None), "cal_conditions",
                "Each condition's value on the evaluation trials (circles) and all of them pooled (diamonds): before "
                "calibration, after one pooled calibration and after one calibration per condition"
                + f"{bars}.",
                data=lambda: result.to_frame(eer_percent=True))
    with st.expander("The calibrations per condition"):
        st.dataframe(result.calibration.to_frame(), hide_index=True, width="stretch",
                     column_config=count_columns("targets", "non-targets"))
    st.download_button(
        "Calibrations per condition as JSON", data=result.calibrator_json,
        file_name=f"calibration_by_{'_'.join(result.by)}.json", mime="application/json", key="cal_by_json",
        icon=":material/data_object:", on_click="ignore",
        help="One calibration per training condition and the pooled one, trained on all the training trials, to apply "
             "elsewhere: `lc.load_calibrator(path)(trials)` calibrates each trial by its condition's calibration.")
