"""Calibrated-Gaussian explorer: one number (EER, d' or mu) fixes the LLR densities, the DET and Cllr.

The theory of van Leeuwen & Brümmer (Interspeech 2013) made visible: calibrated Gaussian LLRs have means +-mu and
variance 2 mu, "the LLR of the LLR is the LLR", the DET is a straight line at 45 degrees and Cllr depends on the
EER alone. The second part fits a loaded system with CMLG and sets it against that ideal. The controls are bound
to the address bar, and each part is a fragment, so a slider redraws only its own part.
"""
from __future__ import annotations

import html

import streamlit as st

import llrcore as lc
from app_pages import _state
from app_pages._figures import show_figure
from app_pages._loaded import SYSTEMS, trials_by_name
from app_pages._units import current as llr_units

CHOICES = ["EER", "d'", "μ"]
# slider ranges: EER 0.1-49.9 %, and the d' and mu that span about the same range of systems
LIMITS = {"EER": (0.1, 49.9, 10.0, 0.1), "d'": (0.05, 6.0, 2.56, 0.01), "μ": (0.01, 19.0, 3.28, 0.01)}
KEYS = {"EER": "eer", "d'": "dprime", "μ": "mu"}
TEACHING_SYSTEM = "ASVspoof19 LA ASV (eval)"  # a well-behaved demo set: close to the ideal after CMLG


def cards(items) -> None:
    """A row of bordered numbers of equal height: (label, value, delta or None, help or None)."""
    for column, (label, value, delta, help_text) in zip(st.columns(len(items)), items):
        column.metric(label, value, delta=delta, delta_color="off", delta_arrow="off", help=help_text, border=True,
                      height="stretch")


def slider_value(choice: str, mu: float) -> float:
    """The value of `choice`'s slider equivalent to `mu`, on the slider's grid and inside its range."""
    lo, hi, _, step = LIMITS[choice]
    value = {"EER": lambda: 100 * lc.eer_from_mu(mu), "d'": lambda: lc.dprime_from_mu(mu), "μ": lambda: mu}[choice]()
    return float(min(max(round(round(value / step) * step, 6), lo), hi))


def mu_of(choice: str, value: float) -> float:
    return {"EER": lambda: lc.mu_from_eer(value / 100), "d'": lambda: lc.mu_from_dprime(value),
            "μ": lambda: value}[choice]()


def on_choice() -> None:
    """Switching between EER, d' and mu keeps the system: the newly shown slider starts where the old one was."""
    choice, mu = _state.GAUSS_BY.peek(), _state.GAUSS_MU.peek()
    if choice in KEYS and mu is not None:
        _state.Key(KEYS[choice]).set(slider_value(choice, mu))


@_state.cached()
def comparison(system_id: str, alpha: float, _trials: lc.Trials) -> lc.GaussianComparison:
    """CMLG fit of one system (keyed by its id and alpha), computed once."""
    return lc.gaussian_comparison(_trials, alpha=alpha)


# Figures are cached by what they show, so moving one slider redraws only the figures that depend on it (building a
# plotly figure costs more than its numbers). st.plotly_chart only reads them.
@_state.cached(entries=64)
def ideal_figure(kind: str, mu: float, llr: float | None = None, log: bool = False, units: str = "ln"):
    if kind == "densities":
        return lc.plots.gaussian_llr_figure(mu, llr=llr, log_density=log, units=units)
    if kind == "det":
        return lc.plots.gaussian_det_figure(mu)
    return lc.plots.cllr_eer_figure(lc.eer_from_mu(mu), log_axes=log)


@_state.cached(entries=32)
def fit_figure(kind: str, system_id: str, alpha: float, _result: lc.GaussianComparison, log: bool = False,
               units: str = "ln"):
    if kind == "densities":
        return lc.plots.gaussian_llr_figure(comparison=_result, log_density=log, units=units)
    if kind == "det":
        return lc.plots.gaussian_det_figure(comparison=_result)
    return lc.plots.cllr_eer_figure(_result.eer, comparison=_result, log_axes=log)


