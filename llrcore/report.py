"""A report for non-specialists: plain-language summary, figures, full metrics, in one self-contained HTML file.

:func:`build_report` computes everything once (one sort and one PAV per system, through ``Trials.sorted``) and
returns a :class:`Report`: the summary as data (numbers and sentences), the metrics table, the settings, and the
figures on demand. :meth:`Report.to_html` writes one HTML file with plotly.js inlined once: it opens offline, in
any browser, years from now.

The summary answers, per system, the questions of Brümmer, Ferrer & Swart (2021): out of 100 trials at your prior,
how many errors does the system make (its Bayes error rate, times 100), how many would it make with perfect
calibration (the minimum Bayes error rate, PAV/ROCCH) and how many without it (deciding from the prior alone,
``min(P, 1 - P)``)? Then whether its scores can be read as likelihood ratios (:func:`~llrcore.words.llr_verdict`, the one
verdict the app and the command line give too) and what a calibration trained on development data (or cross-validated) changes.

With costs other than 1 the errors are counted at the effective prior
``P_eff = sigmoid(logit(P_target) + log(C_miss / C_fa))``, the prior whose error-minimising decisions are the
operating point's cost-minimising ones.

References
----------
N. Brümmer, L. Ferrer and A. Swart, "Out of a hundred trials, how many errors does your speaker verifier make?",
Interspeech 2021.
N. Brümmer and J. du Preez, "Application-independent evaluation of speaker detection", CSL 20, 2006.
"""
from __future__ import annotations

import html
import platform
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from functools import cached_property

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .calibration import fit_affine
from .calibration_analysis import METHODS, calibrate_and_evaluate
from .data.trials import Trials, as_systems
from .metrics import BinaryMetrics, bayes_error_rates, effective_plo, evaluate, metrics_table
from .rates import sigmoid
from .rules import BetaRule
from .words import VERDICTS

__all__ = [
    "Report",
    "SystemSummary",
    "CalibrationSummary",
    "build_report",
    "describe_calibration",
    "format_errors",
    "VERDICTS",
]

CROSS_VALIDATION_FOLDS = 5


# ----- calibration in words ----------------------------------------------------------------------------------------


def describe_calibration(method: str, rule: BetaRule | None = None, plo: float = 0.0) -> str:
    """The calibration in words, e.g. ``affine, logistic regression weighted for P_target = 0.01``."""
    if method == "pav":
        return "PAV (monotone, non-parametric)"
    if method == "cmlg":
        return "CMLG (Gaussian, closed form)"
    rule = rule or BetaRule.logarithmic()
    fitted = "logistic regression" if rule == BetaRule.logarithmic() else f"{rule.name} rule"
    return f"affine, {fitted} weighted for P_target = {float(sigmoid(plo)):.3g}"


# ----- sentences that render as HTML, Markdown or plain text --------------------------------------------------------


class _Bold(str):
    """A part of a sentence shown in bold."""


def _escape_markdown(text: str) -> str:
    """Backslash before every ASCII punctuation character: CommonMark then shows the text literally."""
    return re.sub(r"([!-/:-@\[-`{-~])", r"\\\1", text)


def _render(parts, kind: str) -> str:
    """A sentence (a tuple of str and _Bold parts) as ``"html"``, ``"markdown"`` or ``"text"``; every part escaped."""
    out = []
    for part in parts:
        if kind == "html":
            text = html.escape(part)
            out.append(f"<strong>{text}</strong>" if isinstance(part, _Bold) else text)
        elif kind == "markdown":
            text = _escape_markdown(part)
            out.append(f"**{text}**" if isinstance(part, _Bold) else text)
        else:
            out.append(str(part))
    return "".join(out)


def format_errors(x: float) -> str:
    """Errors per 100 trials in two significant digits, never in scientific notation: 0.3646 -> '0.36'."""
    if not np.isfinite(x):
        return str(x)
    if x == 0:
        return "0"
    return np.format_float_positional(float(x), precision=2, unique=False, fractional=False, trim="-")


def _errors(x: float) -> str:
    """'0.36 errors', '1 error'."""
    text = format_errors(x)
    return f"{text} error" if text == "1" else f"{text} errors"


def _percent(p: float) -> str:
    return f"{100 * p:.3g} %"


def _bits(x: float) -> str:
    return f"{x:.3f}" if np.isfinite(x) else "infinite"


# ----- the report as data -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CalibrationSummary:
    """What a calibration changes for one system.

    Attributes
    ----------
    description : str
        The method in words (:func:`describe_calibration`).
    trained_on : str
        Where it was trained, in words: on a development set (named), or by cross-validation on the system's own
        trials.
    cross_validated : bool
    calibrated : Trials
        The calibrated LLRs of the evaluation trials (spoof trials too).
    metrics : BinaryMetrics
        Every metric of the calibrated LLRs at the operating point.
    errors_per_100, min_errors_per_100 : float
        100 times the actual and minimum Bayes error rates of the calibrated LLRs at the effective prior.
    problems : tuple of str
        Why the calibration is degenerate (:func:`~llrcore.calibration_analysis.calibration_problems`), if it is.
    """

    description: str
    trained_on: str
    cross_validated: bool
    calibrated: Trials
    metrics: BinaryMetrics
    errors_per_100: float
    min_errors_per_100: float
    problems: tuple[str, ...] = ()


