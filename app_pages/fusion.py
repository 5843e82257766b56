"""Fusion: several systems scored on the same trials fused into one LLR (BOSARIS's linear fusion), trained on
development trials and judged on evaluation trials against each system calibrated alone.

Everything shown comes from :func:`llrcore.fuse`; the rule and a custom (alpha, beta) are the Calibrate page's
controls (``_calibration_controls.py``), the operating point is the app's.
"""
from __future__ import annotations

from pathlib import Path

import streamlit as st

import llrcore as lc
from app_pages._calibration_controls import CUSTOM_RULE, RULES, custom_rule, describe_rule, evaluation_partner, md
from app_pages._figures import show_figure
from app_pages import _state
from app_pages._loaded import SYSTEMS
from app_pages._operating_point import operating_point
from app_pages import _quality
from app_pages._quality import choose_fusion_quality, show_fusion_beside_plain
from app_pages._tables import metric_columns

CM_DEMO = Path(__file__).resolve().parents[1] / "assets" / "asvspoof2019_la_cm"
DEMO_BUTTON = "Fuse the four ASVspoof 2019 LA countermeasures (dev → eval)"
DEFAULT_REGULARISATION = 1e-3
DEFAULT_WEIGHT_P = 0.5
NO_EVALUATION = "none: judge on the development trials"


# ----- data and computation (cached) ----------------------------------------------------------------------------------


@_state.cached()
def load_cm_demo(part: str) -> dict[str, lc.Trials]:
    """The four countermeasures of one part (``dev`` or ``eval``), read once per server and hour (shared,
    read-only)."""
    return lc.read_trials(CM_DEMO / f"ASVspoof2019.LA.cm.{part}.scores.tsv.gz")


@_state.cached()
def fused(dev_key: tuple, eval_key: tuple | None, alpha: float, beta: float, plo: float, regularisation: float,
          op: lc.OperatingPoint, _dev: dict, _eval: dict | None, quality: tuple[str, ...] = ()) -> lc.FusionResult:
    """:func:`llrcore.fuse` (with the quality measures `quality`, if any), keyed by the systems' ids (their Trials
    are never hashed) and the operating point (a frozen dataclass: equal points are one key)."""
    return lc.fuse(_dev, _eval, rule=lc.BetaRule(alpha, beta), plo=plo, regularisation=regularisation, p_target=op,
                   quality=list(quality) or None)


# ----- controls -------------------------------------------------------------------------------------------------------


def _use_demo() -> None:
    _state.FUSION_SOURCE.set("demo")


def _use_loaded() -> None:
    _state.FUSION_SOURCE.set("loaded")


def _on_dev_change() -> None:
    """The evaluation partners of the chosen development systems, by name ("X (dev)" -> "X (eval)")."""
    _use_loaded()
    names = list(SYSTEMS.sets())
    partners = [evaluation_partner(name, names) for name in _state.FUSION_DEV.get()]
    if all(partners):
        _state.FUSION_EVAL.set(partners)


