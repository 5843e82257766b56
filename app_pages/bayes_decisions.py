"""Bayes decisions: out of 100 trials, how many errors does the system make at your prior and costs?

For teachers and for explaining a system to non-specialists (Brümmer, Ferrer & Swart, Interspeech 2021). Every
control is bound to the address bar (``bind="query-params"``), so a link carries the exact setting; the page body is
one fragment, so moving a slider redraws only it. The prior and cost sliders start at the app's operating point
(``_operating_point.py``) unless the address bar sets them (a link wins), and moving them changes it.
"""
from __future__ import annotations

import html

import streamlit as st
from streamlit.errors import StreamlitAPIException

import llrcore as lc
from app_pages import _operating_point, _state
from app_pages._figures import show_figure
from app_pages._loaded import SYSTEMS, trials_by_name
from app_pages._units import current as llr_units
from app_pages._units import odds_name, shown, unit

PRIORS = [0.0001, 0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.03, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5,
          0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.97, 0.98, 0.99, 0.995, 0.998, 0.999, 0.9995, 0.9998, 0.9999]
COSTS = [0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0]
FALSE_ALARM_RATES = [0.0001, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2]
VIEWS = ["Where the threshold falls", "Over all priors", "Fixed false-alarm threshold"]
TEACHING_SYSTEM = "FVC-AUS DCA-PLDA"  # the demo set whose miscalibration the page is best at showing


def number(value: float) -> str:
    """Slider labels, also the values in the address bar: 0.01, 10, 0.0001."""
    return f"{value:g}"


@_state.cached(entries=8, spinner="Calibrating by 5-fold cross-validation…")
def cross_calibrated(system_id: str, _trials: lc.Trials) -> lc.Trials:
    """The system calibrated by cross-validated logistic regression, once per system (keyed by its id)."""
    calibrated = lc.cross_calibrated(_trials)
    _ = calibrated.sorted.pav  # sort and PAV once, under the spinner (assigned: a bare expression would be drawn)
    return calibrated


def default_index(names: list[str], preferred: str | None, role: str) -> int:
    if preferred in names:
        return names.index(preferred)
    roles = [SYSTEMS.sets()[name].role for name in names]
    return roles.index(role) if role in roles else 0


# ----- the app's operating point --------------------------------------------------------------------------------------

SLIDERS = {"prior": ("p_target", PRIORS), "c_miss": ("c_miss", COSTS), "c_fa": ("c_fa", COSTS)}


def _from_app(key: str) -> list[float]:
    """The options of a slider, the app's value among them; the slider starts there unless the address bar holds it.
    The slider has no ``value`` of its own: its one source is this session state or the address bar (a default
    beside a Session State value makes Streamlit warn on every run).

    The address bar holds a slider's value when a link set it or the slider was moved on this page (a moved slider
    writes it there and, through :func:`_to_app`, into the app's operating point); without it, as on arriving from
    another page (a page switch clears the address bar), or with a value that is none of the options (a bad link),
    the slider takes the app's value, and the address bar too, so that a copied link shares what is shown. (A bound
    slider keeps its own state across page switches.)
    """
    field, options = SLIDERS[key]
    value = getattr(_operating_point.current(), field)
    options = sorted({*options, value})
    linked = st.query_params.get(key) in {number(option) for option in options}
    slider = _state.Key(key)
    if not linked and slider.peek() != value:
        slider.set(value)
        try:
            st.query_params[key] = number(value)
        except StreamlitAPIException:  # bound since an earlier visit: the slider's new state reaches the address bar
            pass
    return options


def _to_app() -> None:
    """``on_change`` of the three sliders: the setting becomes the app's operating point."""
    _operating_point.update(**{field: _state.Key(key).get() for key, (field, _) in SLIDERS.items()
                               if _state.Key(key).is_set()})


# ----- the screen --------------------------------------------------------------------------------------------------


