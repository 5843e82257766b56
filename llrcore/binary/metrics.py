"""Binary evaluation metrics: EER, DCF, Cllr, Cprimary and Bayes error rates.

Every function takes the scores ``tar, non``, or one Trials, SortedScores or CountedScores (one sort) as ``tar``.

Conventions (DESIGN.md): natural-log LLRs; Cllr in bits; an LLR ``l`` is accepted as a target when
``l >= -plo_eff`` with ``plo_eff = logit(P_target) + log(C_miss / C_fa)``; normalised DCF divides by
``min(P_target C_miss, (1 - P_target) C_fa)``.

References
----------
N. Brümmer and J. du Preez, "Application-independent evaluation of speaker detection", CSL 20, 2006.
N. Brümmer, L. Ferrer and A. Swart, "Out of a hundred trials, how many errors does your speaker verifier make?",
Interspeech 2021.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .._deprecation import COSTS, LLRS, moved_call, old_spellings
from .._moved import left_for
from ..data.checks import as_scores
from ..data.trials import Trials
from ..parallel import thread_limit
from ..prior import OperatingPoint, as_operating_point, as_plo, effective_plo, primary_p_targets, sigmoid
from .costs import cllr_bits
from .equalised import equalised
from .rates import ScoreCounts, SortedScores
from .tables import metrics_table
from .verdict import LLRVerdict, calibration_loss_percent, llr_verdict

__all__ = [
    "BayesErrorRates",
    "BinaryMetrics",
    "act_dcf",
    "bayes_error_rates",
    "cllr",
    "cprimary",
    "det_curve",
    "eer",
    "effective_plo",
    "evaluate",
    "trials_table",
    "min_cllr",
    "min_dcf",
    "normalised_bayes_error",
    "pav_llrs",
    "sorted_scores",
]

#: The two target priors of NIST SRE'12's primary cost, the mean of the normalised actual DCFs at each with
#: ``C_miss = C_fa = 1`` (the NIST 2012 SRE evaluation plan): the default of :func:`~llrcore.cprimary` and the tables.
SRE12_P_TARGETS = (0.01, 0.001)

#: The table of metrics (:mod:`.tables`) lived here until issue 42: its names answer here for one release, with a
#: DeprecationWarning.
__getattr__ = left_for("binary.metrics")


def sorted_scores(tar, non=None) -> ScoreCounts:
    """The :class:`~llrcore.binary.rates.SortedScores` of one Trials (its own, sorted once), a SortedScores or a
    :class:`~llrcore.binary.rates.ReweightedScores` as given, or that of two arrays of target and non-target scores: what every
    metric here answers from."""
    if isinstance(tar, (Trials, ScoreCounts)):
        if non is not None:
            raise TypeError(f"A {type(tar).__name__} holds both classes: give it alone, not with a second set of "
                            f"scores ({type(non).__name__}); the operating point goes in p_target=.")
        return tar.sorted if isinstance(tar, Trials) else tar
    return SortedScores(tar, non)


def trials_table(trials, what: str = "trials") -> SortedScores:
    """The sorted scores of a Trials (its own, cached) or a SortedScores; two arrays or anything else are refused in
    a sentence naming `what` (for analyses that need the trials as one object)."""
    if not isinstance(trials, (Trials, SortedScores)):
        raise TypeError(f"Give the {what} as llrcore.Trials (e.g. Trials(tar, non)), not a {type(trials).__name__}.")
    return trials.sorted if isinstance(trials, Trials) else trials


def normalised_bayes_error(bayes_error, plo_eff):
    """Bayes error at the effective prior divided by its no-system value ``min(P_eff, 1 - P_eff)``.

    This equals the DCF normalised by ``min(P C_miss, (1-P) C_fa)``, the common factor ``P C_miss + (1-P) C_fa``
    cancelling. At ``P_eff`` of 0 or 1 every decision is free and the result is 0.
    """
    default = np.minimum(sigmoid(plo_eff), sigmoid(-plo_eff))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(default > 0, bayes_error / np.where(default > 0, default, 1.0), 0.0)


def eer(tar: ArrayLike | Trials | ScoreCounts, non: ArrayLike | None = None) -> float:
    """Equal error rate from the ROC convex hull (ROCCH-EER), as a fraction.

    Parameters
    ----------
    tar, non : array_like of scores (need not be LLRs), or one Trials or CountedScores as `tar`

    Returns
    -------
    float
        Where the ROCCH crosses ``Pmiss = Pfa``, found by exact intersection with the hull segment: the maximum over
        priors of the minimum Bayes error rate (at most 0.5).

    Examples
    --------
    >>> eer([0, 1, 2], [1])
    0.4
    """
    return sorted_scores(tar, non).eer()


def _float_or_array(values, plo):
    """A float for one prior (`plo` 0-d), else the array of values in the shape of `plo`."""
    return float(values) if np.ndim(plo) == 0 else np.asarray(values, dtype=np.float64)


@old_spellings(positional=COSTS, prior="p_target")
def min_dcf(tar: ArrayLike | Trials | ScoreCounts, non: ArrayLike | None = None, *,
            p_target: float | ArrayLike | OperatingPoint = 0.01, c_miss: float = 1.0, c_fa: float = 1.0
            ) -> float | np.ndarray:
    """Minimum normalised detection cost over all thresholds (on the ROCCH).

    ``minDCF = min_t [P C_miss Pmiss(t) + (1-P) C_fa Pfa(t)] / min(P C_miss, (1-P) C_fa)``, at most 1 (no system).

    Parameters
    ----------
    tar, non : array_like of scores (need not be LLRs), or one Trials or CountedScores as `tar`
    p_target : float, array_like or OperatingPoint
        The prior ``P``; an array of priors gives an array of costs (one sort and one PAV for all); an
        :class:`~llrcore.prior.OperatingPoint` brings its costs: ``min_dcf(trials, p_target=0.01)``.
    c_miss, c_fa : float
        Costs of a miss and of a false alarm, positive (else a ValueError, as for a prior outside [0, 1]).

    Returns
    -------
    float or ndarray
    """
    plo = effective_plo(p_target, c_miss, c_fa)
    return _float_or_array(normalised_bayes_error(sorted_scores(tar, non).min_bayes_error(plo), plo), plo)


@old_spellings(LLRS, positional=COSTS, prior="p_target")
def act_dcf(tar: ArrayLike | Trials | ScoreCounts, non: ArrayLike | None = None, *,
            p_target: float | ArrayLike | OperatingPoint = 0.01, c_miss: float = 1.0, c_fa: float = 1.0
            ) -> float | np.ndarray:
    """Actual normalised detection cost of LLRs thresholded at the Bayes threshold ``-plo_eff``.

    ``actDCF = [P C_miss Pmiss(-plo_eff) + (1-P) C_fa Pfa(-plo_eff)] / min(P C_miss, (1-P) C_fa)``.

    Parameters
    ----------
    tar, non, p_target, c_miss, c_fa
        As in :func:`min_dcf`, the scores natural-log LLRs: ``act_dcf(trials, p_target=op)``.

    Returns
    -------
    float or ndarray
        Above 1 when the decisions do worse than no system; an array for an array `p_target`.
    """
    plo = effective_plo(p_target, c_miss, c_fa)
    return _float_or_array(normalised_bayes_error(sorted_scores(tar, non).actual_bayes_error(plo), plo), plo)


@old_spellings(LLRS)
def cllr(tar: ArrayLike | Trials | ScoreCounts, non: ArrayLike | None = None) -> float:
    """Log-likelihood-ratio cost in bits.

    ``Cllr = 1/(2 ln 2) [mean_tar log(1 + e^-l) + mean_non log(1 + e^l)]``.

    Parameters
    ----------
    tar, non : array_like of natural-log LLRs, or one Trials or CountedScores as `tar`

    Returns
    -------
    float
        1 bit for a system that always says LLR = 0, 0 for a perfect one, ``inf`` if a target has LLR ``-inf``
        (or a non-target ``+inf``).
    """
    if isinstance(tar, (Trials, ScoreCounts)):
        return sorted_scores(tar, None).cllr()
    return cllr_bits(as_scores(tar, "target LLRs"), as_scores(non, "non-target LLRs"))


def min_cllr(tar: ArrayLike | Trials | ScoreCounts, non: ArrayLike | None = None) -> float:
    """Minimum Cllr in bits: the Cllr of the PAV-optimal LLRs (the discrimination part of Cllr).

    Parameters
    ----------
    tar, non : array_like of scores (only their order counts), or one Trials or CountedScores as `tar`

    Returns
    -------
    float
    """
    return sorted_scores(tar, non).min_cllr()


def pav_llrs(tar: ArrayLike | Trials | ScoreCounts, non: ArrayLike | None = None) -> tuple[np.ndarray, np.ndarray]:
    """PAV-optimal (oracle) LLRs of the target and non-target trials, in the order given.

    The optimal monotone transform of the scores for these very trials; tied scores get the same LLR.

    Parameters
    ----------
    tar, non : array_like of scores, or one Trials as `tar`

    Returns
    -------
    tar_llr, non_llr : ndarray
        Natural-log LLRs, +-inf at the ends where only one class occurs.
    """
    if isinstance(tar, Trials):
        return tar.sorted.pav_llr(tar.tar), tar.sorted.pav_llr(tar.non)
    tar, non = as_scores(tar, "target scores"), as_scores(non, "non-target scores")
    table = SortedScores(tar, non)
    return table.pav_llr(tar), table.pav_llr(non)


def det_curve(tar: ArrayLike | Trials | ScoreCounts, non: ArrayLike | None = None, *, rocch: bool = False
              ) -> tuple[np.ndarray, np.ndarray]:
    """DET points ``(pfa, pmiss)``, as fractions, from ``(1, 0)`` to ``(0, 1)``.

    Parameters
    ----------
    tar, non : array_like of scores (need not be LLRs), or one Trials or CountedScores as `tar`
    rocch : bool
        False: the step curve, one point per unique score as threshold (and one above the largest).
        True: only the vertices of the ROC convex hull (the curve the minimum costs and the EER live on).

    Returns
    -------
    pfa, pmiss : ndarray
        False-alarm and miss rates, fractions, in order of increasing threshold.
    """
    table = sorted_scores(tar, non)
    return table.rocch() if rocch else table.det_steps()


@old_spellings({**LLRS, "p_targets": "p_target"}, positional=("p_target",), prior="p_target",
               prior_kind="p_target or name")
def cprimary(tar: ArrayLike | Trials | ScoreCounts, non: ArrayLike | None = None, *,
             p_target: Sequence[float] | str = SRE12_P_TARGETS, minimum: bool = False,
             partition_by: str | Sequence[str] | None = None) -> float:
    """Primary cost of the NIST SREs: mean normalised DCF over `p_target` with ``C_miss = C_fa = 1``.

    ``Cprimary = mean_P [Pmiss(t_P) + beta_P Pfa(t_P)]``, ``beta_P = (1 - P) / P``, at the Bayes threshold ``t_P``
    (actual) or the best one (``minimum=True``).

    Parameters
    ----------
    tar, non : array_like of natural-log LLRs, or one Trials or CountedScores as `tar`
    p_target : sequence of float or str
        The priors, or the name of an evaluation in :data:`~llrcore.prior.NIST_PRIMARY_P_TARGETS` (``"SRE16"``,
        ``"SRE21"``, ...). Default SRE'12's 0.01 and 0.001: ``cprimary(trials, p_target="SRE16")``.
    minimum : bool
        Average the minimum DCFs instead of the actual ones.
    partition_by : str or list of str, optional
        With one :class:`~llrcore.Trials` with metadata: the cost equalised over its partitions by these columns
        (:meth:`~llrcore.Trials.split`) as NIST SRE16-SRE21 score it, each trial weighted by the inverse of its
        class's count in its partition, so that every partition weighs the same; with one threshold for all (as
        NIST's scoring software does), the actual cost is the mean of the partitions' actual costs.

    Returns
    -------
    float
    """
    p_targets = primary_p_targets(p_target)
    table = sorted_scores(tar, non) if partition_by is None else equalised(tar, non, partition_by)
    plo = effective_plo(np.asarray(p_targets, dtype=np.float64))
    error = table.min_bayes_error(plo) if minimum else table.actual_bayes_error(plo)
    return float(np.mean(normalised_bayes_error(error, plo)))


@dataclass(frozen=True)
class BayesErrorRates:
    """Bayes error rates (or expected costs, with costs) over an array of prior log-odds.

    Attributes
    ----------
    plo : ndarray
        The prior log-odds ``logit(P_target)`` (costs are not folded in).
    actual : ndarray
        Expected cost of the scores taken as LLRs with the Bayes threshold:
        ``P C_miss Pmiss(-plo_eff) + (1-P) C_fa Pfa(-plo_eff)``; with unit costs, the Bayes error rate.
    minimum : ndarray
        The same with the PAV-optimal LLRs (the best any threshold achieves: a ROCCH vertex).
    default : ndarray
        Without the system (always accept or always reject, whichever is cheaper): ``min(P C_miss, (1-P) C_fa)``.
    eer : float
        ROCCH-EER of the scores.
    trapezium : ndarray
        The upper bound on ``minimum`` from the EER operating point and the two defaults:
        ``min(P C_miss, (1-P) C_fa, EER (P C_miss + (1-P) C_fa))``; with unit costs ``min(P, 1-P, EER)``.
    """

    plo: np.ndarray
    actual: np.ndarray
    minimum: np.ndarray
    default: np.ndarray
    eer: float
    trapezium: np.ndarray

    @property
    def normalised_actual(self) -> np.ndarray:
        """Normalised Bayes error (BOSARIS NBE) of the actual decisions: ``actual / default``."""
        return self._normalise(self.actual)

    @property
    def normalised_minimum(self) -> np.ndarray:
        """Normalised minimum Bayes error: ``minimum / default``."""
        return self._normalise(self.minimum)

    def _normalise(self, values):
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.default > 0, values / np.where(self.default > 0, self.default, 1.0), 0.0)

    def to_frame(self) -> pd.DataFrame:
        """One row per prior: the columns above plus ``p_target`` and the normalised rates."""
        return pd.DataFrame(
            {
                "plo": self.plo,
                "p_target": sigmoid(self.plo),
                "actual": self.actual,
                "minimum": self.minimum,
                "default": self.default,
                "trapezium": self.trapezium,
                "normalised_actual": self.normalised_actual,
                "normalised_minimum": self.normalised_minimum,
            }
        )


@old_spellings(LLRS, positional=("plo",), prior="plo")
def bayes_error_rates(tar: ArrayLike | Trials | ScoreCounts, non: ArrayLike | None = None, *,
                      plo: ArrayLike | None = None, c_miss: float = 1.0, c_fa: float = 1.0) -> BayesErrorRates:
    """Actual, minimum and default Bayes error rates at many prior log-odds, and the trapezium bound.

    The data of the APE plot (Cllr is ``1/(2 ln 2)`` times the area under ``actual`` over ``plo``), the normalised
    Bayes error plot and the Bayes-error-vs-trapezium plot of Brümmer, Ferrer & Swart (2021), whose identities hold
    exactly: ``minimum <= trapezium`` everywhere and ``max(minimum) = EER`` (unit costs).

    Parameters
    ----------
    tar, non : array_like of natural-log LLRs, or one Trials or CountedScores as `tar`
    plo : array_like, optional
        Prior log-odds ``logit(P_target)``; default 201 values from -10 to 10. NaN is refused (ValueError).
    c_miss, c_fa : float
        Costs; with other than 1 the rates become expected costs at threshold ``-(plo + log(C_miss/C_fa))``.

    Returns
    -------
    BayesErrorRates
        ``.plo``, ``.actual``, ``.minimum``, ``.default``, ``.trapezium`` (arrays over `plo`) and ``.eer``.
    """
    table = sorted_scores(tar, non)
    plo = np.linspace(-10, 10, 201) if plo is None else np.atleast_1d(as_plo(plo))
    if not (c_miss > 0 and c_fa > 0):
        raise ValueError("The costs C_miss and C_fa must be positive.")
    miss_weight, fa_weight = sigmoid(plo) * c_miss, sigmoid(-plo) * c_fa
    threshold = -(plo + np.log(c_miss / c_fa))
    actual = miss_weight * table.miss_rate(threshold) + fa_weight * table.false_alarm_rate(threshold)
    min_miss, min_fa = table.min_rates(-threshold)
    equal_error = table.eer()
    default = np.minimum(miss_weight, fa_weight)
    return BayesErrorRates(
        plo=plo,
        actual=actual,
        minimum=miss_weight * min_miss + fa_weight * min_fa,
        default=default,
        eer=equal_error,
        trapezium=np.minimum(default, equal_error * (miss_weight + fa_weight)),
    )


@dataclass(frozen=True)
class BinaryMetrics:
    """All the usual numbers for one system at one operating point, from one sort and one PAV."""

    name: str
    n_tar: float  # trial counts; the weight totals of a bootstrap replicate (ReweightedScores)
    n_non: float
    p_target: float
    c_miss: float
    c_fa: float
    eer: float
    min_dcf: float
    act_dcf: float
    cllr: float
    min_cllr: float
    cprimary: float
    min_cprimary: float
    primary: tuple[float, ...] = SRE12_P_TARGETS
    """The P_target values Cprimary averages over (default SRE'12's)."""

    @property
    def calibration_loss(self) -> float:
        """``Cllr - minCllr`` in bits: what calibration could still gain."""
        return self.cllr - self.min_cllr

    @property
    def calibration_loss_percent(self) -> float:
        """Calibration loss as a percentage of Cllr: 0 for a perfectly calibrated system, 100 when Cllr is
        infinite (minCllr is always finite). For a finite Cllr near the largest float (``100 Cllr`` overflows) it is
        ``100 (1 - minCllr / Cllr)``."""
        with np.errstate(over="ignore"):
            value = calibration_loss_percent(self.cllr, self.min_cllr)
        return value if np.isfinite(value) else 100.0 * (1.0 - self.min_cllr / self.cllr)

    @property
    def operating_point(self) -> OperatingPoint:
        """The operating point of the DCFs."""
        return OperatingPoint(self.p_target, self.c_miss, self.c_fa)

    @property
    def llr_verdict(self) -> LLRVerdict:
        """Can these scores be used as likelihood ratios as they are? (:func:`~llrcore.binary.verdict.llr_verdict`)"""
        return llr_verdict(self.cllr, self.min_cllr)

    def sentence(self) -> str:
        """:attr:`llr_verdict` in a sentence: ``"Needs recalibration: 69 % of Cllr 0.288 bits is calibration
        loss."``"""
        return self.llr_verdict.sentence()

    def to_frame(self, *, eer_percent: bool = False) -> pd.DataFrame:
        """One row, indexed by the system's name: :func:`metrics_table`'s columns."""
        return metrics_table([self], eer_percent=eer_percent)


