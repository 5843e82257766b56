"""Curves as results: the numbers a DET or a Bayes-error figure draws, computed before any figure.

Each system's curve is a result object with ``.to_frame()``; a :class:`CurveSet` holds several systems (in the order
given, which sets their colours in every figure) and stacks their tables. The figure functions of
:mod:`llrcore.plots` only draw these, and the data a user downloads beside a figure is the result's table, not
something read back out of the plot.

- :class:`DETCurve` — the ROC-convex-hull and the step DET of a system, with its markers: the EER, and at an
  operating point the minimum-DCF vertex and the actual-DCF point of the scores taken as LLRs, each with its
  normalised cost (the same numbers as :func:`~llrcore.min_dcf` and :func:`~llrcore.act_dcf`).
- :class:`BayesErrorCurve` — actual, minimum and default Bayes error rates over prior log-odds with the trapezium
  bound (:func:`~llrcore.bayes_error_rates`), Cllr and minCllr (the APE plot's bars), and at an operating point the
  actual and minimum DCF and error rates.
- :class:`PAVTransform` — each LLR against the PAV-optimal LLR of the same trials (fig. 3 of Brümmer & Doddington,
  Interspeech 2013): on the identity line a system is perfectly calibrated.

References
----------
A. Martin et al., "The DET curve in assessment of detection task performance", Eurospeech 1997.
N. Brümmer and J. du Preez, "Application-independent evaluation of speaker detection", CSL 20, 2006 (ROCCH, APE).
N. Brümmer, L. Ferrer and A. Swart, "Out of a hundred trials, how many errors does your speaker verifier make?",
Interspeech 2021 (the trapezium ``min(P, 1 - P, EER)``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .._deprecation import COSTS, old_spellings
from ..data.trials import Systems, as_systems
from ..prior import OperatingPoint, as_operating_point, logit, sigmoid
from .metrics import BayesErrorRates, act_dcf, bayes_error_rates, min_dcf
from .rates import SortedScores

__all__ = ["DEFAULT_PLO", "DETMarker", "DETCurve", "BayesErrorCurve", "PAVTransform", "CurveSet", "det_curves",
           "bayes_error_curves", "pav_transforms"]

#: The default grid of prior log-odds (P_target from 4.5e-5 to 1 - 4.5e-5).
DEFAULT_PLO = np.linspace(-10.0, 10.0, 201)
MARKER_TITLES = {"eer": "EER", "min_dcf": "minDCF", "act_dcf": "actDCF"}


class CurveSet(dict):
    """``system name -> curve`` of several systems, in order; :meth:`to_frame` stacks their tables."""

    def __repr__(self) -> str:
        """The systems and the kind of their curves, e.g. ``CurveSet({'A': DETCurve, 'B': DETCurve})``."""
        return f"CurveSet({{{', '.join(f'{name!r}: {type(curve).__name__}' for name, curve in self.items())}}})"

    def to_frame(self, **options) -> pd.DataFrame:
        """One table of every system's curve (each curve's ``to_frame(**options)``), a ``system`` column first."""
        frames = [curve.to_frame(**options) for curve in self.values()]
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame({"system": []})


def _operating_point(p_target, c_miss, c_fa) -> OperatingPoint | None:
    return None if p_target is None else as_operating_point(p_target, c_miss, c_fa)


# ----- DET ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DETMarker:
    """A point of a DET curve: the EER, or the minimum- or actual-DCF point at an operating point.

    ``cost`` is the normalised DCF of the point (the EER itself for the EER point).
    """

    kind: str
    false_alarm_rate: float
    miss_rate: float
    cost: float

    @property
    def title(self) -> str:
        return MARKER_TITLES[self.kind]


@dataclass(frozen=True, eq=False)
class DETCurve:
    """One system's DET: ROC-convex-hull and step curves as ``(pfa, pmiss)`` fractions, and its markers.

    Built by :func:`det_curves`. The curves come from the system's one sort and PAV (``Trials.sorted``).
    """

    name: str
    table: SortedScores = field(repr=False)
    eer: float
    markers: tuple[DETMarker, ...]
    operating_point: OperatingPoint | None = None

    @cached_property
    def rocch(self) -> tuple[np.ndarray, np.ndarray]:
        """The vertices of the ROC convex hull, from ``(1, 0)`` to ``(0, 1)``."""
        return self.table.rocch()

    @cached_property
    def steps(self) -> tuple[np.ndarray, np.ndarray]:
        """The step DET: one point per unique score taken as threshold (and one above the largest)."""
        return self.table.det_steps()

    @property
    def n_tar(self) -> int:
        return self.table.n_tar

    @property
    def n_non(self) -> int:
        return self.table.n_non

    def marker(self, kind: str) -> DETMarker | None:
        return next((m for m in self.markers if m.kind == kind), None)

    def to_frame(self, *, steps: bool = False) -> pd.DataFrame:
        """Rows ``system, kind, false_alarm_rate, miss_rate, cost``: the ROCCH vertices (kind ``rocch``), the step
        curve too when `steps`, then the markers (``eer``, ``min_dcf``, ``act_dcf``)."""
        parts = [("rocch", *self.rocch)] + ([("steps", *self.steps)] if steps else [])
        frames = [pd.DataFrame({"kind": kind, "false_alarm_rate": pfa, "miss_rate": pmiss, "cost": np.nan})
                  for kind, pfa, pmiss in parts]
        frames.append(pd.DataFrame([vars(m) for m in self.markers],
                                   columns=["kind", "false_alarm_rate", "miss_rate", "cost"]))
        frame = pd.concat(frames, ignore_index=True)
        frame.insert(0, "system", self.name)
        return frame


def _det_curve(name: str, table: SortedScores, op: OperatingPoint | None) -> DETCurve:
    eer = table.eer()
    markers = [DETMarker("eer", eer, eer, eer)]
    if op is not None:
        min_miss, min_fa = (float(v) for v in table.min_rates(op.plo_eff))
        markers.append(DETMarker("min_dcf", min_fa, min_miss, min_dcf(table, p_target=op)))
        markers.append(DETMarker("act_dcf", float(table.false_alarm_rate(op.threshold)),
                                 float(table.miss_rate(op.threshold)), act_dcf(table, p_target=op)))
    return DETCurve(name, table, eer, tuple(markers), op)


@old_spellings(positional=COSTS)
def det_curves(systems: Systems, *, p_target: float | OperatingPoint | None = None, c_miss: float = 1.0,
               c_fa: float = 1.0) -> CurveSet:
    """The DET of each system, with its EER and, when an operating point is given, its minimum-DCF vertex (the
    ROCCH vertex chosen at ``plo_eff``) and actual-DCF point (the scores thresholded at ``-plo_eff``).

    Parameters
    ----------
    systems : Mapping[str, Trials] or Trials
    p_target : float or OperatingPoint, optional
        The operating point of the DCF markers (with `c_miss`, `c_fa`); none without it.

    Returns
    -------
    CurveSet
        ``name -> DETCurve``.
    """
    op = _operating_point(p_target, c_miss, c_fa)
    return CurveSet({name: _det_curve(name, trials.sorted, op) for name, trials in as_systems(systems).items()})


# ----- Bayes error over priors -------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class BayesErrorCurve:
    """One system's Bayes error rates over a grid of prior log-odds (unit costs), with what its figures mark.

    Attributes
    ----------
    rates : BayesErrorRates
        ``plo``, ``actual``, ``minimum``, ``default``, ``eer`` and ``trapezium`` over the grid.
    cllr, min_cllr : float
        In bits: ``1 / (2 ln 2)`` times the area under the actual (minimum) curve over all priors.
    operating_point : OperatingPoint or None
    act_dcf, min_dcf : float
        Normalised actual and minimum DCF at the operating point (NaN without one).
    at_prior : BayesErrorRates or None
        The actual and minimum error rates at the operating point's prior ``logit(P_target)`` alone.
    """

    name: str
    rates: BayesErrorRates
    cllr: float
    min_cllr: float
    operating_point: OperatingPoint | None = None
    act_dcf: float = float("nan")
    min_dcf: float = float("nan")
    at_prior: BayesErrorRates | None = None

    @property
    def eer(self) -> float:
        return self.rates.eer

    def trapezium_curve(self) -> tuple[np.ndarray, np.ndarray]:
        """``(plo, min(P, 1 - P, EER))`` on the grid with the two corners ``logit(EER)``, ``logit(1 - EER)`` added,
        so that a line through the points has the bound's sharp corners."""
        grid, eer = self.rates.plo, self.eer
        if 0 < eer < 0.5:
            corners = np.array([float(logit(eer)), -float(logit(eer))])
            grid = np.union1d(grid, corners[(corners > grid[0]) & (corners < grid[-1])])
        return grid, np.minimum(np.minimum(sigmoid(grid), sigmoid(-grid)), eer)

    def to_frame(self) -> pd.DataFrame:
        """One row per prior: ``system`` and the columns of :meth:`BayesErrorRates.to_frame` (with ``eer``)."""
        frame = self.rates.to_frame()
        frame.insert(0, "system", self.name)
        frame["eer"] = self.eer
        return frame


