"""Calibrate: train a calibration on a development set and judge it on a separate evaluation set, or by k-fold
cross-validation when only one set exists.

The controls that choose the training and evaluation sets and a custom scoring rule are shared with the Compare-rules
page (``app_pages/_calibration_controls.py``); their choices and this page's are kept across page switches
(``_state.Choice``), so both pages stay in step, and the operating point is the app's one.
"""
from __future__ import annotations

import io
import re

import streamlit as st

import llrcore as lc
from app_pages._loaded import SYSTEMS
from app_pages._messages import flash, show_flashes
from app_pages._registry import LoadedSystem
from app_pages._tables import show_metrics
from app_pages._calibration_conditions import condition_controls, show_condition_calibration
from app_pages._calibration_controls import CUSTOM_RULE, RULES, choose_sets, custom_rule, describe_rule, md
from app_pages._figures import show_figure
from app_pages import _state, _uncertainty
from app_pages._operating_point import operating_point
from app_pages._quality import show_quality_calibration
from app_pages._units import current as llr_units
from app_pages._units import llr_text, shown


METHODS = {"Affine (scoring rule)": "affine", "CMLG": "cmlg", "PAV": "pav"}
WEIGHT_AS = ("P", "log-odds")
DEFAULT_WEIGHT_P = 0.01


# ----- this page's controls -------------------------------------------------------------------------------------------


def _on_weight_p() -> None:
    _state.CAL_WEIGHT_PLO.set(float(lc.logit(_state.CAL_WEIGHT_P.get())))


def _on_weight_plo() -> None:
    _state.CAL_WEIGHT_P.set(float(lc.sigmoid(_state.CAL_WEIGHT_PLO.get())))


def prior_weighting() -> float:
    """The prior weighting tau, entered as a probability P or as log-odds (both kept in step)."""
    as_column, value_column = st.columns([2, 3], vertical_alignment="bottom")
    weight_as = as_column.segmented_control("Prior weighting as", WEIGHT_AS,
                                            **_state.CAL_WEIGHT_AS.widget(WEIGHT_AS[0])) or WEIGHT_AS[0]
    if weight_as == "P":
        p = value_column.number_input(
            "Prior weighting P", min_value=1e-6, max_value=1 - 1e-6, step=0.001, format="%g",
            **_state.CAL_WEIGHT_P.widget(DEFAULT_WEIGHT_P, on_change=_on_weight_p),
            help="The synthetic target prior of the training objective (prior-weighted logistic regression's P).",
        )
        return float(lc.logit(p))
    return float(value_column.number_input(
        "Prior weighting τ = logit(P)", min_value=-20.0, max_value=20.0, step=0.5, format="%.3f",
        **_state.CAL_WEIGHT_PLO.widget(float(lc.logit(DEFAULT_WEIGHT_P)), on_change=_on_weight_plo),
    ))


def choose_method() -> dict:
    """Method and its options: {"method", "rule", "plo", "cmlg_alpha"}."""
    with st.container(border=True):
        st.markdown("**Calibration**")
        label = st.segmented_control("Method", list(METHODS), **_state.CAL_METHOD.widget(next(iter(METHODS))),
                                     label_visibility="collapsed") or next(iter(METHODS))
        method = METHODS[label]
        choice = {"method": method, "rule": None, "plo": 0.0, "cmlg_alpha": 0.5}
        if method == "affine":
            rule_label = st.selectbox("Proper scoring rule (α, β)", [*RULES, CUSTOM_RULE],
                                      **_state.CAL_RULE.widget(next(iter(RULES))),
                                      help="Logarithmic = prior-weighted logistic regression. Rules with larger α "
                                      "put more weight on high thresholds (low false-alarm rates).")
            choice["rule"] = RULES.get(rule_label) or custom_rule("cal")
            choice["plo"] = prior_weighting()
            st.caption("llr = a · score + b, minimising the rule's prior-weighted expected cost on the training set "
                       "(Brümmer & Doddington, Interspeech 2013).")
        elif method == "cmlg":
            choice["cmlg_alpha"] = st.slider(
                "Variance weight α", 0.0, 1.0, 0.5, step=0.05, key="cal_cmlg_alpha", persist_state="session",
                help="Shared variance = (1 − α) · non-target variance + α · target variance.",
            )
            st.caption("Constrained maximum-likelihood Gaussian: the LLR of two equal-variance Gaussians fitted to the "
                       "classes, in closed form (van Leeuwen & Brümmer, Interspeech 2013).")
        else:
            st.caption("Pool-adjacent-violators: the best monotone step function on the training set, interpolated "
                       "between its steps so it stays finite on new scores.")
    return choice


