"""Why does my ECE differ from other tools? The binned ECE of the same forecasts as each common tool computes it.

Every tool below computes ``ECE = sum_b (n_b / N) |acc_b - conf_b|`` over ``M`` equal-width bins; they differ in
what they call the confidence, where their bin edges fall and which side of a bin is closed:

- **Guo et al. 2017** (llrcore's :func:`~llrcore.multiclass.binned.binned_ece`, the top label) — the confidence
  ``max_k p_k`` against whether the argmax is right, bins ``((k-1)/M, k/M]`` with the double nearest to ``k/M``
  as edge, 0 in bin 1.
- **scikit-learn** ``sklearn.calibration.calibration_curve`` — the probability of class 1 against ``label == 1``
  (the binary reliability), edges ``np.linspace(0, 1, M + 1)``, bins closed on the right
  (``np.searchsorted(bins[1:-1], y_prob)``).
- **netcal** ``netcal.metrics.ECE`` — the probability of class 1 for two classes, else the top label; forecasts
  clipped to ``[eps, 1 - eps]``; ``np.linspace`` edges; bins closed on the left (``np.histogramdd``).
- **torchmetrics** ``calibration_error`` (``binary_calibration_error`` for one column of probabilities,
  ``multiclass_calibration_error`` for a matrix: the top label) — float32 confidences, ``torch.linspace`` edges in
  float32, ``torch.bucketize(right=True) - 1``: bins closed on the left and a confidence of exactly 1.0 in an
  extra, ``M + 1``-th bin (torchmetrics issue #3510).

Sources (read for this module): github.com/scikit-learn/scikit-learn ``sklearn/calibration.py`` ``calibration_curve``
(1.9); github.com/EFS-OpenSource/calibration-framework ``netcal/metrics/Miscalibration.py`` and
``netcal/metrics/confidence/ECE.py`` (commit 2a3db8d); github.com/Lightning-AI/torchmetrics
``src/torchmetrics/functional/classification/calibration_error.py`` (commit dab0333); PyTorch's CPU ``linspace``
kernel (``aten/src/ATen/native/cpu/RangeFactoriesKernel.cpp``).

References
----------
C. Guo, G. Pleiss, Y. Sun and K. Q. Weinberger, "On calibration of modern neural networks", ICML 2017 (ECE).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy.special import softmax

from ..data.multiclass import MulticlassScores
from .binned import binned_ece
from .corp import binary_forecasts

__all__ = ["ece_conventions"]

WHY = {
    "guo": "The top label's confidence max_k p_k against whether the argmax is right, in bins ((k-1)/M, k/M] whose "
           "edges are the doubles nearest to k/M, a forecast of 0 in the first bin: Guo et al.'s definition.",
    "sklearn": "Bins the probability of class 1 against label 1 (the binary reliability, for more classes class 1 "
               "against the rest), in bins closed on the right at np.linspace's edges, one unit in the last place "
               "off k/M for some k.",
    "netcal": "Bins the probability of class 1 for two classes and the top label otherwise, clipped to "
              "[eps, 1 - eps], in bins closed on the left ([(k-1)/M, k/M)) at np.linspace's edges.",
    "torchmetrics": "Bins float32 confidences (class 1 for one column, the top label for a matrix) closed on the "
                    "left at torch.linspace's float32 edges, and puts a confidence of exactly 1.0 in an extra bin "
                    "of its own.",
}


def ece_of_bins(confidence: np.ndarray, outcome: np.ndarray, which: np.ndarray, dtype=np.float64) -> float:
    """``sum_b (n_b / N) |mean outcome_b - mean confidence_b|`` over the bins ``which`` assigns, summed in `dtype`
    one forecast after the other (as torchmetrics' ``scatter_add_`` sums in float32)."""
    size = int(which.max()) + 1
    count, conf, acc = (np.zeros(size, dtype) for _ in range(3))
    np.add.at(count, which, 1)
    np.add.at(conf, which, confidence.astype(dtype))
    np.add.at(acc, which, outcome.astype(dtype))
    used = count > 0
    share = count[used] / count.sum()
    return float(np.sum(np.abs(acc[used] / count[used] - conf[used] / count[used]) * share))


def top_label(matrix: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(max_k p_k, 1.0 where the first argmax is the label)``."""
    return matrix.max(axis=1), (matrix.argmax(axis=1) == labels).astype(np.float64)


def sklearn_ece(matrix: np.ndarray, labels: np.ndarray, bins: int) -> float:
    """``calibration_curve(labels == 1, p[:, 1], n_bins=bins)``'s bins, weighted by their counts."""
    p, y = matrix[:, 1], (labels == 1).astype(np.float64)
    return ece_of_bins(p, y, np.searchsorted(np.linspace(0.0, 1.0, bins + 1)[1:-1], p))


def netcal_ece(matrix: np.ndarray, labels: np.ndarray, bins: int) -> float:
    """``netcal.metrics.ECE(bins).measure(X, y)``: binary for two columns, top label otherwise (NaN where netcal
    refuses: more than two columns but at most two distinct labels)."""
    if matrix.shape[1] > 2 and np.unique(labels).size <= 2:
        return float("nan")
    eps = np.finfo(np.float64).eps
    clipped = np.clip(matrix, eps, 1.0 - eps)
    if matrix.shape[1] == 2:
        confidence, outcome = clipped[:, 1], labels.astype(np.float64)
    else:
        confidence, outcome = top_label(clipped, labels)
    # np.histogramdd's bins: searchsorted on the right (clipped forecasts never reach the closed last edge)
    return ece_of_bins(confidence, outcome, np.searchsorted(np.linspace(0.0, 1.0, bins + 1)[1:-1], confidence,
                                                            side="right"))


def torch_linspace_float32(bins: int) -> np.ndarray:
    """``torch.linspace(0, 1, bins + 1)`` in float32 as PyTorch's CPU kernel computes it: ``step = 1 / bins``, the
    lower half ``step * i``, the upper half ``1 - step * (bins - i)``."""
    step = np.float32(1.0) / np.float32(bins)
    i = np.arange(bins + 1, dtype=np.float32)
    lower = i < (bins + 1) // 2
    return np.where(lower, step * i, np.float32(1.0) - step * (np.float32(bins) - i)).astype(np.float32)


def torchmetrics_ece(probabilities: np.ndarray, matrix: np.ndarray, labels: np.ndarray, bins: int) -> float:
    """torchmetrics' binary (one column) or multiclass (matrix) ``calibration_error`` with ``norm="l1"``; bins from
    ``torch.bucketize(confidence, edges, right=True) - 1``, so 1.0 lands in bin ``M`` (an ``M + 1``-th bin)."""
    if probabilities.ndim == 1:
        confidence, outcome = probabilities.astype(np.float32), labels.astype(np.float64)
    else:
        confidence, outcome = top_label(matrix.astype(np.float32), labels)  # torch.tensor's dtype
    which = np.searchsorted(torch_linspace_float32(bins), confidence, side="right") - 1
    return ece_of_bins(confidence, outcome, which, np.float32)


def ece_conventions(probabilities: ArrayLike | MulticlassScores, labels: ArrayLike | None = None, bins: int = 15, *,
                    percent: bool = False) -> pd.DataFrame:
    """The binned ECE of the same forecasts as Guo et al. (llrcore), scikit-learn, netcal and torchmetrics compute
    it, each with the sentence saying how it bins.

    ``ECE = sum_b (n_b / N) |acc_b - conf_b|`` over `bins` equal-width bins in every row; the rows differ in the
    confidence (top label or probability of class 1), the edges (``k/M`` or ``linspace``'s, float64 or float32) and
    the closed side of a bin. torchmetrics sums in float32 as its ``scatter_add_`` does, the others in float64.

    Parameters
    ----------
    probabilities : array_like, shape (T,) or (T, K), or MulticlassScores
        The probability of class 1 (labels 0/1), or one probability per class (rows adding to 1); or a classifier's
        outputs read as logits (``lc.read_multiclass(..., score_type="logit")``), whose ``softmax`` it takes, with
        their labels (as :func:`~llrcore.multiclass.classifier.classifier_calibration` does for its raw version).
    labels : array_like of int, shape (T,)
        The true classes (not needed with a MulticlassScores).
    bins : int
        M, the number of equal-width bins (15 as torchmetrics' and Guo et al.'s default; netcal's is 10,
        scikit-learn's 5).
    percent : bool
        ECE in percent (column ``"ECE %"``) rather than as a fraction (``"ECE"``).

    Returns
    -------
    DataFrame
        One row per tool: ``convention``, the ECE, ``why`` (one sentence).

    Examples
    --------
    >>> import llrcore as lc
    >>> table = lc.ece_conventions([0.3, 0.3, 0.7, 1.0], [1, 0, 1, 1], bins=5)
    >>> [round(v, 4) for v in table["ECE"]]
    [0.025, 0.175, 0.175, 0.175]
    """
    if int(bins) != bins or bins < 1:
        raise ValueError(f"bins must be a whole number of at least 1, not {bins}.")
    bins = int(bins)
    if isinstance(probabilities, MulticlassScores):
        labels, probabilities = probabilities.labels, softmax(probabilities.llrs, axis=1)
    if labels is None:
        raise ValueError("Give the labels (the true class of each trial) with the probabilities.")
    binary_forecasts(probabilities, labels)  # refuses bad shapes, probabilities and labels in a sentence
    p = np.asarray(probabilities, dtype=np.float64)
    labels = np.asarray(labels).reshape(-1).astype(np.int64)
    matrix = np.column_stack([1.0 - p, p]) if p.ndim == 1 else p
    values = {
        "Guo et al. 2017 (llrcore binned_ece, top label)": binned_ece(matrix, labels, bins).ece,
        "scikit-learn calibration_curve": sklearn_ece(matrix, labels, bins),
        "netcal ECE": netcal_ece(matrix, labels, bins),
        "torchmetrics calibration_error": torchmetrics_ece(p, matrix, labels, bins),
    }
    scale, column = (100.0, "ECE %") if percent else (1.0, "ECE")
    return pd.DataFrame({"convention": list(values), column: [scale * v for v in values.values()],
                         "why": list(WHY.values())})
