"""Evaluate: metrics at an operating point and the DET / Bayes error figures of the chosen systems.

Changing the operating point re-runs only cheap look-ups: the Trials objects live in session state and each keeps
its sorted scores and PAV (``trials.sorted``), so nothing is sorted or PAV-ed again.
"""
from __future__ import annotations

import pandas as pd
import streamlit as st

import llrcore as lc
from app_pages import _conventions, _operating_point, _state, _uncertainty
from app_pages._loaded import SYSTEMS, chosen_systems, trials_by_name
from app_pages._tables import show_metrics
from app_pages._figures import show_figure
from app_pages._operating_point import operating_point


def choose_systems() -> list[str]:
    """Multiselect of the loaded systems; default the evaluation sets; the choice survives page switches and new
    evaluation sets join it (:func:`~app_pages._loaded.chosen_systems`)."""
    loaded = SYSTEMS.sets()
    with st.container(border=True):
        st.markdown("**Systems**")
        selected = chosen_systems(_state.EVAL_SYSTEMS.name, "Systems to show", label_visibility="collapsed",
                                  placeholder="Choose systems to evaluate")
        roles = [loaded[name].role for name in selected]
        st.caption(f"{roles.count('evaluation')} evaluation and {roles.count('development')} development "
                   f"set{'s' if roles.count('development') != 1 else ''} chosen, of {len(loaded)} loaded.")
    return selected


# ----- results -----------------------------------------------------------------------------------------------------


def metric_cards(results) -> None:
    per_row = min(len(results), 2)  # three numbers and their deltas need half the page to stay on one line
    for start in range(0, len(results), per_row):
        columns = st.columns(per_row)
        for column, result in zip(columns, results[start:start + per_row]):
            with column.container(border=True):
                st.markdown(f"**{result.name}**")
                eer_col, dcf_col, cllr_col = st.columns([0.9, 1.05, 1.25])  # Cllr's box holds "2.39e+305 bits"
                eer_col.metric("EER", f"{100 * result.eer:.2f} %", help="ROCCH equal error rate.")
                dcf_col.metric(
                    "actDCF", lc.report.number(result.act_dcf),
                    delta=f"{lc.report.number(result.act_dcf - result.min_dcf, sign=True)} vs minDCF "
                          f"{lc.report.number(result.min_dcf)}",
                    delta_color="inverse" if result.act_dcf - result.min_dcf > 1e-12 else "off",
                    help="Normalised actual DCF of the scores taken as LLRs; the delta is what calibration loses.",
                )
                cllr_col.metric(
                    "Cllr", f"{lc.report.number(result.cllr)} bits",
                    delta=f"{result.calibration_loss_percent:.0f} % calibration loss",
                    delta_color="off" if result.llr_verdict.good else "inverse",
                    delta_arrow="off",
                    help="Cllr of the scores taken as LLRs; calibration loss = (Cllr - minCllr) / Cllr.",
                )


def metrics_frame(results, boots=None):
    return lc.metrics_table(results, eer_percent=True, verdict=True, intervals=boots).reset_index()


def show_metrics_table(results, boots: dict[str, lc.BootstrapResult] | None = None) -> None:
    csv = metrics_frame(results, boots)
    show_metrics(csv, level=next(iter(boots.values())).level if boots else None)
    st.download_button(
        "Metrics as CSV", csv.to_csv(index=False).encode(), file_name="llrcore_metrics.csv", mime="text/csv",
        icon=":material/download:", key="download_metrics", on_click="ignore",
    )


APE_AXIS_LABELS = {"zoom": "Zoomed on the systems", "full": "Full 0–50 %", "log": "Logarithmic"}
FIGURE_TABS = ["DET", "APE", "Normalised Bayes error", "Bayes error vs trapezium", "Score distributions"]


