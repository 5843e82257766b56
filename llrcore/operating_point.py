"""The operating point of a detection application: a prior and two costs, in one frozen object.

A Bayes decision for a binary trial with LLR ``l`` accepts the target hypothesis when ``l >= -plo_eff``, where the
effective prior log-odds ``plo_eff = logit(P_target) + log(C_miss / C_fa)`` folds the prior and the costs into one
number (Brümmer & du Preez, CSL 2006). Every metric that takes ``p_target, c_miss, c_fa`` means one of these.

The NIST speaker recognition evaluations fixed their operating points in their evaluation plans: SRE 2008
(``P_target = 0.01, C_miss = 10, C_fa = 1``), SRE 2010 core condition (``0.001, 1, 1``) and SRE 2012, whose primary
cost averages the normalised actual DCF at ``P_target = 0.01`` and ``0.001`` with unit costs (:func:`~llrcore.cprimary`).

References
----------
N. Brümmer and J. du Preez, "Application-independent evaluation of speaker detection", Computer Speech and Language
20, 2006.
NIST, "The NIST year 2008 speaker recognition evaluation plan"; "The NIST year 2010 speaker recognition evaluation
plan"; "The NIST year 2012 speaker recognition evaluation plan".
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .metrics import effective_plo
from .rates import sigmoid

__all__ = ["OperatingPoint"]


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
        return float(effective_plo(self.p_target))

    @property
    def plo_eff(self) -> float:
        """Effective prior log-odds ``logit(P_target) + log(C_miss / C_fa)``."""
        return float(effective_plo(self.p_target, self.c_miss, self.c_fa))

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