# ----- the ideal -------------------------------------------------------------------------------------------------


@st.fragment
def explorer() -> None:
    with st.container(border=True):
        by_column, value_column, llr_column = st.columns([1.2, 3, 3], gap="medium")
        choice = by_column.segmented_control("Choose by", CHOICES, default="EER", required=True,
                                             key=_state.GAUSS_BY.name, on_change=on_choice, bind="query-params")
        lo, hi, default, step = LIMITS[choice]
        label = {"EER": "EER (%)", "d'": "d' (separation in standard deviations)",
                 "μ": "μ (mean of the target LLRs)"}[choice]
        # a value set by on_choice must not meet a default as well (Streamlit warns), so the default goes in only once
        start = {} if _state.Key(KEYS[choice]).is_set() else {"value": default}
        value = value_column.slider(label, lo, hi, step=step, key=KEYS[choice], bind="query-params",
                                    format="%.1f" if choice == "EER" else "%.2f", **start)
        llr = llr_column.slider("Look at the densities at LLR", -10.0, 10.0, 2.0, step=0.1, key="llr",
                                bind="query-params",
                                help="The ratio of the two densities at any LLR equals e to the power LLR.")
    mu = float(mu_of(choice, value))
    _state.GAUSS_MU.set(mu)
    eer, cllr = lc.eer_from_mu(mu), lc.gaussian_cllr(mu)
    approx = float(lc.cllr_eer_approximation(eer))
    cards([
        ("EER", lc.report.percent(eer), None, "Φ(−√(μ/2))"),
        ("d'", f"{lc.dprime_from_mu(mu):.3g}", None, "√(2μ): the distance of the means in standard deviations."),
        ("μ (variance 2μ)", f"{mu:.3g}", None, "Target LLRs ~ N(+μ, 2μ), non-target LLRs ~ N(−μ, 2μ)."),
        ("Cllr", f"{cllr:.4f} bits", None, "(1/ln 2) E[ln(1 + e^−x)], x ~ N(μ, 2μ), by quadrature."),
        ("1 − (2·EER − 1)²", f"{approx:.4f} bits", f"{approx - cllr:+.4f} bits",
         "The slides' approximation of Cllr from the EER alone."),
    ])
    log_density = st.toggle("Logarithmic density axis", value=False, key="gauss_log_density",
                            help="On a log axis the densities are parabolas, and their gap at LLR l is l.")
    show_figure(lambda: ideal_figure("densities", mu, llr, log_density, llr_units()), "gaussian_densities",
                data=lambda: lc.gaussian_densities(mu, llr=llr).to_frame())
    st.caption("The LLR of the LLR is the LLR: at every LLR l, the target density is e^l times the non-target "
               "density. Only Gaussians with means ±μ and variance 2μ can do that.")
    det_column, cllr_column = st.columns([1, 1.3], gap="medium")
    with det_column:
        show_figure(lambda: ideal_figure("det", mu), "gaussian_det")
        st.caption("Straight and at 45°: probit(Pmiss) = −probit(Pfa) − √(2μ). Faint lines: other EERs.")
    with cllr_column:
        slot = st.container()  # the figure above its toggle, so the two figures of the row start level
        log_axes = st.toggle("Logarithmic axes", value=False, key="gauss_log_cllr",
                             help="For small EERs, which sit in the corner on linear axes.")
        with slot:
            show_figure(lambda: ideal_figure("cllr", mu, None, log_axes), "gaussian_cllr",
                        data=lambda: lc.cllr_eer_curve(lc.eer_from_mu(mu)).to_frame())
        st.caption("Cllr depends on the EER alone. The approximation 1 − (2·EER − 1)² stays within about 0.02 "
                   "bits of the exact value for EERs from 1 % to 49 %.")


# ----- the user's scores -------------------------------------------------------------------------------------------


