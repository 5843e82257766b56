"""Priors and the operating point of a detection application: log-odds, the effective prior, and the costs.

A Bayes decision for a binary trial with LLR ``l`` accepts the target hypothesis when ``l >= -plo_eff``, where the
effective prior log-odds ``plo_eff = logit(P_target) + log(C_miss / C_fa)`` folds the prior and the costs into one
number (Brümmer & du Preez, CSL 2006). :class:`OperatingPoint` holds ``P_target, C_miss, C_fa`` as one frozen object;
every function of llrcore that takes ``p_target, c_miss, c_fa`` also takes an OperatingPoint in place of
``p_target`` (:func:`as_operating_point`).

The NIST speaker recognition evaluations fixed their operating points in their evaluation plans: SRE 2008
(``P_target = 0.01, C_miss = 10, C_fa = 1``), SRE 2010 core condition (``0.001, 1, 1``) and SRE 2012, whose primary
cost averages the normalised actual DCF at ``P_target = 0.01`` and ``0.001`` with unit costs (:func:`~llrcore.cprimary`).

References
----------
N. Brümmer and J. du Preez, "Application-independent evaluation of speaker detection", Computer Speech and Language
20, 2006.
NIST, "The NIST year 2008 speaker recognition evaluation plan"; "The NIST year 2010 speaker recognition evaluation
plan"; "The NIST year 2012 speaker recognition evaluation plan"; "NIST 2016 speaker recognition evaluation plan";
"NIST 2018 speaker recognition evaluation plan" (and its scoring software, sre18_submission_scorer.py); "NIST 2019
speaker recognition evaluation: CTS challenge" and "NIST 2019 audio-visual speaker recognition evaluation plan";
"NIST 2021 speaker recognition evaluation plan" (July 12, 2021).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from ._choices import NIST_PRIMARY_P_TARGETS

__all__ = ["NIST_PRIMARY_P_TARGETS", "logit", "sigmoid", "effective_plo", "OperatingPoint", "as_operating_point",
           "primary_p_targets", "as_plo"]


def primary_p_targets(p_target: str | float | Sequence[float]) -> tuple[float, ...]:
    """The P_target values of a primary cost (the mean of normalised DCFs at each of them, NIST SRE'12 on).

    Parameters
    ----------
    p_target : str or float or sequence of float
        A name of :data:`NIST_PRIMARY_P_TARGETS` (``"SRE16"``, any case, with or without the apostrophe of
        ``"SRE'12"``) or the values themselves.

    Returns
    -------
    tuple of float
        The P_target values, e.g. ``(0.01, 0.001)`` for ``"SRE12"``.
    """
    if isinstance(p_target, str):
        key = p_target.replace("'", "").upper().replace("SRE ", "SRE")
        if key not in NIST_PRIMARY_P_TARGETS:
            raise ValueError(f"No primary cost is known for {p_target!r}; known: {', '.join(NIST_PRIMARY_P_TARGETS)}.")
        return NIST_PRIMARY_P_TARGETS[key]
    values = tuple(float(p) for p in np.atleast_1d(p_target))
    if not values:
        raise ValueError("Give at least one P_target for the primary cost.")
    return values


def logit(p: ArrayLike) -> np.ndarray | float:
    """Log-odds ``log(p / (1 - p))`` to within one unit in the last place; ``-inf`` at 0 and ``inf`` at 1.

    ``2 atanh(2p - 1)`` for ``p >= 1/4``, where ``2p - 1`` is exact (Sterbenz), so that neither ``p`` near 1/2 nor
    ``p`` near 1 loses digits (scipy's ``logit`` is often an ulp off there); scipy's ``logit`` below, where
    ``|logit| > 1`` and one rounding of ``p / (1 - p)`` costs under an ulp.

    Parameters
    ----------
    p : array_like
        Probabilities in [0, 1] (outside, NaN).

    Returns
    -------
    float or ndarray
        The natural-log odds, in the shape of `p` (a numpy float for a scalar).
    """
    p = np.asarray(p, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(p >= 0.25, 2.0 * np.arctanh(2.0 * p - 1.0), special.logit(p))[()]


def as_plo(plo, what: str = "The prior log-odds", *, finite: bool = False) -> np.ndarray:
    """`plo` as float64 (any shape), refusing what is not a number, NaN, and with `finite` also +-inf.

    Raises
    ------
    ValueError
        With a sentence starting with `what`.
    """
    try:
        values = np.asarray(plo, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be numbers, not {plo!r}.") from None
    missing = int(np.isnan(values).sum())
    if missing:
        raise ValueError(f"{what} must be a number, not NaN (a missing value)." if values.size == 1 else
                         f"{what} must be numbers; {missing} of the {values.size} are missing (NaN).")
    if finite and not np.isfinite(values).all():
        raise ValueError(f"{what} must be finite (a prior of exactly 0 or 1 leaves one class without weight).")
    return values


def sigmoid(x: ArrayLike) -> np.ndarray:
    """Logistic function ``1 / (1 + exp(-x))``, exact at +-inf and without overflow warnings.

    Computed as ``exp(-logaddexp(0, -x))``: the inverse of :func:`logit`.

    Parameters
    ----------
    x : array_like
        Natural-log odds (an LLR, or a prior log-odds ``plo``).

    Returns
    -------
    float or ndarray
        The probability in [0, 1], in the shape of `x`.
    """
    return np.exp(-np.logaddexp(0.0, -np.asarray(x, dtype=np.float64)))


def effective_plo(p_target: ArrayLike | OperatingPoint, c_miss: float = 1.0, c_fa: float = 1.0) -> np.ndarray:
    """Effective prior log-odds ``logit(P_target) + log(C_miss / C_fa)``; the Bayes LLR threshold is its negative.

    Parameters
    ----------
    p_target : float, array_like or OperatingPoint
        Prior probability of a target trial, in [0, 1] (0 and 1 give -inf and inf), or an array of priors, or an
        :class:`OperatingPoint` (its costs are then used).
    c_miss, c_fa : float
        Costs of a miss and of a false alarm, positive.

    Returns
    -------
    float or ndarray
        The effective prior log-odds (natural log), in the shape of `p_target` (a numpy float for one prior).

    Raises
    ------
    ValueError
        If a prior is outside [0, 1] or a cost is not positive.
    """
    if isinstance(p_target, OperatingPoint):  # valid by construction, its value computed once (below, as floats)
        return np.asarray(as_operating_point(p_target, c_miss, c_fa).plo_eff)[()]
    p_target = np.asarray(p_target, dtype=np.float64)
    if np.any((p_target < 0) | (p_target > 1)) or np.any(np.isnan(p_target)):
        raise ValueError("P_target must be between 0 and 1.")
    if not (c_miss > 0 and c_fa > 0):
        raise ValueError("The costs C_miss and C_fa must be positive.")
    with np.errstate(divide="ignore"):
        return logit(p_target) + np.log(c_miss / c_fa)


@lru_cache(maxsize=256)  # asked for by every metric of every bootstrap replicate: computed once per point
def _plo_eff(p_target: float, c_miss: float, c_fa: float) -> float:
    return float(effective_plo(p_target, c_miss, c_fa))


@dataclass(frozen=True)
class OperatingPoint:
    """A target prior and the costs of the two errors.

    Parameters
    ----------
    p_target : float
        Prior probability of a target trial, strictly between 0 and 1.
    c_miss, c_fa : float
        Costs of a miss and of a false alarm, positive.

    Examples
    --------
    >>> op = OperatingPoint(0.01, c_miss=10)
    >>> round(op.plo_eff, 4), round(op.threshold, 4)
    (-2.2925, 2.2925)
    >>> OperatingPoint.sre10()
    OperatingPoint(p_target=0.001, c_miss=1.0, c_fa=1.0)
    """

    p_target: float
    c_miss: float = 1.0
    c_fa: float = 1.0

    def __post_init__(self):
        for name in ("p_target", "c_miss", "c_fa"):
            try:
                object.__setattr__(self, name, float(getattr(self, name)))
            except (TypeError, ValueError):
                raise ValueError(f"{name} must be a number, not {getattr(self, name)!r}.") from None
        if not 0.0 < self.p_target < 1.0:
            raise ValueError(f"P_target must lie strictly between 0 and 1, not {self.p_target:g}.")
        if not (0.0 < self.c_miss < math.inf and 0.0 < self.c_fa < math.inf):
            raise ValueError(f"The costs must be positive numbers (C_miss = {self.c_miss:g}, C_fa = {self.c_fa:g}).")

    @property
    def plo(self) -> float:
        """Prior log-odds ``logit(P_target)``."""
        return float(logit(self.p_target))

    @property
    def plo_eff(self) -> float:
        """Effective prior log-odds ``logit(P_target) + log(C_miss / C_fa)``."""
        return _plo_eff(self.p_target, self.c_miss, self.c_fa)

    @property
    def p_eff(self) -> float:
        """Effective prior ``sigmoid(plo_eff)``: the prior whose error-minimising decisions are this point's
        cost-minimising ones."""
        return float(sigmoid(self.plo_eff))

    @property
    def threshold(self) -> float:
        """The Bayes threshold on LLRs, ``-plo_eff``: a trial is accepted as a target when ``llr >= threshold``."""
        return -self.plo_eff

    def describe(self) -> str:
        """``"P_target = 0.01, C_miss = 10, C_fa = 1"``."""
        return f"P_target = {self.p_target:g}, C_miss = {self.c_miss:g}, C_fa = {self.c_fa:g}"

    # NIST presets (see the module docstring for the evaluation plans)

    @classmethod
    def sre08(cls) -> "OperatingPoint":
        """NIST SRE 2008: ``P_target = 0.01, C_miss = 10, C_fa = 1``."""
        return cls(0.01, 10.0, 1.0)

    @classmethod
    def sre10(cls) -> "OperatingPoint":
        """NIST SRE 2010 core condition: ``P_target = 0.001, C_miss = C_fa = 1``."""
        return cls(0.001, 1.0, 1.0)

    @classmethod
    def sre12(cls) -> "OperatingPoint":
        """NIST SRE 2012, the first of its two points: ``P_target = 0.01, C_miss = C_fa = 1`` (its primary cost also
        uses ``P_target = 0.001``)."""
        return cls(0.01, 1.0, 1.0)

    @classmethod
    def equal_error(cls) -> "OperatingPoint":
        """``P_target = 0.5`` with unit costs: the Bayes error there never exceeds the EER."""
        return cls(0.5, 1.0, 1.0)


def as_operating_point(p_target: float | OperatingPoint, c_miss: float = 1.0, c_fa: float = 1.0) -> OperatingPoint:
    """An :class:`OperatingPoint` from either the loose ``p_target, c_miss, c_fa`` or an OperatingPoint.

    Parameters
    ----------
    p_target : float or OperatingPoint
        Prior probability of a target trial, strictly between 0 and 1, or an OperatingPoint (whose costs then
        stand; costs given as well must agree with them).
    c_miss, c_fa : float
        Costs of a miss and of a false alarm, positive.

    Returns
    -------
    OperatingPoint
        `p_target` itself when it is one, else a new one.

    Raises
    ------
    ValueError
        If an OperatingPoint comes with other costs as well, or a prior or cost is out of range.
    """
    if isinstance(p_target, OperatingPoint):
        if (c_miss, c_fa) not in ((1.0, 1.0), (p_target.c_miss, p_target.c_fa)):
            raise ValueError("Give the costs either in the OperatingPoint or as c_miss and c_fa, not both.")
        return p_target
    return OperatingPoint(p_target, c_miss, c_fa)

