"""Compare rules: evaluation Cprimary (or DCF) of affine calibrations trained with several proper scoring rules, as a
function of the prior weighting — fig. 2 of Brümmer & Doddington (Interspeech 2013).

The sweep trains one calibration per (rule, prior weighting) — times the folds under cross-validation — so it is
kept in the session, keyed by its settings: changing a figure option or coming back to the page does not run it again.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np
import streamlit as st

import llrcore as lc
from app_pages import _state
from app_pages._loaded import SYSTEMS
from app_pages._calibration_controls import CROSS_VALIDATION, CUSTOM_RULE, RULES, choose_sets, custom_rule
from app_pages._figures import show_figure
from app_pages._operating_point import operating_point
from app_pages._units import current as llr_units

COSTS = ("Cprimary", "My DCF")
RULES_CAPTION = (
    "Logarithmic = logistic regression: its weight over LLR thresholds peaks halfway to −τ; Brier and the "
    "asymmetric (2, 1) rule peak near −τ; boosting's weight is a bell around threshold 0, whatever the prior "
    "weighting τ."
)
AUTO_RUN_BUDGET = 1_000_000  # trials x fits (the default ASVspoof sweep: 0.5M); above this the sweep waits for a click
KEPT_SWEEPS = 8  # the sweeps the server keeps


# ----- controls -------------------------------------------------------------------------------------------------------


def choose_rules() -> list[lc.BetaRule]:
    with st.container(border=True):
        st.markdown("**Scoring rules**")
        labels = st.multiselect("Rules", [*RULES, CUSTOM_RULE], **_state.CMP_RULES.widget(list(RULES)),
                                label_visibility="collapsed", placeholder="Choose the rules to compare")
        rules = [RULES[label] for label in labels if label in RULES]
        if CUSTOM_RULE in labels:
            custom = custom_rule("cmp")
            if custom not in rules:
                rules.append(custom)
        st.caption(RULES_CAPTION)
    return rules


def choose_grid() -> np.ndarray:
    with st.container(border=True):
        st.markdown("**Prior weightings τ**")
        low, high = st.slider("Range of τ = logit(P)", -12.0, 6.0, step=0.5, **_state.CMP_RANGE.widget((-8.0, 0.0)))
        points = st.slider("Points", 3, 41, **_state.CMP_POINTS.widget(17))
        grid = np.linspace(low, high, points) if high > low else np.array([low])
        st.caption(f"P from {lc.sigmoid(grid[0]):.2g} to {lc.sigmoid(grid[-1]):.2g}.")
    return grid


def _thresholds_text(points: Sequence[lc.OperatingPoint]) -> str:
    """``"+4.60 (P_target = 0.01) and +6.91 (P_target = 0.001)"``: the Bayes thresholds of the operating `points`
    that the weighting figure draws."""
    return " and ".join(
        f"{op.threshold:+.2f} (P_target = {op.p_target:g}"
        + ("" if op.c_miss == op.c_fa == 1 else f", C_miss = {op.c_miss:g}, C_fa = {op.c_fa:g}") + ")"
        for op in points)


def cprimary_caption(p_targets) -> str:
    """What Cprimary is, with the Bayes thresholds of its priors (those the Threshold weighting tab draws)."""
    thresholds = _thresholds_text([lc.OperatingPoint(p) for p in p_targets])
    return (f"NIST SRE'12: the mean actual DCF at {len(p_targets)} operating points (C_miss = C_fa = 1), Bayes "
            f"thresholds at LLR {thresholds}: the low false-alarm region. The Threshold weighting "
            "tab draws them.")


def weighting_caption(points: Sequence[lc.OperatingPoint]) -> str:
    """The caption of the threshold-weighting figure drawn at these operating `points`."""
    return ("Where each rule puts its weight over LLR thresholds at this prior weighting, against the Bayes "
            f"threshold{'s' if len(points) > 1 else ''} {_thresholds_text(points)}.")


def choose_cost() -> tuple[tuple[float, ...], float, float]:
    """``(p_targets, c_miss, c_fa)`` of the cost to compare the calibrations by."""
    with st.container(border=True):
        st.markdown("**Judged by**")
        cost = st.segmented_control("Cost", COSTS, **_state.CMP_COST.widget(COSTS[0]),
                                    label_visibility="collapsed") or COSTS[0]
        if cost == COSTS[0]:
            st.caption(cprimary_caption(lc.SRE12_P_TARGETS))
            return lc.SRE12_P_TARGETS, 1.0, 1.0
        op = operating_point("Your operating point", presets=False, compact=True)
        return (op.p_target,), op.c_miss, op.c_fa


# ----- the sweep (it reports progress, so it is kept in a store, _state.store, keyed by the systems' ids) -------------


def sweep_key(train, evaluation, folds, rules, grid, cost) -> tuple:
    loaded = SYSTEMS.sets()
    return (loaded[train].id, None if evaluation is None else loaded[evaluation].id, folds,
            tuple((rule.alpha, rule.beta) for rule in rules), tuple(np.round(grid, 9)), cost)


def stored_sweep(key):
    return _state.store("rule sweeps", KEPT_SWEEPS).get(key)


def run_sweep(key, train, evaluation, folds, rules, grid, cost) -> lc.RuleSweep:
    loaded = SYSTEMS.sets()
    bar = st.progress(0.0, text="Training the calibrations…")

    def progress(done: int, total: int) -> None:
        bar.progress(done / total, text=f"Training the calibrations… {done} of {total}")

    p_targets, c_miss, c_fa = cost
    sweep = lc.sweep_prior_weighting(
        loaded[train].trials, None if evaluation is None else loaded[evaluation].trials, rules, grid,
        p_target=p_targets, c_miss=c_miss, c_fa=c_fa, folds=folds, progress=progress,
    )
    bar.empty()
    _state.store("rule sweeps", KEPT_SWEEPS).put(key, sweep)
    return sweep


def work(train: str, evaluation: str | None, folds: int, n_fits: int) -> int:
    """Trials times fits: what a sweep costs (a fit is a few passes over its training trials)."""
    trials = SYSTEMS.sets()[train].trials
    return len(trials) * n_fits * (folds if evaluation is None else 1)


# ----- results --------------------------------------------------------------------------------------------------------


def _on_calibrate_with(rule: lc.BetaRule, plo: float, train: str, evaluation: str | None) -> None:
    """Set the Calibrate page's controls to this (rule, prior weighting) and the same trials."""
    label = next((label for label, named in RULES.items() if named == rule), CUSTOM_RULE)
    for key, value in ((_state.CAL_METHOD, "Affine (scoring rule)"), (_state.CAL_RULE, label),
                       (_state.CAL_WEIGHT_AS, "log-odds"), (_state.CAL_WEIGHT_PLO, float(plo)),
                       (_state.CAL_WEIGHT_P, float(lc.sigmoid(plo))), (_state.CAL_TRAIN, train),
                       (_state.CAL_EVAL, CROSS_VALIDATION if evaluation is None else evaluation)):
        key.set(value)
    if label == CUSTOM_RULE:
        _state.RULE_ALPHA["cal"].set(rule.alpha)
        _state.RULE_BETA["cal"].set(rule.beta)
    _state.CMP_GO_CALIBRATE.set(True)