@dataclass(frozen=True)
class SystemSummary:
    """The plain-language summary of one system, as numbers and as sentences.

    Attributes
    ----------
    errors_per_100 : float
        ``100 * Pe(plo_eff)``: errors out of 100 trials of the scores taken as LLRs, at the effective prior.
    min_errors_per_100 : float
        The same with perfect calibration (PAV-optimal LLRs of these trials).
    default_errors_per_100 : float
        Without the system: ``100 * min(P_eff, 1 - P_eff)``.
    verdict : str
        One of :data:`VERDICTS`.
    paragraphs : dict
        ``topic -> sentence`` for the topics ``tested``, ``errors``, ``trust`` and ``calibration``; a sentence is
        a tuple of parts (str, bold parts a str subclass), rendered escaped by :meth:`Report.summary_markdown` and
        :meth:`Report.to_html`.
    """

    name: str
    source: str
    trials: Trials
    metrics: BinaryMetrics
    errors_per_100: float
    min_errors_per_100: float
    default_errors_per_100: float
    verdict: str
    calibration: CalibrationSummary | None
    paragraphs: dict = field(default_factory=dict)

    def text(self, topic: str, kind: str = "text", *, verdict: bool = True) -> str:
        """One paragraph (``tested``, ``errors``, ``trust``, ``calibration``) as ``text``, ``markdown`` or
        ``html``; empty when the topic does not apply. ``verdict=False`` leaves the bold verdict ("Good.") out of
        the ``trust`` paragraph, for a page that shows :attr:`verdict` as a badge."""
        parts = self.paragraphs.get(topic, ())
        if topic == "trust" and not verdict:
            parts = parts[1:]
        return _render(parts, kind)


TOPICS = {
    "tested": "What was tested",
    "errors": "How many errors?",
    "trust": "Can its scores be trusted as likelihood ratios?",
    "calibration": "What calibration changes",
}


@dataclass(frozen=True, eq=False)
class Report:
    """Everything a report shows; build it with :func:`build_report`, write it with :meth:`to_html`."""

    title: str
    summaries: tuple[SystemSummary, ...]
    p_target: float
    c_miss: float
    c_fa: float
    class_names: tuple[str, str]
    settings: dict
    created: datetime
    version: str

    @property
    def plo_eff(self) -> float:
        """Effective prior log-odds ``logit(P_target) + log(C_miss / C_fa)``."""
        return float(effective_plo(self.p_target, self.c_miss, self.c_fa))

    @property
    def p_eff(self) -> float:
        """Effective prior: the errors of the summary are counted at this prior."""
        return float(sigmoid(self.plo_eff))

    @property
    def systems(self) -> dict[str, Trials]:
        """The systems as given (scores as they are)."""
        return {s.name: s.trials for s in self.summaries}

    @property
    def calibrated_systems(self) -> dict[str, Trials]:
        """The systems as given, then the calibrated ones: a system keeps its colour (set by its position) in every
        figure, whether or not calibrated versions are drawn with it."""
        out = self.systems
        out.update({s.calibration.calibrated.name: s.calibration.calibrated for s in self.summaries
                    if s.calibration is not None})
        return out

    def metrics_table(self) -> pd.DataFrame:
        """The full metrics table (:func:`~llrcore.metrics_table`, calibrated rows included) with the errors per 100
        trials at the effective prior."""
        rows, errors, min_errors = [], [], []
        for s in self.summaries:
            rows.append(s.metrics)
            errors.append(s.errors_per_100)
            min_errors.append(s.min_errors_per_100)
            if s.calibration is not None:
                rows.append(s.calibration.metrics)
                errors.append(s.calibration.errors_per_100)
                min_errors.append(s.calibration.min_errors_per_100)
        table = metrics_table(rows)
        table.insert(2, "errors per 100", errors)
        table.insert(3, "errors per 100, perfect calibration", min_errors)
        return table

    def summary_markdown(self) -> str:
        """The plain-language summary as Markdown (for the app), every user string escaped."""
        blocks = [f"#### {_escape_markdown(s.name)}\n\n" + "\n\n".join(
            s.text(topic, "markdown") for topic in TOPICS if s.paragraphs.get(topic)) for s in self.summaries]
        return "\n\n".join(blocks)

    def summary_text(self) -> str:
        """The plain-language summary as plain text (for the command line)."""
        return "\n\n".join(f"{s.name}\n" + "\n".join(s.text(topic) for topic in TOPICS if s.paragraphs.get(topic))
                           for s in self.summaries)

    @cached_property
    def figures(self) -> dict[str, "ReportFigure"]:
        """The report's figures, drawn on first use: ``key -> ReportFigure`` (DET, Bayes error, APE, calibration,
        score distributions)."""
        return _report_figures(self)

    def to_html(self) -> str:
        """The report as one self-contained HTML page (plotly.js inlined once; no network needed)."""
        return _render_html(self)

    def write(self, path) -> None:
        """Write :meth:`to_html` to `path` (UTF-8)."""
        with open(path, "w", encoding="utf-8") as out:
            out.write(self.to_html())


