"""The sticky Markov-chain prior over speaker sequences and its exact posterior for given per-window logits.

Windows ``t = 1..N`` in time order; speaker weights ``pi`` (stick breaking, :mod:`llrcore.diarization.model`).
The speaker of a window repeats that of the previous window with the loop probability ``p`` (a "stay") and is
otherwise redrawn from ``pi`` (a "redraw", which may draw the same speaker again), as in VBx's HMM (Landini et al.,
"Bayesian HMM clustering of x-vector sequences (VBx) in speaker diarization", Computer Speech & Language 71,
2022, eq. 1-2)::

    z_1 ~ Cat(pi)
    s_t ~ Bernoulli(1 - p),  t >= 2;   s_t = 0: z_t = z_{t-1};   s_t = 1: z_t ~ Cat(pi)
    p(z_t = k | z_{t-1} = j) = p [j = k] + (1 - p) pi_k

With ``p = 0`` the windows are independent draws from ``pi``: the Dirichlet-process mixture of the block model.
``p = exp(-shift / mean_turn)`` makes the expected run of one speaker ``mean_turn`` seconds for windows every
``shift`` seconds.

For logits ``e_tk`` (the expected log-likelihood of window t under speaker k) and ``pi~ = exp(E[log pi])``, the
distribution ``q(z, s) ∝ p~(z, s) exp(sum_t e_{t z_t})`` is the optimal factor of the mean-field bound; it is a
chain, summed exactly by the forward-backward algorithm in O(N K) because the transition is the identity plus a
rank-one matrix. :func:`sticky_chain` returns its marginals ``R_tk = q(z_t = k)``, the expected number of draws
from pi of each speaker (``q(z_1 = k) + sum_{t >= 2} q(s_t = 1, z_t = k)``, which update q(pi)) and the log
normaliser ``log Z(e)``; then ``E_q[log p~(z, s)] + H(q) = log Z - sum_tk R_tk e_tk``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["ChainPosterior", "loop_probability", "median_shift", "sticky_chain"]


@dataclass(frozen=True)
class ChainPosterior:
    """``q(z)`` of the sticky chain: marginals (N x K), expected draws from pi (K,) and ``log Z``."""

    marginals: np.ndarray
    draws: np.ndarray
    log_z: float


def median_shift(start) -> float:
    """The median step between window starts (seconds), in any order; 0 for one window or none."""
    start = np.asarray(start, dtype=np.float64)
    return float(np.median(np.diff(np.sort(start)))) if start.size > 1 else 0.0


def loop_probability(start, mean_turn: float) -> float:
    """``p = exp(-shift / mean_turn)``, with shift the :func:`median_shift` of the window starts.

    A speaker then keeps the floor for ``mean_turn`` seconds on average. One window, or none: ``p = 0``.
    """
    if np.size(start) < 2:
        return 0.0
    return float(np.exp(-median_shift(start) / mean_turn))


def sticky_chain(logits: np.ndarray, log_pi: np.ndarray, loop: float) -> ChainPosterior:
    """Forward-backward on the sticky chain with emissions ``exp(logits)`` (see the module docstring).

    Scaled recursions (each forward vector sums to one; ``c_t`` its normaliser, ``log Z = sum_t log c_t``)::

        a_1 ∝ pi~ * psi_1,             a_t ∝ (p a_{t-1} + (1 - p) pi~) * psi_t
        b_N = 1,                       b_t = (p psi_{t+1} b_{t+1} + (1 - p) (pi~ . psi_{t+1} b_{t+1})) / c_{t+1}
        R_t = a_t * b_t,               q(s_t = 1, z_t = k) = (1 - p) pi~_k psi_tk b_tk / c_t

    with ``psi_t = exp(e_t - max_k e_tk)`` (the maxima are added back to ``log Z``). Both recursions are linear
    maps of K-vectors, so they are run in chunks of windows side by side (:func:`_chunked`): the same numbers as
    one window after another, with about 3 sqrt(N) vector steps instead of N.
    """
    e = np.asarray(logits, dtype=np.float64)
    if loop == 0.0:  # independent windows: every window a draw from pi, no recursion
        joint = e + np.asarray(log_pi, dtype=np.float64)
        peak = joint.max(axis=1, keepdims=True)  # log-sum-exp by hand: scipy's costs a sixth of a fit in overheads
        weights = np.exp(joint - peak)
        total = weights.sum(axis=1, keepdims=True)
        marginals = weights / total
        return ChainPosterior(marginals, marginals.sum(axis=0), float((np.log(total) + peak).sum()))
    n, k = e.shape
    p, q = float(loop), 1.0 - float(loop)
    prior = np.exp(np.asarray(log_pi, dtype=np.float64))
    peak = e.max(axis=1, keepdims=True)
    psi = np.exp(e - peak)
    redraw = q * prior
    # forward: x_t = p psi_t * a_{t-1} + (redraw * psi_t) (1 . a_{t-1}), then a_t = x_t / c_t
    first = prior * psi[0]
    entry = first / first.sum()
    forward, scale = _chunked(p * psi[1:], redraw * psi[1:], np.ones((n - 1, k)), entry, normalise=True)
    forward = np.vstack([entry, forward])
    scale = np.concatenate([[first.sum()], scale])
    # backward: b_t = p w * b_{t+1} + 1 (redraw * w . b_{t+1}), w = psi_{t+1} / c_{t+1}, from t = N-1 down
    ahead = psi / scale[:, None]
    backward, _ = _chunked(p * ahead[:0:-1], np.ones((n - 1, k)), redraw * ahead[:0:-1], np.ones(k),
                           normalise=False)
    backward = np.vstack([backward[::-1], np.ones((1, k))])
    marginals = forward * backward
    marginals /= marginals.sum(axis=1, keepdims=True)
    draws = marginals[0] + redraw * (ahead[1:] * backward[1:]).sum(axis=0)
    return ChainPosterior(marginals, draws, float(np.log(scale).sum() + peak.sum()))


def _chunked(diagonal: np.ndarray, column: np.ndarray, row: np.ndarray, start: np.ndarray, *, normalise: bool):
    """Run ``v_t = diagonal_t * v_{t-1} + column_t (row_t . v_{t-1})`` for t = 1..T from ``v_0 = start``.

    All arrays but `start` are (T, K): each step is a diagonal plus a rank-one map, all entries non-negative.
    With `normalise`, every v_t is divided by its sum and the sums are returned (the scaled forward pass).
    The T steps are cut into about sqrt(T) chunks of as many steps: first every chunk's map is found from the K
    unit vectors (all chunks side by side), then the maps carry `start` to the first step of every chunk, and
    last all chunks run side by side from there. Returns (v_1..v_T as a (T, K) array, the sums or None).
    """
    steps, k = diagonal.shape
    length = max(1, int(np.ceil(np.sqrt(steps))))
    chunks = -(-steps // length)
    pad = chunks * length - steps  # identity steps at the end: diagonal 1, no rank-one part

    def blocks(a, fill):
        return np.concatenate([a, np.full((pad, k), fill)]).reshape(chunks, length, k)

    diagonal, column, row = blocks(diagonal, 1.0), blocks(column, 0.0), blocks(row, 0.0)
    # 1. each chunk's map, applied to the unit vectors (its columns), kept at unit size
    maps = np.broadcast_to(np.eye(k), (chunks, k, k)).copy()
    sizes = np.empty((length, chunks))
    for i in range(length):
        maps = diagonal[:, i, :, None] * maps + column[:, i, :, None] * (row[:, i, None, :] @ maps)
        sizes[i] = maps.max(axis=(1, 2))
        maps /= sizes[i, :, None, None]
    log_size = np.log(sizes).sum(axis=0)
    # 2. the vector before the first step of every chunk
    entry = np.empty((chunks, k))
    v = np.asarray(start, dtype=np.float64)
    with np.errstate(divide="ignore"):  # log(0) = -inf is meant: exp(-inf) = 0
        for c in range(chunks):
            entry[c] = v
            v = maps[c] @ v
            if normalise:
                v = v / v.sum()
            else:  # the true size, which the scaled backward pass keeps moderate
                v = np.exp(np.log(v) + log_size[c])
    # 3. every step, all chunks side by side
    out = np.empty((chunks, length, k))
    sums = np.empty((chunks, length))
    v = entry
    for i in range(length):
        v = diagonal[:, i] * v + column[:, i] * (row[:, i, None, :] @ v[:, :, None])[:, 0]
        if normalise:
            sums[:, i] = v.sum(axis=1)
            v = v / sums[:, i, None]
        out[:, i] = v
    return out.reshape(-1, k)[:steps], (sums.reshape(-1)[:steps] if normalise else None)
