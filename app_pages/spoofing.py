"""ASV + countermeasure: a spoofing countermeasure (CM) in front of a speaker verifier (ASV), as ASVspoof judges it.

The user picks the ASV (a loaded system with spoof trials), one or more CMs (loaded binary systems: bona fide as
targets, spoofs as non-targets), the t-DCF formulation and its cost model; the page shows what
``lc.evaluate_tandem`` returns: min t-DCF, CM EER, ASV EER, SPF-EER and the ASV's spoof acceptance, the t-DCF curves,
the per-attack table and bars (a linear EER axis unless asked for a log one), and their CSVs; beside the t-DCF,
ASVspoof 5's t-EER and a-DCF (``lc.sasv_table``) and the t-EER in the organisers' conventions
(``lc.tandem_teer_conventions``);
with the interval toggle on, the bootstrap intervals of every min t-DCF, pooled and per attack
(``TandemEvaluation.bootstrap``), in the cards, the per-attack table and the bars.
"""
from __future__ import annotations

import pandas as pd
import streamlit as st

import llrcore as lc
from app_pages import _state
from app_pages._demos import DEMO_SETS, demo_source, system_demo
from app_pages._figures import show_figure
from app_pages._loaded import SYSTEMS
from app_pages._messages import flash, show_flashes
from app_pages._registry import LoadedSystem
from app_pages._sasv import ADCF, ADCF_HELP, TEER, TEER_HELP, beside_tdcf, pooled, sasv_tables, show_teer_conventions
from app_pages._sasv import summary_beside_tdcf
from app_pages._tables import with_intervals
from app_pages._uncertainty import METHOD, MIN_REPLICATES, run_once

FORMULATIONS = {"revised": "revised (ASVspoof 2021 on)", "legacy": "legacy (ASVspoof 2019)"}
COST_HELP = {"Ptar": "prior of a target trial", "Pnon": "prior of a zero-effort non-target",
             "Pspoof": "prior of a spoofing attack", "Cmiss": "cost of the tandem rejecting a target",
             "Cfa": "cost of the tandem accepting a non-target", "Cfa_spoof": "cost of the tandem accepting a spoof",
             "Cmiss_asv": "cost of the ASV rejecting a target", "Cfa_asv": "cost of the ASV accepting a non-target",
             "Cmiss_cm": "cost of the CM rejecting bona fide speech", "Cfa_cm": "cost of the CM accepting a spoof"}
LEVEL, REPLICATES = 0.95, 1000  # the bootstrap intervals of the min t-DCF (the replicates by default)


def kept() -> dict:
    """The page's choices of systems and intervals, kept across page switches: ``{"asv": id, "cms": [ids], "ci",
    "replicates"}``."""
    return _state.TANDEM_KEPT.get({"asv": None, "cms": None, "ci": False, "replicates": REPLICATES})


# ----- choices -----------------------------------------------------------------------------------------------------


def cm_demos(part: str):
    return [demo for demo in DEMO_SETS if demo.name.startswith("ASVspoof19 LA CM") and demo.name.endswith(f"({part})")]


def _on_load_cms(part: str) -> None:
    loaded = {system.source for system in SYSTEMS.sets().values()}
    added = []
    with st.spinner(f"Loading the ASVspoof 2019 LA CM systems ({part})…"):
        for demo in cm_demos(part):
            if demo_source(demo) not in loaded:
                added.append(SYSTEMS.add(demo.name, system_demo(demo)))
    sets = SYSTEMS.sets()
    kept()["cms"] = [system.id for system in sets.values() if system.source in {demo_source(d) for d in cm_demos(part)}]
    _state.TANDEM_CMS.pop()  # the multiselect takes the kept choice on this run
    flash(f"Added {', '.join(added)}." if added else "The four CM systems were already loaded.")