@dataclass(frozen=True)
class ReportFigure:
    """A figure of the report: a short label (``"DET"``), its title as a question, the figure and a two-sentence
    caption for non-specialists."""

    label: str
    title: str
    figure: go.Figure
    caption: str


# ----- building ---------------------------------------------------------------------------------------------------


def _errors_per_100(trials: Trials, plo_eff: float) -> tuple[float, float, float]:
    """100 times the actual, minimum and default Bayes error rates at prior log-odds `plo_eff` (unit costs)."""
    rates = bayes_error_rates(trials, plo=[plo_eff])
    return 100 * float(rates.actual[0]), 100 * float(rates.minimum[0]), 100 * float(rates.default[0])


def _direction(trials: Trials, class_names: tuple[str, str]) -> str:
    """How the LLRs are off, from a logistic-regression recalibration ``a * llr + b`` of the LLRs themselves:
    ``a < 1`` means too extreme (overstating the evidence), ``a > 1`` too cautious; ``b`` a lean to one side."""
    if not (np.isfinite(trials.tar).all() and np.isfinite(trials.non).all()):
        return ("some of its likelihood ratios are infinite (absolute certainty), which a single wrong trial makes "
                "infinitely costly")
    try:
        fix = fit_affine(trials.tar, trials.non)
    except ValueError:
        return ""
    words = []
    if fix.scale < 0.8:
        words.append(f"its likelihood ratios are too extreme (they overstate the strength of the evidence about "
                     f"{1 / fix.scale:.1f}-fold on the log scale)")
    elif fix.scale > 1.25:
        words.append(f"its likelihood ratios are too cautious (they understate the strength of the evidence about "
                     f"{fix.scale:.1f}-fold on the log scale)")
    if abs(fix.offset) > 0.7:  # a factor of 2 in the likelihood ratio at LLR 0
        side = class_names[0] if fix.offset < 0 else class_names[1]
        words.append(f"{'' if words else 'its likelihood ratios '}lean towards “{side}”")
    return " and ".join(words)


def _calibrate(name, trials, calibrate_on, method, rule, plo, op) -> CalibrationSummary:
    """Calibrate `trials` on `calibrate_on`, or by cross-validation on themselves when it is None
    (:func:`~llrcore.calibration_analysis.calibrate_and_evaluate`), and count the errors after calibration."""
    p_target, c_miss, c_fa, plo_eff = op
    result = calibrate_and_evaluate(calibrate_on if calibrate_on is not None else trials,
                                    trials if calibrate_on is not None else None, method, rule, plo,
                                    folds=CROSS_VALIDATION_FOLDS, p_target=p_target, c_miss=c_miss, c_fa=c_fa)
    calibrated = result.calibrated
    calibrated = Trials(calibrated.tar, calibrated.non, name=f"{name} (calibrated)", spoof=calibrated.spoof)
    if result.cross_validated:
        trained_on = f"trained by {CROSS_VALIDATION_FOLDS}-fold cross-validation on these same trials"
    else:
        trained_on = (f"trained on {calibrate_on.name or 'the development set'}, {calibrate_on.tar.size:,} target "
                      f"and {calibrate_on.non.size:,} non-target trials")
    errors, min_errors, _ = _errors_per_100(calibrated, plo_eff)
    return CalibrationSummary(describe_calibration(method, rule, plo), trained_on, result.cross_validated,
                              calibrated, replace(result.after, name=calibrated.name), errors, min_errors,
                              result.problems)


def _tested(name, trials, source, class_names) -> tuple:
    tar_name, non_name = class_names
    spoof = (f" The {trials.spoof.size:,} spoofing trials in the data are shown in the score distributions but not "
             "counted in the error rates." if trials.spoof.size else "")
    where = (" from ", _Bold(source), ".") if source else (".",)
    return (_Bold(name), f" was tested on {trials.tar.size:,} {tar_name} trials and {trials.non.size:,} {non_name} "
            "trials", *where, spoof)


def _errors_sentence(op, class_names, errors, min_errors, default_errors) -> tuple:
    p_target, c_miss, c_fa, plo_eff = op
    p_eff = float(sigmoid(plo_eff))
    at = f"at your prior (P_target = {p_target:g}: {_percent(p_target)} of the trials are {class_names[0]} trials)"
    if c_miss != c_fa:
        at = (f"at your operating point (P_target = {p_target:g}, a miss costing {c_miss / c_fa:.3g} times a false "
              f"alarm, which weighs like a prior of {_percent(p_eff)})")
    default_answer = class_names[1] if p_eff < 0.5 else class_names[0]
    sentence = (
        "Out of ", _Bold("100"), f" trials {at}, this system makes about ", _Bold(_errors(errors)),
        ". With perfect calibration it would make about ", _Bold(format_errors(min_errors)), "; without the "
        f"system, always answering “{default_answer}”, ", _Bold(format_errors(default_errors)), ".",
    )
    if errors > default_errors:
        sentence += (" At this prior the system does ", _Bold("worse than no system at all"), ".")
    return sentence


