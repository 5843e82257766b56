"""What the app, the report and the command line say about a system, decided once: the LLR verdict, and the words
and numbers every front end writes the same way (:func:`percent`, :func:`format_errors` for errors per 100 trials,
:func:`bits`, :func:`number` for any number in a card or a box, :func:`describe_calibration`,
:func:`escape_markdown` for a user's string in Markdown).

:func:`llr_verdict` answers "can these scores be used as likelihood ratios as they are?" from two numbers that do not
depend on any operating point: Cllr, the cost of the scores taken as natural-log LLRs averaged over all priors, and
minCllr, the same after the best monotone recalibration of these trials (PAV). Their difference is the calibration
loss (Brümmer & du Preez, CSL 2006). The thresholds:

=====================================  ======================================================================
verdict                                when
=====================================  ======================================================================
``"good"``                             Cllr < 1 bit and calibration loss at most 10 % of Cllr
``"needs recalibration"``              Cllr < 1 bit and calibration loss above 10 % of Cllr
``"not usable as likelihood ratios"``  Cllr >= 1 bit (or infinite): worse than no system, whose LLR is always 0
=====================================  ======================================================================

1 bit is what the neutral LLR 0 costs at every prior. Cllr is the area under the curve of the actual Bayes error rate
over all prior log-odds, minCllr the area under the minimum one (the APE curves): at 10 % calibration loss the actual
errors, summed over all priors, are 1/0.9 = 1.11 times the least any monotone recalibration could reach.

Reference
---------
N. Brümmer and J. du Preez, "Application-independent evaluation of speaker detection", Computer Speech and Language
20, 2006.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .prior import sigmoid

if TYPE_CHECKING:  # words stand below the calibration package, which uses them
    from .calibration.rules import BetaRule

__all__ = [
    "GOOD_LOSS_PERCENT",
    "LARGEST_FIXED",
    "USELESS_CLLR",
    "VERDICTS",
    "VERDICT_RULE",
    "LLRVerdict",
    "bits",
    "calibration_loss_percent",
    "describe_calibration",
    "errors_phrase",
    "escape_markdown",
    "format_errors",
    "llr_verdict",
    "number",
    "paired_shares",
    "paired_verdict",
    "percent",
]

#: The three answers to "can these scores be used as likelihood ratios as they are?"
VERDICTS = ("good", "needs recalibration", "not usable as likelihood ratios")
#: Calibration may lose at most this share of Cllr (in %) for the scores to be "good" likelihood ratios.
GOOD_LOSS_PERCENT = 10.0
#: Cllr (bits) of the neutral LLR 0, i.e. of no system: scores that cost this much or more are not usable as LLRs.
USELESS_CLLR = 1.0
#: The rule in one sentence, for tables' help texts and the command line.
VERDICT_RULE = (f"good when Cllr < {USELESS_CLLR:g} bit and calibration loss is at most {GOOD_LOSS_PERCENT:g} % of "
                f"Cllr; not usable as likelihood ratios when Cllr ≥ {USELESS_CLLR:g} bit (worse than no system); "
                "otherwise needs recalibration")


@dataclass(frozen=True)
class LLRVerdict:
    """The answer to "can these scores be used as likelihood ratios?", with the numbers it rests on.

    Attributes
    ----------
    verdict : str
        One of :data:`VERDICTS`.
    cllr, min_cllr : float
        Cllr of the scores taken as LLRs and after PAV, in bits.
    calibration_loss_percent : float
        ``100 (Cllr - minCllr) / Cllr`` (100 when Cllr is infinite).
    """

    verdict: str
    cllr: float
    min_cllr: float
    calibration_loss_percent: float

    @property
    def good(self) -> bool:
        return self.verdict == VERDICTS[0]

    @property
    def usable(self) -> bool:
        """False when taken as LLRs the scores do worse than no system."""
        return self.verdict != VERDICTS[2]

    def reason(self) -> str:
        """The numbers behind the verdict in a few words, e.g. ``"69 % of Cllr 0.288 bits is calibration loss"``."""
        if not np.isfinite(self.cllr):
            return "some LLRs are infinite and wrong, so Cllr is infinite"
        if not self.usable:
            return f"Cllr {self.cllr:.3g} bits ≥ {USELESS_CLLR:g} bit, worse than no system"
        return f"{self.calibration_loss_percent:.0f} % of Cllr {self.cllr:.3f} bits is calibration loss"

    def __str__(self) -> str:
        """``"needs recalibration: 69 % of Cllr 0.288 bits is calibration loss"``."""
        return f"{self.verdict}: {self.reason()}"

    def sentence(self) -> str:
        """:meth:`__str__` as a sentence: ``"Needs recalibration: 69 % of Cllr 0.288 bits is calibration loss."``"""
        text = str(self)
        return f"{text[:1].upper()}{text[1:]}."

    def to_frame(self) -> pd.DataFrame:
        """One row: ``verdict``, ``Cllr``, ``minCllr`` (bits) and ``calibration loss %``."""
        return pd.DataFrame([{"verdict": self.verdict, "Cllr": self.cllr, "minCllr": self.min_cllr,
                              "calibration loss %": self.calibration_loss_percent}])


def llr_verdict(cllr: float, min_cllr: float) -> LLRVerdict:
    """Whether scores with this Cllr and minCllr can be used as likelihood ratios as they are.

    Parameters
    ----------
    cllr : float
        Cllr in bits of the scores taken as natural-log LLRs (:func:`llrcore.cllr`).
    min_cllr : float
        Cllr in bits after the best monotone recalibration (:func:`llrcore.min_cllr`).

    Returns
    -------
    LLRVerdict
        ``"good"`` when ``Cllr < 1`` and ``100 (Cllr - minCllr) / Cllr <= 10``; ``"not usable as likelihood
        ratios"`` when ``Cllr >= 1`` bit (no better than the LLR 0 of no system) or is not finite; otherwise
        ``"needs recalibration"``.

    Examples
    --------
    >>> str(llr_verdict(0.2884, 0.0889))
    'needs recalibration: 69 % of Cllr 0.288 bits is calibration loss'
    """
    cllr, min_cllr = float(cllr), float(min_cllr)
    if np.isnan(cllr) or np.isnan(min_cllr):
        raise ValueError("Cllr and minCllr must be numbers, not NaN.")
    loss = calibration_loss_percent(cllr, min_cllr)
    if not np.isfinite(cllr) or cllr >= USELESS_CLLR:
        verdict = VERDICTS[2]
    elif loss <= GOOD_LOSS_PERCENT:
        verdict = VERDICTS[0]
    else:
        verdict = VERDICTS[1]
    return LLRVerdict(verdict, cllr, min_cllr, loss)


def calibration_loss_percent(cllr: float, min_cllr: float) -> float:
    """``100 (Cllr - minCllr) / Cllr``: 0 for perfectly calibrated LLRs, 100 when Cllr is infinite (minCllr never is)."""
    if np.isinf(cllr):
        return 100.0
    return 100.0 * (cllr - min_cllr) / cllr if cllr > 0 else 0.0


def percent(p: float) -> str:
    """A probability as a percentage, by one rule for every sentence, table and figure label: three significant
    digits, trailing zeros dropped.

    ``0.0253 -> '2.53 %'``, ``0.1 -> '10 %'``, ``0.001 -> '0.1 %'``, ``0.000975 -> '0.0975 %'``, ``0 -> '0 %'``,
    ``1 -> '100 %'``. Never in exponent notation (``1e-7 -> '0.00001 %'``), and a rate below 100 % never shows as
    ``'100 %'`` (``0.99999 -> '99.999 %'``): digits are added until it differs from 100.
    """
    value = 100.0 * float(p)
    if not np.isfinite(value):
        return f"{value} %"
    digits = 3
    text = np.format_float_positional(value, precision=digits, unique=False, fractional=False, trim="-")
    while float(text) == 100 and value != 100 and digits < 17:
        digits += 1
        text = np.format_float_positional(value, precision=digits, unique=False, fractional=False, trim="-")
    return f"{text} %"


def format_errors(x: float) -> str:
    """Errors per 100 trials in two significant digits, never in scientific notation: 0.3646 -> '0.36'."""
    if not np.isfinite(x):
        return str(x)
    if x == 0:
        return "0"
    return np.format_float_positional(float(x), precision=2, unique=False, fractional=False, trim="-")


def errors_phrase(x: float) -> str:
    """Errors per 100 trials with their noun: '0.36 errors', '1 error'."""
    text = format_errors(x)
    return f"{text} error" if text == "1" else f"{text} errors"


def with_interval(value: float, lower: float, upper: float, digits: int = 2) -> str:
    """A number with its confidence interval, as the app's tables and the report write it:
    ``with_interval(2.4312, 2.21, 2.674) -> '2.43 [2.21, 2.67]'`` (each by :func:`number`)."""
    return f"{number(value, digits)} [{number(lower, digits)}, {number(upper, digits)}]"


def listed(labels: list[str]) -> str:
    """Items in a sentence: ``'a'``, ``'a and b'``, ``'a, b and c'``."""
    return labels[0] if len(labels) == 1 else f"{', '.join(labels[:-1])} and {labels[-1]}"


#: From this size on, :func:`number` writes exponent notation (a fixed-point 1e308 has 309 digits).
LARGEST_FIXED = 1e6


def number(x: float, decimals: int = 3, *, sign: bool = False) -> str:
    """A number for a card, a metric row or a sentence, in a box of about ten characters: `decimals` decimals, or
    three significant digits in exponent notation from :data:`LARGEST_FIXED` on; 'infinite' for an infinite one.

    ``number(0.25314) -> '0.253'``, ``number(2.4312, 2) -> '2.43'``, ``number(1.99e305) -> '1.99e+305'``,
    ``number(-123456789.0, 1) -> '-1.23e+08'``, ``number(0.0143, 4, sign=True) -> '+0.0143'``,
    ``number(float('inf')) -> 'infinite'``, ``number(float('-inf')) -> '-infinite'``, ``number(nan) -> 'NaN'``.
    """
    x = float(x)
    if np.isnan(x):
        return "NaN"
    if np.isinf(x):
        return "-infinite" if x < 0 else f"{'+' if sign else ''}infinite"
    plus = "+" if sign else ""
    if abs(x) >= LARGEST_FIXED:
        return f"{x:{plus}.3g}"
    return f"{x:{plus}.{decimals}f}"


def _share(count: int, n: int) -> str:
    """``count`` of ``n`` as a whole percentage that says 0 % or 100 % only when it is exactly that (``"under 1 %"``,
    ``"over 99 %"`` otherwise)."""
    value = 100 * count / n
    if 0 < value < 0.5:
        return "under 1 %"
    if 99.5 <= value < 100:
        return "over 99 %"
    return f"{value:.0f} %"


def paired_shares(differences, a: str, b: str, label: str, of: str) -> str:
    """How often each of two systems did better over the resamplings of a paired bootstrap, in words: wins, losses
    and ties counted apart, so that equal costs are never called a win. `differences` are B minus A per replicate of
    a cost or an error rate (negative: B better); `of` says what was resampled.

    ``"B has a lower EER than A in 97 % of 1,000 resamplings of the trials"`` (no ties);
    ``"B has a lower actDCF than A in 60 % of 200 resamplings of the trials, A in 10 %, and they are equal in 30 %"``;
    ``"A and B have an equal actDCF in every one of 200 resamplings of the trials"``.
    """
    d = np.asarray(differences, dtype=np.float64)
    b_wins, a_wins, ties = (int(np.count_nonzero(x)) for x in (d < 0, d > 0, d == 0))
    if ties == d.size:
        return f"{a} and {b} have an equal {label} in every one of {d.size:,} resamplings {of}"
    better, worse, wins, losses = (b, a, b_wins, a_wins) if b_wins >= a_wins else (a, b, a_wins, b_wins)
    text = f"{better} has a lower {label} than {worse} in {_share(wins, d.size)} of {d.size:,} resamplings {of}"
    return text + (f", {worse} in {_share(losses, d.size)}, and they are equal in {_share(ties, d.size)}"
                   if ties else "")


def paired_verdict(low: float, high: float, differences) -> str:
    """What a paired difference's interval (`low`, `high`) says: ``"so the difference is very likely real"`` when it
    leaves out 0, ``"so the difference could be chance"`` when it holds 0, ``"so these trials do not tell them
    apart"`` when every replicate's difference is exactly 0."""
    if np.all(np.asarray(differences) == 0):
        return "so these trials do not tell them apart"
    return f"so the difference {'is very likely real' if low > 0 or high < 0 else 'could be chance'}"


