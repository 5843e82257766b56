"""Conditions and confidence: the "Break down by" and confidence-interval controls, and the bootstrap runs behind
them, kept per session so that a rerun (a tab switch, a toggle) never draws the replicates again.

The replicates are drawn by the library (:func:`llrcore.bootstrap`); a run reports its progress on the page.
"""
from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

import llrcore as lc
from app_pages import _operating_point, _state
from app_pages._loaded import SYSTEMS

METHOD = lc.INTERVAL_METHODS[lc.DEFAULT_INTERVAL_METHOD]  # "BCa": how every interval the app shows is made
ONE_BY_ONE = "trials one by one"
LEVELS = (0.9, 0.95, 0.99)
BOOTSTRAP_RUNS = 64  # the bootstrap runs the server keeps (a run per system, condition and setting shown)
MIN_REPLICATES = 20  # a first look takes seconds; the limits steady with more (1,000 by default)
#: The controls' widget keys and first values; their values are kept for the session in _state.UNCERTAINTY_SETTINGS
#: (their widgets' state is not).
DEFAULTS = {"unc_by": [], "unc_on": False, "unc_reps": 1000, "unc_level": 0.95, "unc_group": ONE_BY_ONE}


@dataclass(frozen=True)
class Settings:
    """What the user asked for: conditions (may be empty) and, if intervals are on, how to draw them."""

    by: tuple[str, ...]
    intervals: bool
    replicates: int
    level: float
    group_by: str | None
    primary: str = "SRE12"  # the evaluation whose P_targets Cprimary averages


def metadata_columns(chosen: dict[str, lc.Trials]) -> list[str]:
    """The metadata columns any chosen system has, in order of first appearance."""
    return list(dict.fromkeys(c for trials in chosen.values() for c in trials.conditions))


def condition_columns(*systems: lc.Trials) -> lc.ConditionColumns:
    """``lc.condition_columns`` of these systems, cached: every rerun of a page with conditions asks, and a column of
    ids (one value per trial) costs a pass over the text of every trial."""
    return _condition_columns(tuple(map(id, systems)), systems)[1]


@_state.cached(entries=32)
def _condition_columns(key: tuple[int, ...], _systems: tuple[lc.Trials, ...]):
    """Keyed by the ``id()`` of each Trials (never hashed); the entry holds the Trials, so that their ids cannot be
    reused while it exists."""
    return _systems, lc.condition_columns(_systems)


def break_down_by(columns: list[str], *, key: str, container=None, **options) -> tuple[str, ...]:
    """The "Break down by" choice of metadata columns (none chosen: no breakdown), in `container` (default: the
    page); `options` go to the multiselect (e.g. ``persist_state="session"``)."""
    return tuple((container or st).multiselect(
        "Break down by", columns, key=key, placeholder="No condition" if columns else "No metadata column",
        disabled=not columns, help="Metrics per value of a column of the score files (gender, language, attack, "
        "...); several columns are crossed. Trials with no value (empty or '-') count in every condition.",
        **options))


def _keep(key: str) -> None:
    _state.UNCERTAINTY_SETTINGS.get()[key] = _state.Key(key).get()


def _kept() -> dict:
    return {**DEFAULTS, **_state.UNCERTAINTY_SETTINGS.get()}


def bootstrap_settings() -> tuple[int, float]:
    """The session's bootstrap replicates and level, as last set in any page's Replicates and Level controls."""
    kept = _kept()
    return int(kept["unc_reps"]), float(kept["unc_level"])


def _restore(conditions: list[str], columns: list[str]) -> None:
    """Set the controls' widgets from the session's settings before they are drawn: a page switch deletes the state
    of widgets the new page does not draw, so widget keys alone forgot the choices. A column the chosen systems lack
    (or do not have as a condition) is left out of the view but kept in the settings (it returns with a system that
    has it)."""
    kept = _kept()
    kept["unc_by"] = [c for c in kept["unc_by"] if c in conditions]
    if kept["unc_group"] not in columns:
        kept["unc_group"] = ONE_BY_ONE
    for key, value in kept.items():
        _state.Key(key).set(value)


def controls(chosen: dict[str, lc.Trials]) -> Settings:
    """The controls, in one bordered row; their choices stay for the session (shared by the pages that draw them)."""
    columns = metadata_columns(chosen)
    conditions = condition_columns(*chosen.values())
    _restore(conditions.offered, columns)
    with st.container(border=True):
        st.markdown("**Conditions and confidence**")
        by_column, ci_column, reps_column, level_column, group_column = st.columns([3, 3, 2, 2, 3],
                                                                                    vertical_alignment="bottom")
        by = break_down_by(conditions.offered, key="unc_by", container=by_column, on_change=_keep, args=("unc_by",))
        intervals = ci_column.toggle("Confidence intervals", key="unc_on", on_change=_keep, args=("unc_on",),
                                     help=f"Bootstrap: draw the trials again with replacement, many times "
                                          f"({METHOD} intervals: bias-corrected and accelerated).")
        replicates, level = _replicates_and_level(reps_column, level_column)
        group = group_column.selectbox(
            "Resample", [ONE_BY_ONE, *columns], key="unc_group", on_change=_keep, args=("unc_group",),
            format_func=lambda c: c if c == ONE_BY_ONE else f"whole {c} groups",
            help="Trials of one speaker (or model) are not independent: drawing whole speakers gives honest, "
                 "wider intervals.")
        if not columns:
            st.caption("The chosen systems' files carry no column besides scores and labels: nothing to break down "
                       "by, and intervals draw trials one by one.")
        elif conditions.left_out:
            st.caption(lc.report.escape_markdown(conditions.note()))
    return Settings(tuple(by), bool(intervals), replicates, level, None if group == ONE_BY_ONE else group,
                    _operating_point.primary())


