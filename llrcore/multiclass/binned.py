"""The binned expected calibration error (ECE) that machine-learning papers report, its maximum (MCE), and the
classwise variant.

Forecasts are cut into bins, equal-width on [0, 1] (``strategy="uniform"``, Guo et al. 2017) or of equal mass
(``"quantile"``, edges at quantiles of the forecasts, as scikit-learn's ``calibration_curve``); bins are closed on
the right, ``(e_b, e_b+1]`` (the first one includes 0). Equal-width bins are ``((k-1)/M, k/M]`` with each edge the
double nearest to ``k/M`` (what ``k / M`` evaluates to), so a forecast written as ``k/M`` falls in bin ``k`` and 0 in
bin 1; ``np.linspace(0, 1, M + 1)`` is one unit in the last place off ``k/M`` for some ``k`` (``M = 7``: ``k = 5``;
``M = 10``: ``k = 3, 6, 7``) and would move such a forecast into the next bin. With ``n_b`` forecasts in bin ``b``,
their mean outcome ``acc_b`` and mean forecast ``conf_b``:

``ECE = sum_b (n_b / N) |acc_b - conf_b|``,   ``MCE = max_b |acc_b - conf_b|`` (over non-empty bins).

For a probability matrix the forecast is the top label's confidence by default (``max_k p_k`` against whether the
predicted class is right); ``classwise=True`` averages the ECE of every class against the rest (Kull et al. 2019).

Why the number moves with the bins: a bin averages forecasts that differ, and the mean of the gaps is not the gap of
the means; over- and under-confident forecasts that share a bin cancel, and a bin's mean outcome is noisy when it
holds few forecasts. More bins raise the noise, fewer bins hide the miscalibration. The CORP miscalibration
(:func:`~llrcore.multiclass.corp.corp`) chooses its bins itself, by PAV, as the blocks that make the recalibration
non-decreasing and optimal for every proper score: nothing is left to choose, so it does not move.

References
----------
C. Guo, G. Pleiss, Y. Sun and K. Q. Weinberger, "On calibration of modern neural networks", ICML 2017 (ECE, MCE).
M. P. Naeini, G. Cooper and M. Hauskrecht, "Obtaining well calibrated probabilities using Bayesian binning", AAAI
2015. M. Kull et al., "Beyond temperature scaling", NeurIPS 2019 (classwise ECE).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .corp import binary_forecasts

__all__ = ["STRATEGIES", "BinnedECE", "binned_ece"]

#: How :func:`binned_ece` places its bin edges.
STRATEGIES = ("uniform", "quantile")

_WHY = ("The binned ECE depends on the bins: forecasts that share a bin are averaged, so over- and under-confident "
        "ones cancel, and bins holding few forecasts add noise; more bins give more noise, fewer bins hide "
        "miscalibration. CORP's miscalibration (MCB) takes its bins from PAV, the ones that make the recalibration "
        "optimal, so it has no setting to move it.")


@dataclass(frozen=True)
class BinnedECE:
    """Binned calibration error (:func:`binned_ece`).

    Attributes
    ----------
    ece, mce : float
        Expected and maximum calibration error (fractions; ML papers often print them in percent).
    table : DataFrame
        One row per non-empty bin (per class and bin when classwise): ``lower``, ``upper``, ``count``,
        ``confidence`` (mean forecast), ``accuracy`` (mean outcome), ``gap`` (``accuracy - confidence``).
    bins : int
    strategy : str
    target : str
        ``"binary"``, ``"top-label"`` or ``"classwise"``.
    """

    ece: float
    mce: float
    table: pd.DataFrame
    bins: int
    strategy: str
    target: str

    def to_frame(self) -> pd.DataFrame:
        return self.table

    @property
    def why(self) -> str:
        """Why the binned ECE moves with the bins where CORP's miscalibration does not."""
        return _WHY

    def sentence(self) -> str:
        """The ECE, and why it moves with the bins where CORP's miscalibration does not."""
        return (f"ECE {100 * self.ece:.2f} %, MCE {100 * self.mce:.2f} % ({self.target}, {self.bins} "
                f"{self.strategy} bins). " + self.why)