# ----- computation (cached: a rerun for a figure tab or a download does not train again) ------------------------------


@_state.cached(entries=32)
def calibrated(train_id: str, test_id: str | None, by: tuple[str, ...], method: str, alpha: float | None,
               beta: float | None, plo: float, cmlg_alpha: float, folds: int, op: lc.OperatingPoint,
               _train: lc.Trials, _test: lc.Trials | None):
    """``calibrate_and_evaluate``, or with `by` ``calibrate_by_condition``, keyed by the systems' ids (their Trials are
    never hashed) and the operating point (a frozen dataclass: equal points are one key)."""
    rule = None if alpha is None else lc.BetaRule(alpha, beta)
    options = dict(cmlg_alpha=cmlg_alpha, folds=folds, p_target=op)
    if by:
        return lc.calibrate_by_condition(_train, _test, by, method, rule, plo=plo, **options)
    result = lc.calibrate_and_evaluate(_train, _test, method, rule, plo=plo, **options)
    _ = result.calibrated.sorted.pav  # sort and PAV once, here (a bare expression would be drawn: Streamlit magic)
    return result


def run_calibration(train: str, evaluation: str | None, folds: int, choice: dict, op: lc.OperatingPoint,
                    by: tuple[str, ...] = ()):
    """The calibration of the chosen sets: a CalibrationResult, or with `by` a ConditionCalibrationResult."""
    loaded = SYSTEMS.sets()
    rule = choice["rule"]
    return calibrated(
        loaded[train].id, None if evaluation is None else loaded[evaluation].id, tuple(by), choice["method"],
        None if rule is None else rule.alpha, None if rule is None else rule.beta, choice["plo"],
        choice["cmlg_alpha"], folds, op,
        loaded[train].trials, None if evaluation is None else loaded[evaluation].trials,
    )


# ----- results --------------------------------------------------------------------------------------------------------


def transform_sentence(result: lc.CalibrationResult, train: str) -> str:
    calibrator = result.calibrator
    trials = SYSTEMS.sets()[train].trials
    counts = f"{trials.tar.size:,} target and {trials.non.size:,} non-target trials of {md(train)}"
    if result.method == "pav":
        return (f"PAV calibration trained on {counts}: a monotone step function with "
                f"{calibrator.llrs.size // 2} steps, LLRs from {llr_text(calibrator.llrs.min(), '+.2f')} to "
                f"{llr_text(calibrator.llrs.max(), '+.2f')}.")
    how = (f"the {describe_rule(result.rule)} rule with prior weighting P = {lc.sigmoid(result.plo):.3g} "
           f"(τ = {result.plo:+.2f})" if result.method == "affine" else "CMLG")
    sentence = (f"Trained with {how} on {counts}: **llr = {calibrator.scale:.4g} · score "
                f"{'+' if calibrator.offset >= 0 else '−'} {abs(calibrator.offset):.4g}** (natural-log LLR; the "
                "offset is an LLR too)")
    if llr_units() == "ln":
        return sentence + "."
    scale, offset = shown(calibrator.scale), shown(calibrator.offset)
    return (sentence + f", that is **log10 LR = {scale:.4g} · score {'+' if offset >= 0 else '−'} "
            f"{abs(offset):.4g}**.")


def show_failure(failure: str) -> None:
    """A collapsed fit (``Affine.failure``) is no calibration: said in words, with no metrics or figures of it."""
    st.error(f"**This calibration failed:** {md(failure)}. Its LLRs are not shown as a calibration; remove the far "
             "scores from the training file, or choose PAV.", icon=":material/error:")