def _trust_sentence(trials, metrics, verdict, class_names) -> tuple:
    loss = f"{metrics.calibration_loss_percent:.0f} %"
    cost = f"its overall cost (Cllr {_bits(metrics.cllr)} bits)"
    if verdict == VERDICTS[0]:
        return (_Bold("Good."), f" Calibration accounts for only {loss} of {cost}: its scores can be read as "
                "likelihood ratios, strengths of evidence for one hypothesis against the other.")
    direction = _direction(trials, class_names)
    if verdict == VERDICTS[1]:
        head, why = "Needs recalibration.", f"Poor calibration accounts for {loss} of {cost}"
    else:
        head = "Not usable as likelihood ratios as they are."
        why = (f"Taken at face value its scores carry less information than no system (Cllr {_bits(metrics.cllr)} "
               "bits; 1 bit or more)")
    return _Bold(head), f" {why}" + (f" — {direction}." if direction else ".")


def _summarise(name, trials, source, op, class_names, calibration, problem=None) -> SystemSummary:
    """Numbers and sentences of one system; `problem` says why there is no `calibration`, if it could not be
    trained."""
    p_target, c_miss, c_fa, plo_eff = op
    metrics = evaluate(trials.sorted, p_target=p_target, c_miss=c_miss, c_fa=c_fa, name=name)
    errors, min_errors, default_errors = _errors_per_100(trials, plo_eff)
    verdict = metrics.llr_verdict.verdict
    paragraphs = {
        "tested": _tested(name, trials, source, class_names),
        "errors": _errors_sentence(op, class_names, errors, min_errors, default_errors),
        "trust": _trust_sentence(trials, metrics, verdict, class_names),
    }
    if calibration is not None:
        moves = "falls" if calibration.metrics.cllr < metrics.cllr else "rises"
        paragraphs["calibration"] = (
            f"After calibration ({calibration.description}; {calibration.trained_on}) it makes about ",
            _Bold(_errors(calibration.errors_per_100)), f" out of 100 instead of {format_errors(errors)}, "
            f"and its overall cost (Cllr) {moves} from {_bits(metrics.cllr)} to ",
            _Bold(_bits(calibration.metrics.cllr)), " bits.",
        )
        if calibration.problems:
            paragraphs["calibration"] += (" ", _Bold("This calibration is degenerate:"), " ",
                                          " ".join(calibration.problems))
    elif problem:
        paragraphs["calibration"] = ("Calibration could not be trained: ", problem)
    return SystemSummary(name, source, trials, metrics, errors, min_errors, default_errors, verdict, calibration,
                         paragraphs)


def _development_set(calibrate_on, name: str):
    """The development Trials for system `name` (one set for all, or one per system), None for cross-validation."""
    if calibrate_on is None or isinstance(calibrate_on, Trials):
        return calibrate_on
    if isinstance(calibrate_on, Mapping):
        if name not in calibrate_on:
            raise ValueError(f"No development set is given for the system {name!r}.")
        return calibrate_on[name]
    raise TypeError("calibrate_on must be None, a Trials or a mapping from system name to Trials.")