def choose_systems() -> tuple[dict, dict | None, tuple, tuple | None, str]:
    """Development and evaluation systems (dicts of Trials), their cache keys and a sentence saying what is fused."""
    with st.container(border=True):
        st.markdown("**Systems**")
        st.button(DEMO_BUTTON, on_click=_use_demo, icon=":material/merge:", key="fusion_demo", width="stretch")
        loaded = SYSTEMS.sets()
        names = list(loaded)
        for choice in (_state.FUSION_DEV, _state.FUSION_EVAL):  # a system removed on the Data page leaves the choice
            choice.set([name for name in choice.get([]) if name in loaded])
        st.multiselect("Development systems (train the fusion)", names,
                       **_state.FUSION_DEV.widget([], on_change=_on_dev_change),
                       placeholder="two or more loaded systems",
                       help="Two or more systems scored on the same development trials, with labels.")
        st.multiselect("Evaluation systems, in the same order", names,
                       **_state.FUSION_EVAL.widget([], on_change=_use_loaded),
                       placeholder=NO_EVALUATION,
                       help="The same systems scored on the evaluation trials; none to judge on the development "
                            "trials (optimistic: the fusion has seen them).")
        if _state.FUSION_SOURCE.peek() == "demo":
            dev, evaluation = load_cm_demo("dev"), load_cm_demo("eval")
            st.caption(f"Showing the demo: {', '.join(dev)} from `{CM_DEMO.name}/`, trained on the development "
                       "part and judged on the evaluation part. Choose loaded systems above to fuse your own.")
            return dev, evaluation, ("demo", "dev"), ("demo", "eval"), "the four ASVspoof 2019 LA countermeasures"
        dev_names, eval_names = _state.FUSION_DEV.get(), _state.FUSION_EVAL.get()
        dev = {name: loaded[name].trials for name in dev_names}
        evaluation = {name: loaded[name].trials for name in eval_names} or None
        st.caption("Trials are paired by their ids (model and test, utt or trial), or by line order when the files "
                   "have none.")
    return (dev, evaluation, tuple(loaded[n].id for n in dev),
            None if evaluation is None else tuple(loaded[n].id for n in evaluation),
            ", ".join(md(name) for name in dev))


def choose_recipe() -> tuple[lc.BetaRule, float, float]:
    """Rule, prior weighting tau and regularisation of the fusion (and of each system calibrated alone)."""
    with st.container(border=True):
        st.markdown("**Fusion**")
        label = st.selectbox("Proper scoring rule (α, β)", [*RULES, CUSTOM_RULE], key="fusion_rule",
                             persist_state="session",
                             help="Logarithmic = prior-weighted logistic regression, BOSARIS's and FoCal's fusion.")
        rule = RULES.get(label) or custom_rule("fusion")
        p = st.number_input("Prior weighting P", min_value=1e-6, max_value=1 - 1e-6, value=DEFAULT_WEIGHT_P,
                            step=0.01, format="%g", key="fusion_weight_p", persist_state="session",
                            help="The synthetic target prior of the training objective.")
        regularisation = st.number_input(
            "Regularisation λ", min_value=0.0, max_value=10.0, value=DEFAULT_REGULARISATION, step=0.001, format="%g",
            key="fusion_regularisation", persist_state="session",
            help="Penalty λ/2 · Σ (w_k σ_k)² on the weights of the standardised scores, for the fusion and each "
                 "system alone. Needed when the systems together separate the development trials; 0 is plain "
                 "prior-weighted training.")
        st.caption("llr = Σ w_k · s_k + b, minimising the rule's prior-weighted expected cost on the development "
                   "trials (Brümmer & Doddington, Interspeech 2013; BOSARIS's linear fusion).")
    return rule, float(lc.logit(p)), float(regularisation)


# ----- results --------------------------------------------------------------------------------------------------------


def verdict_cards(result: lc.FusionResult) -> None:
    best = result.best_single
    fusion, single = result.metrics[result.fusion_name], result.metrics[best]
    cards = [("Fusion Cllr", f"{fusion.cllr:.3f} bits"), (f"{best} alone: Cllr", f"{single.cllr:.3f} bits"),
             ("Fusion EER", f"{100 * fusion.eer:.2f} %"), (f"{best} alone: EER", f"{100 * single.eer:.2f} %")]
    for column, (label, value) in zip(st.columns(len(cards)), cards):
        column.metric(label, value, border=True)


def show_weights(result: lc.FusionResult) -> None:
    st.subheader("Weights")
    _quality.show_weights(result, "of the system's development scores: how much the system moves the fused LLR, "
                          "comparable across systems")
    st.caption(f"Trained on the development trials: {result.dev.describe()}.")


def show_comparison(result: lc.FusionResult, op: lc.OperatingPoint) -> None:
    st.subheader(f"Fusion against each system calibrated alone ({result.judged_on} trials)")
    table = result.to_frame().reset_index()
    st.dataframe(table, hide_index=True, width="stretch", column_config=metric_columns(table, "SRE12"))
    where = result.fused_dev if result.evaluation is None else result.fused_eval
    pairing = result.dev if result.evaluation is None else result.evaluation
    st.caption(f"Each system calibrated alone by the same recipe (rule, prior weighting, regularisation) on the same "
               f"development trials; {pairing.describe()}; minDCF and actDCF at P_target = {op.p_target:g}. "
               f"{where.tar.size + where.non.size:,} trials judged.")


