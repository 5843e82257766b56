"""The grouped jackknife of BCa and the rule of 30, made without re-weighting every trial per block and without
sorting again: the numbers of the recipe they replace, to the last bit for every count (EER, minDCF, actDCF,
minCllr, Cprimary), to 1e-12 relative for Cllr (a difference of sums of costs instead of a weighted sum).

Independent references:
- the grouped jackknife by hand, as the module docstring of ``llrcore.uncertainty.draws`` deals it: the blocks
  ``default_rng([seed, 1, k]).permutation(n) % min(n, 40)`` (or of the groups, numbered in order of first appearance),
  each block's weights rebuilt in plain numpy (``(blocks != j).astype(int64)`` for its stratum, ``np.ones`` for the
  other), each row of metrics from the sorted trials re-weighted by them, and the acceleration by Efron &
  Tibshirani's (1993, eq. 14.15) grouped formula ``a = sum v^3 / (6 (sum v^2)^1.5)``, ``v_j = (m - 1) / m (mean -
  theta_j)`` per stratum, in numpy (0 where every block gives the same value); the BCa interval from that acceleration;
- each left-out block's Cllr and actual DCF in plain numpy on the trials kept (``np.logaddexp`` costs, their means,
  the misses and false alarms counted at the Bayes threshold): the re-evaluation the closed form replaces;
- the rule of 30 by brute force: the misses and false alarms at every threshold counted with numpy comparisons, and
  the argsort of all the scores that the counts from the sorted table (per unique score, or per one-class run)
  replace.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import llrcore as lc
from llrcore.uncertainty.draws import Draws
from llrcore.uncertainty.intervals import bca_interval, min_dcf_errors, run_counts
from llrcore.uncertainty.jackknife import BlockJackknife
from llrcore.uncertainty.resampling import _ReplicateMetrics

METRICS = ["eer", "min_dcf", "act_dcf", "cllr", "min_cllr", "cprimary"]
CLLR = METRICS.index("cllr")
EXACT = [k for k in range(len(METRICS)) if k != CLLR]  # counts: the same to the last bit


def assert_same_rows(rows, expected):
    """Every count-based metric equal, Cllr within 1e-12 relative (NaN rows alike)."""
    rows, expected = np.asarray(rows, dtype=np.float64), np.asarray(expected, dtype=np.float64)
    np.testing.assert_array_equal(rows[:, EXACT], expected[:, EXACT])
    np.testing.assert_allclose(rows[:, CLLR], expected[:, CLLR], rtol=1e-12, atol=0)


def blocks_by_hand(n: int, seed: int, stratum: int) -> np.ndarray:
    return np.random.default_rng([seed, 1, stratum]).permutation(n) % max(1, min(n, 40))


def acceleration_by_hand(rows: np.ndarray, strata: np.ndarray) -> np.ndarray:
    v = np.empty_like(rows)
    for k in np.unique(strata):
        m = np.sum(strata == k)
        v[strata == k] = (m - 1) / m * (np.mean(rows[strata == k], axis=0) - rows[strata == k])
    with np.errstate(invalid="ignore"):
        accel = np.sum(v ** 3, axis=0) / (6 * np.sum(v ** 2, axis=0) ** 1.5)
    return np.where(np.isfinite(accel), accel, 0.0)  # 0/0: a metric the same in every block (documented: 0)


def jackknife_by_hand(trials: lc.Trials, seed: int, op, group=None) -> tuple[np.ndarray, np.ndarray]:
    """One row of metrics per left-out block and the block's stratum, the weights rebuilt for every block."""
    table, metrics = trials.sorted, _ReplicateMetrics(op, lc.SRE12_P_TARGETS)
    sizes = trials.tar.size, trials.non.size
    rows, strata = [], []
    if group is None:
        for stratum, size in enumerate(sizes):
            blocks = blocks_by_hand(size, seed, stratum)
            for j in range(blocks.max() + 1):
                weights = [np.ones(sizes[0], np.int64), np.ones(sizes[1], np.int64)]
                weights[stratum] = (blocks != j).astype(np.int64)
                rows.append(metrics(table.reweighted(*weights)))
                strata.append(stratum)
        return np.array(rows), np.array(strata)
    codes = pd.factorize(group)[0]
    blocks = blocks_by_hand(codes.max() + 1, seed, 0)
    order = table.trial_order(trials.tar, trials.non)  # weights per trial in its given order, as the draws give them
    for j in range(blocks.max() + 1):
        kept = (blocks != j).astype(np.int64)[codes]
        rows.append(metrics(table.reweighted(kept[:sizes[0]], kept[sizes[0]:], order=order)))
        strata.append(0)
    return np.array(rows), np.array(strata)