@st.fragment
def your_scores() -> None:
    loaded = SYSTEMS.sets()
    names = list(loaded)
    system_column, alpha_column = st.columns([2, 3], gap="medium")
    index = names.index(TEACHING_SYSTEM) if TEACHING_SYSTEM in names else 0
    name = system_column.selectbox("System", names, index=index, key="gauss_system", bind="query-params")
    alpha = alpha_column.slider("CMLG α: weight of the target variance in the shared variance", 0.0, 1.0, 0.5,
                                step=0.05, key="alpha", bind="query-params")
    trials = trials_by_name(names=[name])[name]
    try:
        result = comparison(loaded[name].id, float(alpha), trials)
    except ValueError as err:
        st.error(f"{name} cannot be fitted with CMLG: {err}")
        return
    if result.collapsed:  # no calibration to set against the ideal: say why, and what the scores themselves give
        st.error(f"**The CMLG calibration of {lc.report.escape_markdown(name)} failed:** {result.calibration.failure}. "
                 "Remove the far scores from the file, or calibrate these scores with PAV on the Calibrate page.",
                 icon=":material/error:")
        cards([("EER of the data", lc.report.percent(result.eer), None, None),
               ("minCllr (PAV)", f"{result.min_cllr:.4f} bits", None, "The best any monotone calibration of these "
                                                                      "scores can do.")])
        return
    sentence = html.escape(result.sentence(), quote=False)
    st.markdown(f"<p style='font-size:1.2rem; line-height:1.45'>{sentence}</p>", unsafe_allow_html=True)
    cards([
        ("Fitted μ", f"{result.mu:.3g}", None, "Mean of the CMLG-calibrated target LLRs: (m_e − m_d)² / (2v)."),
        ("EER of the data", lc.report.percent(result.eer),
         f"ideal with this μ: {lc.report.percent(result.gaussian_eer)}", None),
        ("Cllr after CMLG", f"{result.cllr:.4f} bits", None, None),
        ("Gaussian Cllr at its EER", f"{result.gaussian_cllr_at_eer:.4f} bits",
         f"{result.cllr - result.gaussian_cllr_at_eer:+.4f} bits",
         "What the data's Cllr would be if its calibrated LLRs were Gaussian; the delta is the data's excess."),
        ("minCllr (PAV)", f"{result.min_cllr:.4f} bits", None, "The best any monotone calibration of these scores "
                                                               "can do."),
    ])
    log_density = st.toggle("Logarithmic density axis", value=False, key="gauss_fit_log_density")
    key = (loaded[name].id, float(alpha), result)
    show_figure(lambda: fit_figure("densities", *key, log_density, llr_units()), "gaussian_fit_densities",
                data=lambda: lc.gaussian_densities(comparison=result).to_frame())
    det_column, cllr_column = st.columns([1, 1.3], gap="medium")
    with det_column:
        show_figure(lambda: fit_figure("det", *key), "gaussian_fit_det")
    with cllr_column:
        slot = st.container()  # the figure above its toggle
        small = result.eer < 0.02
        # one toggle per kind of system, so a system with a small EER opens on log axes and one with a large on linear
        log_axes = st.toggle("Logarithmic axes", value=small, key=f"gauss_fit_log_cllr_{small}",
                             help="For small EERs, which sit in the corner on linear axes.")
        with slot:
            show_figure(lambda: fit_figure("cllr", *key, log_axes), "gaussian_fit_cllr",
                        data=lambda: lc.cllr_eer_curve(result.eer, comparison=result).to_frame())
    st.caption("A DET straighter and closer to 45° than the data's, and histograms that follow the dashed "
               "densities, mean the CMLG LLRs behave like calibrated Gaussian LLRs.")


st.title("Calibrated Gaussian explorer")
st.caption("If calibrated LLRs are Gaussian, one number fixes everything: the two densities, the EER, the DET and "
           "Cllr (van Leeuwen & Brümmer, Interspeech 2013).")
explorer()
st.subheader("Your scores against the ideal")
if not SYSTEMS.sets():
    st.info("Load score files or demo sets on the Data page to compare them with the ideal.")
else:
    your_scores()