def choose_systems() -> tuple[str | None, list[str]]:
    """The ASV (with spoof trials) and the CMs (binary systems without), the choice kept across pages by id."""
    sets, memory = SYSTEMS.sets(), kept()
    ids = {name: system.id for name, system in sets.items()}
    asv_options = [name for name, system in sets.items() if system.trials.spoof.size]
    cm_options = [name for name, system in sets.items() if not system.trials.spoof.size]
    if not asv_options:
        st.warning("No loaded system has spoof trials to serve as the ASV: add the ASVspoof 2019 LA ASV demo on the "
                   "Data page, or upload an ASV score file with spoof trials.")
        return None, []
    if _state.TANDEM_ASV.peek() not in asv_options:
        remembered = [n for n in asv_options if ids[n] == memory["asv"]]
        evaluation = [n for n in asv_options if sets[n].role == "evaluation"]
        _state.TANDEM_ASV.set((remembered or evaluation or asv_options)[0])
    if _state.TANDEM_CMS.is_set():
        _state.TANDEM_CMS.set([n for n in _state.TANDEM_CMS.get() if n in cm_options])
    else:
        _state.TANDEM_CMS.set([n for n in cm_options if ids[n] in memory["cms"]] if memory["cms"] is not None
                              else [n for n in cm_options if "attack" in sets[n].trials.conditions])
    asv_column, button_column, _ = st.columns([2, 2, 1], vertical_alignment="bottom")
    asv = asv_column.selectbox("ASV system", asv_options, key=_state.TANDEM_ASV.name,
                               help="A speaker verifier whose score file has target, non-target and spoof trials.")
    cms = st.multiselect("Countermeasures", cm_options, key=_state.TANDEM_CMS.name,
                         placeholder="Choose CM systems (bona fide = target, spoof = non-target)",
                         help="Binary systems: bona fide trials as targets, spoofs as non-targets.")
    part = "dev" if sets[asv].role == "development" else "eval"
    button_column.button(f"Load the 4 ASVspoof 2019 LA CMs ({part})", key="tandem_load", on_click=_on_load_cms,
                         args=(part,), icon=":material/add:", width="stretch",
                         help="LFCC-GMM and three RawNet2 systems, on the same part as the ASV "
                         "(assets/asvspoof2019_la_cm).")
    memory["asv"], memory["cms"] = ids[asv], [ids[n] for n in cms]
    offer_split(asv)
    return asv, cms


def offer_split(asv: str) -> None:
    """An ASVspoof 5 SASV file chosen as the ASV: its a-DCF is the tandem's own; its CM and ASV scores can be split
    out as two systems, so that the t-EER and the t-DCF are those of the file's own CM and ASV."""
    system = SYSTEMS.sets()[asv]
    if not {lc.CM_SCORE, lc.ASV_SCORE} <= set(system.trials.conditions):
        return
    text, button = st.columns([4, 1], vertical_alignment="center")
    own = own_a_dcf(system.id, system.trials)
    text.info(f"{asv} is an ASVspoof 5 SASV file: min a-DCF of its SASV scores **{own:.4f}** (the tandem's own, "
              "ASVspoof 5's primary metric). Its cm-score and asv-score columns are a CM and an ASV: split them out "
              "for their t-EER and t-DCF.", icon=":material/call_split:")
    button.button("Split into CM and ASV", key="tandem_split", on_click=_on_split, args=(asv,), width="stretch",
                  help="Adds two systems, '<name> CM' (bona fide: the target and non-target trials) and "
                       "'<name> ASV', and chooses them (lc.sasv_parts).")


@_state.cached()
def own_a_dcf(system_id: str, _trials: lc.Trials) -> float:
    return lc.a_dcf(_trials.tar, _trials.non, _trials.spoof).minimum


def _on_split(name: str) -> None:
    system = SYSTEMS.sets()[name]
    try:
        cm, asv = lc.sasv_parts(system.trials)
    except ValueError as error:
        flash(str(error), "error")
        return
    labels = [SYSTEMS.add(f"{name} {part}", LoadedSystem(trials, system.source, system.role))
              for part, trials in (("CM", cm), ("ASV", asv))]
    sets = SYSTEMS.sets()
    kept()["cms"], kept()["asv"] = [sets[labels[0]].id], sets[labels[1]].id
    for key in (_state.TANDEM_ASV, _state.TANDEM_CMS):  # the widgets take the kept choice on this run
        key.pop()
    flash(f"Added {labels[0]} and {labels[1]}.")


def choose_costs() -> tuple[str, dict]:
    """The t-DCF formulation and its cost model: the organisers' defaults, editable, kept across pages."""
    formulation_column, defaults_column = st.columns([4, 1], vertical_alignment="bottom")
    formulation = formulation_column.radio("t-DCF formulation", list(FORMULATIONS), format_func=FORMULATIONS.get,
                                           horizontal=True, **_state.TANDEM_FORMULATION.widget("revised"))
    defaults_column.button("Organisers' costs", key="tandem_defaults", icon=":material/restart_alt:",
                           on_click=_on_default_costs, args=(formulation,), width="stretch",
                           help="Put back the priors and costs of the organisers' evaluation code.")
    organisers = lc.tdcf_cost_model(formulation)
    st.caption("Priors and costs of the t-DCF (the organisers' by default; the three priors add up to 1).")
    costs = {name: column.number_input(name, min_value=0.0, step=0.0001 if name.startswith("P") else 1.0,
                                       format="%.4f", **_state.TANDEM_COST[f"{formulation}_{name}"].widget(value),
                                       help=COST_HELP[name])
             for column, (name, value) in zip(st.columns(len(organisers)), organisers.items())}
    return formulation, costs