def bin_edges(p: np.ndarray, bins: int, strategy: str) -> np.ndarray:
    """``bins + 1`` edges: ``k / bins`` (each the double nearest to it, as ``np.linspace`` is not) or quantiles of
    `p` (as scikit-learn's ``calibration_curve``)."""
    if strategy == "uniform":
        return np.arange(bins + 1) / bins  # one correctly rounded division per edge
    if strategy == "quantile":
        return np.percentile(p, np.linspace(0, 1, bins + 1) * 100)
    raise ValueError(f"strategy must be one of {', '.join(STRATEGIES)}, not {strategy!r}.")


def bin_table(p: np.ndarray, y: np.ndarray, bins: int, strategy: str) -> pd.DataFrame:
    """The non-empty bins of one binary forecast: edges, count, mean forecast, mean outcome and their gap."""
    edges = bin_edges(p, bins, strategy)
    # right-closed bins (e_b, e_b+1] as Guo et al. define them: the number of inner edges below p
    which = np.searchsorted(edges[1:-1], p, side="left")
    count = np.bincount(which, minlength=bins)
    used = count > 0
    confidence = np.bincount(which, weights=p, minlength=bins)[used] / count[used]
    accuracy = np.bincount(which, weights=y, minlength=bins)[used] / count[used]
    return pd.DataFrame({"lower": edges[:-1][used], "upper": edges[1:][used], "count": count[used],
                         "confidence": confidence, "accuracy": accuracy, "gap": accuracy - confidence})


def binned_ece(probabilities: ArrayLike, labels: ArrayLike, bins: int = 15, strategy: str = "uniform", *,
               classwise: bool = False, target: str | int = "top-label") -> BinnedECE:
    """Binned expected calibration error ``sum_b (n_b/N) |acc_b - conf_b|``, and the MCE ``max_b |acc_b - conf_b|``.

    Parameters
    ----------
    probabilities : array_like, shape (T,) or (T, K)
        Probability of class 1 (labels 0/1), or one probability per class.
    labels : array_like of int
    bins : int
    strategy : {"uniform", "quantile"}
        Equal-width bins on [0, 1] or equal-mass bins (edges at quantiles of the forecasts).
    classwise : bool
        For a matrix: the mean over classes of each class's ECE against the rest (MCE: the largest gap of any class).
    target : "top-label" or int
        For a matrix without `classwise`: the top label's confidence (the ECE of Guo et al.) or class ``k`` against
        the rest.

    Returns
    -------
    BinnedECE
        With :meth:`BinnedECE.sentence` saying why the value moves with `bins` where CORP's MCB does not.
    """
    if int(bins) != bins or bins < 1:
        raise ValueError(f"bins must be a whole number of at least 1, not {bins}.")
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy must be one of {', '.join(STRATEGIES)}, not {strategy!r}.")
    bins = int(bins)
    matrix = np.asarray(probabilities, dtype=np.float64)
    if classwise and matrix.ndim == 2:
        tables = []
        for k in range(matrix.shape[1]):
            p, y = binary_forecasts(matrix, labels, k)
            tables.append(bin_table(p, y, bins, strategy).assign(target=k))
        table = pd.concat(tables, ignore_index=True)
        per_class = [_ece(t) for _, t in table.groupby("target")]
        return BinnedECE(float(np.mean(per_class)), float(np.abs(table["gap"]).max()), table, bins, strategy,
                         "classwise")
    p, y = binary_forecasts(matrix, labels, target)
    table = bin_table(p, y, bins, strategy)
    name = "binary" if matrix.ndim == 1 else str(target)
    return BinnedECE(_ece(table), float(np.abs(table["gap"]).max()), table, bins, strategy, name)


def _ece(table: pd.DataFrame) -> float:
    return float(np.sum(table["count"] * np.abs(table["gap"])) / table["count"].sum())