def best_summary(sweep: lc.RuleSweep) -> None:
    best = sweep.best
    name = sweep.cost_name
    st.success(
        f"Lowest {name}: **{best['cost']:.3f}** with the **{best['rule']}** rule at prior weighting "
        f"P = {best['p_weight']:.3g} (τ = {best['plo']:+.2f}); the scores as they are: {sweep.raw_cost:.3f}; "
        f"the floor with the evaluation labels (PAV): {sweep.min_cost:.3f}.",
        icon=":material/star:",
    )
    show_collapsed(sweep)
    if (sweep.usable["cllr"] > 1).any():
        worst = sweep.usable.loc[sweep.usable["cllr"].idxmax()]
        st.caption(
            f"Some calibrations are degenerate: e.g. {worst['rule']} at τ = {worst['plo']:+.1f} has Cllr "
            f"{worst['cllr']:.3g} bits. A thin-tailed rule weighted at a very low prior looks only at the highest "
            "training scores and can turn into a step; with few training trials there, it over-fits (the paper's "
            "caveat: small training sets)."
        )


def best_error(sweep: lc.RuleSweep) -> str:
    """Why a sweep has no best: the library's sentence."""
    try:
        sweep.best
    except ValueError as err:
        return str(err)
    return ""


def show_collapsed(sweep: lc.RuleSweep) -> None:
    """The calibrations whose fit collapsed (``collapsed`` in the sweep's table): never the best, not drawn."""
    collapsed = int(sweep.frame["collapsed"].sum())
    if collapsed:
        st.warning(f"**{collapsed} of {len(sweep.frame)} calibrations failed:** their fit (or that of a "
                   "cross-validation fold) collapsed, every ordinary trial getting the same LLR, because a score lies "
                   "far away on the wrong side of the others. They are left out of the figure and of the best, and "
                   "marked *collapsed* in the table of every calibration.", icon=":material/error:")


def best_per_rule(sweep: lc.RuleSweep):
    frame = sweep.usable
    rows = frame.loc[frame.groupby("rule", sort=False)["cost"].idxmin()]
    table = rows[["rule", "alpha", "beta", "plo", "p_weight", "cost", "cllr"]].rename(
        columns={"plo": "best τ", "p_weight": "best P", "cost": sweep.cost_name, "cllr": "Cllr (bits)"})
    return table.sort_values(sweep.cost_name).reset_index(drop=True)


def show_tables(sweep: lc.RuleSweep) -> None:
    st.dataframe(best_per_rule(sweep), hide_index=True, width="stretch", column_config={
        "best τ": st.column_config.NumberColumn(format="%+.2f"),
        "best P": st.column_config.NumberColumn(format="%.3g"),
        sweep.cost_name: st.column_config.NumberColumn(format="%.4f"),
        "Cllr (bits)": st.column_config.NumberColumn(format="%.4f"),
    })
    every_calibration(sweep)


