"""BCa bootstrap intervals, the out-of-bag bracket and the smoothed bootstrap of minDCF: the formulas, the jackknife
and the draws behind them, and how often they cover the truth.

Independent references:
- BCa by hand (Efron 1987; Efron & Tibshirani 1993, eq. 14.9-14.15) with scipy.stats.norm: the bias correction
  from the replicates, the acceleration from a jackknife recomputed from scratch (``lc.evaluate``/``lc.tdcf`` on
  the score arrays with one block deleted, the blocks dealt as the ``llrcore.uncertainty.intervals`` docstring says);
- a closed form: Cllr is a mean cost per class, so its delete-one jackknife acceleration is Efron's two-sample
  skewness ``sum_k sum_i (c_i - m_k)^3 / (8 n_k^3) / (6 (sum_k sum_i (c_i - m_k)^2 / (4 n_k^2))^1.5)``;
- numpy.percentile on the replicates where no infinity is involved;
- the smoothed bootstrap by hand (Silverman & Young 1987; Silverman 1986, eq. 3.31): the shrunk kernel from
  numpy's std and percentiles, the draws repeated from ``default_rng([seed, 2])`` as the ``llrcore.uncertainty.intervals``
  docstring says, each replicate's minDCF by ``lc.min_dcf`` on the new scores (its ROCCH path), the kernel
  estimate's minDCF by scipy.stats.norm.cdf on a dense grid refined by scipy.optimize, the basic interval by
  numpy.percentile (Davison & Hinkley 1997, eq. 5.6); the errors at the minDCF threshold by brute force over every
  threshold;
- the out-of-bag bracket by hand (Efron 1983): the draws repeated from ``default_rng(seed)``, each replicate's minDCF
  threshold by brute force over every drawn score as threshold (costs compared in integers), the cost of the trials
  the replicate did not draw counted at it, the ends by numpy.percentile and numpy.mean;
- theory: calibrated Gaussian LLRs (targets N(mu, 2 mu), non-targets N(-mu, 2 mu)) have EER ``Phi(-sqrt(mu / 2))``,
  minDCF at P_target 0.01 at the Bayes threshold ``log(99)`` and Cllr ``E[log2(1 + e^-x)]`` by scipy quadrature;
  nominal 95 % intervals should cover them about 95 % of the time.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, stats

import llrcore as lc

BLOCKS = 40  # the documented number of jackknife blocks per stratum
METRICS = ["eer", "min_dcf", "act_dcf", "cllr", "min_cllr", "cprimary"]


def blocks_of(n: int, seed: int, stratum: int) -> np.ndarray:
    return np.random.default_rng([seed, 1, stratum]).permutation(n) % min(n, BLOCKS)


def acceleration_by_hand(values_per_stratum: list[np.ndarray]) -> np.ndarray:
    v = []
    for values in values_per_stratum:
        m = len(values)
        v.append((m - 1) / m * (values.mean(axis=0) - values))
    v = np.concatenate(v)
    return (v ** 3).sum(axis=0) / (6 * ((v ** 2).sum(axis=0)) ** 1.5)


def bca_by_hand(replicates: np.ndarray, estimate: float, a: float, level: float = 0.95) -> tuple[float, float]:
    p = (np.sum(replicates < estimate) + 0.5 * np.sum(replicates == estimate)) / replicates.size
    z0 = stats.norm.ppf(p)
    z = z0 + stats.norm.ppf([(1 - level) / 2, (1 + level) / 2])
    return tuple(np.percentile(replicates, 100 * stats.norm.cdf(z0 + z / (1 - a * z))))


def test_bca_is_the_formula_with_a_jackknife_recomputed_from_scratch():
    rng = np.random.default_rng(3)
    tar, non = rng.normal(2, 1.2, 150), rng.normal(-1, 1, 900)
    op = lc.OperatingPoint(0.05)
    result = lc.bootstrap(lc.Trials(tar, non), n=300, seed=5, p_target=op)
    assert result.method == "bca"
    sorted_tar, sorted_non = np.sort(tar), np.sort(non)
    jackknife = []
    for stratum, scores in enumerate((sorted_tar, sorted_non)):
        blocks = blocks_of(scores.size, 5, stratum)
        rows = []
        for j in range(blocks.max() + 1):
            kept = scores[blocks != j]
            m = lc.evaluate(*((kept, sorted_non) if stratum == 0 else (sorted_tar, kept)), p_target=op)
            rows.append([getattr(m, k) for k in METRICS])
        jackknife.append(np.array(rows))
    accel = acceleration_by_hand(jackknife)
    for k, metric in enumerate(METRICS):
        assert result.acceleration[metric] == pytest.approx(accel[k], rel=1e-9, abs=1e-12)
        expected = bca_by_hand(result.replicates[metric].to_numpy(), getattr(result.estimate, metric), accel[k])
        assert result.interval(metric, "bca") == pytest.approx(expected, rel=1e-9)
        if metric != "min_dcf":
            assert result.interval(metric) == result.interval(metric, "bca")
    table = result.to_frame()
    # minDCF rests on fewer than 30 false alarms here (brute force), so its interval is the out-of-bag bracket.
    assert min(errors_at_min_dcf(tar, non, op)) < 30
    assert table["method"].drop("min_dcf").eq("95 % BCa").all()
    assert table.loc["min_dcf", "method"] == "95 % out-of-bag bracket"
    assert (table["lower"] <= table["estimate"]).all() and (table["estimate"] <= table["upper"]).all()
    percentile = lc.bootstrap(lc.Trials(tar, non), n=300, seed=5, p_target=op, method="percentile")
    assert percentile.acceleration is None and percentile.to_frame()["method"].eq("95 % percentile").all()
    assert percentile.interval("eer") == result.interval("eer", "percentile")
    with pytest.raises(ValueError, match="one of 'bca', 'percentile'"):
        lc.bootstrap(lc.Trials(tar, non), n=10, method="studentised")
    with pytest.raises(ValueError, match="method='bca'"):
        percentile.interval("eer", "bca")
    with pytest.raises(ValueError, match="minDCF of a bootstrap run with method='bca'"):
        percentile.interval("min_dcf", "smoothed")
    with pytest.raises(ValueError, match="minDCF of a bootstrap run"):
        result.interval("eer", "smoothed")


def errors_at_min_dcf(tar, non, op) -> tuple[int, int]:
    """Misses and false alarms at the lowest threshold of least cost, by brute force over every threshold."""
    w_miss, w_fa = op.p_target * op.c_miss, (1 - op.p_target) * op.c_fa
    thresholds = np.concatenate([[-np.inf], np.unique(np.concatenate([tar, non])) + 1e-9])
    misses = np.array([np.sum(tar < t) for t in thresholds])
    false_alarms = np.array([np.sum(non >= t) for t in thresholds])
    best = np.argmin(w_miss * misses / tar.size + w_fa * false_alarms / non.size)
    return int(misses[best]), int(false_alarms[best])


def shrunk_kernel(x: np.ndarray) -> tuple[np.ndarray, float]:
    """Silverman & Young's shrunk Gaussian kernel with Silverman's rule-of-thumb bandwidth: centres and width."""
    s = np.std(x, ddof=1)
    q75, q25 = np.percentile(x, [75, 25])
    h = 0.9 * min(s, (q75 - q25) / 1.34) * x.size ** -0.2
    c = np.sqrt(1 + h ** 2 / s ** 2)
    return x.mean() + (x - x.mean()) / c, h / c


def kernel_min_dcf(tar_kernel, non_kernel, op) -> float:
    """The kernel estimates' minDCF: a dense grid of thresholds with scipy's normal cdf, refined by scipy.optimize."""
    from scipy.optimize import minimize_scalar
    w_miss, w_fa = op.p_target * op.c_miss, (1 - op.p_target) * op.c_fa

    def cost(t):
        miss = stats.norm.cdf(t, tar_kernel[0], tar_kernel[1]).mean()
        false_alarm = stats.norm.sf(t, non_kernel[0], non_kernel[1]).mean()
        return (w_miss * miss + w_fa * false_alarm) / min(w_miss, w_fa)

    grid = np.linspace(-20, 20, 4001)
    best = grid[np.argmin([cost(t) for t in grid])]
    return min(minimize_scalar(cost, bounds=(best - 0.01, best + 0.01), method="bounded").fun, 1.0)


def test_the_smoothed_bootstrap_of_min_dcf_is_its_recipe_redone_from_scratch():
    rng = np.random.default_rng(12)
    tar, non = rng.normal(3, 2.4, 60), rng.normal(-3, 2.4, 500)
    op = lc.OperatingPoint(0.02, c_miss=2.0)
    result = lc.bootstrap(lc.Trials(tar, non), n=80, seed=7, p_target=op, smooth=True)
    kernels = shrunk_kernel(np.sort(tar)), shrunk_kernel(np.sort(non))
    draws = np.random.default_rng([7, 2])
    replicates = []
    for _ in range(80):
        counts = [np.bincount(draws.integers(0, x.size, x.size), minlength=x.size) for x in (tar, non)]
        scores = [np.repeat(centres, w) + width * draws.standard_normal(w.sum())
                  for (centres, width), w in zip(kernels, counts)]
        replicates.append(lc.min_dcf(*scores, p_target=op))
    assert result.smoothed.replicates == pytest.approx(replicates, rel=1e-12, abs=1e-15)
    centre = kernel_min_dcf(*kernels, op)
    assert result.smoothed.centre == pytest.approx(centre, rel=1e-6)
    q_lo, q_hi = np.percentile(np.array(replicates) - centre, [2.5, 97.5])
    estimate = lc.min_dcf(tar, non, p_target=op)
    expected = np.clip([estimate - q_hi, estimate - q_lo], 0, 1)
    assert result.interval("min_dcf") == pytest.approx(tuple(expected), rel=1e-5)
    assert result.metric_method("min_dcf") == "smoothed" and result.metric_method("eer") == "bca"
    threaded = lc.bootstrap(lc.Trials(tar, non), n=80, seed=7, p_target=op, threads=2, smooth=True)
    assert np.array_equal(threaded.smoothed.replicates, result.smoothed.replicates)
    assert lc.bootstrap(lc.Trials(tar, non), n=20, seed=7, p_target=op).smoothed is None  # only when asked for


def held_out_by_hand(scores, labels, weights, p_target: float) -> float:
    """The cost at P_target, normalised, of the trials of weight 0, accepted above the highest drawn score that the
    drawn trials' least-cost threshold rejects: that threshold the lowest among the drawn scores (accept at or above)
    where the weighted cost of the drawn trials is least; costs are compared as integers (``P M / N_tar + (1 - P) F /
    N_non`` times ``N_tar N_non / P`` with P = 1 / k)."""
    k = round(1 / p_target)
    drawn, out = weights > 0, weights == 0
    n_tar, n_non = weights[labels].sum(), weights[~labels].sum()
    thresholds = np.append(np.unique(scores[drawn]), np.inf)
    cost = [weights[labels & (scores < t)].sum() * n_non + (k - 1) * weights[~labels & (scores >= t)].sum() * n_tar
            for t in thresholds]
    t = thresholds[int(np.argmin(cost))]  # argmin: the first, lowest, of equal least costs
    rejected = scores[drawn & (scores < t)]
    highest = rejected.max() if rejected.size else -np.inf
    misses = np.sum(out & labels & (scores <= highest)) / np.sum(out & labels)
    false_alarms = np.sum(out & ~labels & (scores > highest)) / np.sum(out & ~labels)
    return (p_target * misses + (1 - p_target) * false_alarms) / p_target


@pytest.mark.parametrize("group_by", [None, "speaker"])
def test_the_out_of_bag_bracket_is_its_recipe_redone_from_scratch(group_by, two_level_draw):
    rng = np.random.default_rng(21)
    tar, non = np.round(rng.normal(3, 2.4, 80), 1), np.round(rng.normal(-3, 2.4, 600), 1)  # rounded: ties too
    speakers = rng.integers(0, 40, tar.size + non.size)
    trials = lc.Trials(tar, non, metadata=pd.DataFrame({"speaker": speakers}))
    result = lc.bootstrap(trials, n=60, seed=3, p_target=0.02, group_by=group_by)
    assert result.metric_method("min_dcf") == "bracket"
    draws = np.random.default_rng(3)
    replicates, held_out = [], []
    for _ in range(60):
        if group_by is None:  # the draws index the sorted scores
            scores, labels = np.concatenate([np.sort(tar), np.sort(non)]), np.arange(680) < 80
            weights = np.concatenate([np.bincount(draws.integers(0, n, n), minlength=n) for n in (80, 600)])
        else:
            scores, labels = np.concatenate([tar, non]), np.arange(680) < 80
            weights = np.bincount(two_level_draw(draws, speakers), minlength=680)  # speakers, then their trials
        replicates.append(lc.min_dcf(np.repeat(scores[labels], weights[labels]),
                                     np.repeat(scores[~labels], weights[~labels]), p_target=0.02))
        held_out.append(held_out_by_hand(scores, labels, weights, 0.02))
    assert result.replicates["min_dcf"].to_numpy() == pytest.approx(replicates, rel=1e-12)
    assert result.held_out == pytest.approx(held_out, rel=1e-12)
    low, high = np.percentile(replicates, [2.5, 97.5])
    expected = low, min(np.mean(held_out) + high - np.mean(replicates), 1.0)
    assert result.interval("min_dcf") == pytest.approx(expected, rel=1e-12)
    assert result.to_frame().loc["min_dcf", "method"] == "95 % out-of-bag bracket"
    with pytest.raises(ValueError, match="out-of-bag bracket is for the minDCF"):
        result.interval("eer", "bracket")


def test_min_dcf_on_30_errors_or_more_keeps_bca_and_smooth_forces_a_method():
    # P_target 0.5 near the EER of 400 + 400 trials: about 60 misses and 60 false alarms (brute force below).
    rng = np.random.default_rng(13)
    tar, non = rng.normal(1, 1, 400), rng.normal(-1, 1, 400)
    op = lc.OperatingPoint(0.5)
    assert min(errors_at_min_dcf(tar, non, op)) >= 30
    plain = lc.bootstrap(lc.Trials(tar, non), n=50, seed=1, p_target=op)
    assert plain.smoothed is None and plain.to_frame().loc["min_dcf", "method"] == "95 % BCa"
    assert plain.metric_method("min_dcf") == "bca"
    forced = lc.bootstrap(lc.Trials(tar, non), n=50, seed=1, p_target=op, smooth=True)
    assert forced.to_frame().loc["min_dcf", "method"] == "95 % smoothed basic"
    assert forced.interval("min_dcf", "bca") == plain.interval("min_dcf")  # the same plain replicates
    few = lc.Trials(rng.normal(3, 2, 50), rng.normal(-3, 2, 300))
    assert min(errors_at_min_dcf(few.tar, few.non, lc.OperatingPoint(0.01))) < 30
    assert lc.bootstrap(few, n=20, seed=1).metric_method("min_dcf") == "bracket"
    assert lc.bootstrap(few, n=20, seed=1, smooth=False).metric_method("min_dcf") == "bca"
    assert lc.bootstrap(few, n=20, seed=1, method="percentile").metric_method("min_dcf") == "percentile"


def test_the_acceleration_of_cllr_is_the_closed_form_of_a_mean_per_class():
    # Fewer trials than blocks: every block is one trial, a delete-one jackknife.
    rng = np.random.default_rng(4)
    tar, non = rng.normal(1, 1.5, 25), rng.normal(-1, 1.5, 35)
    result = lc.bootstrap(lc.Trials(tar, non), n=50, seed=1)
    num = den = 0.0
    for costs in (np.logaddexp(0, -tar) / np.log(2), np.logaddexp(0, non) / np.log(2)):
        centred, n = costs - costs.mean(), costs.size
        num += np.sum(centred ** 3) / (8 * n ** 3)
        den += np.sum(centred ** 2) / (4 * n ** 2)
    assert result.acceleration["cllr"] == pytest.approx(num / (6 * den ** 1.5), rel=1e-9)


def test_grouped_bca_leaves_out_whole_groups():
    rng = np.random.default_rng(6)
    speaker = np.repeat(np.arange(30), 20)
    label = rng.random(speaker.size) < 0.3
    score = np.where(label, 2.0, -1.0) + rng.normal(0, 1, 30)[speaker] + rng.normal(size=speaker.size)
    trials = lc.Trials.from_labels(score, label, metadata=pd.DataFrame({"speaker": speaker}))
    result = lc.bootstrap(trials, n=100, seed=2, group_by="speaker")
    groups = pd.unique(trials.metadata["speaker"])  # numbered in order of first appearance, as the draws are
    blocks = blocks_of(groups.size, 2, 0)  # 30 groups < 40 blocks: one group per block
    values = []
    for j in range(blocks.max() + 1):
        kept = ~trials.metadata["speaker"].isin(groups[blocks == j]).to_numpy()
        values.append(lc.cllr(trials.tar[kept[:trials.tar.size]], trials.non[kept[trials.tar.size:]]))
    accel = acceleration_by_hand([np.array(values)])
    assert result.acceleration["cllr"] == pytest.approx(accel, rel=1e-9)


def test_the_tdcf_interval_is_bca_with_its_five_class_jackknife():
    rng = np.random.default_rng(8)
    cm = lc.Trials(rng.normal(3, 1, 60), rng.normal(0, 1, 200))
    asv = lc.Trials(rng.normal(4, 1, 50), rng.normal(-2, 1, 120), spoof=rng.normal(1, 1.5, 80))
    result = lc.bootstrap_tdcf(cm, asv, n=200, seed=4)
    threshold = result.asv_threshold
    classes = [np.sort(x) for x in (cm.tar, cm.non, asv.tar, asv.non, asv.spoof)]
    jackknife = []
    for stratum, scores in enumerate(classes):
        blocks = blocks_of(scores.size, 4, stratum)
        rows = []
        for j in range(blocks.max() + 1):
            arrays = list(classes)
            arrays[stratum] = scores[blocks != j]
            rows.append(lc.tdcf(*arrays, asv_threshold=threshold).minimum)
        jackknife.append(np.array(rows))
    accel = acceleration_by_hand(jackknife)
    assert result.method == "bca" and result.acceleration == pytest.approx(accel, rel=1e-9)
    assert result.interval() == pytest.approx(bca_by_hand(result.replicates, result.minimum, accel), rel=1e-9)
    assert result.interval("percentile") == pytest.approx(tuple(np.percentile(result.replicates, [2.5, 97.5])))


def gaussian_truth(mu: float, p_target: float = 0.01) -> dict[str, float]:
    sigma = np.sqrt(2 * mu)
    t = np.log((1 - p_target) / p_target)
    min_dcf = (p_target * stats.norm.cdf((t - mu) / sigma) + (1 - p_target) * stats.norm.cdf((-t - mu) / sigma))
    density = stats.norm(mu, sigma).pdf
    cllr, _ = integrate.quad(lambda x: np.logaddexp(0, -x) / np.log(2) * density(x), -np.inf, np.inf)
    return {"eer": stats.norm.cdf(-np.sqrt(mu / 2)), "min_dcf": min_dcf / p_target, "cllr": cllr}


def test_default_intervals_cover_the_truth_at_300_targets_and_3000_non_targets():
    """200 fixed samples x 200 replicates (~30 s on one core). With these seeds the percentile intervals covered the
    EER in 182 of 200 samples (91 %) and the minDCF at P_target 0.01 in 131 (65.5 %), BCa the minDCF in 156 (78 %).
    BCa covers the EER and Cllr in at least 186 (93 %, the goal; a true 95 % falls below 186 of 200 with probability
    0.08: the bound is tight by design, it is the goal, and the seeds are fixed). The default minDCF interval, the
    out-of-bag bracket (it rests on about four false alarms), covers it in 194 here, at least 186 too (the smoothed
    bootstrap, the default before it, covered 177; every design: bench/bench_bootstrap_coverage.py,
    bench/RESULTS.md)."""
    mu = 4.0
    truth = gaussian_truth(mu)
    covered = {(metric, method): 0 for metric in truth for method in (None, "bca", "percentile")}
    for seed in range(200):
        rng = np.random.default_rng(10_000 + seed)
        trials = lc.Trials(rng.normal(mu, np.sqrt(2 * mu), 300), rng.normal(-mu, np.sqrt(2 * mu), 3000))
        result = lc.bootstrap(trials, n=200, seed=seed, p_target=0.01, threads=1)  # no number depends on threads
        for metric, value in truth.items():
            for method in (None, "bca", "percentile"):
                low, high = result.interval(metric, method)
                covered[metric, method] += low <= value <= high
    assert covered["eer", None] >= 186 and covered["cllr", None] >= 186, covered
    assert covered["eer", None] == covered["eer", "bca"] and covered["cllr", None] == covered["cllr", "bca"]
    assert covered["min_dcf", None] >= 186 and covered["min_dcf", None] >= covered["min_dcf", "percentile"] + 40
    assert covered["min_dcf", None] >= covered["min_dcf", "bca"] + 30, covered


def test_an_infinite_cllr_has_an_infinite_upper_limit_not_nan():
    # One target LLR of -inf: every replicate that draws it has an infinite Cllr (1 - (29/30)^30, about 64 % of them);
    # numpy's percentile interpolates inf - inf to NaN.
    rng = np.random.default_rng(9)
    trials = lc.Trials(np.append(rng.normal(2, 1, 29), -np.inf), rng.normal(-2, 1, 100))
    result = lc.bootstrap(trials, n=200, seed=1)
    values = result.replicates["cllr"].to_numpy()
    assert np.isinf(result.estimate.cllr) and 0.5 < np.isinf(values).mean() < 0.8
    for method in ("bca", "percentile"):
        lower, upper = result.interval("cllr", method)
        assert upper == np.inf and np.isfinite(lower), method
    assert result.interval("cllr", "percentile")[0] == np.percentile(values, 2.5)  # among the finite replicates