def bits(x: float) -> str:
    """A Cllr in bits, three decimals: 0.2531 -> '0.253'; '2.39e+305' for a huge one, 'infinite' for an infinite one
    (:func:`number`)."""
    return number(x, 3)


#: Interval methods of a bootstrap run -> their name in words.
INTERVAL_METHODS = {"bca": "BCa", "percentile": "percentile"}
#: Every interval's name in words, minDCF's out-of-bag bracket and smoothed bootstrap (of a BCa run) included.
_INTERVAL_WORDS = {**INTERVAL_METHODS, "bracket": "out-of-bag bracket", "smoothed": "smoothed basic"}


def interval_words(level: float, method: str) -> str:
    """``"95 % BCa bootstrap interval"``."""
    return f"{100 * level:g} % {_INTERVAL_WORDS[method]} bootstrap interval"


def describe_calibration(method: str, rule: BetaRule | None = None, plo: float = 0.0) -> str:
    """The calibration in words, e.g. ``affine, logistic regression weighted for P_target = 0.01``."""
    if method == "pav":
        return "PAV (monotone, non-parametric)"
    if method == "cmlg":
        return "CMLG (Gaussian, closed form)"
    logarithmic = rule is None or (rule.alpha, rule.beta) == (1, 1)
    fitted = "logistic regression" if logarithmic else f"{rule.name} rule"
    return f"affine, {fitted} weighted for P_target = {float(sigmoid(plo)):.3g}"


def escape_markdown(text: str) -> str:
    """A user's string (a system or file name) made literal in Markdown: a backslash before every ASCII punctuation
    character, which CommonMark then shows as it is (no emphasis, links, HTML, tables or LaTeX ``$``)."""
    return re.sub(r"([!-/:-@\[-`{-~])", r"\\\1", str(text))
