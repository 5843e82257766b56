"""Where prior-weighted proper scoring rules put their weight over LLR thresholds, as a result.

A rule (alpha, beta) trained with prior weighting ``tau`` weights the Bayes decisions at LLR threshold ``t`` by
``w(t + tau) Omega_tau(t)``, ``w(t) = sigmoid(t)^alpha sigmoid(-t)^beta / B(alpha, beta)`` and
``Omega_tau(t) = sigmoid(-tau) (1 + e^{t+tau}) / (1 + e^t)`` (eqs. 7, 10), normalised to unit area
(:func:`~llrcore.calibration.rules.threshold_weighting`). :func:`threshold_weightings` computes it for several rules with each
mode (:func:`weighting_mode`) and the Bayes thresholds of the operating points it is
judged at; :func:`~llrcore.plots.calibration.threshold_weighting_figure` draws it and its ``to_frame`` is the table a
user downloads.

Reference: N. Brümmer and G. Doddington, "Likelihood-ratio calibration using prior-weighted proper scoring rules",
Interspeech 2013 (fig. 1).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from ..binary.metrics import effective_plo
from .rules import BetaRule, threshold_weighting

__all__ = ["RuleWeighting", "ThresholdWeightings", "bayes_threshold", "threshold_weightings", "weighting_mode"]


def weighting_mode(rule: BetaRule, plo: float) -> float:
    """The LLR threshold where the effective weighting ``w(t + tau) Omega_tau(t)`` of `rule` peaks (``tau = plo``).

    The weighting is unimodal (log-concave in ``t``); its maximum is found on a 1/100 grid and refined by a
    parabola through the log-weights around it (accurate to about 1e-6). For the logarithmic rule the mode is
    exactly ``-tau/2``; for Brier it moves most of the way towards ``-tau``; for boosting it stays at 0.

    Parameters
    ----------
    rule, plo
        The proper scoring rule and its prior weighting ``tau``, as in
        :func:`~llrcore.calibration.rules.threshold_weighting`.

    Returns
    -------
    float
        The LLR threshold (natural log) where the weighting is largest.
    """
    centre = -float(plo) / 2
    t = centre + np.arange(-4000, 4001) / 100.0  # +-40 around the logarithmic rule's mode: covers every tau
    with np.errstate(divide="ignore"):
        log_weight = np.log(threshold_weighting(rule, plo, t))
    i = int(np.clip(np.argmax(log_weight), 1, t.size - 2))
    left, middle, right = log_weight[i - 1 : i + 2]
    curvature = left - 2 * middle + right
    shift = 0.5 * (left - right) / curvature if curvature < 0 else 0.0
    return float(t[i] + shift * 0.01)


def bayes_threshold(p_target, c_miss: float = 1.0, c_fa: float = 1.0) -> float | None:
    """The Bayes threshold ``-plo_eff`` on LLRs of an operating point; None without a prior or where it is
    infinite (a prior of 0 or 1)."""
    if p_target is None:
        return None
    threshold = -float(effective_plo(p_target, c_miss, c_fa))
    return threshold if np.isfinite(threshold) else None


def as_rules(rules) -> dict[str, BetaRule]:
    """``label -> BetaRule`` from one rule, a sequence of rules (labelled by their names) or a mapping."""
    if isinstance(rules, BetaRule):
        return {rules.name: rules}
    items = list(rules.items()) if isinstance(rules, Mapping) else [(rule.name, rule) for rule in rules]
    if not items:
        raise ValueError("Give at least one scoring rule.")
    for name, rule in items:
        if not isinstance(rule, BetaRule):
            raise TypeError(f"{name!r} is a {type(rule).__name__}, not a BetaRule.")
    return dict(items)


@dataclass(frozen=True, eq=False)
class RuleWeighting:
    """One rule's normalised weighting over the thresholds, its mode and the weight there (``peak``)."""

    name: str
    rule: BetaRule
    weight: np.ndarray
    mode: float
    peak: float


@dataclass(frozen=True, eq=False)
class ThresholdWeightings:
    """The weightings of several rules at one prior weighting ``tau = plo`` over the LLR thresholds `t`.

    Attributes
    ----------
    plo : float
        The prior weighting ``tau``.
    t : ndarray
        LLR thresholds, sorted.
    rules : dict
        ``label -> RuleWeighting``, in order.
    bayes : dict
        ``P_target -> Bayes threshold -plo_eff`` of the operating points (with `c_miss`, `c_fa`).
    c_miss, c_fa : float
    """

    plo: float
    t: np.ndarray
    rules: dict
    bayes: dict
    c_miss: float = 1.0
    c_fa: float = 1.0

    def to_frame(self) -> pd.DataFrame:
        """Rows ``rule, alpha, beta, tau, t, weight, mode``: one per rule and threshold."""
        return pd.concat([pd.DataFrame({"rule": name, "alpha": w.rule.alpha, "beta": w.rule.beta, "tau": self.plo,
                                        "t": self.t, "weight": w.weight, "mode": w.mode})
                          for name, w in self.rules.items()], ignore_index=True)


def _rule_weighting(name: str, rule: BetaRule, plo: float, t: np.ndarray, mode: float) -> RuleWeighting:
    return RuleWeighting(name, rule, threshold_weighting(rule, plo, t), mode,
                         float(threshold_weighting(rule, plo, [mode])[0]))


def threshold_weightings(rules: BetaRule | Sequence[BetaRule] | Mapping[str, BetaRule], plo: float, *,
                         p_target: float | Sequence[float] | None = None, c_miss: float = 1.0, c_fa: float = 1.0,
                         t: ArrayLike | None = None) -> ThresholdWeightings:
    """The weighting of each rule at prior weighting `plo` over the LLR thresholds `t`.

    Parameters
    ----------
    rules : BetaRule, sequence of BetaRule or mapping of label to BetaRule
        The rules, labelled by their names (or by the mapping's keys).
    plo : float
        The prior weighting ``tau`` (log-odds).
    p_target : float or sequence of float, optional
        Operating point(s) whose Bayes thresholds ``-plo_eff`` matter (several for a cost defined at several
        priors, such as Cprimary at 0.01 and 0.001).
    c_miss, c_fa : float
        Costs of a miss and of a false alarm, for the Bayes thresholds.
    t : array_like, optional
        LLR thresholds (sorted here); default 1201 points covering the modes, ``-tau``, 0 and the Bayes thresholds,
        +-10.

    Returns
    -------
    ThresholdWeightings
        Each rule's normalised weighting over `t`, its mode and peak, and the Bayes thresholds by ``P_target``
        (those of a prior of 0 or 1, infinite, are left out).

    Raises
    ------
    ValueError
        When no rule is given.
    TypeError
        When a rule is not a :class:`~llrcore.BetaRule`.
    """
    rules = as_rules(rules)
    plo = float(plo)
    p_targets = [] if p_target is None else [float(p) for p in np.atleast_1d(p_target)]
    bayes = {p: b for p in p_targets if (b := bayes_threshold(p, c_miss, c_fa)) is not None}
    modes = {name: weighting_mode(rule, plo) for name, rule in rules.items()}
    if t is None:
        landmarks = [0.0, -plo, *modes.values(), *bayes.values()]
        t = np.linspace(min(landmarks) - 10, max(landmarks) + 10, 1201)
    t = np.sort(np.asarray(t, dtype=np.float64))
    weightings = {name: _rule_weighting(name, rule, plo, t, modes[name]) for name, rule in rules.items()}
    return ThresholdWeightings(plo, t, weightings, bayes, c_miss, c_fa)