def build_report(
    systems,
    *,
    p_target: float = 0.01,
    c_miss: float = 1.0,
    c_fa: float = 1.0,
    calibrate_on=None,
    calibrate: bool = True,
    method: str = "affine",
    rule: BetaRule | None = None,
    calibration_prior: float | None = None,
    sources: Mapping[str, str] | None = None,
    class_names: tuple[str, str] = ("target", "non-target"),
    title: str | None = None,
    command: str | None = None,
) -> Report:
    """Compute a report of one or several systems at an operating point.

    Parameters
    ----------
    systems : Mapping[str, Trials] or Trials
        The evaluation scores, taken as natural-log LLRs.
    p_target, c_miss, c_fa : float
        The operating point (errors per 100 trials are counted at its effective prior).
    calibrate_on : Trials or Mapping[str, Trials], optional
        Development trials to train the calibration on (one set for every system, or one per system name).
        Without it, each system is calibrated by 5-fold cross-validation on its own trials, so no trial is
        calibrated by a transform that saw it.
    calibrate : bool
        False leaves out "what calibration changes".
    method : {"affine", "pav", "cmlg"}
    rule : BetaRule, optional
        Scoring rule of the affine calibration (logarithmic by default).
    calibration_prior : float, optional
        P_target the affine calibration is weighted for; default the effective prior of the operating point.
    sources : Mapping[str, str], optional
        Where each system's scores came from (a file or data-set name), shown under "What was tested".
    class_names : (str, str)
        Words for the target and non-target classes, e.g. ``("same speaker", "different speakers")``.
    title : str, optional
    command : str, optional
        The command line that made the report, shown under "How to reproduce".

    Raises
    ------
    ValueError
        For a bad operating point or calibration choice; a calibration that cannot be trained on some data (scores
        that do not overlap, infinite scores) is reported in that system's summary instead.
    """
    systems = as_systems(systems)
    plo_eff = float(effective_plo(p_target, c_miss, c_fa))
    if not (0 < p_target < 1):
        raise ValueError("P_target must be strictly between 0 and 1.")
    if method not in METHODS:
        raise ValueError(f"Unknown calibration method {method!r}: use one of {', '.join(METHODS)}.")
    cal_plo = plo_eff if calibration_prior is None else float(effective_plo(calibration_prior))
    rule = rule or BetaRule.logarithmic()
    sources = dict(sources or {})
    class_names = tuple(str(c) for c in class_names)
    op = (float(p_target), float(c_miss), float(c_fa), plo_eff)
    summaries = []
    for name, trials in systems.items():
        calibration, problem = None, None
        if calibrate:
            development = _development_set(calibrate_on, name)  # a missing one is the caller's mistake: raised
            try:
                calibration = _calibrate(name, trials, development, method, rule, cal_plo, op)
            except ValueError as error:  # these data cannot be calibrated so: said in the summary
                problem = str(error)
        summaries.append(_summarise(name, trials, sources.get(name, ""), op, class_names, calibration, problem))

    development = calibrate_on.name if isinstance(calibrate_on, Trials) else None
    settings = {
        "P_target": f"{p_target:g}",
        "C_miss": f"{c_miss:g}",
        "C_fa": f"{c_fa:g}",
        "effective prior log-odds": f"{plo_eff:+.4f} (P_eff = {float(sigmoid(plo_eff)):.4g})",
        "Bayes decision threshold on LLRs": f"accept as {class_names[0]} when LLR ≥ {-plo_eff:+.4f}",
        "calibration": describe_calibration(method, rule, cal_plo) if calibrate else "none",
        "calibration trained on": ("none" if not calibrate else
                                   f"{CROSS_VALIDATION_FOLDS}-fold cross-validation (seed 0) on each system's trials"
                                   if calibrate_on is None else (development or "the given development sets")),
        "EER": "ROC convex hull (ROCCH-EER)",
        "Cllr": "bits; LLRs in natural log",
        "Cprimary": "mean actual DCF at P_target 0.01 and 0.001, C_miss = C_fa = 1 (NIST SRE'12)",
        "llrcore": _version(),
        "Python, NumPy, plotly": f"{platform.python_version()}, {np.__version__}, {_plotly_version()}",
    }
    settings["in Python"] = (
        f"llrcore.build_report(systems, p_target={p_target!r}, c_miss={c_miss!r}, c_fa={c_fa!r}, "
        + (f"method={method!r}, rule=llrcore.BetaRule({rule.alpha:g}, {rule.beta:g}), "
           f"calibration_prior={float(sigmoid(cal_plo)):.6g}"
           + (", calibrate_on=development)" if calibrate_on is not None else ")") if calibrate
           else "calibrate=False)"))
    if command:
        settings["command"] = command
    names = ", ".join(systems)
    return Report(
        title=title or f"Evaluation report: {names}",
        summaries=tuple(summaries),
        p_target=float(p_target),
        c_miss=float(c_miss),
        c_fa=float(c_fa),
        class_names=class_names,
        settings=settings,
        created=datetime.now(timezone.utc).astimezone(),
        version=_version(),
    )


def _version() -> str:
    from . import __version__

    return __version__


def _plotly_version() -> str:
    import plotly

    return plotly.__version__


# ----- figures ------------------------------------------------------------------------------------------------------


def _report_figures(report: Report) -> dict[str, ReportFigure]:
    from . import plots
    from .plots.calibration import calibration_transform_figure

    systems, both = report.systems, report.calibrated_systems
    tar_name, non_name = report.class_names
    op = dict(p_target=report.p_target, c_miss=report.c_miss, c_fa=report.c_fa)
    return {
        "det": ReportFigure(
            "DET",
            "How often does it miss, and how often does it raise a false alarm?",
            plots.det_figure(systems, **op),
            f"Each curve shows the share of {tar_name} trials the system misses (up) against the share of {non_name} "
            "trials it wrongly accepts (right), for every possible decision threshold: the nearer the bottom-left "
            "corner, the better. The circle marks the equal error rate (EER), the diamond the best threshold at "
            "your operating point and the star where the system's own likelihood ratios decide.",
        ),
        "bayes_error": ReportFigure(
            "Bayes error",
            "Out of 100 trials, how many errors at every prior?",
            plots.bayes_error_trapezium_figure(systems, p_target=report.p_eff),
            "The error rate when the scores are used as likelihood ratios (solid), with perfect calibration "
            "(dashed) and without any system (dotted), for every proportion of targets along the bottom; the "
            "numbers of the summary are marked on the vertical line. The shaded trapezium is the limit the equal "
            "error rate sets: perfect calibration always stays inside it.",
        ),
        "ape": ReportFigure(
            "APE",
            "How much is lost to calibration over all priors?",
            plots.ape_figure(both),
            "The same error rates on a linear scale: the area under each solid curve is the system's Cllr, the "
            "overall cost of its likelihood ratios, and the area under the dashed curve its minimum, minCllr. The "
            "bars split Cllr into what the scores cannot tell apart (solid) and what calibration loses (hatched).",
        ),
        "calibration": ReportFigure(
            "Calibration vs PAV",
            "Do its likelihood ratios mean what they say?",
            calibration_transform_figure(both, **op),
            "Each curve compares the log-likelihood ratio a trial received (across) with the best one these trials "
            "support (up, found by PAV): on the diagonal, a likelihood ratio means exactly what it says. Where a "
            "curve is flatter than the diagonal the system overstates the evidence, where it is steeper it "
            "understates it.",
        ),
        "scores": ReportFigure(
            "Score histograms",
            "How far apart are the scores of the two kinds of trial?",
            plots.score_histogram_figure(systems),
            f"Histograms of the scores of {tar_name} trials and {non_name} trials: the less they overlap, the "
            "better the system tells them apart. Calibrated scores are log-likelihood ratios, mostly above 0 for "
            f"{tar_name} trials and below 0 for {non_name} trials.",
        ),
    }