def show_problems(result: lc.CalibrationResult) -> None:
    """A degenerate fit is shown (it is the objective's honest optimum) under a warning that says what is wrong."""
    if result.degenerate:
        st.warning("**This calibration is degenerate.**\n\n" + "\n".join(f"- {problem}" for problem in result.problems)
                   + "\n\nTry the logarithmic rule, a prior weighting closer to 0.5, or more training trials.",
                   icon=":material/warning:")


def metric_cards(before, after) -> None:
    cards = [
        ("EER", 100 * before.eer, 100 * after.eer, "%", "ROCCH equal error rate: discrimination, untouched by any "
         "monotone (e.g. affine) calibration of one set."),
        ("actDCF", before.act_dcf, after.act_dcf, "", "Normalised actual DCF at the operating point."),
        ("Cllr", before.cllr, after.cllr, " bits", "Cllr of the LLRs; minCllr is the floor after the best monotone "
         "recalibration of these trials."),
        ("Cprimary", before.cprimary, after.cprimary, "", "NIST SRE'12: mean actual DCF at P = 0.01 and 0.001."),
    ]
    for column, (label, old, new, unit, help_text) in zip(st.columns(len(cards)), cards):
        change = new - old
        unchanged = abs(change) <= 1e-9 * max(1.0, abs(old))
        column.metric(
            label, f"{lc.report.number(new)}{unit}", border=True, help=help_text,
            delta="unchanged" if unchanged
            else f"{lc.report.number(change, sign=True)}{unit} (was {lc.report.number(old)}{unit})",
            delta_color="off" if unchanged else "inverse", delta_arrow="off" if unchanged else "auto",
        )


def metrics_frame(result: lc.CalibrationResult, raw_name: str, boots=None):
    table = lc.metrics_table([result.before, result.after], eer_percent=True, intervals=boots)
    table.index = [f"before: {raw_name}", f"after: {result.label}"]
    table.index.name = "system"
    return table.reset_index()


def intervals(result: lc.CalibrationResult, key: tuple, replicates: int,
              level: float) -> dict[str, lc.BootstrapResult]:
    """Bootstrap intervals of the metrics before and after calibration, kept for the session."""
    op = result.before.operating_point
    return {metrics.name: _uncertainty.run_once(
        ("calibrate", *key, stage, replicates, level), f"Bootstrap of the {stage} scores",
        lambda progress, trials=trials: lc.bootstrap(trials, n=replicates, level=level, p_target=op,
                                                     progress=progress))
        for stage, metrics, trials in (("calibrated", result.after, result.calibrated),
                                       ("uncalibrated", result.before, result.raw))}


def show_metrics_table(result, raw_name: str, key: tuple) -> None:
    toggle_column, reps_column, level_column, _ = st.columns([3, 1, 1, 3], vertical_alignment="bottom")
    on = toggle_column.toggle("Confidence intervals", key="cal_ci", help="Bootstrap: the evaluation trials drawn "
                              "again with replacement, as many times as Replicates says, and every metric recomputed "
                              "(here and per condition). Replicates and Level are the session's, as on Evaluate.")
    replicates, level = _uncertainty.interval_controls(reps_column, level_column)
    boots = intervals(result, key, replicates, level) if on else None
    show_metrics(metrics_frame(result, raw_name, boots), "SRE12", level=level if boots else None)


def calibrated_file(trials: lc.Trials) -> bytes:
    """The calibrated scores as a two-column text file ``score label`` (read back by ``lc.read_trials``)."""
    buffer = io.BytesIO()
    lc.write_trials(buffer, trials)
    return buffer.getvalue()


def _on_add(result: lc.CalibrationResult, raw_name: str, train: str) -> None:
    name = SYSTEMS.add(f"{raw_name} · {result.label}",
                       LoadedSystem(result.calibrated, f"calibrated: {result.label}, trained on {train}"))
    loaded = SYSTEMS.sets()
    # Evaluate opens on the raw and the calibrated system side by side: the comparison a user wants next.
    _state.CHOSEN[_state.EVAL_SYSTEMS.name].set([loaded[raw_name].id, loaded[name].id])
    _state.EVAL_SYSTEMS.pop()
    flash(f"Added {md(name)} to the loaded systems.")