def _grid(plo) -> np.ndarray:
    grid = DEFAULT_PLO if plo is None else np.atleast_1d(np.asarray(plo, dtype=np.float64))
    if grid.ndim != 1 or grid.size < 2 or not np.all(np.isfinite(grid)):
        raise ValueError("The prior log-odds must be at least two finite numbers.")
    return np.sort(grid)


def _bayes_error_curve(name: str, table: SortedScores, grid: np.ndarray, op: OperatingPoint | None):
    at_op = {}
    if op is not None:
        at_op = dict(act_dcf=act_dcf(table, p_target=op), min_dcf=min_dcf(table, p_target=op),
                     at_prior=bayes_error_rates(table, plo=[op.plo]) if np.isfinite(op.plo) else None)
    return BayesErrorCurve(name, bayes_error_rates(table, plo=grid), table.cllr(), table.min_cllr(), op, **at_op)


@old_spellings(positional=("plo", *COSTS))
def bayes_error_curves(systems: Systems, *, plo: ArrayLike | None = None,
                       p_target: float | OperatingPoint | None = None, c_miss: float = 1.0, c_fa: float = 1.0
                       ) -> CurveSet:
    """The Bayes error curves of each system over the prior log-odds `plo` (default :data:`DEFAULT_PLO`), the data
    of the APE, normalised Bayes error and trapezium figures.

    Parameters
    ----------
    systems : Mapping[str, Trials] or Trials
    plo : array_like, optional
        At least two finite prior log-odds (sorted here).
    p_target : float or OperatingPoint, optional
        An operating point (with `c_miss`, `c_fa`): its actual and minimum DCF, and the error rates at its prior.

    Returns
    -------
    CurveSet
        ``name -> BayesErrorCurve``.
    """
    grid, op = _grid(plo), _operating_point(p_target, c_miss, c_fa)
    return CurveSet({name: _bayes_error_curve(name, trials.sorted, grid, op)
                     for name, trials in as_systems(systems).items()})


