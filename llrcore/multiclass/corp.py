"""CORP reliability of probability forecasts: the PAV-recalibrated probability against the forecast, without bins.

The CORP reliability diagram (Consistent, Optimally binned, Reproducible, PAV-based; Dimitriadis, Gneiting & Jordan
2021) plots, for binary outcomes ``y`` and forecast probabilities ``p``, the recalibrated probability ``r = PAV(p)``:
the isotonic regression of ``y`` on ``p`` (the non-decreasing function of ``p`` closest to ``y`` in squared error;
equal forecasts pooled into one block, never split). ``r`` is the same for every proper scoring rule, and with the
climatology ``ybar`` (the base rate) it decomposes the mean score ``S`` exactly:

``S(p) = MCB - DSC + UNC`` with ``MCB = S(p) - S(r)`` (miscalibration), ``DSC = S(ybar) - S(r)`` (discrimination)
and ``UNC = S(ybar)`` (uncertainty); ``MCB >= 0`` and ``DSC >= 0`` because PAV is optimal for every proper score
among non-decreasing recalibrations (the constant ``ybar`` among them).

The consistency band is the paper's resampling under the hypothesis of calibration: draw ``y* ~ Bernoulli(p)``
(the outcomes a calibrated forecaster would see), recompute ``PAV(p)`` on them, and take pointwise quantiles.
Where the CORP curve leaves the band, miscalibration is more than chance.

A classifier's probability matrix is reduced to a binary forecast first: the top label (the confidence
``max_k p_k`` against whether the predicted class is right), or one class against the rest (``p_k`` against
``y == k``).

The log score is in bits (``-log2`` of the probability given to what happened), as the project's Cllr; the Brier
score is ``(p - y)^2`` (half the two-class Brier score of ML papers, which sums over both classes).

Reference: T. Dimitriadis, T. Gneiting and A. I. Jordan, "Stable reliability diagrams for probabilistic
classifiers", PNAS 118(8), e2016191118, 2021.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy.optimize import isotonic_regression
from scipy.special import xlogy

__all__ = ["CORP", "SCORES", "binary_forecasts", "corp", "corp_per_class", "mean_score", "pav_recalibrate"]

#: The scoring rules :func:`corp` decomposes.
SCORES = ("brier", "log")
_BAND_POINTS = 1000  # the band is evaluated at no more than this many distinct forecasts (quantiles of them)
_DRAWS_AT_ONCE = 2_000_000  # random numbers drawn at once (16 MB): replicates come in chunks of this size


def binary_forecasts(probabilities, labels, target="top-label") -> tuple[np.ndarray, np.ndarray]:
    """``(p, y)``: forecast probabilities of a binary event and its outcomes (0/1 floats).

    Parameters
    ----------
    probabilities : array_like, shape (T,) or (T, K)
        ``(T,)``: the probability of class 1 with labels 0/1. ``(T, K)``: one probability per class, rows adding to 1.
    labels : array_like of int, shape (T,)
        The true class, ``0..K-1``.
    target : "top-label" or int
        For a matrix: ``"top-label"`` (the confidence ``max_k p_k`` and whether the argmax is the true class) or a
        class index ``k`` (``p_k`` and ``y == k``, one against the rest).
    """
    p = np.asarray(probabilities, dtype=np.float64)
    y = np.asarray(labels).reshape(-1)
    if p.ndim not in (1, 2) or p.shape[0] != y.size or p.shape[0] == 0:
        raise ValueError(f"The probabilities (shape {p.shape}) and the labels ({y.size}) must have one row per trial.")
    if not np.all(np.isfinite(p)) or p.min() < 0 or p.max() > 1:
        raise ValueError("The probabilities must lie between 0 and 1 (softmax the logits first).")
    if y.dtype.kind not in "iub" and not (y.dtype.kind == "f" and np.all(y == np.round(y))):
        raise ValueError("The labels must be class numbers 0, 1, ...")
    y = y.astype(np.int64)
    classes = 2 if p.ndim == 1 else p.shape[1]
    if y.min() < 0 or y.max() >= classes:
        raise ValueError(f"The labels must be class numbers from 0 to {classes - 1}.")
    if p.ndim == 1:
        return p, y.astype(np.float64)
    if p.shape[1] < 2:
        raise ValueError("A probability matrix needs at least 2 classes (columns).")
    if not np.allclose(p.sum(axis=1), 1.0, atol=1e-3):
        raise ValueError("Each row of probabilities must add up to 1 (softmax the logits first).")
    if isinstance(target, str):
        if target != "top-label":
            raise ValueError(f"target must be 'top-label' or a class number, not {target!r}.")
        predicted = np.argmax(p, axis=1)
        return p[np.arange(y.size), predicted], (predicted == y).astype(np.float64)
    k = int(target)
    if not 0 <= k < p.shape[1]:
        raise ValueError(f"target must be a class number from 0 to {p.shape[1] - 1}, not {target}.")
    return p[:, k], (y == k).astype(np.float64)


def pav_recalibrate(p: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The PAV-recalibrated probability of every forecast: isotonic regression of `y` on `p`, ties pooled."""
    _, inverse, counts = np.unique(p, return_inverse=True, return_counts=True)
    fit = isotonic_regression(np.bincount(inverse, weights=y) / counts, weights=counts, increasing=True)
    return fit.x[inverse]