@pytest.mark.parametrize("decimals, seed", [(None, 3), (1, 8), (None, 21)])  # untied scores, heavy ties
def test_the_acceleration_and_intervals_are_the_jackknife_rebuilt_block_by_block(decimals, seed):
    rng = np.random.default_rng(seed)
    tar, non = rng.normal(2, 1.4, 300 + seed), rng.normal(-1, 1.2, 2_000 + 7 * seed)
    if decimals is not None:
        tar, non = np.round(tar, decimals), np.round(non, decimals)
    op = lc.OperatingPoint(0.05)
    trials = lc.Trials(tar, non)
    result = lc.bootstrap(trials, n=40, seed=seed, p_target=op)
    accel = acceleration_by_hand(*jackknife_by_hand(trials, seed, op))
    for k, metric in enumerate(METRICS):
        assert result.acceleration[metric] == (accel[k] if k in EXACT else pytest.approx(accel[k], rel=1e-12))
        expected = bca_interval(result.replicates[metric], getattr(result.estimate, metric), accel[k], 0.95)
        assert result.interval(metric, "bca") == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("decimals, infinite", [(None, False), (1, False), (None, True)])
def test_each_block_left_out_is_the_trials_kept_evaluated_again(decimals, infinite):
    rng = np.random.default_rng(11)
    tar, non = rng.normal(2, 1.4, 150), rng.normal(-1, 1.2, 1_300)
    if decimals is not None:
        tar, non = np.round(tar, decimals), np.round(non, decimals)
    if infinite:  # a target at -inf costs inf: Cllr is inf except without its block
        tar[7] = -np.inf
    op = lc.OperatingPoint(0.05)
    trials = lc.Trials(tar, non)
    draw = Draws.of(trials, None, 4)
    jackknife = BlockJackknife(trials.sorted, draw.block_labels(), draw.block_strata().size)
    metrics = _ReplicateMetrics(op, lc.SRE12_P_TARGETS)
    rows = [metrics(jackknife.left_out(j)) for j in range(len(jackknife))]
    by_hand, strata = jackknife_by_hand(trials, 4, op)
    assert_same_rows(rows, by_hand)
    assert list(draw.block_strata()) == list(strata)
    # Cllr and actDCF of the trials kept, evaluated again in plain numpy: the mean cost per class, and the misses and
    # false alarms at the Bayes threshold -logit(0.05), normalised by min(0.05, 0.95).
    sorted_tar, sorted_non = np.sort(tar), np.sort(non)
    j = 0
    for stratum, size in enumerate((tar.size, non.size)):
        blocks = blocks_by_hand(size, 4, stratum)
        for block in range(blocks.max() + 1):
            kept_tar = sorted_tar[blocks != block] if stratum == 0 else sorted_tar
            kept_non = sorted_non[blocks != block] if stratum == 1 else sorted_non
            cllr = (np.mean(np.logaddexp(0, -kept_tar)) + np.mean(np.logaddexp(0, kept_non))) / (2 * np.log(2))
            threshold = -np.log(0.05 / 0.95)
            act_dcf = (0.05 * np.mean(kept_tar < threshold) + 0.95 * np.mean(kept_non >= threshold)) / 0.05
            assert rows[j][CLLR] == pytest.approx(cllr, rel=1e-12)
            assert rows[j][METRICS.index("act_dcf")] == pytest.approx(act_dcf, rel=1e-12)
            j += 1
    if infinite:
        assert sum(np.isfinite(row[CLLR]) for row in rows) == 1