def _on_default_costs(formulation: str) -> None:
    for name in lc.tdcf_cost_model(formulation):
        _state.TANDEM_COST[f"{formulation}_{name}"].reset()


# ----- results -----------------------------------------------------------------------------------------------------


@_state.cached()
def measured(cm_id: str, asv_id: str, by: str | None, name: str, _cm, _asv, _formulation: str, _costs: tuple):
    """One CM's tandem evaluation, computed once per pair of systems: its EERs, rates and per-attack trials do not
    depend on the t-DCF (judged first by the one the page shows then)."""
    return lc.evaluate_tandem(_cm, _asv, formulation=_formulation, cost_model=dict(_costs), by=by, name=name)


@_state.cached(entries=64)
def tandem(cm_id: str, asv_id: str, formulation: str, costs: tuple, by: str | None, name: str, _cm, _asv):
    """One CM's tandem evaluation judged by the t-DCF of (formulation, costs): a new formulation or cost computes
    only each row's t-DCF again."""
    return measured(cm_id, asv_id, by, name, _cm, _asv, formulation, costs).judged(formulation=formulation,
                                                                                     cost_model=dict(costs))


def evaluations(asv_name: str, cm_names: list[str], formulation: str, costs: dict) -> dict[str, lc.TandemEvaluation]:
    sets = SYSTEMS.sets()
    asv = sets[asv_name]
    results, refused = {}, {}
    for name in cm_names:
        cm = sets[name]
        by = "attack" if {"attack"} <= set(cm.trials.conditions) & set(asv.trials.conditions) else None
        try:
            results[name] = tandem(cm.id, asv.id, formulation, tuple(costs.items()), by, name, cm.trials, asv.trials)
        except ValueError as error:
            refused.setdefault(str(error), []).append(name)
            continue
        if by is None:
            st.caption(f"{lc.report.escape_markdown(name)}: no per-attack results (no 'attack' column in both files).")
    for message, names in refused.items():  # a bad cost model is said once, not once per CM
        who = f"{lc.report.escape_markdown(lc.report.listed(names))}: " if len(names) < len(cm_names) else ""
        st.error(who + message, icon=":material/error:")
    return results


def intervals(asv_name: str, results: dict[str, lc.TandemEvaluation], formulation: str, costs: dict,
              replicates: int) -> dict[str, lc.TandemIntervals]:
    """Each CM's bootstrap intervals of the min t-DCF, pooled and per attack, run once per (systems, formulation,
    costs) in this session with a progress bar."""
    sets = SYSTEMS.sets()
    asv = sets[asv_name]
    return {name: run_once(("tandem", sets[name].id, asv.id, formulation, tuple(costs.items()), result.by,
                            replicates), f"Bootstrap of {name}'s min t-DCF" + (" per attack" if result.attacks else ""),
                           lambda progress, result=result: result.bootstrap(replicates, LEVEL, progress=progress))
            for name, result in results.items()}


def _on_interval_choice(key: str, widget: str) -> None:
    kept()[key] = _state.Key(widget).get()


def interval_controls() -> int | None:
    """The interval toggle and its replicates, kept across pages; the replicates when intervals are on, else None."""
    memory = kept()
    toggle_column, replicates_column, _ = st.columns([4, 1, 1], vertical_alignment="bottom")
    on = toggle_column.toggle(f"{100 * LEVEL:g} % confidence interval of each min t-DCF, pooled and per attack "
                              "(bootstrap)", value=memory["ci"], key="tandem_ci", on_change=_on_interval_choice,
                              args=("ci", "tandem_ci"), help="Each row's trials drawn again with replacement, many "
                              "times: the CM's bona fide and spoofed trials, the ASV's targets, non-targets and "
                              "spoofs, apart; the ASV threshold held.")
    replicates = replicates_column.number_input("Replicates", MIN_REPLICATES, 10_000, memory["replicates"], step=100,
                                                key="tandem_replicates", on_change=_on_interval_choice,
                                                args=("replicates", "tandem_replicates"),
                                                help=f"Bootstrap replicates of every row: {MIN_REPLICATES} for a first "
                                                "look in seconds; more give steadier limits and take longer.")
    return int(replicates) if on else None


