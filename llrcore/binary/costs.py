"""Cllr's cost kernels: the cost in bits of each LLR, ``log2(1 + e^(+-l))``, and their means, without overflow.

:func:`cllr_bits` is Cllr of validated LLR arrays; :func:`cost_bits` the cost of each LLR on the pool's threads;
:func:`mean_cost_bits` one class's share of the empirical cross-entropy at any prior, exact where a cost or a sum of
costs would overflow and where the prior is below the smallest float. Every metric that prices LLRs by the
logarithmic rule (Cllr, ECE, the bootstrap's reweighted Cllr, the counted scores) calls these.

Reference
---------
N. Brümmer and J. du Preez, "Application-independent evaluation of speaker detection", CSL 20, 2006 (Cllr).
"""
from __future__ import annotations

import math

import numpy as np

from .. import parallel
from ..prior import sigmoid

__all__ = ["cllr_bits", "cost_bits", "mean_cost_bits", "softplus", "softplus_bits"]


def softplus(x):
    """``log(1 + exp(x))`` without overflow: ``softplus(inf) = inf``, ``softplus(-inf) = 0``."""
    return np.logaddexp(0.0, np.asarray(x, dtype=np.float64))


def softplus_bits(x):
    """``log2(1 + e^x)``: the cost of an LLR in bits, computed in base 2 so that an LLR of 0 costs exactly 1 bit."""
    with np.errstate(over="ignore"):  # |x| near the largest float: x / ln 2 is inf, and so is the cost
        return np.logaddexp2(0.0, np.asarray(x, dtype=np.float64) / np.log(2))


def cllr_bits(tar_llr: np.ndarray, non_llr: np.ndarray, *, threads: int | None = None,
              costs: tuple[np.ndarray, np.ndarray] | None = None) -> float:
    """``(mean_tar log2(1 + e^-l) + mean_non log2(1 + e^l)) / 2``: Cllr in bits of validated LLR arrays.

    Finite costs give a finite Cllr whenever it is below the largest float, even when one cost in bits (an LLR beyond
    about 1.2e308) or a sum of costs is not, and whatever infinite LLRs that cost nothing (a target's ``+inf``, a
    non-target's ``-inf``) lie beside them: the costs are then summed without overflow (:func:`mean_cost_bits`). The
    costs are computed on `threads` threads (:mod:`llrcore.parallel`), each mean over the whole array at once, so the
    value does not depend on their number. `costs`: :func:`cost_bits` of these LLRs, when worked out already.
    """
    tar_cost, non_cost = cost_bits(tar_llr, non_llr, threads=threads) if costs is None else costs
    with np.errstate(over="ignore"):
        value = (tar_cost.mean() + non_cost.mean()) / 2
    if np.isinf(value):  # a cost is infinite, or a sum of costs overflowed
        value = mean_cost_bits(tar_llr, -1) + mean_cost_bits(non_llr, 1)
    return float(value)


def mean_cost_bits(llr: np.ndarray, sign: int, plo: float = 0.0, weights=None, total=None) -> float:
    """``P_class * mean log2(1 + e^(sign (l + plo)))`` over one class's LLRs without overflow: what the target
    (``sign = -1``, ``P_class = sigmoid(plo)``) or non-target (``sign = 1``, ``P_class = sigmoid(-plo)``) trials add to
    the empirical cross-entropy at prior log-odds `plo`, or to Cllr at ``plo = 0``.

    Each cost is taken in nats at half scale, ``softplus(x) / 2`` with ``x / 2 = sign (l / 2 + plo / 2)`` (finite for
    a finite LLR even where ``l + plo`` is not; ``softplus(x) = x`` to the last bit for ``x > 40``), and the mean is
    ``top * mean(cost / top)`` with ``top`` the largest half cost, so no sum can overflow, and the prior multiplies
    ``top`` before it can underflow (:func:`_prior_times`). The result is infinite only when it is beyond the largest
    float, or when an LLR is infinite on the costly side (whatever the prior: it is never 0 at a finite `plo`).
    `weights` (summing to `total`) count each LLR a number of times; an LLR of weight 0 adds nothing, even an
    infinite one.
    """
    llr = np.asarray(llr, dtype=np.float64)
    if weights is not None:
        counted = weights > 0
        llr, weights = llr[counted], weights[counted]
    half = sign * (llr / 2 + plo / 2)
    if half.size == 0:
        return 0.0
    if np.isposinf(half).any():
        return np.inf
    with np.errstate(over="ignore"):  # 2 * half overflows only where half > 20, and that branch is not taken
        half_cost = np.where(half > 20, half, softplus(2 * half) / 2)
    top = half_cost.max()
    if top == 0:
        return 0.0
    ratio = half_cost / top
    mean = ratio.mean() if weights is None else parallel.dot(weights, ratio) / total
    with np.errstate(over="ignore"):  # beyond the largest float: inf is the answer
        return float(_prior_times(-sign * plo, top) * (mean * (2 / np.log(2))))


def _prior_times(x: float, value: float) -> float:
    """``sigmoid(x) * value`` for a positive `value`, also where the prior ``sigmoid(x)`` is below the smallest
    float: there (``x < -700``) it is ``e^x`` to the last bit, applied as ``e^a e^a e^(x - 2a)`` with ``a = trunc(x /
    3)`` (``x - 2a`` is exact), the largest factor first, so that ``value`` shrinks without underflow on the way."""
    if x >= -700:
        return float(sigmoid(x)) * value
    a = math.trunc(x / 3)
    return value * math.exp(a) * math.exp(a) * math.exp(x - 2 * a)


def cost_bits(tar_llr: np.ndarray, non_llr: np.ndarray, *, threads: int | None = None
              ) -> tuple[np.ndarray, np.ndarray]:
    """Cllr's cost in bits of each target LLR, ``log2(1 + e^-l)``, and each non-target LLR, ``log2(1 + e^l)``
    (:func:`softplus_bits` element by element, on `threads` threads)."""
    tar_llr, non_llr = (np.asarray(x, dtype=np.float64) for x in (tar_llr, non_llr))
    return (parallel.elementwise(_miss_cost_bits, np.empty(tar_llr.size), tar_llr, threads=threads),
            parallel.elementwise(_false_alarm_cost_bits, np.empty(non_llr.size), non_llr, threads=threads))


def _miss_cost_bits(llr, out):
    """``softplus_bits(-llr)`` into `out`, operation by operation as :func:`softplus_bits` does it."""
    with np.errstate(over="ignore"):
        np.negative(llr, out=out)
        np.divide(out, np.log(2), out=out)
        return np.logaddexp2(0.0, out, out=out)


def _false_alarm_cost_bits(llr, out):
    """``softplus_bits(llr)`` into `out`."""
    with np.errstate(over="ignore"):
        np.divide(llr, np.log(2), out=out)
        return np.logaddexp2(0.0, out, out=out)
