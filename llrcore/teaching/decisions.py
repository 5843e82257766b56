"""Bayes decisions in plain numbers: out of 100 trials, how many errors (or what cost)?

:func:`bayes_decisions` answers the question of Brümmer, Ferrer & Swart (2021) for one system at one operating
point (prior ``P = P(target)``, costs ``C_miss``, ``C_fa``): the decisions made by thresholding the LLRs at the
Bayes threshold ``-plo_eff``, ``plo_eff = logit(P) + log(C_miss / C_fa)``, and their expected cost per trial

    actual    = P C_miss Pmiss(-plo_eff) + (1 - P) C_fa Pfa(-plo_eff)        (the scores taken as LLRs)
    minimum   = the same with the PAV-optimal LLRs (perfect calibration, in hindsight)
    trapezium = min(P C_miss, (1 - P) C_fa, EER (P C_miss + (1 - P) C_fa))   (the bound from the EER)
    default   = min(P C_miss, (1 - P) C_fa)                                  (deciding without the system)

With unit costs these are Bayes error rates, and ``100 *`` each is the number of errors out of 100 trials. All
four come from :func:`~llrcore.binary.metrics.bayes_error_rates`, so the page and the library agree to the last digit.

:func:`decision_histograms` adds the two classes' LLR histograms with bins split at the Bayes threshold, so the
areas of the errors (misses left of it, false alarms right of it) are exact histogram areas.

:func:`~llrcore.teaching.fixed_threshold.fixed_false_alarm_threshold` (its own module) makes the paper's criticism of direct
score thresholding visible.

Reference
---------
N. Brümmer, L. Ferrer and A. Swart, "Out of a hundred trials, how many errors does your speaker verifier make?",
Interspeech 2021 (eqs. 7, 17, 23-25, 28-30; section 5).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._deprecation import COSTS, old_spellings
from .._format import percent
from ..binary.histograms import histogram_range
from ..binary.metrics import bayes_error_rates, effective_plo, trials_table
from ..binary.rates import SortedScores
from ..calibration.fit import fit_affine
from ..calibration.folds import cross_calibrate
from ..data.records import one_row
from ..data.trials import Trials
from ..prior import OperatingPoint, as_operating_point

__all__ = [
    "DecisionHistograms",
    "DecisionSummary",
    "bayes_decisions",
    "cross_calibrated",
    "decision_histograms",
]


def per_100(value: float) -> str:
    """An expected count (or cost) per 100 trials, rounded for a sentence: 33, 3.3, 0.37, 0.0012."""
    value = float(value)
    if not np.isfinite(value):
        return str(value)
    if value == 0:
        return "0"
    value = float(f"{value:.2g}")  # two significant digits first, so 9.9999 reads 10, not 10.0
    if value >= 10:
        return f"{value:.0f}"
    if value >= 1:
        return f"{value:.1f}"
    return f"{value:.2g}"


@dataclass(frozen=True)
class DecisionSummary:
    """Bayes decisions of one system at one operating point, and what they cost.

    Attributes
    ----------
    name : str
    p_target, c_miss, c_fa : float
        The operating point.
    plo_eff : float
        Effective prior log-odds ``logit(P) + log(C_miss / C_fa)``.
    threshold : float
        The Bayes threshold ``-plo_eff``: a trial is accepted as a target when its LLR is at least this.
    min_threshold : float
        The lowest score accepted by the PAV-optimal decisions (``inf``: they reject every trial). Thresholding
        the scores here gives the minimum cost: the best threshold in hindsight.
    n_tar, n_non : int
        Trials in the data.
    miss_rate, false_alarm_rate : float
        Pmiss and Pfa of the actual decisions (fractions of the targets / non-targets).
    min_miss_rate, min_false_alarm_rate : float
        The same for the PAV-optimal decisions.
    actual, minimum, trapezium, default : float
        Expected cost per trial (the Bayes error rate when both costs are 1) of the actual decisions, of the
        PAV-optimal ones, the trapezium bound from the EER, and of deciding without the system.
    eer : float
        ROCCH-EER.
    """

    name: str
    p_target: float
    c_miss: float
    c_fa: float
    plo_eff: float
    threshold: float
    min_threshold: float
    n_tar: int
    n_non: int
    miss_rate: float
    false_alarm_rate: float
    min_miss_rate: float
    min_false_alarm_rate: float
    actual: float
    minimum: float
    trapezium: float
    default: float
    eer: float

    def to_frame(self) -> pd.DataFrame:
        """One row: the operating point, the Bayes threshold and the least-cost one (LLRs), the error rates at each
        and the costs (fractions, as the attributes)."""
        return one_row(self)

    @property
    def unit_costs(self) -> bool:
        return self.c_miss == 1 and self.c_fa == 1

    @property
    def misses(self) -> int:
        """Target trials of the data that the actual decisions reject."""
        return int(round(self.miss_rate * self.n_tar))

    @property
    def false_alarms(self) -> int:
        """Non-target trials of the data that the actual decisions accept."""
        return int(round(self.false_alarm_rate * self.n_non))

    @property
    def rejects_by_default(self) -> bool:
        """Whether deciding without the system means rejecting every trial (a miss being the cheaper mistake)."""
        return self.p_target * self.c_miss <= (1 - self.p_target) * self.c_fa

    def per_100(self) -> dict[str, float]:
        """Out of 100 trials: expected targets, misses, false alarms, and the four costs (times 100)."""
        p = self.p_target
        return {
            "targets": 100 * p,
            "non-targets": 100 * (1 - p),
            "misses": 100 * p * self.miss_rate,
            "false alarms": 100 * (1 - p) * self.false_alarm_rate,
            "min misses": 100 * p * self.min_miss_rate,
            "min false alarms": 100 * (1 - p) * self.min_false_alarm_rate,
            "actual": 100 * self.actual,
            "minimum": 100 * self.minimum,
            "trapezium": 100 * self.trapezium,
            "default": 100 * self.default,
        }

    def sentence(self) -> str:
        """The answer in one plain sentence: actual vs perfectly calibrated vs the EER bound vs no system.

        Examples
        --------
        "Out of 100 trials at P(target) = 1 %, this system makes about 3.3 errors; with perfect calibration it
        would make 3.2; the bound from its EER is 1.0; without the system (rejecting every trial), 1.0."
        """
        n = {key: per_100(value) for key, value in self.per_100().items()}
        default = f"without the system ({'rejecting' if self.rejects_by_default else 'accepting'} every trial)"
        if self.unit_costs:
            text = (
                f"Out of 100 trials at P(target) = {percent(self.p_target)}, this system makes about {n['actual']} "
                f"errors; with perfect calibration it would make {n['minimum']}; the bound from its EER is "
                f"{n['trapezium']}; {default}, {n['default']}."
            )
        else:
            text = (
                f"Out of 100 trials at P(target) = {percent(self.p_target)}, with a miss costing {self.c_miss:g} and "
                f"a false alarm {self.c_fa:g}, this system's decisions cost about {n['actual']}; with perfect "
                f"calibration they would cost {n['minimum']}; the bound from its EER is {n['trapezium']}; "
                f"{default}, {n['default']}."
            )
        if self.actual > self.default:
            text += " The system does worse than not using it at all: its scores are badly calibrated here."
        return text

    def decisions_sentence(self, *, units: str = "ln") -> str:
        """What the threshold does: which LLRs are accepted (the threshold in natural log, or with ``units="log10"``
        as a log10 LR), the misses and false alarms per 100 trials."""
        if units not in ("ln", "log10"):
            raise ValueError(f"Units are 'ln' (natural log) or 'log10', not {units!r}.")
        n = self.per_100()
        targets = f"{n['targets']:.3g}"
        threshold = f"LLR is at least {self.threshold:+.2f}" if units == "ln" else \
            f"log10 LR is at least {self.threshold / np.log(10):+.2f}"
        return (
            f"It accepts a trial when its {threshold}. Of 100 trials, {targets} "
            f"{'is a target' if targets == '1' else 'are targets'} and {n['non-targets']:.3g} non-targets; on average "
            f"it misses {per_100(n['misses'])} targets ({percent(self.miss_rate)} of them) and falsely accepts "
            f"{per_100(n['false alarms'])} non-targets ({percent(self.false_alarm_rate)} of them)."
        )

    def table(self) -> pd.DataFrame:
        """Out of 100 trials, the decisions against the truth: rows target / non-target, columns accepted /
        rejected (expected counts)."""
        n = self.per_100()
        return pd.DataFrame(
            {"accepted": [n["targets"] - n["misses"], n["false alarms"]],
             "rejected": [n["misses"], n["non-targets"] - n["false alarms"]]},
            index=pd.Index(["target", "non-target"], name="trial is"),
        )

    def shown_table(self) -> pd.DataFrame:
        """:meth:`table` as text to show, with a ``total`` column: one number of decimals for every cell (enough
        for the smallest count: 0.37 needs two) and each row's parts rounded by largest remainder, so that what is
        shown adds up to the shown total (0.37 + 98.63 = 99.00, where rounding each cell alone gives 0.37 and 99).
        A count of exactly 0 reads "0".

        Reference: M. Balinski and H. P. Young, *Fair Representation*, 2nd ed., Brookings 2001 (Hamilton's method).
        """
        table = self.table()
        table["total"] = table.sum(axis=1)
        positive = table.to_numpy()[table.to_numpy() > 0]
        decimals = int(np.clip(1 - np.floor(np.log10(positive.min())), 0, _MAX_DECIMALS)) if positive.size else 0
        units = [_parts_adding_up(row[["accepted", "rejected"]].to_numpy(), row["total"], decimals)
                 for _, row in table.iterrows()]
        text = [["0" if value == 0 else f"{count / 10.0 ** decimals:.{decimals}f}" for count, value in zip(*row)]
                for row in zip(units, table.to_numpy())]
        return pd.DataFrame(text, index=table.index, columns=table.columns)


#: The most decimals of :meth:`DecisionSummary.shown_table` (a count below 0.0001 per 100 trials reads 0.0000).
_MAX_DECIMALS = 4


def _parts_adding_up(parts: np.ndarray, total: float, decimals: int) -> list[int]:
    """`parts` and their `total` in units of ``10**-decimals``: the total rounded, the parts rounded down and the
    units left over given to the largest remainders (Hamilton's largest-remainder method), so the parts add up."""
    scale = 10.0 ** decimals
    whole = int(round(total * scale))
    floors = np.floor(parts * scale).astype(np.int64)
    order = np.argsort(-(parts * scale - floors), kind="stable")
    for i in order[:max(whole - int(floors.sum()), 0)]:
        floors[i] += 1
    return [*(int(v) for v in floors), whole]


def _min_threshold(table: SortedScores, plo_eff: float) -> float:
    """Lowest score accepted by the PAV-optimal decisions at `plo_eff` (the block :meth:`min_rates` starts at)."""
    blocks = table.pav
    j = int(np.searchsorted(blocks.llr, -plo_eff, side="left"))
    return float(table.unique[blocks.first[j]]) if j < blocks.first.size else np.inf


@old_spellings(positional=COSTS)
def bayes_decisions(trials: Trials | SortedScores, *, p_target: float | OperatingPoint, c_miss: float = 1.0,
                    c_fa: float = 1.0, name: str | None = None) -> DecisionSummary:
    """Bayes decisions of LLRs at one operating point: rates, expected costs and the "out of 100" sentence.

    Parameters
    ----------
    trials : Trials or SortedScores
        The scores, taken as natural-log LLRs (the minimum and the EER hold for any scores).
    p_target : float or OperatingPoint
        Prior probability of a target, strictly between 0 and 1, or the whole operating point (its costs stand).
    c_miss, c_fa : float
        Costs of a miss and of a false alarm (positive).
    name : str, optional
        Default: the name of the Trials.

    Returns
    -------
    DecisionSummary
        Its ``actual``, ``minimum``, ``trapezium`` and ``default`` are those of
        :func:`~llrcore.binary.metrics.bayes_error_rates` at ``plo = logit(p_target)``.
    """
    if isinstance(p_target, OperatingPoint):
        op = as_operating_point(p_target, c_miss, c_fa)
        p_target, c_miss, c_fa = op.p_target, op.c_miss, op.c_fa
    if not 0 < p_target < 1:
        raise ValueError("P(target) must be strictly between 0 and 1.")
    table = trials_table(trials)
    plo = float(np.log(p_target) - np.log1p(-p_target))
    plo_eff = float(effective_plo(p_target, c_miss, c_fa))
    rates = bayes_error_rates(table, plo=[plo], c_miss=c_miss, c_fa=c_fa)
    min_miss, min_fa = table.min_rates(plo_eff)
    if name is None:
        name = trials.name if isinstance(trials, Trials) else ""
    return DecisionSummary(
        name=name,
        p_target=float(p_target),
        c_miss=float(c_miss),
        c_fa=float(c_fa),
        plo_eff=plo_eff,
        threshold=-plo_eff,
        min_threshold=_min_threshold(table, plo_eff),
        n_tar=table.n_tar,
        n_non=table.n_non,
        miss_rate=float(table.miss_rate(-plo_eff)),
        false_alarm_rate=float(table.false_alarm_rate(-plo_eff)),
        min_miss_rate=float(min_miss),
        min_false_alarm_rate=float(min_fa),
        actual=float(rates.actual[0]),
        minimum=float(rates.minimum[0]),
        trapezium=float(rates.trapezium[0]),
        default=float(rates.default[0]),
        eer=rates.eer,
    )


# ----- the decisions drawn over the histograms ---------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class DecisionHistograms:
    """The two classes' LLR histograms with the Bayes decisions of one operating point (``decision_figure``'s data).

    When the Bayes threshold is in view it is a bin edge, so every bin is wholly rejected (``[0, cut)``) or wholly
    accepted (``[cut, end)``) and the errors are exact histogram areas: the rejected bins of the targets (misses)
    and the accepted bins of the non-targets (false alarms).

    Attributes
    ----------
    summary : DecisionSummary
        The decisions and their costs.
    edges : ndarray
        Bin edges of equal width, common to both classes.
    counts : dict
        ``"target"`` and ``"non-target"`` -> trials per bin.
    cut : int
        The first accepted bin.
    threshold_in_view : bool
        Whether the Bayes threshold lies within the bins (else it is far off, and `cut` is 0 or the number of bins).
    x_range : (float, float)
        The range of LLRs to show: the scores' range (:func:`~llrcore.binary.histograms.histogram_range`), widened to
        the threshold in view with a margin; the outer bins may reach a little beyond it.
    """

    summary: DecisionSummary
    edges: np.ndarray
    counts: dict
    cut: int
    threshold_in_view: bool
    x_range: tuple[float, float]

    @property
    def width(self) -> float:
        return float(self.edges[1] - self.edges[0])

    @property
    def n_trials(self) -> dict[str, int]:
        return {"target": self.summary.n_tar, "non-target": self.summary.n_non}

    def density(self, label: str) -> np.ndarray:
        """Trials per bin over the class's trials and the bin width: each class's histogram has area 1."""
        return self.counts[label] / (self.n_trials[label] * self.width)

    def errors(self, label: str) -> slice:
        """The bins of the class's errors: rejected targets (misses) or accepted non-targets (false alarms)."""
        return slice(0, self.cut) if label == "target" else slice(self.cut, None)

    def to_frame(self) -> pd.DataFrame:
        """Rows ``system, class, bin_start, bin_end, count, density, decision, error``: one per class and bin,
        ``decision`` being ``"reject"`` or ``"accept"`` and ``error`` whether the bin's trials are decided wrongly."""
        decision = np.where(np.arange(self.edges.size - 1) < self.cut, "reject", "accept")
        frames = []
        for label, counts in self.counts.items():
            wrong = np.zeros(counts.size, dtype=bool)
            wrong[self.errors(label)] = True
            frames.append(pd.DataFrame({"system": self.summary.name, "class": label, "bin_start": self.edges[:-1],
                                        "bin_end": self.edges[1:], "count": counts, "density": self.density(label),
                                        "decision": decision, "error": wrong}))
        return pd.concat(frames, ignore_index=True)


def _aligned_edges(lo: float, hi: float, bins: int, threshold: float) -> np.ndarray:
    """Bin edges of about `bins` equal bins over ``[lo, hi]``, shifted so the threshold is an edge: then every bin
    is either wholly accepted or wholly rejected, and the error areas are exact histogram areas. A range too wide for
    floating point (``hi - lo`` overflows, e.g. from -1e308 to 1e308) is refused in a sentence."""
    width = hi / bins - lo / bins  # never overflows, unlike (hi - lo) / bins
    if not (np.isfinite(width) and width > 0 and np.isfinite((hi - lo) / width)):
        raise ValueError(f"The scores span [{lo:.3g}, {hi:.3g}], too wide a range for {bins} histogram bins.")
    if not np.isfinite(threshold):
        return lo + width * np.arange(bins + 1)
    first = np.floor((lo - threshold) / width)
    last = np.ceil((hi - threshold) / width)
    return threshold + width * np.arange(first, last + 1)


@old_spellings(positional=COSTS)
def decision_histograms(trials: Trials | SortedScores, *, p_target: float | OperatingPoint, c_miss: float = 1.0,
                        c_fa: float = 1.0, bins: int = 80, name: str | None = None) -> DecisionHistograms:
    """The Bayes decisions of :func:`bayes_decisions` over the two classes' LLR histograms.

    About `bins` equal bins cover the scores (:func:`~llrcore.binary.histograms.histogram_range`); a threshold within
    half that range of them widens the range to show it with a margin and becomes a bin edge.

    Parameters
    ----------
    trials : Trials or SortedScores
        Scores taken as natural-log LLRs.
    p_target, c_miss, c_fa : float
        The operating point (`p_target` may be an :class:`~llrcore.OperatingPoint`, as in :func:`bayes_decisions`).
    bins : int
        About this many bins (at least 4).
    name : str, optional
        Default: the name of the Trials.

    Returns
    -------
    DecisionHistograms
        The decisions and their costs (``summary``), the bin edges common to both classes, the trials per bin of
        each class, the first accepted bin (``cut``) and the range of LLRs shown.

    Raises
    ------
    ValueError
        For an operating point :func:`bayes_decisions` refuses, or scores spanning a range too wide for the bins.
    """
    summary = bayes_decisions(trials, p_target=p_target, c_miss=c_miss, c_fa=c_fa, name=name)
    table = trials_table(trials)
    lo, hi = histogram_range([table.tar, table.non])
    span, threshold = hi - lo, summary.threshold
    in_view = lo - 0.5 * span <= threshold <= hi + 0.5 * span
    if in_view:  # keep both lines and a margin on screen
        lo, hi = min(lo, threshold - 0.04 * span), max(hi, threshold + 0.04 * span)
    edges = _aligned_edges(lo, hi, max(int(bins), 4), threshold if in_view else np.nan)
    counts = {label: np.histogram(scores, bins=edges)[0] for label, scores in (("target", table.tar),
                                                                               ("non-target", table.non))}
    cut = int(np.searchsorted(edges, threshold, side="left"))
    return DecisionHistograms(summary, edges, counts, cut, in_view, (float(lo), float(hi)))


def cross_calibrated(trials: Trials, *, fit: Callable[..., Any] = fit_affine, folds: int = 5, seed: int = 0) -> Trials:
    """The same trials with calibrated LLRs from k-fold cross-validation, named ``"<name> (calibrated)"``.

    Every score is calibrated by a ``fit`` trained on the other folds
    (:func:`~llrcore.calibration.folds.cross_calibrate`, which this calls), so a miscalibrated system can be shown next
    to its honestly calibrated self when no separate development set exists.

    Parameters
    ----------
    trials : Trials
        The scores to calibrate.
    fit : callable
        ``fit(tar, non)`` returning a calibrator (default :func:`~llrcore.calibration.fit.fit_affine`, logistic
        regression).
    folds : int
        Number of folds, at least 2.
    seed : int
        Seed of the random assignment of trials to folds.

    Returns
    -------
    Trials
        The cross-validated LLRs (natural log), each trial's from the fit on the other folds, named
        ``"<name> (calibrated)"`` (``"system (calibrated)"`` without a name).

    Raises
    ------
    ValueError
        When the fit of any fold collapsed (:attr:`~llrcore.Affine.failure`, e.g. a score of -1e308 among the
        targets): its trials' LLRs would all be about equal, a copy that is no calibration.
    """
    tar, non = cross_calibrate(trials.tar, trials.non, fit, folds=folds, seed=seed, refuse_collapsed=True)
    return Trials(tar, non, name=f"{trials.name or 'system'} (calibrated)")