# ----- HTML ---------------------------------------------------------------------------------------------------------

_CSS = """
:root { --ink: #1f2328; --muted: #5a6270; --line: #d9dde3; --soft: #f5f7fa; --accent: #0072B2;
        --good: #1a7f37; --warn: #b35900; --bad: #c62828; }
* { box-sizing: border-box; }
body { margin: 0; font: 17px/1.55 -apple-system, "Segoe UI", Roboto, Arial, Helvetica, sans-serif; color: var(--ink);
       background: #fff; }
main { max-width: 1180px; margin: 0 auto; padding: 32px 40px 64px; }
header { border-bottom: 3px solid var(--accent); padding-bottom: 14px; margin-bottom: 8px; }
h1 { font-size: 32px; line-height: 1.2; margin: 0 0 6px; }
h2 { font-size: 25px; margin: 44px 0 12px; padding-bottom: 6px; border-bottom: 1px solid var(--line); }
h3 { font-size: 21px; margin: 0 0 8px; }
.meta { color: var(--muted); font-size: 15px; margin: 0; }
nav { font-size: 15px; margin: 10px 0 0; }
nav a { color: var(--accent); margin-right: 18px; text-decoration: none; }
nav a:hover { text-decoration: underline; }
.lead { font-size: 18px; margin: 18px 0 6px; }
.system { border: 1px solid var(--line); border-left: 6px solid var(--colour, var(--accent)); border-radius: 8px;
          padding: 20px 24px; margin: 18px 0; background: #fff; }
.system h3 { color: var(--colour, var(--ink)); }
.system p { margin: 8px 0; }
.topic { font-weight: 600; color: var(--muted); font-size: 14px; text-transform: uppercase; letter-spacing: .04em;
         margin: 16px 0 2px; }
.glance { display: grid; grid-template-columns: 220px 1fr; gap: 26px; align-items: center; margin: 14px 0 6px;
          padding: 16px 18px; background: var(--soft); border-radius: 8px; }
.big { text-align: center; }
.big .num { display: block; font-size: 56px; font-weight: 700; line-height: 1; color: var(--colour, var(--ink)); }
.big .unit { display: block; font-size: 15px; color: var(--muted); margin-top: 6px; }
.bars { display: grid; grid-template-columns: max-content 1fr 4.5em; gap: 7px 12px; align-items: center;
        font-size: 15px; }
.bars .track { background: #e6e9ee; border-radius: 4px; height: 18px; overflow: hidden; }
.bars .fill { height: 100%; border-radius: 4px; background: var(--colour, var(--accent)); min-width: 2px; }
.bars .fill.ideal { background: repeating-linear-gradient(45deg, var(--colour, var(--accent)) 0 5px, #fff 5px 8px);
                    opacity: .8; }
.bars .fill.none { background: #8a8f98; }
.bars .value { text-align: right; font-variant-numeric: tabular-nums; font-weight: 600; }
.verdict { display: inline-block; font-weight: 700; font-size: 14px; padding: 2px 10px; border-radius: 999px;
           color: #fff; margin-right: 6px; text-transform: uppercase; letter-spacing: .03em; }
.verdict.good { background: var(--good); } .verdict.recalibrate { background: var(--warn); }
.verdict.unusable { background: var(--bad); }
.figure { margin: 30px 0 10px; }
.figure .plot { border: 1px solid var(--line); border-radius: 8px; padding: 6px; }
.caption { color: var(--muted); font-size: 16px; margin: 8px 4px 0; max-width: 980px; }
table { border-collapse: collapse; width: 100%; font-size: 14.5px; margin: 8px 0 4px; }
th, td { padding: 6px 9px; border-bottom: 1px solid var(--line); text-align: right; vertical-align: top; }
th { background: var(--soft); font-weight: 600; }
th:first-child, td:first-child { text-align: left; }
table.settings td, table.settings th { text-align: left; }
table.settings th { width: 30%; background: none; font-weight: 600; }
.scroll { overflow-x: auto; }
dl.glossary { display: grid; grid-template-columns: max-content 1fr; gap: 6px 18px; font-size: 15.5px; }
dl.glossary dt { font-weight: 700; } dl.glossary dd { margin: 0; }
pre { background: var(--soft); padding: 12px 14px; border-radius: 6px; overflow-x: auto; font-size: 14px;
      white-space: pre-wrap; word-break: break-all; }
footer { margin-top: 48px; color: var(--muted); font-size: 14px; border-top: 1px solid var(--line); padding-top: 12px; }
@media (max-width: 760px) { main { padding: 18px; } .glance { grid-template-columns: 1fr; } }
@media print { .figure { break-inside: avoid; } nav { display: none; } }
"""

