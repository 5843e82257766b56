"""The plain-language summary of a report, as data: per system, the numbers and the sentences that say them.

Per system the questions of Brümmer, Ferrer & Swart (2021): out of 100 trials at your prior, how many errors does
the system make (its Bayes error rate, times 100), how many would it make with perfect calibration (the minimum
Bayes error rate, PAV/ROCCH) and how many without it (deciding from the prior alone, ``min(P, 1 - P)``)? Then
whether its scores can be read as likelihood ratios (:func:`~llrcore.binary.verdict.llr_verdict`) and what a calibration
trained on development data (or cross-validated) changes. A sentence is a tuple of parts, plain strings and
:class:`Bold` ones, rendered with every part escaped as HTML, Markdown or plain text (:func:`render`).

When asked (:class:`SystemExtras`), two more: how sure the numbers are, their bootstrap intervals in words ("about
0.36 errors, very likely between 0.31 and 0.41 (95 % interval)"), and what they are condition by condition, with a
sentence for conditions too small to say much (the rule of 30, one class only). Errors per 100 trials and the
normalised actual DCF measure the same thing: at the effective prior ``P_eff``, ``DCF / (P C_miss + (1 - P) C_fa)``
is the Bayes error rate ``P_eff Pmiss + (1 - P_eff) Pfa`` at the same threshold, so ``errors per 100 =
100 min(P_eff, 1 - P_eff) actDCF``, and the interval of one is that of the other, scaled (:func:`errors_interval`).
"""
from __future__ import annotations

import html
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from .._format import bits, errors_phrase, format_errors, percent
from ..binary.metrics import BinaryMetrics, bayes_error_rates, evaluate
from ..binary.verdict import VERDICTS
from ..calibration.analysis import calibrate_and_evaluate
from ..calibration.fit import fit_affine
from ..data.trials import Trials
from ..prior import OperatingPoint
from ..uncertainty.conditions import RULE_OF_30, ConditionMetrics
from ..uncertainty.resampling import BootstrapResult
from .words import describe_calibration, escape_markdown

__all__ = [
    "CROSS_VALIDATION_FOLDS",
    "TOPICS",
    "Bold",
    "CalibrationSummary",
    "SystemExtras",
    "SystemSummary",
    "development_set",
    "errors_interval",
    "likely",
    "render",
    "summarise",
    "summarise_calibration",
    "with_bounds",
]

CROSS_VALIDATION_FOLDS = 5
#: The columns of the errors per 100 trials at the effective prior, as given and with perfect calibration.
ERRORS, MIN_ERRORS = "errors per 100", "errors per 100, perfect calibration"

#: The paragraphs of a system's summary and their headings.
TOPICS = {
    "tested": "What was tested",
    "errors": "How many errors?",
    "sure": "How sure are these numbers?",
    "conditions": "Condition by condition",
    "trust": "Can its scores be trusted as likelihood ratios?",
    "calibration": "What calibration changes",
}


class Bold(str):
    """A part of a sentence shown in bold."""