# ----- LLRs against their PAV-optimal values ----------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class PAVTransform:
    """A system's unique LLRs and the PAV-optimal LLR of each (where it is finite: a block of one class only has
    an infinite optimal LLR), and the positions of the PAV blocks' first and last scores among them (``corners``:
    a drawing keeps them, so the steps stay sharp)."""

    name: str
    llr: np.ndarray
    pav_llr: np.ndarray
    corners: np.ndarray = field(repr=False)

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"system": self.name, "llr": self.llr, "pav_llr": self.pav_llr})


def _pav_transform(name: str, table: SortedScores) -> PAVTransform:
    blocks = table.pav
    last = np.append(blocks.first[1:], table.unique.size) - 1
    pav = np.repeat(blocks.llr, last - blocks.first + 1)
    finite = np.flatnonzero(np.isfinite(pav))
    block_finite = np.isfinite(blocks.llr)
    corners = np.searchsorted(finite, np.concatenate([blocks.first[block_finite], last[block_finite]]))
    return PAVTransform(name, table.unique[finite], pav[finite], corners)


def pav_transforms(systems: Systems) -> CurveSet:
    """Each system's LLRs against the best monotone recalibration of the same trials, found by PAV with their labels.

    Parameters
    ----------
    systems : Mapping[str, Trials], Trials or sequence of Trials
        The systems' scores, taken as natural-log LLRs.

    Returns
    -------
    CurveSet
        ``name -> PAVTransform``: the unique LLRs and the PAV-optimal LLR of each, where that is finite.
    """
    return CurveSet({name: _pav_transform(name, trials.sorted) for name, trials in as_systems(systems).items()})