def asv_metrics(result: lc.TandemEvaluation, sasv: pd.DataFrame) -> None:
    with st.container(border=True, key="tandem_asv_alone"):
        st.markdown("**The ASV alone** (the same in front of every CM)")
        eer, spf, spoof_fa, threshold, adcf = st.columns(5)
        eer.metric("ASV EER", f"{100 * result.asv_eer:.2f} %", help="Targets against zero-effort non-targets "
                   "(ROCCH-EER).")
        spf.metric("SPF-EER", f"{100 * result.spf_eer:.2f} %", help="Targets against spoofing attacks (ROCCH-EER).")
        spoof_fa.metric("ASV spoof FA", f"{100 * result.spoof_false_alarm:.2f} %",
                        help="The share of spoofing attacks the ASV accepts at its threshold, without a CM.")
        threshold.metric("ASV threshold", f"{result.asv_threshold:.4g}", help="The ASV's EER threshold (the "
                         "organisers' convention); accept when score ≥ threshold.")
        adcf.metric("min a-DCF", f"{pooled(sasv)[ADCF]:.4f}", help=ADCF_HELP)


def cm_cards(results: dict[str, lc.TandemEvaluation], ranges: dict[str, lc.TandemIntervals],
             sasv: dict[str, pd.DataFrame]) -> None:
    per_row = min(len(results), 4)
    items = list(results.items())
    for start in range(0, len(items), per_row):
        for offset, (column, (name, result)) in enumerate(zip(st.columns(per_row), items[start:start + per_row])):
            with column.container(border=True, key=f"tandem_cm_{start + offset}"):
                st.markdown(f"**{lc.report.escape_markdown(name)}**")
                dcf, eer = st.columns(2)
                dcf.metric("min t-DCF", f"{result.min_tdcf:.4f}",
                           help=f"Normalised minimum {result.formulation} t-DCF over the CM thresholds.")
                eer.metric("CM EER", f"{100 * result.cm_eer:.2f} %", help="Bona fide against all spoofs (ROCCH-EER).")
                st.columns(2)[0].metric("t-EER", f"{pooled(sasv[name])[TEER]:.2f} %", help=TEER_HELP)
                if name in ranges:
                    lower, upper = ranges[name].interval()
                    st.container(key=f"tandem_ci_{start + offset}").caption(
                        f"min t-DCF, {100 * LEVEL:g} % {METHOD} interval: **{lower:.4f} – {upper:.4f}** "
                        f"({ranges[name].n:,} bootstrap replicates; the CM's and the ASV's trials drawn apart, the ASV "
                        "threshold kept)")


def show_table(results: dict[str, lc.TandemEvaluation], sasv: dict[str, pd.DataFrame]) -> None:
    table = summary_beside_tdcf(lc.tandem_table(results), sasv)
    st.dataframe(table, hide_index=True, width="stretch", column_config={
        column: st.column_config.NumberColumn(format="%.4f" if "DCF" in column or "threshold" in column else "%.2f")
        for column in table.columns if table[column].dtype.kind == "f"})
    st.download_button("Metrics as CSV", table.to_csv(index=False).encode(), file_name="tandem_metrics.csv",
                       mime="text/csv", icon=":material/download:", key="tandem_metrics_csv",
                       on_click="ignore")


