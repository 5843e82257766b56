"""The LLR verdict: what the app, the report and the command line say about a system's scores, decided once.

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

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._choices import GOOD_LOSS_PERCENT, USELESS_CLLR, VERDICT_RULE

__all__ = ["GOOD_LOSS_PERCENT", "USELESS_CLLR", "VERDICTS", "VERDICT_RULE", "LLRVerdict", "calibration_loss_percent",
           "llr_verdict"]

#: The three answers to "can these scores be used as likelihood ratios as they are?"
VERDICTS = ("good", "needs recalibration", "not usable as likelihood ratios")


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
    """``100 (Cllr - minCllr) / Cllr``: 0 for perfectly calibrated LLRs, 100 when Cllr is infinite (minCllr never
    is)."""
    if np.isinf(cllr):
        return 100.0
    return 100.0 * (cllr - min_cllr) / cllr if cllr > 0 else 0.0
