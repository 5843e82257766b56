"""Direct score thresholding against Bayes decisions: what a threshold fixed for a false-alarm rate costs elsewhere.

:func:`fixed_false_alarm_threshold` makes the criticism of direct score thresholding by Brümmer, Ferrer & Swart
(2021, section 5) visible: a score threshold chosen on development data to give a fixed false-alarm rate, then
applied to evaluation data at every prior, against Bayes decisions with scores calibrated on the same development
data.

Reference
---------
N. Brümmer, L. Ferrer and A. Swart, "Out of a hundred trials, how many errors does your speaker verifier make?",
Interspeech 2021 (section 5).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .._format import percent
from ..binary.metrics import bayes_error_rates, trials_table
from ..binary.rates import SortedScores
from ..calibration.fit import fit_affine
from ..data.trials import Trials
from ..prior import sigmoid
from .decisions import per_100

__all__ = ["FixedThresholdAnalysis", "fixed_false_alarm_threshold", "score_threshold_for_false_alarm_rate"]


def score_threshold_for_false_alarm_rate(non: ArrayLike, target_pfa: float) -> float:
    """The score threshold that accepts as many non-targets as `target_pfa` allows, and no more.

    With ``N`` non-target scores, ``k = floor(target_pfa N)`` of them may be accepted: the threshold lies midway
    between the highest score that must be rejected and the next higher score, so exactly the scores above the gap
    are accepted (``score >= threshold``) and ``Pfa = (number above) / N <= target_pfa`` (fewer when tied scores
    straddle the gap). With no higher score, the threshold is just above the highest one.

    Parameters
    ----------
    non : array_like
        Non-target scores of the development data (sorted or not).
    target_pfa : float
        The false-alarm rate to fix, strictly between 0 and 1.

    Returns
    -------
    float
        The score threshold (accept when ``score >= threshold``); ``-inf`` when every non-target may be accepted.

    Raises
    ------
    ValueError
        When `target_pfa` is not strictly between 0 and 1.
    """
    if not 0 < target_pfa < 1:
        raise ValueError("The false-alarm rate to fix must be strictly between 0 and 1 (e.g. 0.01 for 1 %).")
    non = np.asarray(non, dtype=np.float64)
    non = non if np.all(non[:-1] <= non[1:]) else np.sort(non)
    n = non.size
    allowed = int(np.floor(target_pfa * n * (1 + 1e-12)))  # 0.01 * 5700 must allow 57, despite rounding
    if allowed >= n:
        return -np.inf
    rejected = non[n - allowed - 1]  # the highest score that must stay below the threshold
    above = int(np.searchsorted(non, rejected, side="right"))
    if above == n:
        return float(np.nextafter(rejected, np.inf))
    return float(rejected + (non[above] - rejected) / 2)


@dataclass(frozen=True)
class FixedThresholdAnalysis:
    """A score threshold fixed on development data for a false-alarm rate, and what it costs on evaluation data.

    Attributes
    ----------
    target_pfa : float
        The false-alarm rate fixed on the development data.
    threshold : float
        The score threshold (accept when ``score >= threshold``).
    dev_false_alarm_rate, dev_miss_rate, eval_false_alarm_rate, eval_miss_rate : float
        Its rates on the development and the evaluation data.
    calibration : callable or None
        The calibration trained on the development data for the Bayes decisions (None: scores taken as LLRs).
    implied_plo : float
        The effective prior log-odds at which the fixed threshold is the Bayes threshold of the calibrated scores:
        ``-calibration(threshold)``. Fixing the false-alarm rate is the Bayes decision only there.
    plo : ndarray
        Prior log-odds ``logit(P_target)`` of the comparison (costs not folded in).
    c_miss, c_fa : float
    fixed, fixed_dev : ndarray
        Expected cost per trial of the fixed threshold on the evaluation data (and on the development data):
        ``P C_miss Pmiss(threshold) + (1 - P) C_fa Pfa(threshold)``.
    bayes : ndarray
        Expected cost on the evaluation data of Bayes decisions (threshold ``-plo_eff``) with the calibrated LLRs.
    minimum, default : ndarray
        The evaluation data's minimum (PAV) and no-system costs.
    evaluation_scores, calibrated_scores : SortedScores
        The evaluation scores as they are and calibrated (for :meth:`at`).
    """

    target_pfa: float
    threshold: float
    dev_false_alarm_rate: float
    dev_miss_rate: float
    eval_false_alarm_rate: float
    eval_miss_rate: float
    calibration: object
    implied_plo: float
    plo: np.ndarray
    c_miss: float
    c_fa: float
    fixed: np.ndarray
    fixed_dev: np.ndarray
    bayes: np.ndarray
    minimum: np.ndarray
    default: np.ndarray
    evaluation_scores: SortedScores = field(repr=False, compare=False)
    calibrated_scores: SortedScores = field(repr=False, compare=False)

    #: The ways of deciding compared, each an array of expected costs per trial over :attr:`plo`.
    CURVES = ("fixed", "fixed_dev", "bayes", "minimum", "default")

    @property
    def implied_prior_log_odds(self) -> float:
        """``logit(P_target)`` at which the fixed threshold is the Bayes decision: :attr:`implied_plo` with the
        analysis' costs taken out."""
        return float(self.implied_plo - np.log(self.c_miss / self.c_fa))

    @property
    def implied_p_target(self) -> float:
        """``P_target`` at which the fixed threshold is the Bayes decision (with the analysis' costs)."""
        return float(sigmoid(self.implied_prior_log_odds))

    def to_frame(self) -> pd.DataFrame:
        """One row per prior: ``plo``, ``p_target`` and the expected cost per trial of each way of deciding
        (:attr:`CURVES`; the figure draws them times 100, per 100 trials)."""
        frame = pd.DataFrame({"plo": self.plo, "p_target": sigmoid(self.plo)})
        for curve in self.CURVES:
            frame[curve] = getattr(self, curve)
        return frame

    def at(self, p_target: float) -> dict[str, float]:
        """The expected costs per trial at one prior: ``fixed``, ``fixed_dev``, ``bayes``, ``minimum``, ``default``."""
        if not 0 < p_target < 1:
            raise ValueError("P(target) must be strictly between 0 and 1.")
        p = float(p_target)
        plo = np.log(p) - np.log1p(-p)
        bayes = bayes_error_rates(self.calibrated_scores, plo=plo, c_miss=self.c_miss, c_fa=self.c_fa)
        reference = bayes_error_rates(self.evaluation_scores, plo=plo, c_miss=self.c_miss, c_fa=self.c_fa)
        return {
            "fixed": p * self.c_miss * self.eval_miss_rate + (1 - p) * self.c_fa * self.eval_false_alarm_rate,
            "fixed_dev": p * self.c_miss * self.dev_miss_rate + (1 - p) * self.c_fa * self.dev_false_alarm_rate,
            "bayes": float(bayes.actual[0]),
            "minimum": float(reference.minimum[0]),
            "default": float(reference.default[0]),
        }

    def sentence(self, p_target: float | None = None) -> str:
        """The paper's criticism in plain words, with the costs at `p_target` when given."""
        what = "errors" if self.c_miss == 1 and self.c_fa == 1 else "cost"
        text = (
            f"Fixing the false-alarm rate at {percent(self.target_pfa)} on the development data gives "
            f"{percent(self.eval_false_alarm_rate)} false alarms and {percent(self.eval_miss_rate)} misses on the "
            f"evaluation data; it is the Bayes decision only at P(target) ≈ {self.implied_p_target:.2g}."
        )
        if p_target is not None:
            values = self.at(p_target)
            fixed, bayes = (per_100(100 * values[key]) for key in ("fixed", "bayes"))
            if what == "errors":
                outcome = (f"it makes {fixed} errors per 100 evaluation trials, where Bayes decisions with calibrated "
                           f"scores make {bayes}")
            else:
                outcome = (f"it costs {fixed} per 100 evaluation trials, where Bayes decisions with calibrated scores "
                           f"cost {bayes}")
            text += (
                f" At P(target) = {percent(p_target)} {outcome} (the best threshold in hindsight: "
                f"{per_100(100 * values['minimum'])}; without the system: {per_100(100 * values['default'])})."
            )
        return text


