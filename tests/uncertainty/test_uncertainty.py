"""Bootstrap confidence intervals, the DET band and the paired comparison of two systems.

Independent references:
- the naive bootstrap: the same draws (documented in ``llrcore.uncertainty.resampling``) used to resample the score arrays,
  which are then evaluated from scratch; a replicate that re-weights the sorted trials must give the same numbers;
- design: grouped resampling of speakers that carry shared offsets must give wider intervals than trial-level
  resampling (Bolle et al. 2004); a system compared with itself differs by exactly 0;
- counts by hand: two systems that differ in one non-target trial tie in every replicate that does not draw it (the
  draws repeated from ``default_rng(seed)`` as the module docstring of ``llrcore.uncertainty.resampling`` says), and
  raw cosines are all rejected at P_target 0.01 (threshold log 99 > 1), so their actDCF and Cprimary are exactly 1.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import llrcore as lc

METRICS = ["eer", "min_dcf", "act_dcf", "cllr", "min_cllr", "cprimary"]


def naive_metrics(tar, non, op) -> list[float]:
    metrics = lc.evaluate(tar, non, p_target=op)
    return [getattr(metrics, m) for m in METRICS]


@pytest.mark.parametrize("decimals", [None, 1])  # untied scores, and heavy ties
def test_replicates_equal_the_naive_bootstrap(decimals):
    rng = np.random.default_rng(5)
    tar, non = rng.normal(1.5, 1, 700), rng.normal(-1, 1.3, 4000)
    if decimals is not None:
        tar, non = np.round(tar, decimals), np.round(non, decimals)
    op = lc.OperatingPoint(0.05, c_miss=3)
    result = lc.bootstrap(lc.Trials(tar, non), n=25, seed=11, p_target=op)
    draws = np.random.default_rng(11)
    sorted_tar, sorted_non = np.sort(tar), np.sort(non)
    for replicate in range(25):
        resampled_tar = sorted_tar[draws.integers(0, tar.size, tar.size)]
        resampled_non = sorted_non[draws.integers(0, non.size, non.size)]
        np.testing.assert_allclose(result.replicates.iloc[replicate].to_numpy(),
                                   naive_metrics(resampled_tar, resampled_non, op), rtol=1e-12, atol=1e-15)


def test_grouped_replicates_draw_speakers_then_their_trials(two_level_draw):
    rng = np.random.default_rng(6)
    table = pd.DataFrame({"score": rng.normal(size=900), "label": rng.random(900) < 0.2,
                          "speaker": rng.choice([f"spk{i}" for i in range(40)], 900)})
    trials = lc.Trials.from_labels(table.score, table.label, metadata=table[["speaker"]])
    op = lc.OperatingPoint(0.1)
    result = lc.bootstrap(trials, n=10, group_by="speaker", seed=2, p_target=op)
    speaker = trials.metadata["speaker"].to_numpy()  # targets first, then non-targets, as the draws number them
    scores, is_tar = np.concatenate([trials.tar, trials.non]), np.arange(speaker.size) < trials.tar.size
    draws = np.random.default_rng(2)
    for replicate in range(10):
        picked = two_level_draw(draws, speaker)
        np.testing.assert_allclose(result.replicates.iloc[replicate].to_numpy(),
                                   naive_metrics(scores[picked[is_tar[picked]]], scores[picked[~is_tar[picked]]], op),
                                   rtol=1e-12, atol=1e-15)
    assert result.n_groups == 40 and result.group_by == "speaker"


def test_speakers_alike_give_the_interval_of_their_trials_not_a_width_of_zero():
    # 30 speakers with the same 3 target and 6 non-target scores each. Drawn as whole speakers only, every replicate
    # is the same set of scores: an interval of width 0, as if 30 copies of 9 trials were certain. Drawn in two levels,
    # the replicates vary as the trials within the speakers do, and by hand as much as when the 270 trials are drawn
    # one by one: to first order a replicate's Cllr moves by sum_i w_i d_i over the trials (d_i a trial's centred cost
    # over its class's number), and with every speaker alike its d_i sum to 0 per speaker, so the speakers' own draws
    # (K_g ~ Bin(G, 1/G) copies) cancel and var = sum_i d_i^2 (E[K] var(Bin(n, 1/n)) + (n - 1) terms of covariance
    # -1/n, n = 9 trials per speaker) = sum_i d_i^2, against sum_i d_i^2 (1 - 1/N_class) trial by trial.
    tar, non = np.tile([0.5, 1.5, 2.5], 30), np.tile([-3.0, -2.0, -1.5, -1.0, 0.0, 1.0], 30)
    speaker = np.concatenate([np.repeat(np.arange(30), 3), np.repeat(np.arange(30), 6)])
    trials = lc.Trials(tar, non, metadata=pd.DataFrame({"speaker": speaker}))
    grouped = lc.bootstrap(trials, n=1000, group_by="speaker", seed=1, method="percentile")
    one_by_one = lc.bootstrap(trials, n=1000, seed=1, method="percentile")
    low, high = grouped.interval("cllr")
    assert low < grouped.estimate.cllr < high
    assert grouped.replicates["cllr"].std() == pytest.approx(one_by_one.replicates["cllr"].std(), rel=0.1)


def test_grouped_intervals_are_wider_when_speakers_carry_shared_offsets():
    rng = np.random.default_rng(8)
    n_speakers, per_speaker = 60, 60
    speaker = np.repeat(np.arange(n_speakers), per_speaker)
    offset = rng.normal(0, 1.0, n_speakers)[speaker]  # a speaker's trials move together
    label = rng.random(speaker.size) < 0.25
    score = np.where(label, 2.0, -1.0) + offset + rng.normal(0, 0.7, speaker.size)
    trials = lc.Trials.from_labels(score, label, metadata=pd.DataFrame({"speaker": speaker}))
    flat = lc.bootstrap(trials, n=300, seed=1)
    grouped = lc.bootstrap(trials, n=300, seed=1, group_by="speaker")
    for metric in ("eer", "cllr", "min_cllr"):
        width = np.subtract(*flat.interval(metric)[::-1])
        grouped_width = np.subtract(*grouped.interval(metric)[::-1])
        assert grouped_width > 1.5 * width, (metric, width, grouped_width)


def test_interval_table_and_det_band():
    rng = np.random.default_rng(9)
    trials = lc.Trials(rng.normal(2, 1, 400), rng.normal(0, 1, 2000), name="sys")
    result = lc.bootstrap(trials, n=100, seed=3)
    table = result.to_frame()
    assert list(table.index) == METRICS
    assert (table["lower"] <= table["estimate"]).all() and (table["estimate"] <= table["upper"]).all()
    assert table.loc["eer", "estimate"] == lc.eer(trials)
    band = result.det_band
    assert (band.lower <= band.pmiss + 1e-12).all() and (band.pmiss <= band.upper + 1e-12).all()
    assert np.all(np.diff(band.pfa) > 0) and band.to_frame().shape == (band.pfa.size, 4)


def test_a_system_compared_with_itself_differs_by_exactly_zero():
    rng = np.random.default_rng(10)
    trials = lc.Trials(rng.normal(2, 1, 300), rng.normal(0, 1, 1500), name="A")
    comparison = lc.compare_systems(trials, trials, n=50, seed=4)
    assert (comparison.differences.to_numpy() == 0).all()
    assert comparison.to_frame()["b_better"].eq(0).all()


def test_pairing_by_ids_follows_the_trials_not_the_order():
    rng = np.random.default_rng(12)
    n = 1200
    table = pd.DataFrame({"model": [f"m{i % 50}" for i in range(n)], "test": [f"t{i}" for i in range(n)],
                          "label": rng.random(n) < 0.3})
    table["a"] = np.where(table.label, 1.5, 0) + rng.normal(size=n)
    table["b"] = table["a"] + rng.normal(0, 0.5, n)
    ids = table[["model", "test"]]
    a = lc.Trials.from_labels(table.a, table.label, "A", metadata=ids)
    b = lc.Trials.from_labels(table.b, table.label, "B", metadata=ids)
    shuffled = table.sample(frac=1, random_state=3)
    b_shuffled = lc.Trials.from_labels(shuffled.b, shuffled.label, "B", metadata=shuffled[["model", "test"]])
    by_order = lc.compare_systems(a, lc.Trials(b.tar, b.non, "B"), n=40, seed=5)
    by_ids = lc.compare_systems(a, b_shuffled, n=40, seed=5)
    pd.testing.assert_frame_equal(by_order.differences, by_ids.differences, rtol=1e-12)


def test_bad_requests_get_sentences():
    trials = lc.Trials([1.0, 2.0, 3.0], [0.0, 1.0])
    with pytest.raises(KeyError, match="no column 'speaker'"):
        lc.bootstrap(trials, n=10, group_by="speaker")
    with pytest.raises(ValueError, match="at least 2"):
        lc.bootstrap(trials, n=1)
    with pytest.raises(ValueError, match="between 0 and 1"):
        lc.bootstrap(trials, n=10, level=95)
    with pytest.raises(ValueError, match="cannot be paired trial by trial"):  # the pairing of align_systems
        lc.compare_systems(trials, lc.Trials([1.0], [0.0]), n=10)


def test_the_comparison_in_words_names_the_better_system_first():
    rng = np.random.default_rng(13)
    good = lc.Trials(rng.normal(3, 1, 500), rng.normal(0, 1, 2000), name="good")
    worse = lc.Trials(good.tar - 0.8 + rng.normal(0, 0.3, 500), good.non, name="worse")
    comparison = lc.compare_systems(good, worse, n=100, seed=1)
    low, high = comparison.interval("eer")
    assert high < 0 or low > 0
    sentence = comparison.sentence("eer")
    assert sentence.startswith(f"good has a lower EER than worse in {100 * (1 - comparison.b_better('eer')):.0f} % "
                               "of 100 resamplings of the trials (paired by line order): worse minus good is +")
    assert sentence.endswith("so the difference is very likely real.")


def test_equal_costs_in_every_resampling_are_called_equal_not_a_win():
    # Two different systems of raw cosines (in [-1, 1]): at P_target 0.01 the Bayes threshold is log(99) = 4.6, so
    # every trial is rejected and actDCF = P_target * 1 / min(P_target, 1 - P_target) = 1 in every replicate, for
    # both; Cprimary (P_target 0.01 and 0.001) too.
    rng = np.random.default_rng(15)
    a = lc.Trials(np.tanh(rng.normal(0.6, 0.3, 300)), np.tanh(rng.normal(0.0, 0.3, 1200)), name="A")
    b = lc.Trials(np.tanh(rng.normal(0.7, 0.3, 300)), np.tanh(rng.normal(0.1, 0.3, 1200)), name="B")
    comparison = lc.compare_systems(a, b, n=200, seed=3)
    for metric, label in (("act_dcf", "actDCF"), ("cprimary", "Cprimary")):
        assert getattr(comparison.a, metric) == getattr(comparison.b, metric) == 1.0
        assert (comparison.differences[metric] == 0).all()
        assert comparison.sentence(metric) == (
            f"A and B have an equal {label} in every one of 200 resamplings of the trials (paired by line order): "
            "B minus A is +0 (95 % BCa bootstrap interval +0 to +0), so these trials do not tell them apart.")
    assert (comparison.differences["eer"] != 0).all()  # no ties: the sentence as before
    share = 100 * comparison.b_better("eer")
    assert comparison.sentence("eer").startswith(f"B has a lower EER than A in {share:.0f} % of 200 resamplings of the "
                                                 "trials (paired by line order): B minus A")


def test_ties_are_counted_apart_from_wins_and_losses():
    # B is A with one non-target moved from -5 to +5, above the threshold log(99) = 4.6: B makes one more false
    # alarm in every replicate that draws that trial (A wins), and ties with A in every one that does not.
    rng = np.random.default_rng(16)
    tar, non = rng.normal(2, 1, 50), np.append(rng.normal(-1, 1, 79), -5.0)
    a, b = lc.Trials(tar, non, name="A"), lc.Trials(tar, np.append(non[:-1], 5.0), name="B")
    comparison = lc.compare_systems(a, b, n=200, seed=4)
    draws, drawn = np.random.default_rng(4), 0
    for _ in range(200):  # per replicate: 50 target indices, then 80 non-target indices (in A's order)
        draws.integers(0, 50, 50)
        drawn += 79 in draws.integers(0, 80, 80)
    assert np.count_nonzero(comparison.differences["act_dcf"] > 0) == drawn
    assert np.count_nonzero(comparison.differences["act_dcf"] == 0) == 200 - drawn
    assert 100 < drawn < 150  # about 1 - (79/80)^80 = 64 % of the replicates
    assert comparison.sentence("act_dcf").startswith(
        f"A has a lower actDCF than B in {100 * drawn / 200:.0f} % of 200 resamplings of the trials, B in 0 %, and "
        f"they are equal in {100 * (200 - drawn) / 200:.0f} % (paired by line order): B minus A is +")


def test_the_shares_in_words_never_round_a_tie_or_a_loss_away():
    # 1,000 replicates: B lower in 996, equal in 3, A lower in 1 (by hand: 99.6 %, 0.3 %, 0.1 %).
    differences = np.concatenate([np.full(996, -0.1), np.zeros(3), [0.1]])
    assert lc.uncertainty.paired_words.paired_shares(differences, "A", "B", "EER", "of the trials") == (
        "B has a lower EER than A in over 99 % of 1,000 resamplings of the trials, A in under 1 %, and they are "
        "equal in under 1 %")
    assert lc.uncertainty.paired_words.paired_shares(np.zeros(5), "A", "B", "EER", "of the trials") == (
        "A and B have an equal EER in every one of 5 resamplings of the trials")


def test_grouped_replicates_that_miss_a_class_are_left_out_of_the_intervals(two_level_draw):
    # One speaker holds every target: a replicate that does not draw it has no target trial at all (and one that draws
    # only it has no non-target).
    speaker = np.array(["a"] * 20 + ["b"] * 30 + ["c"] * 30)
    label = speaker == "a"
    rng = np.random.default_rng(14)
    scores = np.where(label, 2.0, 0.0) + rng.normal(size=speaker.size)
    trials = lc.Trials.from_labels(scores, label, metadata=pd.DataFrame({"speaker": speaker}))
    result = lc.bootstrap(trials, n=60, group_by="speaker", seed=0)
    empty = result.replicates["eer"].isna()
    draws = np.random.default_rng(0)
    drawn = [label[two_level_draw(draws, speaker)] for _ in range(60)]  # the labels of each replicate's trials
    expected = [labels.all() or not labels.any() for labels in drawn]  # no non-target, or no target
    np.testing.assert_array_equal(empty.to_numpy(), expected)
    assert 0 < empty.sum() < 60 and np.isfinite(result.interval("eer")).all()
    comparison = lc.compare_systems(trials, trials, n=60, group_by="speaker", seed=0)
    assert comparison.differences["eer"].isna().sum() == empty.sum()


def test_the_comparison_table_gives_the_eer_in_percent_when_asked():
    """The EER row times 100 (A, B, B - A and the interval), every other number as it was. A's EER by hand: its ROC
    convex hull joins (Pfa, Pmiss) = (0, 1/2) (threshold above 1.0) and (1/3, 0) (threshold at 0.5), the line
    Pmiss = 1/2 - 3/2 Pfa, which meets Pmiss = Pfa at 1/5: 20 %. B separates the classes: 0 %."""
    a = lc.Trials([2.0, 0.5], [1.0, -1.0, -2.0], name="A")
    b = lc.Trials([2.0, 1.5], [1.0, -1.0, -2.0], name="B")
    comparison = lc.compare_systems(a, b, n=30, seed=2)
    fraction, percent = comparison.to_frame(), comparison.to_frame(eer_percent=True)
    numbers = ["a", "b", "difference", "lower", "upper"]
    assert percent.loc["eer", "b"] == 0.0
    assert percent.loc["eer", "a"] == pytest.approx(20.0, abs=1e-12)
    np.testing.assert_allclose(percent.loc["eer", numbers].astype(float),
                               100 * fraction.loc["eer", numbers].astype(float))
    pd.testing.assert_frame_equal(percent.drop(index="eer"), fraction.drop(index="eer"))
    assert percent.loc["eer", "b_better"] == fraction.loc["eer", "b_better"]