def show_figures(chosen, op: lc.OperatingPoint, boots: dict[str, lc.BootstrapResult] | None = None) -> None:
    """One figure per tab, full width; only the open tab is drawn (the tabs rerun the page when switched)."""
    tabs = dict(zip(FIGURE_TABS, st.tabs(FIGURE_TABS, key="eval_tab", on_change="rerun")))
    if any(tabs[name].open for name in FIGURE_TABS[1:4]):  # the three Bayes-error figures draw the same curves
        bayes = lc.bayes_error_curves(chosen, p_target=op)
    if tabs["DET"].open:
        with tabs["DET"]:
            rocch_column, steps_column, rule_column, _ = st.columns([1, 1, 1, 2])
            rocch = rocch_column.toggle("ROC convex hull", value=True, key="det_rocch",
                                        help="The curve on which the EER and every minimum DCF live.")
            steps = steps_column.toggle("Step curve", value=False, key="det_steps",
                                        help="The empirical curve through every threshold.")
            rule_of_30 = rule_column.toggle("Rule of 30", value=False, key="det_rule30",
                                            help="Mark where fewer than 30 errors make the rates unreliable.")
            det = lc.det_curves(chosen, p_target=op)
            bands = {name: boot.det_band for name, boot in (boots or {}).items()}
            band_words = (f" Shaded: the ROCCH's {100 * next(iter(bands.values())).level:.0f} % bootstrap band."
                          if bands else "")
            show_figure(
                lambda: lc.plots.with_det_bands(
                    lc.plots.det_figure(det, rocch=rocch, steps=steps, rule_of_30=rule_of_30), bands, list(chosen)),
                "det",
                "Miss against false-alarm rate on probit axes. Circles: EER; diamonds: minimum DCF at the operating "
                "point; stars: the actual DCF of the scores used as LLRs. An open symbol just inside the edge: a rate of "
                "0 or 1, which probit axes cannot show (the note above the plot says which)." + band_words,
                data=lambda: det.to_frame(steps=steps),
            )
    if tabs["APE"].open:
        with tabs["APE"]:
            axis_column, _ = st.columns([2, 3])
            y_axis = axis_column.segmented_control(
                "Error axis", lc.plots.APE_Y_AXES, format_func=APE_AXIS_LABELS.get, default=lc.plots.APE_Y_AXES[0],
                key="ape_axis", help="Zoomed: the systems' curves fill the figure (areas still read as Cllr). Full: "
                "0 to 50 %, with the peak of no system. Logarithmic: small errors made visible.",
            ) or lc.plots.APE_Y_AXES[0]
            show_figure(
                lambda: lc.plots.ape_figure(bayes, y_axis=y_axis), "ape",
                "Applied probability of error over all priors: the area under the actual curve is Cllr, under the "
                "minimum curve minCllr; the bars split Cllr into discrimination and calibration loss.",
                data=bayes.to_frame,
            )
    if tabs["Normalised Bayes error"].open:
        with tabs["Normalised Bayes error"]:
            show_figure(
                lambda: lc.plots.normalised_bayes_error_figure(bayes), "normalised_bayes_error",
                "Bayes error divided by that of no system (1 = useless): actual and minimum DCF at every prior; "
                "the gap is what calibration loses there.",
                data=bayes.to_frame,
            )
    if tabs["Bayes error vs trapezium"].open:
        with tabs["Bayes error vs trapezium"]:
            log_column, _ = st.columns([1, 4])
            log_scale = log_column.toggle("Logarithmic error axis", value=True, key="trap_log")
            show_figure(
                lambda: lc.plots.bayes_error_trapezium_figure(bayes, log_scale=log_scale), "bayes_error_trapezium",
                "Out of a hundred trials, how many errors? The minimum Bayes error never exceeds the trapezium "
                "min(P, 1-P, EER) (Brümmer, Ferrer & Swart, Interspeech 2021).",
                data=bayes.to_frame,
            )
    if tabs["Score distributions"].open:
        with tabs["Score distributions"]:
            bins_column, spoof_column, _ = st.columns([2, 1, 2], vertical_alignment="bottom")
            bins = bins_column.slider("Bins", 20, 200, 80, step=10, key="hist_bins")
            spoof = spoof_column.toggle("Include spoof trials", value=True, key="hist_spoof")
            histograms = lc.score_histograms(chosen, bins=bins, include_spoof=spoof)
            show_figure(lambda: lc.plots.score_histogram_figure(histograms), "score_histograms",
                        data=histograms.to_frame)


# ----- conditions and comparison ---------------------------------------------------------------------------------


