"""The one place that draws bootstrap samples and jackknife blocks (``llrcore.uncertainty.draws``): its contract.

Independent references: the draws repeated by hand from ``numpy.random.default_rng`` in the order the module docstring
lists them (``integers`` per stratum; the two-level draw of ``tests/conftest.py``; ``multinomial``) and counted by
``np.bincount``; arithmetic: the weights of a replicate drawn unit by unit sum to each stratum's size, those of whole
groups to the sizes of the drawn groups; every unit is left out by exactly one jackknife block, of at most 40 per
stratum whose sizes differ by at most one, and whole groups are left out whole. Real data: the EVALITA-2009 trials
(ROCAnalysis.jl's test suite) grouped by their ``model`` column.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from paths import DATA

import llrcore as lc
from llrcore.uncertainty.draws import Draws, multinomial_counts

SIZES = (7, 130, 55)  # three strata: fewer units than blocks, more, and in between


def test_units_one_by_one_are_the_documented_integers_counted_per_stratum():
    draw = Draws(SIZES, 3)
    by_hand = np.random.default_rng(3)
    for drawn in draw.replicates(4):
        expected = [by_hand.integers(0, size, size) for size in SIZES]
        weights = draw.weights(drawn)
        for index, weight, size, again in zip(drawn, weights, SIZES, expected):
            np.testing.assert_array_equal(index, again)
            np.testing.assert_array_equal(weight, np.bincount(again, minlength=size))
        assert [w.sum() for w in weights] == list(SIZES)  # each replicate keeps every stratum's size
    assert draw.n_groups is None


def test_whole_groups_are_the_two_level_draw_of_the_conftest(two_level_draw):
    rng = np.random.default_rng(5)
    group = rng.choice(["a", "b", "c", "d", "e", "f"], sum(SIZES))  # groups span the strata
    codes, uniques = pd.factorize(group)
    draw = Draws(SIZES, 9, groups=codes)
    by_hand = np.random.default_rng(9)
    for drawn in draw.replicates(5):
        picked = two_level_draw(by_hand, group)
        weights = draw.weights(drawn)
        np.testing.assert_array_equal(np.concatenate(weights), np.bincount(picked, minlength=group.size))
        assert [w.size for w in weights] == list(SIZES)
        sizes = np.bincount(codes)
        times = np.bincount(drawn[0], minlength=uniques.size) // sizes  # how often each group was drawn
        assert sum(w.sum() for w in weights) == times @ sizes  # the sizes of the drawn groups
    assert draw.n_groups == uniques.size == 6


def test_jackknife_blocks_partition_each_stratum_in_order():
    draw = Draws(SIZES, 1)
    left_out = [np.zeros(size, int) for size in SIZES]
    strata, block_sizes = [], [[] for _ in SIZES]
    for stratum, weights in draw.jackknife():
        j, blocks = len(block_sizes[stratum]), blocks_by_hand(SIZES[stratum], 1, stratum)
        np.testing.assert_array_equal(weights[stratum] == 0, blocks == j)  # the stratum's documented block j
        assert all(w.all() for k, w in enumerate(weights) if k != stratum)  # the other strata keep every unit
        assert [w.size for w in weights] == list(SIZES) and all(set(np.unique(w)) <= {0, 1} for w in weights)
        strata.append(stratum)
        block_sizes[stratum].append(int(np.sum(weights[stratum] == 0)))
        left_out[stratum] += weights[stratum] == 0
    assert strata == [0] * 7 + [1] * 40 + [2] * 40  # min(n, 40) blocks, stratum after stratum
    assert all((counts == 1).all() for counts in left_out)  # every unit left out exactly once
    assert all(max(s) - min(s) <= 1 for s in block_sizes)  # equal shares: 130 = 10 x 4 + 30 x 3
    assert block_sizes[1].count(4) == 10 and block_sizes[1].count(3) == 30


def blocks_by_hand(n: int, seed: int, stratum: int) -> np.ndarray:
    """The documented blocks: ``default_rng([seed, 1, stratum]).permutation(n) % min(n, 40)``."""
    return np.random.default_rng([seed, 1, stratum]).permutation(n) % min(n, 40)


def test_grouped_jackknife_leaves_out_whole_groups_of_the_real_trials():
    table = pd.read_csv(DATA / "rocanalysis_ru2009" / "ru.2009.table.gz", sep="\t")
    trials = lc.Trials.from_labels(table["score"], table["target"].astype(bool), metadata=table[["model"]])
    model = trials.metadata["model"].to_numpy()
    draw = Draws.of(trials, "model", 4)
    groups = pd.unique(model)
    blocks = blocks_by_hand(groups.size, 4, 0)
    seen = np.zeros(model.size, int)
    for j, (stratum, (tar, non)) in enumerate(draw.jackknife()):
        kept = np.concatenate([tar, non])
        assert stratum == 0 and (tar.size, non.size) == (trials.tar.size, trials.non.size)
        np.testing.assert_array_equal(kept == 0, np.isin(model, groups[blocks == j]))
        seen += 1 - kept
    assert (seen == 1).all() and j + 1 == min(groups.size, 40)


def test_multinomial_counts_are_the_documented_multinomial():
    counts = multinomial_counts(12, 30, 2)
    expected = np.random.default_rng(2).multinomial(12, np.full(12, 1 / 12), size=30)
    np.testing.assert_array_equal(counts, expected)
    assert counts.dtype == np.float64 and (counts.sum(axis=1) == 12).all()
    with pytest.raises(ValueError, match="must be at least 1, not 0"):
        multinomial_counts(12, 0, 2)


def test_a_missing_or_incomplete_group_column_is_a_sentence():
    trials = lc.Trials(np.arange(3.0), np.arange(4.0), metadata=pd.DataFrame({"speaker": ["a", None, "b", "a", "b",
                                                                                         "c", "c"]}))
    with pytest.raises(KeyError, match="no column 'model' to draw groups by"):
        Draws.of(trials, "model", 0)
    with pytest.raises(ValueError, match="1 trials have no value in column 'speaker'"):
        Draws.of(trials, "speaker", 0)