def fixed_false_alarm_threshold(dev: Trials, evaluation: Trials, target_pfa: float, plo_grid: ArrayLike | None = None,
                                *, c_miss: float = 1.0, c_fa: float = 1.0, fit: Callable[..., Any] | None = fit_affine
                                ) -> FixedThresholdAnalysis:
    """Direct score thresholding at a fixed false-alarm rate, against Bayes decisions, across priors.

    The threshold is set on `dev` (:func:`score_threshold_for_false_alarm_rate`) and applied unchanged to
    `evaluation` at every prior of `plo_grid`. The Bayes decisions use the same development data differently: a
    calibration ``fit(dev.tar, dev.non)`` turns the evaluation scores into LLRs, thresholded at ``-plo_eff``.

    Parameters
    ----------
    dev, evaluation : Trials
        Development and evaluation trials of the same system.
    target_pfa : float
        The false-alarm rate to fix on `dev`, strictly between 0 and 1.
    plo_grid : array_like, optional
        Prior log-odds ``logit(P_target)``; default 201 values from -10 to 10.
    c_miss, c_fa : float
        Costs.
    fit : callable or None
        Calibration trained on `dev` (default :func:`~llrcore.calibration.fit.fit_affine`, logistic regression);
        None takes the scores as LLRs as they are.

    Returns
    -------
    FixedThresholdAnalysis
        The threshold and its rates on both sets, the prior log-odds at which it is the Bayes threshold, and per
        prior of `plo_grid` the expected cost per trial of the fixed threshold, of Bayes decisions with the
        calibrated LLRs, and the evaluation data's minimum and no-system costs.

    Raises
    ------
    ValueError
        For costs that are not positive, a `target_pfa` outside (0, 1), or trials without targets or non-targets.
    TypeError
        When `dev` or `evaluation` is no Trials (or SortedScores).
    """
    if not (c_miss > 0 and c_fa > 0):
        raise ValueError("The costs C_miss and C_fa must be positive.")
    dev_table, eval_table = trials_table(dev, "development trials"), trials_table(evaluation, "evaluation trials")
    plo = np.linspace(-10, 10, 201) if plo_grid is None else np.atleast_1d(np.asarray(plo_grid, dtype=np.float64))
    threshold = score_threshold_for_false_alarm_rate(dev_table.non, target_pfa)
    rates = {}
    for part, table in (("dev", dev_table), ("eval", eval_table)):
        rates[part] = (float(table.miss_rate(threshold)), float(table.false_alarm_rate(threshold)))
    miss_weight, fa_weight = sigmoid(plo) * c_miss, sigmoid(-plo) * c_fa
    if fit is None:
        calibration, calibrated = None, eval_table
        implied = -threshold
    else:
        calibration = fit(dev_table.tar, dev_table.non)
        calibrated = SortedScores(calibration(eval_table.tar), calibration(eval_table.non))
        implied = -float(np.asarray(calibration(np.array([threshold])))[0]) if np.isfinite(threshold) else np.inf
    bayes = bayes_error_rates(calibrated, plo=plo, c_miss=c_miss, c_fa=c_fa)
    reference = bayes_error_rates(eval_table, plo=plo, c_miss=c_miss, c_fa=c_fa)
    return FixedThresholdAnalysis(
        target_pfa=float(target_pfa),
        threshold=threshold,
        dev_false_alarm_rate=rates["dev"][1],
        dev_miss_rate=rates["dev"][0],
        eval_false_alarm_rate=rates["eval"][1],
        eval_miss_rate=rates["eval"][0],
        calibration=calibration,
        implied_plo=implied,
        plo=plo,
        c_miss=float(c_miss),
        c_fa=float(c_fa),
        fixed=miss_weight * rates["eval"][0] + fa_weight * rates["eval"][1],
        fixed_dev=miss_weight * rates["dev"][0] + fa_weight * rates["dev"][1],
        bayes=bayes.actual,
        minimum=reference.minimum,
        default=reference.default,
        evaluation_scores=eval_table,
        calibrated_scores=calibrated,
    )