def show_conditions(chosen, op: lc.OperatingPoint, settings: _uncertainty.Settings) -> None:
    """Per system, a table with one row per condition and the pooled row; then one metric per condition, every
    system, in a figure."""
    by = " × ".join(settings.by)
    st.subheader(f"Per {by}")
    lacking = [name for name, trials in chosen.items() if not set(settings.by) <= set(trials.conditions)]
    if lacking:
        st.caption(f"Not broken down (no column {', '.join(map(repr, settings.by))}): "
                   f"{lc.report.escape_markdown(', '.join(lacking))}.")
    results = {name: lc.evaluate_by_condition(trials, settings.by, p_target=op, primary=settings.primary)
               for name, trials in chosen.items() if name not in lacking}
    if not results:
        return
    per_condition = ({name: _uncertainty.condition_intervals(name, result, op, settings)
                      for name, result in results.items()} if settings.intervals else {})
    for name, result in results.items():
        st.markdown(f"**{lc.report.escape_markdown(name)}**")
        show_metrics(result.to_frame(eer_percent=True, intervals=per_condition.get(name)))
        for note in result.notes():
            st.caption(f":material/warning: {lc.report.escape_markdown(note)}")
    metric_column, _ = st.columns([3, 2])
    metric = metric_column.segmented_control(
        "Metric per condition", list(lc.plots.CONDITION_METRICS), default="eer", key="cond_metric",
        format_func=lambda m: lc.METRIC_COLUMNS[m]) or "eer"
    show_figure(lambda: lc.plots.condition_figure(results, metric, intervals=per_condition or None, order=list(chosen)),
                "conditions",
                "Each condition's value (circles) and all trials pooled (diamonds)"
                + (f", with {_uncertainty.METHOD} bootstrap intervals." if per_condition else "."),
                data=lambda: pd.concat([r.to_frame(intervals=per_condition.get(n)).assign(system=n)
                                        for n, r in results.items()]))


def show_comparison(chosen, op: lc.OperatingPoint, settings: _uncertainty.Settings) -> None:
    """Is B better than A? A paired bootstrap on the trials both systems scored."""
    st.subheader("Compare two systems")
    names = list(chosen)
    a_column, b_column, _ = st.columns([2, 2, 1], vertical_alignment="bottom")
    a = a_column.selectbox("System A", names, index=0, key="cmp_a")
    b = b_column.selectbox("System B", names, index=1, key="cmp_b")
    if a == b:
        st.info("Choose two different systems.")
        return
    try:
        result = _uncertainty.comparison(a, b, chosen, op, settings)
    except ValueError as err:  # not the same trials: said, the rest of the page goes on
        st.warning(str(err))
        return
    _uncertainty.show_comparison(result, ("eer", "act_dcf", "cllr"), "B better in")


# ----- the page ----------------------------------------------------------------------------------------------------

st.title("Evaluate")
st.caption("Discrimination (minimum costs, EER, DET) against calibration (actual costs, Cllr, Bayes error plots).")


def main() -> None:
    loaded = SYSTEMS.sets()
    if not loaded:
        st.info("Nothing is loaded yet.")
        st.page_link("app_pages/data.py", label="Load score files or demo sets on the Data page",
                     icon=":material/upload_file:")
        return

    op_column, systems_column = st.columns([3, 2], gap="medium")
    with op_column, st.container(border=True):
        op = operating_point()
    with systems_column:
        selected = choose_systems()

    if not selected:
        st.info("Choose at least one system above.")
        return

    chosen = trials_by_name(names=selected)
    chosen = {name: chosen[name] for name in selected}
    with st.spinner("Computing metrics…"):
        results = [lc.evaluate(trials.sorted, p_target=op, name=name, primary=_operating_point.primary())
                   for name, trials in chosen.items()]

    metric_cards(results)
    settings = _uncertainty.controls(chosen)
    boots = ({name: _uncertainty.intervals(name, trials, op, settings) for name, trials in chosen.items()}
             if settings.intervals else None)
    if settings.intervals and (one_by_one := _uncertainty.ungrouped(chosen, settings)):
        st.caption(f"No column {settings.group_by!r}, trials drawn one by one: "
                   f"{lc.report.escape_markdown(', '.join(one_by_one))}.")
    st.subheader("Metrics")
    show_metrics_table(results, boots)
    _conventions.show(chosen, op)
    if settings.by:
        show_conditions(chosen, op, settings)
    if settings.intervals and len(chosen) > 1:
        show_comparison(chosen, op, settings)

    st.subheader("Figures")
    show_figures(chosen, op, boots)


main()
