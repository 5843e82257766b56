"""Temperature scaling (Guo et al. 2017): one ``T > 0`` dividing every logit, fitted by minimising the NLL.

``q_t = softmax(z_t / T)`` with ``T`` minimising ``NLL(T) = -mean_t log q_t,y_t`` (nats). With ``a = 1 / T`` the NLL
``mean_t [logsumexp(a z_t) - a z_t,y_t]`` is convex in ``a`` (log-sum-exp of a linear map): its derivative
``mean_t [E_q(z_t) - z_t,y_t]`` is non-decreasing and its second derivative is ``mean_t Var_q(z_t) >= 0``, so a
safeguarded Newton search on that derivative (Newton steps kept inside a bracket that bisection shrinks) finds the
one minimum to machine precision.

Relation to the direction-preserving multiclass calibration ``alpha l + gamma`` of
:func:`~llrcore.multiclass.calibration.fit_multiclass_affine` (Brümmer & van Leeuwen 2006): temperature scaling is
that calibration with ``alpha = 1 / T`` and no offsets (``gamma = 0`` on the logits), trained with every trial
weighted alike, which is the affine objective at ``prior="empirical"`` (weights ``pi_y / n_y = 1 / N``) with the
offsets fixed at ``-log pi`` so that ``gamma + log pi = 0``. When the free offsets of the affine fit come out equal
(a set symmetric in its classes, e.g. balanced with exchangeable classes) the two scales coincide. In the binary
case (two logits, ``s = z_1 - z_0``) it is logistic regression of the label on ``s`` without intercept, i.e.
:func:`~llrcore.calibration.fit.fit_affine` at ``plo = logit(N_1 / N)`` with the offset fixed at ``-plo``.

Reference: C. Guo, G. Pleiss, Y. Sun and K. Q. Weinberger, "On calibration of modern neural networks", ICML 2017,
sec. 4.2.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import log_softmax

from ..calibration.saved import Saved, dumps

__all__ = ["Temperature", "fit_temperature", "nll"]

_MAX_SCALE = 1e6  # a = 1/T beyond this (T below 1e-6): the logits all but separate the classes


def _logits_and_labels(logits, labels) -> tuple[np.ndarray, np.ndarray]:
    z = np.asarray(logits, dtype=np.float64)
    y = np.asarray(labels).reshape(-1)
    if z.ndim != 2 or z.shape[1] < 2:
        raise ValueError("The logits must be a (trials x classes) matrix with at least 2 classes.")
    if z.shape[0] != y.size or y.size == 0:
        raise ValueError(f"There are {z.shape[0]} rows of logits but {y.size} labels.")
    if not np.all(np.isfinite(z)):
        raise ValueError("The logits must be finite numbers.")
    if y.dtype.kind not in "iu" or y.min() < 0 or y.max() >= z.shape[1]:
        raise ValueError(f"The labels must be class numbers from 0 to {z.shape[1] - 1}.")
    return z, y.astype(np.int64)


def nll(logits, labels, temperature: float = 1.0) -> float:
    """Mean negative log-likelihood ``-mean_t log softmax(z_t / T)_y_t`` in nats (the cross-entropy ML reports)."""
    z, y = _logits_and_labels(logits, labels)
    return float(-np.mean(log_softmax(z / temperature, axis=1)[np.arange(y.size), y]))


@dataclass(frozen=True)
class Temperature:
    """A fitted temperature; call it on logits to get calibrated probabilities ``softmax(z / T)``.

    Attributes
    ----------
    temperature : float
        ``T``; above 1 the classifier was over-confident, below 1 under-confident.
    nll_before, nll_after : float
        The mean NLL (nats) of the training logits at ``T = 1`` and at the fitted ``T``.
    """

    temperature: float
    nll_before: float
    nll_after: float

    @property
    def scale(self) -> float:
        """``alpha = 1 / T``: the scale of the affine calibration ``alpha l + gamma`` with ``gamma = 0``."""
        return 1.0 / self.temperature

    def log_probabilities(self, logits) -> np.ndarray:
        """Calibrated log-probabilities ``log softmax(z / T)`` (natural log)."""
        z = np.asarray(logits, dtype=np.float64)
        if z.ndim != 2:
            raise ValueError("The logits must be a (trials x classes) matrix.")
        return log_softmax(z / self.temperature, axis=1)

    def __call__(self, logits) -> np.ndarray:
        """Calibrated probabilities ``softmax(z / T)``, rows adding to 1 (what :func:`corp` and ``binned_ece`` take)."""
        return np.exp(self.log_probabilities(logits))

    KIND = "temperature"

    def to_json(self, *, classes=None) -> str:
        """The temperature as JSON text (schema ``llrcore.calibrator/1``, docs/calibration.md): coefficient
        ``temperature``; the NLL before and after it (``training``), the classes in order when given."""
        return dumps(self.KIND, "probabilities", {"temperature": self.temperature}, features=classes,
                     training={"nll_before": self.nll_before, "nll_after": self.nll_after})

    @classmethod
    def from_saved(cls, document: Saved) -> Temperature:
        """The temperature of a saved document (:func:`llrcore.load_calibrator`)."""
        temperature = document.part("coefficients").number("temperature")
        if not temperature > 0:
            raise ValueError(f"In {document.what}, 'coefficients.temperature' must be above 0, not {temperature}.")
        training = document.training
        return cls(temperature=temperature, nll_before=training.number("nll_before", np.nan),
                   nll_after=training.number("nll_after", np.nan))


def _derivatives(z: np.ndarray, y: np.ndarray, a: float) -> tuple[float, float]:
    """First and second derivative of the NLL in ``a = 1/T``: ``mean(E_q z - z_y)`` and ``mean(Var_q z)``."""
    q = np.exp(log_softmax(a * z, axis=1))
    mean_z = np.einsum("ij,ij->i", q, z)
    var_z = np.einsum("ij,ij->i", q, z * z) - mean_z**2
    return float(np.mean(mean_z - z[np.arange(y.size), y])), float(np.mean(np.maximum(var_z, 0.0)))


def _separates(z: np.ndarray, y: np.ndarray) -> bool:
    """True when every trial's true class is strictly above all others: the NLL then falls for ever as T -> 0."""
    rows = np.arange(y.size)
    true = z[rows, y].copy()
    others = z.copy()
    others[rows, y] = -np.inf
    return bool(np.all(true > others.max(axis=1)))