def render(parts, kind: str) -> str:
    """A sentence (a tuple of str and Bold parts) as ``"html"``, ``"markdown"`` or ``"text"``; every part escaped."""
    out = []
    for part in parts:
        if kind == "html":
            text = html.escape(part)
            out.append(f"<strong>{text}</strong>" if isinstance(part, Bold) else text)
        elif kind == "markdown":
            text = escape_markdown(part)
            out.append(f"**{text}**" if isinstance(part, Bold) else text)
        else:
            out.append(str(part))
    return "".join(out)


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
        Why the calibration is degenerate (:func:`~llrcore.calibration.problems.calibration_problems`), if it is.
    """

    description: str
    trained_on: str
    cross_validated: bool
    calibrated: Trials
    metrics: BinaryMetrics
    errors_per_100: float
    min_errors_per_100: float
    problems: tuple[str, ...] = ()

    def to_frame(self) -> pd.DataFrame:
        """One row, indexed by the calibrated system's name: :func:`~llrcore.metrics_table`'s columns, then
        ``errors per 100`` and ``errors per 100, perfect calibration`` (as in :meth:`Report.metrics_table`),
        ``trained on`` and ``cross-validated``."""
        columns: dict[str, Any] = {
            ERRORS: self.errors_per_100, MIN_ERRORS: self.min_errors_per_100, "trained on": self.trained_on,
            "cross-validated": self.cross_validated}
        return self.metrics.to_frame().assign(**columns)


@dataclass(frozen=True)
class SystemExtras:
    """What a report adds for one system when asked: its bootstrap intervals and its conditions.

    Attributes
    ----------
    interval : BootstrapResult or None
        The bootstrap of all its trials (None without intervals).
    conditions : ConditionMetrics or None
        Its metrics per condition (None without a breakdown, or when its trials lack the columns).
    condition_intervals : dict or None
        :meth:`ConditionMetrics.bootstrap` of its conditions, keyed by condition label.
    by : tuple of str
        The columns the report breaks down by.
    group_by : str or None
        The column whose groups were asked to be drawn whole.
    """

    interval: BootstrapResult | None = None
    conditions: ConditionMetrics | None = None
    condition_intervals: dict[str, BootstrapResult] | None = None
    by: tuple[str, ...] = ()
    group_by: str | None = None


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
        ``topic -> sentence`` for the topics of :data:`TOPICS` that apply; a sentence is a tuple of parts (str, bold
        parts a str subclass), rendered escaped by :meth:`Report.summary_markdown` and :meth:`Report.to_html`.
    extras : SystemExtras
        Its intervals and conditions, when the report was asked for them.
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
    extras: SystemExtras = field(default_factory=SystemExtras)

    def sentence(self) -> str:
        """The verdict and why, in words: the ``trust`` paragraph as text."""
        return self.text("trust")

    def to_frame(self) -> pd.DataFrame:
        """One row, indexed by the system's name: :func:`~llrcore.metrics_table`'s columns, then the errors per 100
        trials at the effective prior (``errors per 100``, ``errors per 100, perfect calibration``, ``errors per 100,
        no system``) and ``verdict``."""
        columns: dict[str, Any] = {
            ERRORS: self.errors_per_100, MIN_ERRORS: self.min_errors_per_100,
            "errors per 100, no system": self.default_errors_per_100, "verdict": self.verdict}
        return self.metrics.to_frame().assign(**columns)

    def text(self, topic: str, kind: str = "text", *, verdict: bool = True) -> str:
        """One paragraph (``tested``, ``errors``, ``trust``, ``calibration``) as ``text``, ``markdown`` or
        ``html``; empty when the topic does not apply. ``verdict=False`` leaves the bold verdict ("Good.") out of
        the ``trust`` paragraph, for a page that shows :attr:`verdict` as a badge."""
        parts = self.paragraphs.get(topic, ())
        if topic == "trust" and not verdict:
            parts = parts[1:]
        return render(parts, kind)


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
        with warnings.catch_warnings():  # a collapse is said in words below, not warned about
            warnings.simplefilter("ignore", RuntimeWarning)
            fix = fit_affine(trials.tar, trials.non)
    except ValueError:
        return ""
    if fix.collapsed:
        return ("a few of its likelihood ratios lie astronomically far from the others on the wrong side, so far "
                "that no affine recalibration can repair them (" + fix.failure.split(" (")[0] + ")")
    if fix.scale <= 0:
        return "its likelihood ratios point the wrong way (higher for the other hypothesis)"
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


def summarise_calibration(name, trials, calibrate_on, method, rule, plo, op: OperatingPoint) -> CalibrationSummary:
    """Calibrate `trials` on `calibrate_on`, or by cross-validation on themselves when it is None
    (:func:`~llrcore.calibration.analysis.calibrate_and_evaluate`), and count the errors after calibration."""
    result = calibrate_and_evaluate(calibrate_on if calibrate_on is not None else trials,
                                    trials if calibrate_on is not None else None, method, rule, plo=plo,
                                    folds=CROSS_VALIDATION_FOLDS, p_target=op)
    if getattr(result.calibrator, "collapsed", False):  # no calibration: the report says why instead of its numbers
        raise ValueError(f"it collapsed ({result.calibrator.failure}). Remove the far scores, or choose PAV.")
    calibrated = result.calibrated
    calibrated = Trials(calibrated.tar, calibrated.non, name=f"{name} (calibrated)", spoof=calibrated.spoof)
    if result.cross_validated:
        trained_on = f"trained by {CROSS_VALIDATION_FOLDS}-fold cross-validation on these same trials"
    else:
        trained_on = (f"trained on {calibrate_on.name or 'the development set'}, {calibrate_on.tar.size:,} target "
                      f"and {calibrate_on.non.size:,} non-target trials")
    errors, min_errors, _ = _errors_per_100(calibrated, op.plo_eff)
    return CalibrationSummary(describe_calibration(method, rule, plo), trained_on, result.cross_validated,
                              calibrated, replace(result.after, name=calibrated.name), errors, min_errors,
                              result.problems)


def _tested(name, trials, source, class_names) -> tuple:
    tar_name, non_name = class_names
    spoof = (f" The {trials.spoof.size:,} spoofing trials in the data are shown in the score distributions but not "
             "counted in the error rates." if trials.spoof.size else "")
    where = (" from ", Bold(source), ".") if source else (".",)
    return (Bold(name), f" was tested on {trials.tar.size:,} {tar_name} trials and {trials.non.size:,} {non_name} "
            "trials", *where, spoof)


def _errors_sentence(op: OperatingPoint, class_names, errors, min_errors, default_errors, interval=None) -> tuple:
    at = (f"at your prior (P_target = {op.p_target:g}: {percent(op.p_target)} of the trials are {class_names[0]} "
          "trials)")
    if op.c_miss != op.c_fa:
        at = (f"at your operating point (P_target = {op.p_target:g}, a miss costing {op.c_miss / op.c_fa:.3g} times a "
              f"false alarm, which weighs like a prior of {percent(op.p_eff)})")
    default_answer = class_names[1] if op.p_eff < 0.5 else class_names[0]
    sentence = (
        "Out of ", Bold("100"), f" trials {at}, this system makes about ",
        *(_errors_with_interval(errors, interval, op) if interval is not None else (Bold(errors_phrase(errors)),)),
        ". With perfect calibration it would make about ", Bold(format_errors(min_errors)), "; without the "
        f"system, always answering “{default_answer}”, ", Bold(format_errors(default_errors)), ".",
    )
    if errors > default_errors:
        sentence += (" At this prior the system does ", Bold("worse than no system at all"), ".")
    return sentence


def _trust_sentence(trials, metrics, verdict, class_names) -> tuple:
    loss = f"{metrics.calibration_loss_percent:.0f} %"
    cost = f"its overall cost (Cllr {bits(metrics.cllr)} bits)"
    if verdict == VERDICTS[0]:
        return (Bold("Good."), f" Calibration accounts for only {loss} of {cost}: its scores can be read as "
                "likelihood ratios, strengths of evidence for one hypothesis against the other.")
    direction = _direction(trials, class_names)
    if verdict == VERDICTS[1]:
        head, why = "Needs recalibration.", f"Poor calibration accounts for {loss} of {cost}"
    else:
        head = "Not usable as likelihood ratios as they are."
        why = (f"Taken at face value its scores carry less information than no system (Cllr {bits(metrics.cllr)} "
               "bits; 1 bit or more)")
    return Bold(head), f" {why}" + (f" — {direction}." if direction else ".")


def summarise(name, trials, source, op: OperatingPoint, class_names, calibration, problem=None,
              extras: SystemExtras | None = None) -> SystemSummary:
    """Numbers and sentences of one system; `problem` says why there is no `calibration`, if it could not be
    trained; `extras` brings its intervals and conditions."""
    extras = extras or SystemExtras()
    metrics = evaluate(trials.sorted, p_target=op, name=name)
    errors, min_errors, default_errors = _errors_per_100(trials, op.plo_eff)
    verdict = metrics.llr_verdict.verdict
    paragraphs = {
        "tested": _tested(name, trials, source, class_names),
        "errors": _errors_sentence(op, class_names, errors, min_errors, default_errors, extras.interval),
        "trust": _trust_sentence(trials, metrics, verdict, class_names),
    }
    if extras.interval is not None:
        paragraphs["sure"] = _sure_sentence(extras.interval, extras.group_by)
    if extras.by:
        paragraphs["conditions"] = _conditions_sentence(extras)
    if calibration is not None:
        moves = "falls" if calibration.metrics.cllr < metrics.cllr else "rises"
        paragraphs["calibration"] = (
            f"After calibration ({calibration.description}; {calibration.trained_on}) it makes about ",
            Bold(errors_phrase(calibration.errors_per_100)), f" out of 100 instead of {format_errors(errors)}, "
            f"and its overall cost (Cllr) {moves} from {bits(metrics.cllr)} to ",
            Bold(bits(calibration.metrics.cllr)), " bits.",
        )
        if calibration.problems:
            paragraphs["calibration"] += (" ", Bold("This calibration is degenerate:"), " ",
                                          " ".join(calibration.problems))
    elif problem:
        paragraphs["calibration"] = ("Calibration could not be trained: ", problem)
    return SystemSummary(name, source, trials, metrics, errors, min_errors, default_errors, verdict, calibration,
                         paragraphs, extras)


def development_set(calibrate_on, name: str):
    """The development Trials for system `name` (one set for all, or one per system), None for cross-validation."""
    if calibrate_on is None or isinstance(calibrate_on, Trials):
        return calibrate_on
    if isinstance(calibrate_on, Mapping):
        if name not in calibrate_on:
            raise ValueError(f"No development set is given for the system {name!r}.")
        return calibrate_on[name]
    raise TypeError("calibrate_on must be None, a Trials or a mapping from system name to Trials.")


# ----- how sure, and per condition ----------------------------------------------------------------------------------


def likely(level: float) -> str:
    """How sure an interval is, in words: "very likely" from 95 %, "likely" below."""
    return "very likely" if level >= 0.95 else "likely"


def errors_interval(interval: BootstrapResult, op: OperatingPoint) -> tuple[float, float]:
    """The interval of the errors per 100 trials at the effective prior: ``100 min(P_eff, 1 - P_eff)`` times that of
    the normalised actual DCF (see the module docstring)."""
    scale = 100 * min(op.p_eff, 1 - op.p_eff)
    lower, upper = interval.interval("act_dcf")
    return scale * lower, scale * upper


def with_bounds(value: float, lower: float, upper: float, significant: int = 2) -> tuple[str, str, str]:
    """A number and its interval written with the same decimals: those that give `value` `significant` digits,
    more if the limits would otherwise read the same. ``(2.431, 2.21, 2.674) -> ('2.4', '2.2', '2.7')``,
    ``(0.9986, 0.9979, 0.9994) -> ('0.999', '0.998', '0.999')``."""
    scale = next((abs(x) for x in (value, upper, lower) if np.isfinite(x) and x != 0), 1.0)
    decimals = max(0, significant - 1 - int(np.floor(np.log10(scale))))
    for decimals in range(decimals, decimals + 5):
        texts = (f"{value:.{decimals}f}", f"{lower:.{decimals}f}", f"{upper:.{decimals}f}")
        if texts[1] != texts[2] or lower == upper:
            break
    return texts


def _errors_with_interval(errors: float, interval: BootstrapResult, op: OperatingPoint) -> tuple:
    """``**2.4 errors**, very likely between 2.2 and 2.7 (95 % BCa bootstrap interval)``."""
    value, lower, upper = with_bounds(errors, *errors_interval(interval, op))
    return (Bold(f"{value} error" if value == "1" else f"{value} errors"),
            f", {likely(interval.level)} between {lower} and {upper} ({interval.interval_words})")


def _sure_sentence(interval: BootstrapResult, group_by: str | None) -> tuple:
    """How sure the numbers are: the EER and Cllr with their intervals in words, how the trials were drawn, and the
    rule of 30 when the EER rests on few errors."""
    metrics, word = interval.estimate, likely(interval.level)
    eer_lower, eer_upper = interval.interval("eer")
    eer, eer_low, eer_high = with_bounds(100 * metrics.eer, 100 * eer_lower, 100 * eer_upper, 3)
    cllr, cllr_low, cllr_high = with_bounds(metrics.cllr, *interval.interval("cllr"), 3)
    drawn = (f"whole {interval.group_by} groups ({interval.n_groups:,} of them), so that trials that share one are "
             "not taken for independent ones" if interval.group_by else "one by one")
    sentence: tuple = (
        "Its equal error rate is ", Bold(f"{eer} %"), f", {word} between {eer_low} % and {eer_high} %; its overall "
        "cost (Cllr) is ", Bold(cllr), f" bits, {word} between {cllr_low} and {cllr_high}. With many more trials like these the numbers would {word} fall "
        f"within these ranges ({interval.interval_words}s from {len(interval.replicates):,} "
        f"resamplings of the trials, drawn {drawn}).",
    )
    if group_by and interval.group_by is None:
        sentence += (f" Its trials have no column “{group_by}”, so they were drawn one by one.",)
    misses, false_alarms = metrics.eer * metrics.n_tar, metrics.eer * metrics.n_non
    if min(misses, false_alarms) < RULE_OF_30:
        sentence += (" ", Bold("Few errors:"), f" about {misses:.0f} misses and {false_alarms:.0f} false alarms at "
                     f"its EER, fewer than {RULE_OF_30}; by the rule of 30 its error rates are not known to within "
                     "±30 %.")
    return sentence


def _conditions_sentence(extras: SystemExtras) -> tuple:
    """The conditions of one system in words: how many, the lowest and highest EER, and a sentence for those that
    cannot say much (:meth:`~llrcore.ConditionMetrics.notes`)."""
    by, result = " × ".join(extras.by), extras.conditions
    if result is None:
        return (f"Not broken down by {by}: its trials have no such column.",)
    count = len(result.conditions)
    sentence: tuple = (f"Broken down by {by} into {count:,} condition{'s' if count != 1 else ''}",)
    eers = [(row.label, row.metrics.eer) for row in result.conditions if row.metrics is not None]
    pooled = result.pooled.metrics
    if len(eers) == 1:
        sentence += (f" ({eers[0][0]}), its equal error rate is ", Bold(percent(eers[0][1])), ".")
    elif eers and pooled is not None:  # (the pooled trials have both classes when a condition has)
        (best, lowest), (worst, highest) = min(eers, key=lambda pair: pair[1]), max(eers, key=lambda pair: pair[1])
        sentence += (", its equal error rate goes from ", Bold(percent(lowest)), f" ({best}) to ",
                     Bold(percent(highest)), f" ({worst}); all trials pooled, {percent(pooled.eer)}.")
    else:
        sentence += (".",)
    notes = result.notes()
    if notes:
        sentence += (" ", Bold("Too few trials to say much."), " ", " ".join(notes))
    return sentence