#: Where ``evaluate(..., by=...)`` goes for one release: :func:`~llrcore.evaluate_by_condition`, a layer above this
#: one (:mod:`llrcore.uncertainty.conditions` names it here with :func:`answers_by_condition` when imported).
_BY_CONDITION: list[Callable[..., Any]] = []


def answers_by_condition(function):
    """Make `function` the one that answers :func:`evaluate`'s deprecated `by` (returns it unchanged)."""
    _BY_CONDITION[:] = [function]
    return function


@old_spellings(LLRS, positional=("p_target",), prior="p_target")
def evaluate(tar: ArrayLike | Trials | ScoreCounts, non: ArrayLike | None = None, *,
             p_target: float | OperatingPoint = 0.01, c_miss: float = 1.0, c_fa: float = 1.0, name: str = "",
             primary: Sequence[float] | str = SRE12_P_TARGETS, threads: int | None = None,
             by: str | Sequence[str] | None = None) -> BinaryMetrics:
    """Every metric of :class:`BinaryMetrics` for scores taken as LLRs, sorting once and running PAV once.

    Parameters
    ----------
    tar, non
        Target and non-target LLRs, or one :class:`~llrcore.Trials` or :class:`~llrcore.CountedScores` as `tar`.
    p_target, c_miss, c_fa
        The operating point of minDCF and actDCF; `p_target` may be an :class:`~llrcore.OperatingPoint` (then it
        brings its costs): ``evaluate(trials, p_target=0.01)``.
    name : str
        The system's name in the result.
    primary : sequence of float or str
        The P_target values of Cprimary, or a NIST evaluation's name (``"SRE16"``, ``"SRE21"``: see
        :data:`~llrcore.prior.NIST_PRIMARY_P_TARGETS`); default SRE'12's 0.01 and 0.001.
    threads : int, optional
        Threads for the sort and the passes over the scores (:func:`~llrcore.thread_count`); no number depends on it.
    by : str or list of str, optional
        Deprecated: gives :func:`~llrcore.evaluate_by_condition`'s result, after a FutureWarning, for one release.

    Returns
    -------
    BinaryMetrics
    """
    if by is not None:
        moved_call("evaluate(..., by=...)", "evaluate_by_condition(trials, by=...)")
        if non is not None:
            raise TypeError("Give one Trials with metadata to break down by a condition, not two arrays of scores.")
        return _BY_CONDITION[0](tar, by, p_target=p_target, c_miss=c_miss, c_fa=c_fa, name=name,
                                primary=primary, threads=threads)
    with thread_limit(threads):
        table = sorted_scores(tar, non)
        op = as_operating_point(p_target, c_miss, c_fa)
        primary = primary_p_targets(primary)
        return BinaryMetrics(
            name=name,
            n_tar=table.n_tar,
            n_non=table.n_non,
            p_target=op.p_target,
            c_miss=op.c_miss,
            c_fa=op.c_fa,
            eer=table.eer(),
            min_dcf=min_dcf(table, p_target=op),
            act_dcf=act_dcf(table, p_target=op),
            cllr=table.cllr(),
            min_cllr=table.min_cllr(),
            cprimary=cprimary(table, p_target=primary),
            min_cprimary=cprimary(table, p_target=primary, minimum=True),
            primary=primary,
        )