def fit_temperature(logits: ArrayLike, labels: ArrayLike) -> Temperature:
    """Temperature scaling: the ``T > 0`` minimising the NLL of ``softmax(logits / T)`` (Guo et al. 2017).

    Solved in ``a = 1/T``, where the NLL is convex: the root of its non-decreasing derivative is bracketed (the
    bracket doubled until the derivative turns positive) and found by Newton steps that fall back on bisection
    whenever they would leave the bracket.

    Parameters
    ----------
    logits : array_like, shape (T, K)
        Logits (or log-probabilities: a constant per row changes nothing).
    labels : array_like of int, shape (T,)

    Returns
    -------
    Temperature
        ``.temperature``; called on logits it returns probabilities (``.log_probabilities`` the logs).

    Raises
    ------
    ValueError
        When the logits do better than chance nowhere (the NLL falls as ``T`` grows without bound) or separate the
        classes perfectly (it falls as ``T`` goes to 0).
    """
    z, y = _logits_and_labels(logits, labels)
    if _separates(z, y):
        raise ValueError("The logits separate the classes perfectly, so the best temperature is 0. "
                         "Fit it on more (or harder) trials.")
    slope_at_zero, _ = _derivatives(z, y, 0.0)
    if slope_at_zero >= 0:
        raise ValueError("The logits are no better than chance (the NLL is smallest at an infinite temperature): "
                         "temperature scaling cannot help them.")
    low, high = 0.0, 1.0
    while _derivatives(z, y, high)[0] < 0:
        low, high = high, 2 * high
        if high > _MAX_SCALE:
            raise ValueError("The best temperature is below 1e-6: the logits all but separate the classes. "
                             "Fit it on more (or harder) trials.")
    a = 1.0
    for _ in range(200):
        slope, curvature = _derivatives(z, y, a)
        if slope < 0:
            low = a
        else:
            high = a
        step = a - slope / curvature if curvature > 0 else np.nan
        a_next = step if low < step < high else (low + high) / 2
        if abs(a_next - a) <= 1e-13 * max(1.0, a) or high - low <= 1e-13 * max(1.0, a):
            a = a_next
            break
        a = a_next
    return Temperature(temperature=1.0 / a, nll_before=nll(z, y), nll_after=nll(z, y, 1.0 / a))