def controls(names: list[str]) -> tuple[str, lc.OperatingPoint]:
    """System and operating point (prior and costs), side by side; their values live in the address bar."""
    with st.container(border=True):
        system_column, prior_column, miss_column, fa_column = st.columns([2.2, 3, 1.6, 1.6], gap="medium")
        name = system_column.selectbox(
            "System", names, index=default_index(names, TEACHING_SYSTEM, "evaluation"), key="bayes_system",
            bind="query-params", help="Its scores are taken as natural-log likelihood ratios.",
        )
        p_target = prior_column.select_slider(
            "P(target): how often a trial is a target", _from_app("prior"), format_func=number,
            key="prior", bind="query-params", on_change=_to_app,
        )
        c_miss = miss_column.select_slider("C_miss: cost of a miss", _from_app("c_miss"), format_func=number,
                                           key="c_miss", bind="query-params", on_change=_to_app)
        c_fa = fa_column.select_slider("C_fa: cost of a false alarm", _from_app("c_fa"), format_func=number,
                                       key="c_fa", bind="query-params", on_change=_to_app)
        op = lc.OperatingPoint(p_target, c_miss, c_fa)
        odds = f"logit({p_target:g})" if llr_units() == "ln" else f"log10({p_target:g} / {1 - p_target:g})"
        costs = "" if c_miss == c_fa == 1 else \
            f"; with these costs the effective {odds_name()} are **{shown(op.plo_eff):+.2f}**"
        st.caption(
            f"Prior {odds_name()} {odds} = **{shown(op.plo):+.2f}**{costs}. Bayes decision: accept a trial when its "
            f"{'LLR' if llr_units() == 'ln' else unit()} is at least **{shown(op.threshold):+.2f}**. The address bar "
            "holds these settings: copy it to share this view."
        )
    return name, op


def answer(summary: lc.DecisionSummary) -> None:
    """The one-sentence answer, then the four numbers in large type."""
    sentence = html.escape(summary.sentence(), quote=False)
    st.markdown(f"<p style='font-size:1.5rem; line-height:1.45; margin:0.4rem 0 0.8rem 0'>{sentence}</p>",
                unsafe_allow_html=True)
    n = summary.per_100()
    unit = "errors per 100 trials" if summary.unit_costs else "cost per 100 trials"
    cards = (
        ("This system", n["actual"], "The scores taken as LLRs and thresholded at the Bayes threshold."),
        ("Perfectly calibrated", n["minimum"], "The same scores after the best monotone recalibration (PAV), "
                                               "found in hindsight on these very trials."),
        ("Bound from the EER", n["trapezium"], "The trapezium min(P, 1−P, EER) (with costs min(P·C_miss, "
                                               "(1−P)·C_fa, EER·(P·C_miss + (1−P)·C_fa))): what a perfectly "
                                               "calibrated system with this EER never exceeds."),
        ("Without the system", n["default"], "Deciding from the prior alone: "
                                             + ("reject every trial." if summary.rejects_by_default
                                                else "accept every trial.")),
    )
    for column, (label, value, help_text) in zip(st.columns(4), cards):
        column.metric(label, lc.report.per_100(value), help=help_text, border=True, delta=unit, delta_color="off",
                      delta_arrow="off")


def threshold_view(trials: lc.Trials, summary: lc.DecisionSummary, op: lc.OperatingPoint) -> None:
    st.markdown(html.escape(summary.decisions_sentence(units=llr_units()), quote=False))
    left, right = st.columns([3, 2], gap="medium")
    with left:
        log_density = st.toggle("Logarithmic density axis", value=True, key="bayes_log_density",
                                help="Shows the thin tails, where a good system's errors are.")
        # the summary's operating point: valid
        histograms = lc.decision_histograms(trials, p_target=op)
        show_figure(lambda: lc.plots.decision_figure(histograms, log_density=log_density, units=llr_units()),
                    "bayes_threshold", data=histograms.to_frame)
        st.caption("Hatched: the errors. Targets left of the threshold are missed, non-targets right of it are "
                   "falsely accepted. The dashed line is the best threshold in hindsight: the further it is from "
                   "the Bayes threshold, the worse the calibration.")
    with right:
        st.write("")  # align with the toggle on the left
        show_figure(lambda: lc.plots.errors_per_100_figure(summary), "bayes_per_100")
        table = summary.shown_table()  # the parts add up to the totals as shown
        st.dataframe(table, width="stretch", column_config={
            column: st.column_config.TextColumn(alignment="right") for column in table.columns})
        st.caption(f"Expected decisions out of 100 trials. On the data: {summary.misses:,} of {summary.n_tar:,} "
                   f"targets missed, {summary.false_alarms:,} of {summary.n_non:,} non-targets accepted.")


def priors_view(name: str, trials: lc.Trials, op: lc.OperatingPoint) -> None:
    system = SYSTEMS.sets()[name]
    compare = st.toggle("Add the system calibrated by cross-validated logistic regression", value=True,
                        key="bayes_add_calibrated",
                        help="Each trial calibrated by an affine calibration trained on the other 4 of 5 folds.")
    systems = {name: trials}
    if compare:
        try:
            calibrated = cross_calibrated(system.id, trials)
            systems[calibrated.name] = calibrated
        except ValueError as err:  # e.g. a fold's fit collapsed: said as failed, never drawn as a calibration
            st.error(f"**The calibration by cross-validation failed:** {err}", icon=":material/error:")
    p_eff = float(f"{op.p_eff:.3g}")  # a readable label
    show_figure(lambda: lc.plots.bayes_error_trapezium_figure(systems, p_target=p_eff),
                "bayes_trapezium")
    marker = f"P(target) = {op.p_target:g}" if op.c_miss == op.c_fa == 1 else (
        f"the effective prior {p_eff:.3g} (P(target) = {op.p_target:g} with C_miss = {op.c_miss:g}, "
        f"C_fa = {op.c_fa:g})")
    st.caption(
        f"The Bayes error rate at every prior, with {marker} marked. A perfectly calibrated system stays under its "
        "trapezium min(P, 1−P, EER) (shaded); a miscalibrated one can rise above it, even above the dotted line of "
        "deciding without the system."
    )


