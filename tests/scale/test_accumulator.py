"""``lc.ScoreAccumulator``: batches of scores and labels, as a training or evaluation loop gives them, kept as counts
per unique score; accumulators merge across processes; the counts are exactly those of every trial seen.

Independent references: the trials themselves, concatenated, through ``lc.Trials`` (which sorts them and never sees
a count) and through counts by hand (``np.unique`` per class); a made-up tensor that numpy reads only through its
``__array__`` (as a CPU torch tensor; torch is not imported); real data, the ASVspoof 2019 LA ASV evaluation scores
of ``assets/`` (SOURCE.txt there) fed in batches of random sizes, in one process and in three that merge.
"""
from __future__ import annotations

import pickle

import numpy as np
import pytest

import llrcore as lc
from llrcore.scale.accumulator import BUFFER_SIZE
from paths import ASSETS
from test_merge_counts import assert_metrics_of_trials, counted

ASV_EVAL = ASSETS / "asvspoof2019_la" / "ASVspoof2019.LA.asv.eval.gi.trl.scores.txt"


class Tensor:
    """A stand-in for a CPU tensor: numpy reaches its values only through ``__array__``."""

    def __init__(self, values):
        self._values = list(values)

    def __array__(self, dtype=None, copy=None):
        return np.array(self._values, dtype=dtype)


def batches(trials: lc.Trials, seed: int):
    """The trials shuffled and cut into batches of random sizes (1 to 5,000), as ``(scores, labels)``."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(trials.scores.size)
    scores, labels = trials.scores[order], trials.labels[order]
    cuts = np.cumsum(rng.integers(1, 5000, size=scores.size // 1000))
    yield from zip(np.split(scores, cuts[cuts < scores.size]), np.split(labels, cuts[cuts < scores.size]))


def fed(parts, **options) -> lc.ScoreAccumulator:
    accumulator = lc.ScoreAccumulator(**options)
    for scores, labels in parts:
        accumulator.update(scores, labels)
    return accumulator


@pytest.fixture(scope="module")
def asv() -> lc.Trials:
    whole = lc.read_trials(ASV_EVAL)
    return lc.Trials(whole.tar, whole.non)


def test_batches_by_hand():
    accumulator = fed([([2.0, -1.0, 0.5], [True, False, False]), ([0.5, -0.0], np.array([1, 0])),
                       (Tensor([0.0, 2.0]), Tensor([1, 1]))])
    # scores -1 (non), 0 (non -0.0, tar 0.0), 0.5 (non, tar), 2 (tar, tar)
    frame = accumulator.counts.to_frame()
    assert frame["score"].tolist() == [-1.0, 0.0, 0.5, 2.0]
    assert frame["targets"].tolist() == [0, 1, 1, 2] and frame["non-targets"].tolist() == [1, 1, 1, 0]
    assert (accumulator.n_tar, accumulator.n_non) == (4, 3)
    assert accumulator.to_frame().equals(frame)


@pytest.mark.parametrize("buffer_size", [0, 997, BUFFER_SIZE])
def test_asvspoof_eval_in_batches_gives_the_whole_files_metrics(asv, buffer_size):
    accumulator, seen = lc.ScoreAccumulator(buffer_size=buffer_size), np.empty(0)
    for scores, labels in batches(asv, seed=1):
        accumulator.update(scores, labels)
        seen = np.unique(np.concatenate([seen, scores]))
        # memory: at most the buffer, and rows of counts for at most twice the unique scores seen
        held = accumulator._table[0].size + sum(table[0].size for table in accumulator._pending)
        assert accumulator._buffered <= buffer_size and held <= 2 * seen.size
    counts = accumulator.counts
    for column in ("unique", "tar_counts", "non_counts"):
        assert np.array_equal(getattr(counts, column), getattr(counted(asv.tar, asv.non), column))
    assert_metrics_of_trials(counts, asv)


def test_three_processes_merge_through_pickle(asv):
    parts = list(batches(asv, seed=2))
    processes = [fed(parts[i::3], buffer_size=2000) for i in range(3)]
    received = [pickle.loads(pickle.dumps(accumulator)) for accumulator in processes]
    a, b, c = received
    merged = a.merge(b).merge(c)
    for other in (sum(received), c + (b + a), a + (c + b)):
        assert other.to_frame().equals(merged.to_frame())
    assert_metrics_of_trials(merged.counts, asv)
    assert a.to_frame().equals(processes[0].to_frame())  # merging leaves the parts as they were


def test_batches_counted_elsewhere_add_as_the_trials_would(asv):
    """``add_counts``: each batch counted by hand (``counted``, np.unique) and added gives what ``update`` gives."""
    accumulator = lc.ScoreAccumulator()
    for scores, labels in batches(asv, seed=3):
        if labels.any() and not labels.all():
            table = counted(scores[labels], scores[~labels])
            accumulator.add_counts(table.unique, table.tar_counts, table.non_counts)
        else:  # a batch of one class: CountedScores needs both, so the counts are written out here
            unique, counts = np.unique(scores, return_counts=True)
            zeros = np.zeros_like(counts)
            accumulator.add_counts(unique, *((counts, zeros) if labels.any() else (zeros, counts)))
    assert accumulator.to_frame().equals(fed(batches(asv, seed=3)).to_frame())
    assert_metrics_of_trials(accumulator.counts, asv)


def test_bad_batches_are_one_sentence():
    accumulator = lc.ScoreAccumulator()
    with pytest.raises(ValueError, match="3 scores but 2 labels"):
        accumulator.update([1.0, 2.0, 3.0], [1, 0])
    with pytest.raises(ValueError, match="Score 1 of the batch .* is NaN"):
        accumulator.update([1.0, np.nan], [1, 0])
    with pytest.raises(ValueError, match="Label 2 .*trial 1 of the batch.* is neither class"):
        accumulator.update([1.0, 2.0], [1, 2])
    with pytest.raises(ValueError, match="True/False or 1/0"):
        accumulator.update([1.0, 2.0], ["target", "nontarget"])
    with pytest.raises(ValueError, match="must be numbers"):
        accumulator.update(["high", "low"], [1, 0])
    with pytest.raises(ValueError, match="2 scores but 1 target and 2 non-target counts"):
        accumulator.add_counts([1.0, 2.0], [3], [0, 1])
    with pytest.raises(ValueError, match="whole numbers of trials, 0 or more"):
        accumulator.add_counts([1.0, 2.0], [3, -1], [0, 1])
    with pytest.raises(ValueError, match="Score 0 of the batch .* is NaN"):
        accumulator.add_counts([np.nan], [1], [0])
    accumulator.update([1.0, 2.0], [1, 1])
    with pytest.raises(ValueError, match="No non-target trial has been seen yet"):
        accumulator.counts  # noqa: B018
    with pytest.raises(ValueError, match="buffer_size"):
        lc.ScoreAccumulator(buffer_size=-1)
    assert (accumulator.n_tar, accumulator.n_non) == (2, 0)  # the refused batches added nothing