# No network at all, even if something in the page tried: scripts and styles only inline, images only inline data.
_CSP = ("default-src 'none'; script-src 'unsafe-inline' 'unsafe-eval'; style-src 'unsafe-inline'; "
        "img-src data: blob:; font-src data:; connect-src 'none'")

_GLOSSARY = (
    ("Likelihood ratio (LR)", "How much more probable the evidence is if the two samples share a source than if "
     "they do not. Systems report its natural logarithm, the LLR: 0 is neutral, positive supports the first "
     "hypothesis."),
    ("EER", "Equal error rate: the error rate at the threshold where misses and false alarms are equally frequent "
     "(on the ROC convex hull). It measures discrimination only."),
    ("minDCF / actDCF", "Detection cost at the operating point, divided by that of no system (1 = useless): "
     "minDCF with the best possible threshold, actDCF with the system's own LLRs and the Bayes threshold."),
    ("Cllr / minCllr", "Cost of the LLRs over all priors, in bits: 0 is perfect, 1 is a system that always says "
     "LLR = 0. minCllr is the Cllr after the best monotone recalibration (PAV) of these very trials."),
    ("Calibration loss", "Cllr − minCllr, here as a share of Cllr: what better calibration could still gain."),
    ("Cprimary", "NIST SRE'12 primary cost: the mean actDCF at P_target 0.01 and 0.001 (minCprimary: of minDCF)."),
    ("Errors per 100", "100 × the Bayes error rate at the (effective) prior: the errors out of 100 trials when "
     "deciding with the Bayes threshold, as in Brümmer, Ferrer & Swart (Interspeech 2021)."),
)

_TABLE_FORMATS = {
    "targets": "{:,.0f}", "non-targets": "{:,.0f}", "errors per 100": "{:.3g}",
    "errors per 100, perfect calibration": "{:.3g}", "EER %": "{:.2f}", "minDCF": "{:.4f}", "actDCF": "{:.4f}",
    "Cllr": "{:.4f}", "minCllr": "{:.4f}", "calibration loss %": "{:.1f}", "Cprimary": "{:.4f}",
    "minCprimary": "{:.4f}",
}


def _esc(value) -> str:
    return html.escape(str(value))


def _verdict_class(verdict: str) -> str:
    return {VERDICTS[0]: "good", VERDICTS[1]: "recalibrate"}.get(verdict, "unusable")


def _bars_html(summary: SystemSummary, non_answer: str, calibrated_colour: str) -> str:
    rows = [("This system", summary.errors_per_100, "", "")]
    if summary.calibration is not None:
        rows.append(("After calibration", summary.calibration.errors_per_100, "", f"background: {calibrated_colour}; "))
    rows += [("Perfectly calibrated", summary.min_errors_per_100, "ideal", ""),
             (f"No system (always “{non_answer}”)", summary.default_errors_per_100, "none", "")]
    top = max(row[1] for row in rows) or 1.0
    cells = "".join(
        f'<span>{_esc(label)}</span><div class="track"><div class="fill {kind}" style="{style}width:'
        f'{100 * value / top:.2f}%"></div></div><span class="value">{format_errors(value)}</span>'
        for label, value, kind, style in rows
    )
    return f'<div class="bars" role="img" aria-label="errors per 100 trials">{cells}</div>'


def _system_html(report: Report, position: int, summary: SystemSummary) -> str:
    from .plots._style import system_colour

    non_answer = report.class_names[1] if report.p_eff < 0.5 else report.class_names[0]
    figure_positions = {name: i for i, name in enumerate(report.calibrated_systems)}
    calibrated_colour = system_colour(figure_positions[summary.calibration.calibrated.name]) \
        if summary.calibration is not None else ""
    topics = []
    for topic, heading in TOPICS.items():
        parts = summary.paragraphs.get(topic)
        if topic == "tested" or not parts:
            continue
        text = summary.text(topic, "html", verdict=False)
        if topic == "trust":  # a badge says what the paragraph's bold verdict would
            text = f'<span class="verdict {_verdict_class(summary.verdict)}">{_esc(summary.verdict)}</span>{text}'

        topics.append(f'<p class="topic">{_esc(heading)}</p><p>{text}</p>')
    return f"""
<article class="system" style="--colour: {system_colour(position)}">
  <h3>{_esc(summary.name)}</h3>
  <p>{summary.text("tested", "html")}</p>
  <div class="glance">
    <div class="big"><span class="num">{format_errors(summary.errors_per_100)}</span>
      <span class="unit">errors out of 100 trials at your prior</span></div>
    {_bars_html(summary, non_answer, calibrated_colour)}
  </div>
  {"".join(topics)}
</article>"""