def _replicates_and_level(reps_column, level_column) -> tuple[int, float]:
    replicates = reps_column.number_input("Replicates", MIN_REPLICATES, 10_000, step=100, key="unc_reps",
                                          on_change=_keep, args=("unc_reps",),
                                          help=f"Bootstrap replicates: {MIN_REPLICATES} for a first look in seconds, "
                                               "1,000 or more for limits to report (steadier, and slower).")
    level = level_column.selectbox("Level", LEVELS, format_func=lambda x: f"{100 * x:.0f} %", key="unc_level",
                                   on_change=_keep, args=("unc_level",))
    return int(replicates), float(level)


def interval_controls(reps_column, level_column) -> tuple[int, float]:
    """The session's Replicates and Level controls alone, in two columns, for a page with its own interval toggle:
    their values are those of every page's conditions-and-confidence controls."""
    kept = _kept()
    for key in ("unc_reps", "unc_level"):
        _state.Key(key).set(kept[key])
    return _replicates_and_level(reps_column, level_column)


def run_once(key: tuple, label: str, compute) -> object:
    """`compute(progress)` once per `key` (which names the data by their ids), with a progress bar while it runs;
    kept in the app's store of bootstrap runs (``_state.store``)."""
    runs = _state.store("bootstrap runs", BOOTSTRAP_RUNS)
    result = runs.get(key)
    if result is None:
        bar = st.progress(0.0, text=f"{label}…")

        def progress(done: int, total: int) -> None:
            if done == total or done % max(total // 50, 1) == 0:
                bar.progress(done / total, text=f"{label}… {done:,} of {total:,} replicates")

        try:
            result = compute(progress)
        finally:
            bar.empty()
        runs.put(key, result)
    return result


def _group(trials: lc.Trials, settings: Settings) -> str | None:
    """The column whose groups are drawn whole, when this system has it (else its trials one by one)."""
    return settings.group_by if settings.group_by in trials.conditions else None


def _key(name: str, op: lc.OperatingPoint, settings: Settings, group: str | None, *extra) -> tuple:
    system = SYSTEMS.sets()[name]
    return (system.id, op, settings.primary, settings.by, settings.replicates, settings.level, group, *extra)


def intervals(name: str, trials: lc.Trials, op: lc.OperatingPoint, settings: Settings) -> lc.BootstrapResult:
    """The bootstrap of one system's pooled trials (its metrics' intervals and its DET band)."""
    group = _group(trials, settings)
    return run_once(_key(name, op, settings, group, "pooled"), f"Bootstrap of {name}", lambda progress: lc.bootstrap(
        trials, n=settings.replicates, level=settings.level, group_by=group, p_target=op, primary=settings.primary,
        progress=progress))


def condition_intervals(name: str, result: lc.ConditionMetrics, op: lc.OperatingPoint, settings: Settings) -> dict:
    """The bootstrap of every condition of one system."""
    group = _group(result.pooled.trials, settings)
    return run_once(_key(name, op, settings, group, "conditions"), f"Bootstrap of {name} per condition",
                lambda progress: result.bootstrap(n=settings.replicates, level=settings.level, group_by=group,
                                                  progress=progress))


def comparison(a: str, b: str, chosen: dict[str, lc.Trials], op: lc.OperatingPoint,
               settings: Settings) -> lc.SystemComparison:
    """The paired bootstrap of system B against system A."""
    group = _group(chosen[a], settings)
    return run_once(_key(a, op, settings, group, "versus", SYSTEMS.sets()[b].id), f"Comparing {b} with {a}",
                lambda progress: lc.compare_systems(chosen[a], chosen[b], n=settings.replicates,
                                                    level=settings.level, group_by=group, p_target=op,
                                                    primary=settings.primary, progress=progress))


def ungrouped(chosen: dict[str, lc.Trials], settings: Settings) -> list[str]:
    """The chosen systems whose trials are drawn one by one although whole groups were asked for."""
    return [name for name, trials in chosen.items() if settings.group_by and _group(trials, settings) is None]


def show_comparison(result: lc.SystemComparison, metrics: tuple[str, ...], better: str) -> None:
    """A paired comparison as the pages show it: a sentence per metric of `metrics`, then the table of every metric,
    its column of how often B did better headed `better` (e.g. ``"B better in"``)."""
    for metric in metrics:
        st.markdown(f"- {lc.report.escape_markdown(result.sentence(metric))}")
    table = result.to_frame(eer_percent=True).reset_index()  # the EER in % as in every other table of the app
    table["metric"] = table["metric"].map({**lc.METRIC_COLUMNS, "eer": "EER %"})
    st.dataframe(table, width="stretch", hide_index=True, column_config={
        c: st.column_config.NumberColumn(format="%.4f") for c in ("a", "b", "difference", "lower", "upper")} | {
        "b_better": st.column_config.NumberColumn(better, format="percent")})
