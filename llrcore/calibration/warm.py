"""Many affine fits on one training set, each started from a nearby one: what a sweep over rules and prior
weightings makes (:func:`llrcore.calibration.sweep.sweep_prior_weighting`).

:class:`WarmStarts` plans which fit each fit starts from before any is made, so that the fits can run on several
threads and still start exactly where one after the other would; :class:`WarmFits` makes them. Each fit equals
``fit_affine(tar, non, rule, plo=plo)`` (:mod:`llrcore.calibration.fit`).
"""
from __future__ import annotations

from ..data.checks import as_scores
from .calibrators import Affine
from .fit import fit_affine, is_convex
from .rules import BetaRule

__all__ = ["WarmFits", "WarmStarts"]


class WarmStarts:
    """Which fit each :class:`WarmFits` fit starts from, planned before any is made (so that the fits can run on
    several threads and still start exactly where one after the other would).

    A sweep over prior weightings moves the optimum smoothly, so a convex rule starts from its own fit at the previous
    weighting; the others start from logistic regression's fit at the same weighting (see :func:`fit_fusion`'s
    `start`), itself found from its fit at the previous one.

    Attributes
    ----------
    fits : list of (BetaRule, float, int or None)
        Every fit to make, in order: its rule, its prior weighting and the index of the fit it starts from (None:
        from scratch), always an earlier one.
    """

    def __init__(self):
        self.fits: list[tuple[BetaRule, float, int | None]] = []
        self._last: dict[BetaRule, int] = {}  # each rule's latest fit
        self._logistic: dict[float, int] = {}  # logistic regression's fit at each prior weighting

    def add(self, rule: BetaRule, plo: float) -> int:
        """Plan the fit of `rule` at prior weighting `plo` (and logistic regression's there first, when it is needed
        as a start and not planned yet); returns its index in :attr:`fits`."""
        logarithmic = BetaRule.logarithmic()
        if is_convex(rule):
            start = self._last.get(rule, self._logistic.get(plo))
        else:
            start = self._logistic[plo] if plo in self._logistic else self.add(logarithmic, plo)
        self.fits.append((rule, plo, start))
        index = len(self.fits) - 1
        self._last[rule] = index
        if rule == logarithmic:
            self._logistic[plo] = index
        return index


class WarmFits:
    """:func:`fit_affine` on one training set for many rules and prior weightings, each fit started from a nearby one:
    the caller plans the fits in :attr:`starts` (:class:`WarmStarts`) and makes each with :meth:`fit` from the fit
    planned as its start. Each fit equals ``fit_affine(tar, non, rule, plo=plo)``."""

    def __init__(self, tar, non):
        self.tar, self.non = as_scores(tar, "target scores"), as_scores(non, "non-target scores")
        self.starts = WarmStarts()

    def fit(self, rule: BetaRule, plo: float, start: Affine | None) -> Affine:
        """One fit from `start`: what every planned fit is."""
        return fit_affine(self.tar, self.non, rule, plo=plo, start=start)