def attack_frame(name: str, result: lc.TandemEvaluation, ranges: dict[str, lc.TandemIntervals],
                 sasv: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """One CM's per-attack table, with the limits of its intervals when they were drawn, the t-EER and a-DCF."""
    return beside_tdcf((ranges[name] if name in ranges else result).to_frame(), sasv[name])


def attack_table(frame: pd.DataFrame, replicates: int | None) -> None:
    """The per-attack table; a min t-DCF with limits is written ``0.1503 [0.1410, 0.1603]``."""
    shown = with_intervals(frame)
    ci_help = (f"With its {100 * LEVEL:g} % {METHOD} bootstrap interval ({replicates:,} replicates of this row's "
               "trials)."
               if replicates else None)
    st.dataframe(shown, hide_index=True, width="stretch", height=35 * (len(shown) + 1) + 3, column_config={
        **{c: st.column_config.NumberColumn(format="%.2f") for c in shown.columns if c.endswith("%")},
        "min t-DCF": (st.column_config.TextColumn(help=ci_help) if ci_help else
                      st.column_config.NumberColumn(format="%.4f")),
        "CM threshold": st.column_config.NumberColumn(format="%.4g"),
        TEER: st.column_config.NumberColumn(format="%.2f", help=TEER_HELP),
        ADCF: st.column_config.NumberColumn(format="%.4f", help=ADCF_HELP),
        **{c: st.column_config.NumberColumn(format="localized") for c in ("bona fide", "spoof (CM)", "spoof (ASV)")}})


def attack_caption(ranges: dict[str, lc.TandemIntervals]) -> str:
    """How the per-attack rows are made, and their intervals when drawn."""
    text = ("Every row keeps all bona fide trials and one attack's spoofs; the ASV threshold stays the pooled one and "
            "the CM threshold is the best for that attack. The t-EER needs no threshold; the min a-DCF is the ASV's "
            "alone on that attack's spoofs (ASVspoof 5's cost model).")
    if not ranges:
        return text
    return (f"{text} The {100 * LEVEL:g} % {METHOD} interval of each min t-DCF draws that row's trials again "
            f"({next(iter(ranges.values())).n:,} times; the CM's bona fide and spoofed trials and the ASV's targets, "
            "non-targets and spoofs apart), the ASV threshold held at the pooled one. The CM EER per attack has its "
            "intervals on Evaluate (break down by attack).")


def show_attacks(results: dict[str, lc.TandemEvaluation], ranges: dict[str, lc.TandemIntervals],
                 sasv: dict[str, pd.DataFrame]) -> None:
    broken_down = {name: result for name, result in results.items() if result.attacks}
    if not broken_down:
        return
    st.subheader("Per attack")
    st.caption(attack_caption(ranges))
    frames = {name: attack_frame(name, result, ranges, sasv) for name, result in broken_down.items()}
    for tab, (name, result) in zip(st.tabs(list(broken_down)), broken_down.items()):
        with tab:
            attack_table(frames[name], ranges[name].n if name in ranges else None)
            for note in result.notes():
                st.caption(f":material/warning: {lc.report.escape_markdown(note)}")
    log_column, _ = st.columns([1, 4])
    log_eer = log_column.toggle("Logarithmic EER axis", value=False, key="tandem_log_eer",
                                help="Per-attack EERs spanning decades read better on a log axis, but there a bar's "
                                "length is not proportional to its EER.")
    bars = "" if not ranges else f" Black whiskers: {100 * LEVEL:g} % {METHOD} bootstrap intervals of the min t-DCF."
    show_figure(lambda: lc.plots.attack_bars_figure(broken_down, log_eer=log_eer, intervals=ranges), "tandem_attacks",
                "Top: each CM's EER against one attack; middle: the share of that attack the ASV accepts on its own; "
                "bottom: each CM's min t-DCF with that attack's spoofs." + bars,
                data=lambda: pd.concat([frame.assign(system=name) for name, frame in frames.items()]))


# ----- the page ----------------------------------------------------------------------------------------------------

st.title("ASV + countermeasure")
st.caption("A spoofing countermeasure (CM) in front of a speaker verifier (ASV): the tandem detection cost (t-DCF) "
           "of ASVspoof, the EERs of each, and what every attack does to them.")


def main() -> None:
    show_flashes()
    with st.container(border=True):
        asv, cms = choose_systems()
        formulation, costs = choose_costs()
    if asv is None:
        return
    if not cms:
        st.info("Choose at least one countermeasure, or load the four ASVspoof 2019 LA CMs with the button above.")
        return
    with st.spinner("Computing the t-DCF…"):
        results = evaluations(asv, cms, formulation, costs)
    if not results:
        return
    with st.spinner("Computing the t-EER and the a-DCF…"):
        sasv = sasv_tables(asv, results)
    asv_metrics(next(iter(results.values())), next(iter(sasv.values())))
    replicates = interval_controls()
    ranges = intervals(asv, results, formulation, costs, replicates) if replicates else {}
    cm_cards(results, ranges, sasv)
    show_table(results, sasv)
    show_teer_conventions(asv, results)

    st.subheader("t-DCF curve")
    axis_column, _ = st.columns([2, 3])
    x_axis = axis_column.segmented_control("Horizontal axis", list(lc.plots.TDCF_X_AXES), default="threshold",
                                           key="tandem_x_axis", format_func={"threshold": "CM threshold",
                                                                             "miss": "CM miss rate"}.get) or "threshold"
    show_figure(lambda: lc.plots.tdcf_figure(results, x_axis=x_axis), "tandem_tdcf",
                "Normalised t-DCF over the CM thresholds; diamonds: each CM's minimum. Dashed: 1, the better CM "
                "that decides without looking; dotted: the floor, a perfect CM behind this ASV (revised only).",
                data=lambda: pd.concat([r.tdcf.to_frame().assign(system=n) for n, r in results.items()]))
    show_attacks(results, ranges, sasv)


main()
