"""Bootstrap interval of the minimum t-DCF: each replicate is the t-DCF of the drawn trials, the interval their
percentiles.

Independent references: ``lc.tdcf`` (itself tested against a brute force and the organisers' arithmetic) run from
scratch on the scores drawn with the documented draws (the same generator, the same order), which sorts and counts
anew; numpy's percentiles of those values. Real data: the ASVspoof 2019 LA eval CM (LFCC-GMM) and the organisers' ASV
scores; a small hand-made set where the ASV errs so much in some replicates that the t-DCF has no meaning.
"""
from __future__ import annotations


import numpy as np
import pytest

import llrcore as lc
from paths import DATA, ROOT



@pytest.fixture(scope="module")
def systems():
    cm = lc.read_trials(ROOT / "assets/asvspoof2019_la_cm/ASVspoof2019.LA.cm.eval.scores.tsv.gz")["LFCC-GMM"]
    asv = lc.read_trials(DATA / "asvspoof2019_la/ASVspoof2019.LA.asv.eval.gi.trl.scores.txt")
    return cm, asv


def from_scratch(cm, asv, n, seed, formulation):
    """lc.tdcf on the drawn scores of each replicate, with the full data's ASV threshold."""
    threshold = lc.asv_eer_threshold(asv.tar, asv.non)
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(n):
        drawn = [np.sort(s)[rng.integers(0, s.size, s.size)] for s in (cm.tar, cm.non, asv.tar, asv.non, asv.spoof)]
        try:
            values.append(lc.tdcf(*drawn, formulation=formulation, asv_threshold=threshold).minimum)
        except ValueError:  # no meaning at this ASV's error rates
            values.append(np.nan)
    return np.array(values)


@pytest.mark.parametrize("formulation", ["revised", "legacy"])
def test_each_replicate_is_the_tdcf_of_the_drawn_trials(systems, formulation):
    cm, asv = systems
    result = lc.bootstrap_tdcf(cm, asv, n=12, seed=7, formulation=formulation)
    expected = from_scratch(cm, asv, 12, 7, formulation)
    np.testing.assert_array_equal(result.replicates, expected)  # to the last bit
    assert result.minimum == lc.tdcf(cm.tar, cm.non, asv.tar, asv.non, asv.spoof, formulation=formulation).minimum
    lower, upper = np.nanpercentile(expected, [2.5, 97.5])  # NaN-aware, as the interval leaves failures out
    assert result.interval("percentile") == pytest.approx((lower, upper), rel=1e-14)  # BCa: test_bootstrap_coverage
    assert lower < result.minimum < upper


def test_interval_on_the_real_data_is_narrow_around_the_published_minimum(systems):
    cm, asv = systems
    seen = []
    result = lc.bootstrap_tdcf(cm, asv, n=200, level=0.9, seed=1, progress=lambda done, n: seen.append((done, n)))
    assert round(result.minimum, 4) == 0.1503
    assert 0.13 < result.lower < 0.1503 < result.upper < 0.17
    assert seen[0] == (1, 200) and seen[-1] == (200, 200) and len(seen) == 200
    assert result.failed == 0 and list(result.to_frame().columns) == ["replicate", "min_tdcf"]


def test_replicates_without_a_meaning_are_nan_and_left_out():
    """An ASV that accepts the one spoof in half the replicates and rejects it in the others: legacy C2 = 0 then."""
    cm = lc.Trials([1.0, 2.0, 3.0], [0.0, 1.5])
    asv = lc.Trials([5.0, 6.0, 7.0, 8.0], [0.0, 1.0, 2.0, 6.5], spoof=[9.0, 0.5])
    result = lc.bootstrap_tdcf(cm, asv, n=50, seed=3, formulation="legacy")
    expected = from_scratch(cm, asv, 50, 3, "legacy")
    np.testing.assert_array_equal(result.replicates, expected)
    assert 0 < result.failed < 50
    assert result.interval("percentile") == pytest.approx(tuple(np.nanpercentile(expected, [2.5, 97.5])), rel=1e-14)


def test_bad_arguments_are_sentences(systems):
    cm, asv = systems
    with pytest.raises(ValueError, match="at least 2"):
        lc.bootstrap_tdcf(cm, asv, n=1)
    with pytest.raises(ValueError, match="confidence level"):
        lc.bootstrap_tdcf(cm, asv, n=10, level=95)
    with pytest.raises(ValueError, match="formulation"):
        lc.bootstrap_tdcf(cm, asv, n=10, formulation="2019")