def fixed_threshold_view(names: list[str], op: lc.OperatingPoint) -> None:
    dev_column, eval_column, pfa_column = st.columns([2, 2, 3], gap="medium")
    dev_name = dev_column.selectbox("Development set (sets the threshold)", names,
                                    index=default_index(names, None, "development"), key="dev_system",
                                    bind="query-params")
    eval_name = eval_column.selectbox("Evaluation set (where it is used)", names,
                                      index=default_index(names, None, "evaluation"), key="eval_system",
                                      bind="query-params")
    target_pfa = pfa_column.select_slider("False-alarm rate fixed on the development set", FALSE_ALARM_RATES,
                                          value=0.01, format_func=number, key="pfa", bind="query-params")
    if dev_name == eval_name:
        st.warning("The threshold is judged on the very data that set it: choose another evaluation set to see "
                   "what happens on unseen data.")
    chosen = trials_by_name(names=[dev_name, eval_name])
    try:
        analysis = lc.fixed_false_alarm_threshold(chosen[dev_name], chosen[eval_name], target_pfa,
                                                  c_miss=op.c_miss, c_fa=op.c_fa)
    except ValueError as err:
        st.error(f"The comparison could not be made: {err}")
        return
    sentence = html.escape(analysis.sentence(op.p_target), quote=False)
    st.markdown(f"<p style='font-size:1.2rem; line-height:1.45'>{sentence}</p>", unsafe_allow_html=True)
    rates = st.columns(4)
    rates[0].metric("Score threshold", f"{analysis.threshold:.4g}", border=True)
    rates[1].metric("False alarms: development → evaluation",
                    f"{lc.report.percent(analysis.dev_false_alarm_rate)} → "
                    f"{lc.report.percent(analysis.eval_false_alarm_rate)}",
                    border=True)
    rates[2].metric("Misses: development → evaluation",
                    f"{lc.report.percent(analysis.dev_miss_rate)} → {lc.report.percent(analysis.eval_miss_rate)}",
                    border=True)
    rates[3].metric("Bayes decision only at", f"P(target) ≈ {analysis.implied_p_target:.2g}", border=True,
                    help="The prior at which this threshold equals the Bayes threshold of the scores calibrated on "
                         "the development set.")
    show_figure(lambda: lc.plots.fixed_threshold_figure(analysis, p_target=op), "bayes_fixed_threshold",
                data=analysis.to_frame)
    st.caption(
        "A score threshold fixed for a false-alarm rate does not move with the prior, so it is right at one prior "
        "only; and the rate fixed on the development data is not the rate on unseen data. Bayes decisions with "
        "scores calibrated on the same development data adapt to every prior (Brümmer, Ferrer & Swart 2021, §5)."
    )


@st.fragment
def page_body() -> None:
    names = list(SYSTEMS.sets())
    name, op = controls(names)
    trials = trials_by_name(names=[name])[name]
    summary = lc.bayes_decisions(trials, p_target=op, name=name)
    answer(summary)
    tabs = dict(zip(VIEWS, st.tabs(VIEWS, key="bayes_view", on_change="rerun", bind="query-params")))
    if tabs[VIEWS[0]].open:
        with tabs[VIEWS[0]]:
            threshold_view(trials, summary, op)
    if tabs[VIEWS[1]].open:
        with tabs[VIEWS[1]]:
            priors_view(name, trials, op)
    if tabs[VIEWS[2]].open:
        with tabs[VIEWS[2]]:
            fixed_threshold_view(names, op)


st.title("Bayes decisions")
st.caption("Out of a hundred trials, how many errors does your system make? It depends on the prior and the costs "
           "you bring, and on how well the scores are calibrated (Brümmer, Ferrer & Swart, Interspeech 2021).")

if not SYSTEMS.sets():
    st.info("Nothing is loaded yet.")
    st.page_link("app_pages/data.py", label="Load score files or demo sets on the Data page",
                 icon=":material/upload_file:")
else:
    page_body()