def test_the_estimate_reads_the_costs_the_replicates_keep_and_is_the_plain_analysis():
    rng = np.random.default_rng(13)
    tar, non = rng.normal(2, 1.4, 400), rng.normal(-1, 1.2, 3_000)
    result = lc.bootstrap(lc.Trials(tar, non), n=5, seed=1)
    plain = lc.evaluate(lc.Trials(tar, non))
    assert [getattr(result.estimate, m) for m in METRICS] == [getattr(plain, m) for m in METRICS]


def test_the_acceleration_of_whole_groups_is_their_jackknife_rebuilt_block_by_block():
    rng = np.random.default_rng(4)
    labels = rng.random(3_000) < 0.15
    speaker = rng.choice([f"spk{i}" for i in range(70)], labels.size)
    scores = np.where(labels, 1.5, -1.0) + rng.normal(size=labels.size)
    trials = lc.Trials.from_labels(scores, labels, metadata=pd.DataFrame({"speaker": speaker}))
    op = lc.OperatingPoint(0.1)
    result = lc.bootstrap(trials, n=20, group_by="speaker", seed=6, p_target=op)
    group = trials.metadata["speaker"].to_numpy()[:len(trials)]  # targets first, as the draws number the groups
    rows, strata = jackknife_by_hand(trials, 6, op, group)
    accel = acceleration_by_hand(rows, strata)
    assert [result.acceleration[m] for m in METRICS] == pytest.approx(list(accel), rel=1e-12)
    assert [result.acceleration[METRICS[k]] for k in EXACT] == list(accel[EXACT])


def test_a_paired_comparison_s_acceleration_is_its_jackknife_of_differences_rebuilt_block_by_block():
    rng = np.random.default_rng(12)
    tar, non = rng.normal(2, 1.4, 220), rng.normal(-1, 1.2, 1_700)
    a, b = lc.Trials(tar, non), lc.Trials(tar + rng.normal(0, 0.5, tar.size), non + rng.normal(0, 0.5, non.size))
    op = lc.OperatingPoint(0.05)
    comparison = lc.compare_systems(a, b, n=20, seed=3, p_target=op)
    metrics = _ReplicateMetrics(op, lc.SRE12_P_TARGETS)
    orders = [(np.argsort(t.tar), np.argsort(t.non)) for t in (a, b)]  # weights per trial in the order given
    rows, strata = [], []
    for stratum, size in enumerate((tar.size, non.size)):
        blocks = blocks_by_hand(size, 3, stratum)
        for j in range(blocks.max() + 1):
            weights = [np.ones(tar.size, np.int64), np.ones(non.size, np.int64)]
            weights[stratum] = (blocks != j).astype(np.int64)
            values = [metrics(t.sorted.reweighted(*weights, order=order)) for t, order in zip((a, b), orders)]
            rows.append(np.subtract(values[1], values[0]))
            strata.append(stratum)
    accel = acceleration_by_hand(np.array(rows), np.array(strata))
    assert [comparison.acceleration[m] for m in METRICS] == pytest.approx(list(accel), rel=1e-12)
    assert [comparison.acceleration[METRICS[k]] for k in EXACT] == list(accel[EXACT])


@pytest.mark.parametrize("decimals", [None, 0])
def test_the_rule_of_30_counts_from_the_sorted_table_are_those_of_every_threshold(decimals):
    rng = np.random.default_rng(9)
    tar, non = rng.normal(2, 1.5, 400), rng.normal(-2, 1.5, 5_000)
    if decimals is not None:
        tar, non = np.round(tar, decimals), np.round(non, decimals)
    table = lc.Trials(tar, non).sorted
    w_miss, w_fa = 0.01, 0.99
    thresholds = np.concatenate([[-np.inf], np.unique(np.concatenate([tar, non])) + 1e-9])
    misses = (tar[:, None] < thresholds).sum(axis=0)
    false_alarms = (non[:, None] >= thresholds).sum(axis=0)
    best = np.argmin(w_miss * misses / tar.size + w_fa * false_alarms / non.size)
    by_counts = min_dcf_errors(tar, non, w_miss, w_fa, counts=(table.tar_counts, table.non_counts))
    by_runs = min_dcf_errors(tar, non, w_miss, w_fa, counts=run_counts(table))
    assert by_counts == by_runs == min_dcf_errors(tar, non, w_miss, w_fa) == (misses[best], false_alarms[best])
