"""The pool-adjacent-violators algorithm over sorted scores: PAV blocks from class counts per unique score.

Runs of consecutive unique scores with the same target fraction always end up in one PAV block, so they are found
first (:func:`fraction_runs`, chunk by chunk on the pool's threads) and PAV (scipy's C++ ``isotonic_regression``)
runs over the runs (:func:`pav_of_runs`); a bootstrap replicate's weighted runs go through :func:`pav_blocks`.
The result, :class:`PAVBlocks`, gives the optimal LLR of every score and the ROCCH's vertices.

Reference
---------
N. Brümmer and J. du Preez, "Application-independent evaluation of speaker detection", CSL 20, 2006 (PAV, ROCCH).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import isotonic_regression

from .. import parallel

__all__ = ["PAVBlocks", "fraction_runs", "pav_blocks", "pav_of_runs"]


@dataclass(frozen=True)
class PAVBlocks:
    """The PAV solution as blocks of consecutive unique scores sharing one optimal LLR.

    Attributes
    ----------
    first : ndarray of int
        Index (into :attr:`SortedScores.unique`) of the first unique score of each block, increasing.
    n_tar, n_non : ndarray of int
        Number of target / non-target trials in each block.
    llr : ndarray of float
        Optimal LLR of each block, ``log(n_tar/N_tar) - log(n_non/N_non)``; non-decreasing, may be +-inf.
    tar_below, non_below : ndarray of int
        Number of target / non-target trials in the blocks before each block (length ``len(first) + 1``; the last
        entry is the class total). These give the ROCCH vertices.
    """

    first: np.ndarray
    n_tar: np.ndarray
    n_non: np.ndarray
    llr: np.ndarray
    tar_below: np.ndarray
    non_below: np.ndarray


def fraction_runs(tar_counts: np.ndarray, non_counts: np.ndarray, threads: int | None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The runs of consecutive unique scores with the same target fraction, as ``(first, run_tar, run_total)``:
    where each run begins and how many target and all trials it holds (PAV pools each run whatever it does).

    Chunk by chunk on `threads` threads, each chunk reading the score before it to see whether a run begins at its
    first score; a run that crosses into later chunks gets their counts added (integers: the same whatever the
    chunks).
    """
    bounds = parallel.chunk_bounds(tar_counts.size)
    spans = list(zip(bounds[:-1], bounds[1:]))

    def chunk(span):
        a, b = span
        low = max(a - 1, 0)
        tar, total = tar_counts[low:b], tar_counts[low:b] + non_counts[low:b]
        fraction = tar / total
        first = np.flatnonzero(fraction[1:] != fraction[:-1]) + 1
        if a == 0:
            first = np.concatenate([[0], first])
        head = first[0] if first.size else total.size  # scores before the chunk's first run: the last run's tail
        skip = a - low
        carry = tar[skip:head].sum(), total[skip:head].sum()
        if not first.size:
            return first + low, first, first, carry
        return (first + low, np.add.reduceat(tar[head:], first - head), np.add.reduceat(total[head:], first - head),
                carry)

    parts = parallel.map_tasks(chunk, spans, parallel.workers_for(tar_counts.size, threads))
    first = np.concatenate([part[0] for part in parts])
    run_tar = np.concatenate([part[1] for part in parts]).astype(np.int64, copy=False)
    run_total = np.concatenate([part[2] for part in parts]).astype(np.int64, copy=False)
    before = np.cumsum([part[0].size for part in parts])
    for k in range(1, len(parts)):  # chunk k's leading scores continue the last run begun before it
        run_tar[before[k - 1] - 1] += parts[k][3][0]
        run_total[before[k - 1] - 1] += parts[k][3][1]
    return first, run_tar, run_total


def pav_blocks(tar_counts, non_counts, n_tar, n_non) -> PAVBlocks:
    """Run PAV on the per-unique-score (or per-run) target fractions, weighted by the number of trials.

    Runs of consecutive scores with the same target fraction always end up in one PAV block, so they are pooled
    first: with untied scores this shrinks the input from all scores to the number of class changes. An entry
    that carries no weight (a bootstrap replicate that did not draw it) joins the run before it.
    """
    totals = tar_counts + non_counts
    with np.errstate(invalid="ignore", divide="ignore"):
        fraction = tar_counts / totals
    runs = np.flatnonzero(np.concatenate([[True], fraction[1:] != fraction[:-1]]))  # NaN != NaN: empty entries
    run_tar = np.add.reduceat(tar_counts, runs)
    run_total = np.add.reduceat(totals, runs)
    weighed = run_total > 0
    if not weighed.all():
        runs, run_tar, run_total = runs[weighed], run_tar[weighed], run_total[weighed]
        runs[0] = 0
    return pav_of_runs(runs, run_tar, run_total, n_tar, n_non)


def pav_of_runs(runs, run_tar, run_total, n_tar, n_non) -> PAVBlocks:
    """PAV over runs of scores (``runs``: where each begins) holding `run_tar` targets of `run_total` trials."""
    fit = isotonic_regression(run_tar / run_total, weights=run_total, increasing=True)
    block_tar = np.add.reduceat(run_tar, fit.blocks[:-1])
    block_non = np.add.reduceat(run_total, fit.blocks[:-1]) - block_tar
    with np.errstate(divide="ignore"):
        llr = np.log(block_tar / n_tar) - np.log(block_non / n_non)
    return PAVBlocks(
        first=runs[fit.blocks[:-1]],
        n_tar=block_tar,
        n_non=block_non,
        llr=llr,
        tar_below=np.concatenate([[0], np.cumsum(block_tar)]),
        non_below=np.concatenate([[0], np.cumsum(block_non)]),
    )