def actions(result: lc.CalibrationResult, raw_name: str, train: str) -> None:
    add_column, download_column, json_column, link_column = st.columns([2, 2, 2, 3], vertical_alignment="center")
    loaded_as = SYSTEMS.label_of(result.calibrated)  # this very calibration is loaded already
    add_column.button(
        "Loaded" if loaded_as else "Add to loaded systems", key="cal_add", icon=":material/add_circle:",
        disabled=loaded_as is not None, on_click=_on_add, args=(result, raw_name, train), width="stretch",
        type="primary",
        help="Add the calibrated evaluation trials as a system, to compare with the raw one on the Evaluate page.",
    )
    file_stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{raw_name} {result.label}").strip("_")
    download_column.download_button(
        "Calibrated scores", data=lambda: calibrated_file(result.calibrated), file_name=f"{file_stem}.txt",
        mime="text/plain", key="cal_download", icon=":material/download:", on_click="ignore", width="stretch",
        help="Two columns `score label`: the calibrated LLRs (natural log) of the evaluation trials.",
    )
    json_column.download_button(
        "Calibrator as JSON", data=result.calibrator_json, file_name=f"{file_stem}.json", mime="application/json",
        key="cal_json", icon=":material/data_object:", on_click="ignore", width="stretch",
        help="The calibration trained on all the training trials, to apply elsewhere: `lc.load_calibrator(path)`, "
             "`llrcore calibrate --load`, or the numpy-only loader of the documentation (same LLRs, bit for bit).",
    )
    if loaded_as:
        link_column.page_link("app_pages/evaluate.py", label=f"Compare on Evaluate: {md(raw_name)} vs {md(loaded_as)}",
                              icon=":material/query_stats:")


FIGURE_TABS = ["Calibrated vs PAV", "Threshold weighting", "APE", "Normalised Bayes error", "Bayes error vs trapezium"]


def weighting_rules(result: lc.CalibrationResult) -> dict:
    """The chosen rule first, then the other named rules for comparison."""
    chosen = result.rule or lc.BetaRule.logarithmic()
    rules = {f"{chosen.name} (chosen)" if result.rule else chosen.name: chosen}
    rules.update({rule.name: rule for rule in lc.NAMED_RULES if rule != chosen})
    return rules


#: The tabs of the three Bayes-error figures, all drawn from the same curves: (tab, figure, file stem, caption).
BAYES_FIGURES = (
    ("APE", lc.plots.ape_figure, "calibration_ape",
     "Bayes error rate over all priors before and after calibration: the calibration loss (the gap between solid and "
     "dashed) is what calibration can remove."),
    ("Normalised Bayes error", lc.plots.normalised_bayes_error_figure, "calibration_nbe",
     "Actual (solid) and minimum (dashed) normalised DCF at every prior, before and after calibration."),
    ("Bayes error vs trapezium", lc.plots.bayes_error_trapezium_figure, "calibration_trapezium",
     "Errors per hundred trials at every prior; the minimum never exceeds the trapezium min(P, 1 − P, EER)."),
)