def mean_score(p, y, score: str = "brier") -> float:
    """Mean Brier score ``(p - y)^2`` or log score ``-log2`` of the probability given to the outcome (bits)."""
    p, y = np.asarray(p, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if score == "brier":
        return float(np.mean((p - y) ** 2))
    if score == "log":
        with np.errstate(divide="ignore"):  # a forecast of 0 for what happened costs infinitely much
            return float(-np.mean(xlogy(y, p) + xlogy(1 - y, 1 - p)) / np.log(2))
    raise ValueError(f"score must be one of {', '.join(SCORES)}, not {score!r}.")


@dataclass(frozen=True)
class CORP:
    """The CORP reliability of one binary forecast (:func:`corp`).

    Attributes
    ----------
    curve : DataFrame
        One row per distinct forecast: ``forecast``, ``recalibrated`` (PAV), ``count``; and with bands ``lower`` and
        ``upper``, the consistency band at that forecast (NaN where the band was not evaluated).
    mcb, dsc, unc, score : float
        Miscalibration, discrimination, uncertainty and the mean score: ``score = mcb - dsc + unc``.
    bands : DataFrame or None
        ``forecast``, ``lower``, ``upper`` where the band was evaluated (at most 1,000 forecasts).
    score_name : str
        ``"brier"`` or ``"log"`` (bits).
    target : str or int
        ``"binary"``, ``"top-label"`` or the class number (one against the rest).
    level : float
    n : int
        Replicates of the band (0: no band).
    """

    curve: pd.DataFrame
    mcb: float
    dsc: float
    unc: float
    score: float
    bands: pd.DataFrame | None
    score_name: str
    target: str | int
    level: float
    n: int

    def to_frame(self) -> pd.DataFrame:
        """One row: the score and its decomposition."""
        return pd.DataFrame([{"target": self.target, "score": self.score_name, "mean_score": self.score,
                              "MCB": self.mcb, "DSC": self.dsc, "UNC": self.unc}])

    def sentence(self) -> str:
        unit = " bits" if self.score_name == "log" else ""
        rule = "Brier" if self.score_name == "brier" else "log"
        return (f"Mean {rule} score {self.score:.4g}{unit} = miscalibration {self.mcb:.4g} - "
                f"discrimination {self.dsc:.4g} + uncertainty {self.unc:.4g} (CORP, PAV-recalibrated).")


def consistency_band(p: np.ndarray, n: int = 1000, level: float = 0.9, seed: int = 0) -> pd.DataFrame:
    """Pointwise `level` band of ``PAV(p)`` on outcomes drawn from a calibrated forecaster, ``y* ~ Bernoulli(p)``.

    Evaluated at the distinct forecasts (at most :data:`_BAND_POINTS` of them, spread by quantile).
    """
    if not 0 < level < 1:
        raise ValueError(f"level must be between 0 and 1, not {level}.")
    if n < 1:
        raise ValueError(f"n must be at least 1 replicate, not {n}.")
    values, inverse, counts = np.unique(p, return_inverse=True, return_counts=True)
    at = np.unique(np.round(np.linspace(0, values.size - 1, min(values.size, _BAND_POINTS))).astype(np.int64))
    rng = np.random.default_rng(seed)
    draws = np.empty((n, at.size))
    chunk = max(1, _DRAWS_AT_ONCE // p.size)
    for start in range(0, n, chunk):
        stop = min(n, start + chunk)
        outcomes = rng.random((stop - start, p.size)) < p
        for row, y_star in enumerate(outcomes, start):
            fit = isotonic_regression(np.bincount(inverse, weights=y_star, minlength=values.size) / counts,
                                      weights=counts, increasing=True)
            draws[row] = fit.x[at]
    lower, upper = np.quantile(draws, [(1 - level) / 2, (1 + level) / 2], axis=0)
    return pd.DataFrame({"forecast": values[at], "lower": lower, "upper": upper})


def corp(probabilities: ArrayLike, labels: ArrayLike, score: str = "brier", *, target: str | int = "top-label",
         n: int = 1000, level: float = 0.9, seed: int = 0) -> CORP:
    """CORP reliability: the PAV-recalibrated forecast, the decomposition ``S = MCB - DSC + UNC`` and its band.

    ``r = PAV(p)`` is the isotonic regression of the outcomes on the forecasts (equal forecasts pooled), ``ybar`` the
    base rate, ``S`` the mean score (:func:`mean_score`)::

        MCB = S(p) - S(r)        DSC = S(ybar) - S(r)        UNC = S(ybar)        S(p) = MCB - DSC + UNC

    Parameters
    ----------
    probabilities : array_like, shape (T,) or (T, K)
        Probability of class 1 (binary, labels 0/1) or one probability per class (see :func:`binary_forecasts`).
    labels : array_like of int
    score : {"brier", "log"}
        The proper scoring rule; the log score is in bits.
    target : "top-label" or int
        How a probability matrix becomes a binary forecast: the top label's confidence, or class ``k`` against the
        rest. Ignored for a 1-D forecast.
    n, level, seed : int, float, int
        Replicates, level and seed of the consistency band (``n=0``: no band).

    Returns
    -------
    CORP

    References
    ----------
    T. Dimitriadis, T. Gneiting and A. I. Jordan, "Stable reliability diagrams for probabilistic classifiers",
    PNAS 118(8), 2021 (eqs. 2-4 for the decomposition, sec. "Uncertainty quantification" for the band).
    """
    if score not in SCORES:
        raise ValueError(f"score must be one of {', '.join(SCORES)}, not {score!r}.")
    p, y = binary_forecasts(probabilities, labels, target)
    recalibrated = pav_recalibrate(p, y)
    climatology = np.full(p.size, y.mean())
    s_forecast, s_recal, s_clim = (mean_score(f, y, score) for f in (p, recalibrated, climatology))
    values, first, counts = np.unique(p, return_index=True, return_counts=True)
    curve = pd.DataFrame({"forecast": values, "recalibrated": recalibrated[first], "count": counts})
    bands = consistency_band(p, n, level, seed) if n else None
    if bands is not None:
        curve = curve.merge(bands, on="forecast", how="left")
    return CORP(curve=curve, mcb=s_forecast - s_recal, dsc=s_clim - s_recal, unc=s_clim, score=s_forecast,
                bands=bands, score_name=score, target="binary" if np.ndim(probabilities) == 1 else target,
                level=level, n=int(n))


def corp_per_class(probabilities: ArrayLike, labels: ArrayLike, score: str = "brier",
                   classes: Sequence[str] | None = None) -> pd.DataFrame:
    """One row per class (one against the rest) and one for the top label: the mean score, MCB, DSC and UNC.

    Each row is :func:`corp`'s decomposition ``S = MCB - DSC + UNC`` (Dimitriadis, Gneiting & Jordan, PNAS 2021)
    of one binary forecast. No bands (ask :func:`corp` with ``target=k`` for one class's band).

    Parameters
    ----------
    probabilities : array_like, shape (T, K)
        One probability per class for each trial.
    labels : array_like of int
        True class index of each trial.
    score : {"brier", "log"}
        The proper scoring rule; the log score is in bits.
    classes : sequence of str, optional
        Class names for the ``target`` column; default the indices as text.

    Returns
    -------
    DataFrame
        K + 1 rows (``top-label`` first, then each class): ``target``, ``score``, ``mean_score``, ``MCB``, ``DSC``,
        ``UNC``.

    Raises
    ------
    ValueError
        When `probabilities` is no matrix, or for an unknown `score`.
    """
    matrix = np.asarray(probabilities, dtype=np.float64)
    if matrix.ndim != 2:
        raise ValueError("corp_per_class needs a (trials x classes) probability matrix.")
    names = list(classes) if classes is not None else [str(k) for k in range(matrix.shape[1])]
    rows = [corp(matrix, labels, score, target=target, n=0).to_frame()
            for target in ["top-label", *range(matrix.shape[1])]]
    frame = pd.concat(rows, ignore_index=True)
    frame["target"] = ["top-label", *names]
    return frame