def every_calibration(sweep: lc.RuleSweep) -> None:
    """The sweep's whole table, a collapsed fit marked in its ``collapsed`` column, and its CSV."""
    with st.expander("Every calibration of the sweep"):
        st.dataframe(sweep.frame, hide_index=True, width="stretch")
        st.download_button("Sweep as CSV", sweep.frame.to_csv(index=False).encode(), file_name="rule_sweep.csv",
                           mime="text/csv", icon=":material/download:", key="cmp_download", on_click="ignore")


def show_weighting(sweep: lc.RuleSweep, rules) -> None:
    taus = sorted(set(sweep.frame["plo"]))
    if _state.CMP_WEIGHT_TAU_OF.peek() is not sweep:  # a new sweep opens on its best weighting
        _state.CMP_WEIGHT_TAU_OF.set(sweep)
        _state.CMP_WEIGHT_TAU.set(float(sweep.best["plo"]))
    tau = st.select_slider("Prior weighting τ", taus, key=_state.CMP_WEIGHT_TAU.name,
                           format_func=lambda v: f"{v:+.2f}")
    points = [lc.OperatingPoint(p, sweep.c_miss, sweep.c_fa) for p in sweep.p_targets]
    weightings = lc.threshold_weightings(rules, tau, p_target=tuple(sweep.p_targets), c_miss=sweep.c_miss,
                                      c_fa=sweep.c_fa)
    show_figure(
        lambda: lc.plots.threshold_weighting_figure(weightings, highlight=str(sweep.best["rule"]), units=llr_units()),
        "compare_threshold_weighting", weighting_caption(points),
        data=weightings.to_frame,
    )


# ----- the page -------------------------------------------------------------------------------------------------------


def main() -> None:
    st.title("Compare scoring rules")
    st.caption("Which proper scoring rule and prior weighting give the best calibration where it matters? Each point "
               "is an affine calibration trained on the training set and judged on the evaluation set "
               "(Brümmer & Doddington, Interspeech 2013, fig. 2).")
    if _state.CMP_GO_CALIBRATE.pop():
        st.switch_page("app_pages/calibrate.py")
    if not SYSTEMS.sets():
        st.info("Nothing is loaded yet.")
        st.page_link("app_pages/data.py", label="Load score files or demo sets on the Data page",
                     icon=":material/upload_file:")
        return

    sets_column, rules_column, grid_column, cost_column = st.columns([4, 4, 3, 3], gap="medium")
    with sets_column:
        train, evaluation, folds = choose_sets()
    with rules_column:
        rules = choose_rules()
    with grid_column:
        grid = choose_grid()
    with cost_column:
        cost = choose_cost()
    if not rules:
        st.info("Choose at least one scoring rule.")
        return

    key = sweep_key(train, evaluation, folds, rules, grid, cost)
    sweep = stored_sweep(key)
    if sweep is None:
        n_fits = len(rules) * grid.size
        needed = work(train, evaluation, folds, n_fits)
        if needed > AUTO_RUN_BUDGET and not st.button(
            f"Run the sweep: {n_fits * (folds if evaluation is None else 1):,} calibrations", key="cmp_run",
            type="primary", icon=":material/play_arrow:",
        ):
            st.info("This sweep trains many calibrations on many trials (cross-validation trains one per fold) and "
                    "takes a while: start it with the button, or use fewer points or folds.")
            return
        try:
            sweep = run_sweep(key, train, evaluation, folds, rules, grid, cost)
        except ValueError as err:
            st.error(f"The sweep could not be run: {err}")
            return
    if sweep.usable.empty:  # every fit collapsed: no best, no curve
        st.error(f"**This sweep failed.** {best_error(sweep)}", icon=":material/error:")
        every_calibration(sweep)
        return

    best_summary(sweep)
    best = sweep.best
    best_rule = next(rule for rule in rules if rule.name == best["rule"])
    st.button(f"Calibrate with {best['rule']} at P = {best['p_weight']:.3g}", key="cmp_use_best",
              icon=":material/tune:", on_click=_on_calibrate_with, args=(best_rule, float(best["plo"]), train,
                                                                         evaluation))
    cost_tab, weighting_tab = st.tabs([f"{sweep.cost_name} against the prior weighting", "Threshold weighting"])
    with cost_tab:
        show_figure(lambda: lc.plots.rule_comparison_figure(dataclasses.replace(sweep, frame=sweep.usable)),
                    "rule_comparison",
                    "Each curve: one rule; each point: an affine calibration trained with that rule and prior "
                    "weighting on the training trials, judged on the evaluation trials. The star is the best; dashed: "
                    "the floor any monotone calibration could reach knowing the evaluation labels.",
                    data=lambda: sweep.frame)
        show_tables(sweep)
    with weighting_tab:
        show_weighting(sweep, rules)


if __name__ == "__main__":  # run as a page
    main()