def _table_html(frame: pd.DataFrame, formats: dict, css_class: str = "") -> str:
    head = "".join(f"<th>{_esc(c)}</th>" for c in [frame.index.name or "", *frame.columns])
    rows = []
    for index, row in frame.iterrows():
        cells = [f"<td>{_esc(index)}</td>"]
        for column, value in row.items():
            text = formats.get(column, "{}").format(value) if isinstance(value, (int, float, np.number)) else value
            cells.append(f"<td>{_esc(text)}</td>")
        rows.append(f"<tr>{''.join(cells)}</tr>")
    return (f'<div class="scroll"><table class="{css_class}"><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table></div>")


def _plot_html(key: str, fig: go.Figure) -> str:
    import plotly.io as pio

    return pio.to_html(
        fig, full_html=False, include_plotlyjs=False, div_id=f"plot-{key}", default_width="100%",
        default_height=f"{int(fig.layout.height or 560)}px",
        config={"displaylogo": False, "responsive": True,
                "toImageButtonOptions": {"format": "png", "filename": key, "scale": 2}},
    )


def _render_html(report: Report) -> str:
    from plotly.offline import get_plotlyjs

    op = f"P_target = {report.p_target:g}, C_miss = {report.c_miss:g}, C_fa = {report.c_fa:g}"
    created = report.created.strftime("%Y-%m-%d %H:%M %Z").strip()
    figures = "".join(
        f'<section class="figure" id="figure-{key}"><h3>{_esc(item.title)}</h3>'
        f'<div class="plot">{_plot_html(key, item.figure)}</div><p class="caption">{_esc(item.caption)}</p></section>'
        for key, item in report.figures.items()
    )
    table = report.metrics_table()
    table["EER"] = 100 * table["EER"]
    table = table.rename(columns={"EER": "EER %"})
    settings = pd.DataFrame({"value": list(report.settings.values())},
                            index=pd.Index(list(report.settings), name="setting"))
    sources = "".join(f"<li><strong>{_esc(s.name)}</strong>: {_esc(s.source or 'not given')}</li>"
                      for s in report.summaries)
    glossary = "".join(f"<dt>{_esc(term)}</dt><dd>{_esc(text)}</dd>" for term, text in _GLOSSARY)
    systems = "".join(_system_html(report, i, s) for i, s in enumerate(report.summaries))
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{_CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="llrcore {_esc(report.version)}">
<title>{_esc(report.title)}</title>
<style>{_CSS}</style>
<script>{get_plotlyjs()}</script>
</head>
<body>
<main>
<header>
  <h1>{_esc(report.title)}</h1>
  <p class="meta">Operating point: {_esc(op)} · made with llrcore {_esc(report.version)} on {_esc(created)}</p>
  <nav><a href="#summary">Summary</a><a href="#figures">Figures</a><a href="#metrics">All metrics</a>
  <a href="#settings">Settings</a><a href="#glossary">Glossary</a></nav>
</header>
<section id="summary">
  <p class="lead">How many errors does each system make, can the numbers it gives be taken at face value as
  likelihood ratios, and what does calibration change? An error is a {_esc(report.class_names[0])} trial the system
  misses or a {_esc(report.class_names[1])} trial it wrongly accepts, when it decides with its own likelihood
  ratios. The figures, every metric and the settings follow.</p>
  {systems}
</section>
<section id="figures"><h2>Figures</h2>{figures}</section>
<section id="metrics"><h2>All metrics</h2>
  <p>At the operating point {_esc(op)}; EER in %, costs normalised (1 = no system), Cllr in bits. “Errors per
  100” are counted at the effective prior {_esc(f"{report.p_eff:.4g}")}.</p>
  {_table_html(table, _TABLE_FORMATS)}
</section>
<section id="settings"><h2>Settings</h2>
  {_table_html(settings, {}, "settings")}
  <p>Data:</p><ul>{sources}</ul>
</section>
<section id="glossary"><h2>Glossary</h2><dl class="glossary">{glossary}</dl></section>
<footer>Made with llrcore {_esc(report.version)} on {_esc(created)}. Everything in this file works offline.
Bayes error rates and their trapezium bound: N. Brümmer, L. Ferrer and A. Swart, “Out of a hundred trials, how many
errors does your speaker verifier make?”, Interspeech 2021. APE curves and Cllr: N. Brümmer and J. du Preez,
“Application-independent evaluation of speaker detection”, Computer Speech and Language 20, 2006.</footer>
</main>
</body>
</html>
"""