def show_figures(result: lc.FusionResult, op: lc.OperatingPoint) -> None:
    st.subheader("Figures")
    systems = result.systems
    det, ape, nbe = st.tabs(["DET", "APE", "Normalised Bayes error"])
    with det:
        show_figure(lambda: lc.plots.det_figure(systems, p_target=op), "fusion_det",
                    "The fusion against each system calibrated alone: ROCCH DET curves, EER and the DCF points.")
    with ape:
        show_figure(lambda: lc.plots.ape_figure(systems), "fusion_ape",
                    "Bayes error against the prior, actual (solid) and after the best monotone recalibration "
                    "(dashed, PAV); the bars split Cllr into discrimination and calibration loss.")
    with nbe:
        show_figure(lambda: lc.plots.normalised_bayes_error_figure(systems, p_target=op),
                    "fusion_nbe", "Actual (solid) and minimum (dashed) DCF at every prior, normalised: below 1 the "
                    "system helps.")


# ----- the page -------------------------------------------------------------------------------------------------------


def main() -> None:
    st.title("Fusion")
    st.caption("Several systems scored on the same trials, fused into one likelihood ratio: does the fusion beat the "
               "best of them calibrated alone on trials it has not seen?")
    systems_column, recipe_column, op_column = st.columns([4, 4, 3], gap="medium")
    with systems_column:
        dev, evaluation, dev_key, eval_key, what = choose_systems()
        quality = choose_fusion_quality(dev)
    with recipe_column:
        rule, plo, regularisation = choose_recipe()
    with op_column, st.container(border=True):
        op = operating_point(presets=False)

    if len(dev) < 2:
        st.info(f"Choose two or more development systems, or click “{DEMO_BUTTON}”.")
        return
    try:
        with st.spinner("Fusing…"):
            result = fused(dev_key, eval_key, rule.alpha, rule.beta, plo, regularisation, op, dev, evaluation, quality)
            plain = quality and fused(dev_key, eval_key, rule.alpha, rule.beta, plo, regularisation, op, dev,
                                      evaluation)
    except ValueError as err:
        st.error(f"These systems cannot be fused: {err}")
        return

    st.markdown(f"Fused {what} with the {describe_rule(rule)} rule, prior weighting P = {lc.sigmoid(plo):.3g}"
                f", regularisation λ = {regularisation:g}.")
    # green only when the fusion wins both ways: by Cllr, and where its LLRs are used (actDCF at the operating point)
    wins = result.beats_best_single and result.beats_at_operating_point
    (st.success if wins else st.warning)(result.sentence(), icon=":material/merge:")
    verdict_cards(result)
    weights_column, download_column = st.columns([3, 1], vertical_alignment="bottom")
    with weights_column:
        show_weights(result)
    part = result.judged_on
    download_column.download_button(
        "Fused scores as CSV", lambda: result.scores_frame(part).to_csv(index=False).encode(),
        file_name=f"fused_{part}.csv", mime="text/csv", icon=":material/download:", key="fusion_csv",
        on_click="ignore", width="stretch", help="The fused LLRs of the judged trials with their ids and labels (read "
                                                 "back by lc.read_trials and by the Data page).")
    download_column.download_button(
        "Fusion as JSON", result.calibrator_json, file_name="fusion.json", mime="application/json",
        icon=":material/data_object:", key="fusion_json", on_click="ignore", width="stretch",
        help="The fusion's weights and offset, named by system, to apply elsewhere: `lc.load_calibrator(path)` or "
             "the numpy-only loader of the documentation (same LLRs, bit for bit).")
    if plain:
        show_fusion_beside_plain(result, plain)
    show_comparison(result, op)
    show_figures(result, op)


if __name__ == "__main__":  # run as a page; a test imports its functions without drawing it
    main()