def show_figures(result: lc.CalibrationResult, raw_name: str, op: lc.OperatingPoint) -> None:
    both = {f"before: {raw_name}": result.raw, f"after: {result.label}": result.calibrated}
    tabs = dict(zip(FIGURE_TABS, st.tabs(FIGURE_TABS, key="cal_tab", on_change="rerun")))
    if any(tabs[name].open for name in FIGURE_TABS[2:]):  # the three Bayes-error figures draw the same curves
        bayes = lc.bayes_error_curves(both, p_target=op)
    if tabs["Calibrated vs PAV"].open:
        with tabs["Calibrated vs PAV"]:
            transforms = lc.pav_transforms(both)
            show_figure(
                lambda: lc.plots.calibration_transform_figure(transforms, p_target=op, units=llr_units()),
                "calibration_vs_pav",
                "Each curve: the LLRs of the evaluation trials (across) against the best monotone recalibration of the "
                "same trials, found by PAV with their labels (up). On the dashed identity line a system is perfectly "
                "calibrated; where its curve crosses your Bayes threshold is what your decisions feel "
                "(Brümmer & Doddington 2013, fig. 3).",
                data=transforms.to_frame,
            )
    if tabs["Threshold weighting"].open:
        with tabs["Threshold weighting"]:
            if result.method != "affine":
                st.info("CMLG and PAV are not trained with a scoring rule. The curves show where the named rules "
                        "would put their weight at prior weighting P = 0.5.")
            plo = result.plo if result.method == "affine" else 0.0
            rules = weighting_rules(result)
            weightings = lc.threshold_weightings(rules, plo, p_target=op.p_target, c_miss=op.c_miss, c_fa=op.c_fa)
            show_figure(
                lambda: lc.plots.threshold_weighting_figure(
                    weightings, highlight=next(iter(rules)) if result.rule else None, units=llr_units()),
                "threshold_weighting",
                "How much each LLR threshold counts in the training objective (normalised; diamonds: modes). An "
                "affine calibration is good where the weight is; put it on your Bayes threshold by choosing the rule "
                "and the prior weighting (Brümmer & Doddington 2013, fig. 1).",
                data=weightings.to_frame,
            )
    for tab, draw, stem, caption in BAYES_FIGURES:
        if tabs[tab].open:
            with tabs[tab]:
                show_figure(lambda: draw(bayes), stem, caption, data=bayes.to_frame)


# ----- per condition (drawn by app_pages/_calibration_conditions.py) -------------------------------------------------


def show_conditions(train: str, evaluation: str | None, folds: int, choice: dict, op: lc.OperatingPoint,
                    key: tuple) -> None:
    st.subheader("Per condition")
    by, view = condition_controls(train, evaluation)
    if not by:
        return
    try:
        with st.spinner("Calibrating per condition…"):
            result = run_calibration(train, evaluation, folds, choice, op, by)
    except ValueError as err:
        st.error(f"This calibration per condition cannot be trained: {err}")
        return
    show_condition_calibration(result, train, view, key)


# ----- the page -------------------------------------------------------------------------------------------------------


def main() -> None:
    st.title("Calibrate")
    st.caption("Turn scores into likelihood ratios: train a calibration on development trials, judge it on trials it "
               "has not seen.")
    show_flashes()
    if not SYSTEMS.sets():
        st.info("Nothing is loaded yet.")
        st.page_link("app_pages/data.py", label="Load score files or demo sets on the Data page",
                     icon=":material/upload_file:")
        return

    sets_column, method_column, op_column = st.columns([4, 4, 3], gap="medium")
    with sets_column:
        train, evaluation, folds = choose_sets()
    with method_column:
        choice = choose_method()
    with op_column, st.container(border=True):
        op = operating_point(presets=False)

    try:
        with st.spinner("Calibrating…"):
            result = run_calibration(train, evaluation, folds, choice, op)
    except ValueError as err:
        st.error(f"This calibration cannot be trained: {err}")
        return

    raw_name = train if evaluation is None else evaluation
    st.subheader(f"{md(raw_name)}: before and after")
    st.markdown(transform_sentence(result, train))
    if result.cross_validated:
        st.caption(f"The evaluation LLRs come from {result.folds} calibrations, each trained without the fold it "
                   "calibrates; the transform above is the one trained on all trials, to apply to new scores.")
    if result.collapsed:  # the fit on all trials, or that of a cross-validation fold
        show_failure(result.failure)
        return
    show_problems(result)
    metric_cards(result.before, result.after)
    loaded = SYSTEMS.sets()
    key = (loaded[train].id, evaluation and loaded[evaluation].id, folds, *map(repr, choice.values()), op)
    show_metrics_table(result, raw_name, key)
    actions(result, raw_name, train)
    show_quality_calibration(train, evaluation, loaded, choice, op)
    show_conditions(train, evaluation, folds, choice, op, key)

    st.subheader("Figures")
    show_figures(result, raw_name, op)


if __name__ == "__main__":  # run as a page; a test imports its functions without drawing it
    main()
