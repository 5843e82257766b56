"""Diarization from a similarity matrix: the Bayesian block model, the AHC and spectral baselines, and the scoring.

References are independent of llrcore: synthetic block matrices drawn here (known speakers), closed forms checked
against Monte Carlo or quadrature, brute force over permutations, scikit-learn, pyannote.metrics, and published
DER figures (the VBx README table on AMI, VBx's 7.06 % on ES2005a; see tests/data/ami/SOURCE.txt and
assets/ami_ES2005a/SOURCE.txt).
"""
from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, stats
from scipy.special import expit

import llrcore as lc
from llrcore.diarization import block_prior
from llrcore.diarization.baselines import kmeans
from llrcore.diarization.gaussians import fit_score_mixture
from paths import ROOT

AMI = ROOT / "tests" / "data" / "ami"
ES2005A = ROOT / "assets" / "ami_ES2005a"
PYANNOTE_SAMPLE = ROOT / "assets" / "pyannote_sample"
VBX_ES2005A_DER = 0.0706  # VBx README, "Run the example": ES2005a DER 7.06 (dscore --collar 0.25 --ignore_overlaps)


# ----- synthetic block matrices ------------------------------------------------------------------------------------


def block_matrix(sizes, seed=0, within=(15.0, 10.0), between=(-40.0, -25.0, 8.0), offset_sd=3.0):
    """Scores of segments of speakers with the given sizes (shuffled order), drawn from a Gaussian block model with
    per-segment offsets: ``s_ij = mu_block + sd_block * e_ij + o_i + o_j``. Returns (S, true labels)."""
    rng = np.random.default_rng(seed)
    labels = np.repeat(np.arange(len(sizes)), sizes)
    rng.shuffle(labels)
    k = len(sizes)
    means = np.triu(rng.uniform(between[0], between[1], (k, k)), 1)
    means = means + means.T
    np.fill_diagonal(means, within[0])
    sds = np.full((k, k), between[2])
    np.fill_diagonal(sds, within[1])
    noise = np.triu(rng.normal(size=(labels.size, labels.size)), 1)
    noise = noise + noise.T
    offsets = rng.normal(0.0, offset_sd, labels.size)
    scores = means[labels][:, labels] + sds[labels][:, labels] * noise + offsets[:, None] + offsets[None, :]
    return scores, labels


CASES = {
    "one speaker": [400],
    "two speakers": [250, 150],
    "four unbalanced": [300, 120, 60, 20],
    "five unbalanced": [200, 150, 100, 60, 30],
}


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("seed", [0, 1])
def test_bayes_finds_the_speakers_of_synthetic_block_matrices(case, seed):
    sizes = CASES[case]
    scores, truth = block_matrix(sizes, seed)
    result = lc.cluster_similarity(scores, "bayes")
    assert result.n_clusters == len(sizes)
    assert lc.segment_scores(result.labels, truth).error <= 0.01
    assert np.allclose(result.responsibilities.sum(axis=1), 1.0)
    assert np.array_equal(result.labels, np.argmax(result.responsibilities, axis=1))
    assert result.n_clusters_posterior.sum() == pytest.approx(1.0)
    assert result.n_clusters_posterior.idxmax() == len(sizes)


def test_bayes_with_more_evidence_per_segment_finds_seven_balanced_speakers():
    # weaker separation: the default evidence (a matrix without times is taken as overlapping x-vector windows,
    # each worth 1/6 of an independent one) cannot pay for seven speakers under the CRP prior, but these synthetic
    # scores are independent: say so (25 per segment = 150 x 1/6) and it can
    scores, truth = block_matrix([100] * 7, 0, within=(5.0, 12.0), between=(-30.0, -15.0, 9.0))
    assert lc.cluster_similarity(scores, "bayes").n_clusters < 7
    result = lc.cluster_similarity(scores, "bayes", effective_scores=150)
    assert result.n_clusters == 7
    assert lc.segment_scores(result.labels, truth).error == 0.0


def test_bayes_posterior_gaussians_match_the_generating_ones():
    scores, truth = block_matrix([250, 150], 3, offset_sd=0.0)
    # the recording's own two-Gaussian fit as prior: the default prior is centred on the simulated-PLDA preset's
    # scale (issue 32), which these made-up LLRs do not share, and it would pull the posterior means towards it
    result = lc.cluster_similarity(scores, "bayes", prior="recording")
    same = (truth[:, None] == truth[None, :]) & ~np.eye(truth.size, dtype=bool)
    within = scores[same]
    assert result.within.mean == pytest.approx(within.mean(), abs=0.05)
    assert result.within.std == pytest.approx(10.0, rel=0.03)
    between = scores[truth[:, None] < truth[None, :]]
    assert result.between_means[0, 1] == pytest.approx(between.mean(), abs=0.05)
    assert np.sqrt(result.between_variances[0, 1]) == pytest.approx(8.0, rel=0.03)


def _assert_monotone(trace: pd.DataFrame):
    assert not trace.empty
    for (_, _), part in trace.groupby(["run", "stage"]):
        elbo = part.sort_values("iteration")["elbo"].to_numpy()
        assert np.all(np.diff(elbo) >= -1e-9 * np.abs(elbo[1:])), "the evidence lower bound decreased"


@pytest.mark.parametrize("case", ["four unbalanced", "five unbalanced"])
def test_evidence_lower_bound_never_decreases_synthetic(case):
    scores, _ = block_matrix(CASES[case], 5, within=(5.0, 12.0), between=(-30.0, -15.0, 9.0))
    result = lc.cluster_similarity(scores, "bayes")
    _assert_monotone(result.trace)
    chosen = result.runs.loc[result.runs["chosen"]].iloc[0]
    assert result.elbo == pytest.approx(chosen["elbo"])
    assert result.elbo == pytest.approx(result.runs["elbo"].max())


def test_exact_minimum_and_maximum_number_of_speakers():
    scores, truth = block_matrix([300, 120, 60, 20], 2)
    assert lc.cluster_similarity(scores, "bayes", n_clusters=2).n_clusters == 2
    assert lc.cluster_similarity(scores, "bayes", n_clusters=1).n_clusters == 1
    assert lc.cluster_similarity(scores, "bayes", max_clusters=3).n_clusters <= 3
    assert lc.cluster_similarity(scores, "bayes", min_clusters=4).n_clusters >= 4
    assert lc.cluster_similarity(scores, "spectral", n_clusters=3).n_clusters == 3
    assert lc.cluster_similarity(scores, "ahc", n_clusters=5).n_clusters == 5
    with pytest.raises(ValueError, match="minimum number of speakers"):
        lc.cluster_similarity(scores, "bayes", min_clusters=5, max_clusters=3)
    with pytest.raises(ValueError, match="between 1 and"):
        lc.cluster_similarity(scores, "bayes", n_clusters=0)
    with pytest.raises(ValueError, match="Unknown method"):
        lc.cluster_similarity(scores, "kmeans")


def test_tiny_matrices():
    one = lc.cluster_similarity(np.array([[3.0]]), "bayes")
    assert one.n_clusters == 1 and one.labels.tolist() == [0]
    two = lc.cluster_similarity(np.array([[0.0, -20.0], [-20.0, 0.0]]), "bayes")
    assert two.n_clusters in (1, 2) and two.labels.size == 2
    for method in lc.diarization.METHODS:
        assert lc.cluster_similarity(np.array([[1.0, 5.0], [5.0, 1.0]]), method).labels.size == 2


def test_asymmetric_matrix_is_symmetrised_with_a_warning_and_nan_refused():
    scores, _ = block_matrix([30, 20], 0)
    skewed = scores + np.triu(np.ones_like(scores), 1)
    with pytest.warns(UserWarning, match="not symmetric"):
        result = lc.cluster_similarity(skewed, "ahc")
    assert result.n_clusters == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lc.cluster_similarity(scores.astype(np.float32), "ahc")  # float32 round-off is not asymmetry
    broken = scores.copy()
    broken[3, 7] = np.nan
    with pytest.raises(ValueError, match="row 4, column 8"):
        lc.cluster_similarity(broken)
    broken[3, 7] = np.inf
    with pytest.raises(ValueError, match="infinite"):
        lc.cluster_similarity(broken)


# ----- the closed forms of the variational updates -----------------------------------------------------------------


def test_expected_log_density_under_normal_gamma_matches_monte_carlo():
    m, k, a, b = 0.7, 4.0, 6.0, 3.0
    rng = np.random.default_rng(0)
    lam = rng.gamma(a, 1.0 / b, 400_000)
    mu = rng.normal(m, 1.0 / np.sqrt(k * lam))
    for d in (-1.0, 0.3, 2.5):
        monte_carlo = np.mean(stats.norm.logpdf(d, mu, 1.0 / np.sqrt(lam)))
        c0, c1, c2 = block_prior.expected_log_density_coefficients(m, k, a, b)
        assert c0 + c1 * d + c2 * d * d == pytest.approx(monte_carlo, abs=3e-3)


def test_kl_divergences_match_monte_carlo_and_quadrature():
    q, p = (0.4, 12.0, 9.0, 4.0), (-0.2, 2.0, 1.5, 2.0)
    rng = np.random.default_rng(1)
    lam = rng.gamma(q[2], 1.0 / q[3], 400_000)
    mu = rng.normal(q[0], 1.0 / np.sqrt(q[1] * lam))

    def log_ng(mu, lam, m, k, a, b):
        return stats.gamma.logpdf(lam, a, scale=1.0 / b) + stats.norm.logpdf(mu, m, 1.0 / np.sqrt(k * lam))

    monte_carlo = np.mean(log_ng(mu, lam, *q) - log_ng(mu, lam, *p))
    assert block_prior.kl_normal_gamma(*q, *p) == pytest.approx(monte_carlo, abs=0.01)

    g, prior = (3.5, 7.0), (1.0, 2.5)
    quadrature, _ = integrate.quad(
        lambda v: stats.beta.pdf(v, *g) * (stats.beta.logpdf(v, *g) - stats.beta.logpdf(v, *prior)), 0, 1)
    assert block_prior.kl_beta(*g, *prior) == pytest.approx(quadrature, abs=1e-8)


@pytest.mark.parametrize("offset", [0.0, 1e6])
def test_pair_moments_pool_as_numpy_on_the_concatenated_scores(offset):
    """PairMoments added in any grouping equal numpy's mean and variance of all the scores together, empty sets
    included, and stay exact for scores far from zero (where sum-of-squares formulas lose every digit)."""
    rng = np.random.default_rng(7)
    parts = [offset + rng.normal(0.0, 1.0, size) for size in (0, 1, 5, 300, 2)]
    pooled = sum((block_prior.PairMoments.of(part) for part in parts), block_prior.PairMoments())
    backwards = sum((block_prior.PairMoments.of(part) for part in parts[::-1]), block_prior.PairMoments())
    everything = np.concatenate(parts)
    for moments in (pooled, backwards):
        assert moments.count == everything.size
        assert moments.mean == pytest.approx(everything.mean(), rel=1e-15, abs=1e-12)
        assert moments.variance == pytest.approx(everything.var(), rel=1e-9)


def test_presets_are_learnt_from_the_development_corpus():
    """PRESETS (rounded to 4 significant digits in the code) are BlockModelPrior.from_recordings of all the cosine
    conversations and of all the PLDA matrices of tests/data/diarization_corpus; the mean and variance of their
    same-speaker and different-speaker pairs, gathered here with numpy from the references."""
    for name, folder in (("resemblyzer-1.5s-espeak", PLDA_CORPUS.parent), ("simulated-plda-1.5s", PLDA_CORPUS)):
        matrices = lc.read_corpus(folder)
        same, different = [], []
        for matrix in matrices:
            names = np.asarray(matrix.reference).astype(str)
            rows, columns = np.triu_indices(names.size, 1)
            within = names[rows] == names[columns]
            same.append(matrix.scores[rows, columns][within])
            different.append(matrix.scores[rows, columns][~within])
        same, different = np.concatenate(same), np.concatenate(different)
        preset = block_prior.PRESETS[name]
        expected = (same.mean(), different.mean(), same.var(), different.var())
        assert (preset.within_mean, preset.between_mean, preset.variance, preset.between_variance) == pytest.approx(
            expected, rel=5e-4)
        assert preset.learnt_on.recordings == len(matrices)  # its provenance
        learnt = lc.diarization.BlockModelPrior.from_recordings(matrices)
        assert (learnt.within_mean, learnt.between_mean, learnt.variance, learnt.between_variance) == pytest.approx(
            expected, rel=1e-12)


def test_crp_log_prior_equals_the_product_of_seating_probabilities():
    labels = [0, 0, 1, 0, 2, 1, 1, 0, 3]
    alpha = 1.7
    log_p, counts = 0.0, {}
    for i, z in enumerate(labels):  # customer i joins a table of c w.p. c/(i+alpha), a new one w.p. alpha/(i+alpha)
        log_p += np.log((counts[z] if z in counts else alpha) / (i + alpha))
        counts[z] = counts.get(z, 0) + 1
    assert block_prior.crp_log_prior(labels, alpha) == pytest.approx(log_p, abs=1e-12)


def test_score_mixture_agrees_with_sklearn_gaussian_mixture():
    from sklearn.mixture import GaussianMixture

    scores, _ = block_matrix([200, 120, 80], 4, offset_sd=0.0)
    mixture = fit_score_mixture(scores)
    pairs = scores[np.triu_indices(scores.shape[0], 1)].reshape(-1, 1)
    reference = GaussianMixture(2, tol=1e-10, max_iter=1000, random_state=0).fit(pairs)
    high = int(np.argmax(reference.means_.ravel()))
    assert mixture.within.mean == pytest.approx(reference.means_.ravel()[high], abs=0.05)
    assert mixture.between.mean == pytest.approx(reference.means_.ravel()[1 - high], abs=0.05)
    assert mixture.within.variance == pytest.approx(reference.covariances_.ravel()[high], rel=0.01)
    assert mixture.weight == pytest.approx(reference.weights_[high], abs=0.002)
    # the threshold is where the weighted densities cross: the posterior there is one half
    assert mixture.p_within(mixture.threshold) == pytest.approx(0.5, abs=1e-9)
    assert mixture.between.mean < mixture.threshold < mixture.within.mean


# ----- baselines ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", ["two speakers", "four unbalanced", "five unbalanced"])
def test_ahc_and_spectral_baselines_on_synthetic_matrices(case):
    from sklearn.cluster import SpectralClustering
    from sklearn.metrics import adjusted_rand_score

    sizes = CASES[case]
    scores, truth = block_matrix(sizes, 0)
    ahc = lc.cluster_similarity(scores, "ahc")
    assert ahc.n_clusters == len(sizes)
    assert lc.segment_scores(ahc.labels, truth).error == 0.0
    assert ahc.threshold == pytest.approx(ahc.mixture.threshold)
    spectral = lc.cluster_similarity(scores, "spectral", n_clusters=len(sizes))
    affinity = expit(ahc.mixture.llr(scores) + np.log(ahc.mixture.weight / (1 - ahc.mixture.weight)))
    np.fill_diagonal(affinity, 0.0)
    peer = SpectralClustering(len(sizes), affinity="precomputed", random_state=0).fit(affinity).labels_
    assert adjusted_rand_score(spectral.labels, peer) == 1.0
    assert adjusted_rand_score(spectral.labels, truth) == 1.0


def test_spectral_eigengap_counts_balanced_speakers():
    scores, truth = block_matrix([120, 110, 100, 90], 6)
    result = lc.cluster_similarity(scores, "spectral")
    assert result.n_clusters == 4
    assert lc.segment_scores(result.labels, truth).error == 0.0
    assert result.eigenvalues[0] == pytest.approx(1.0)


def test_ahc_dissolves_small_clusters_into_their_closest_speaker():
    scores, truth = block_matrix([150, 100], 2)
    outlier = 5  # a segment that scores low with everybody forms a cluster of its own under a plain cut
    scores[outlier, :] -= 40.0
    scores[:, outlier] -= 40.0
    plain = lc.cluster_similarity(scores, "ahc", min_cluster_size=1)
    assert plain.n_clusters == 3
    result = lc.cluster_similarity(scores, "ahc")
    assert result.n_clusters == 2
    assert lc.segment_scores(result.labels, truth).error == 0.0


def test_kmeans_matches_sklearn_inertia():
    from sklearn.cluster import KMeans

    rng = np.random.default_rng(3)
    points = np.concatenate([rng.normal(c, 0.3, (60, 2)) for c in ([0, 0], [3, 0], [0, 3], [3, 3])])
    ours = kmeans(points, 4)
    theirs = KMeans(4, n_init=10, random_state=0).fit(points)
    inertia = sum(((points[ours == c] - points[ours == c].mean(axis=0)) ** 2).sum() for c in range(4))
    assert inertia == pytest.approx(theirs.inertia_, rel=1e-9)


# ----- segment-level scoring ---------------------------------------------------------------------------------------


def test_segment_error_equals_brute_force_over_mappings():
    rng = np.random.default_rng(8)
    reference = rng.choice(["A", "B", "C"], 200)
    hypothesis = np.where(rng.random(200) < 0.8, np.searchsorted(["A", "B", "C"], reference), rng.integers(0, 4, 200))
    weights = rng.uniform(0.1, 2.0, 200)
    best = 0.0
    for targets in itertools.permutations(["A", "B", "C", None], 4):  # 4 clusters onto 3 speakers (one unmapped)
        agree = sum(w for h, r, w in zip(hypothesis, reference, weights) if targets[h] == r)
        best = max(best, agree)
    scores = lc.segment_scores(hypothesis, reference, weights=weights)
    assert scores.error == pytest.approx(1.0 - best / weights.sum(), abs=1e-12)
    assert scores.speaker_count_error == 1
    assert len(scores.mapping) == 3


def test_purity_and_coverage_agree_with_pyannote_metrics():
    from pyannote.core import Annotation, Segment
    from pyannote.metrics.diarization import DiarizationCoverage, DiarizationPurity

    rng = np.random.default_rng(9)
    reference = rng.choice(["A", "B", "C"], 150)
    hypothesis = np.where(rng.random(150) < 0.7, np.searchsorted(["A", "B", "C"], reference), rng.integers(0, 5, 150))
    ref, hyp = Annotation(), Annotation()
    for i, (r, h) in enumerate(zip(reference, hypothesis)):  # one second per segment, no overlap
        ref[Segment(i, i + 1)] = r
        hyp[Segment(i, i + 1)] = int(h)
    scores = lc.segment_scores(hypothesis, reference)
    assert scores.purity == pytest.approx(DiarizationPurity()(ref, hyp), abs=1e-12)
    assert scores.coverage == pytest.approx(DiarizationCoverage()(ref, hyp), abs=1e-12)


# ----- windows to turns, turns to labels ---------------------------------------------------------------------------


def test_overlapping_windows_become_turns_split_at_the_midpoints():
    start = 0.24 * np.arange(8)
    end = start + 1.44
    labels = np.array([0, 0, 0, 1, 1, 0, 0, 0])
    turns = lc.segments_to_turns(start, end, labels, uri="m")
    # window i keeps [0.24 i + 0.6, 0.24 i + 0.84], the first from 0 and the last to its end
    assert turns["start"].tolist() == pytest.approx([0.0, 0.24 * 3 + 0.6, 0.24 * 5 + 0.6])
    assert turns["end"].tolist() == pytest.approx([0.24 * 2 + 0.84, 0.24 * 4 + 0.84, 0.24 * 7 + 1.44])
    assert turns["speaker"].tolist() == ["0", "1", "0"]
    assert (turns["uri"] == "m").all()
    # a gap between windows (no speech) keeps two turns of the same speaker apart; unsorted input is sorted
    gapped = lc.segments_to_turns([5.0, 0.0, 1.0], [6.0, 1.44, 2.44], ["a", "a", "a"])
    assert gapped[["start", "end"]].to_numpy().ravel().tolist() == pytest.approx([0.0, 2.44, 5.0, 6.0])


def test_reference_labels_by_majority_overlap():
    turns = pd.DataFrame({"uri": "m", "channel": "1", "start": [0.0, 1.0, 1.2], "end": [1.1, 3.0, 1.4],
                          "speaker": ["A", "B", "C"]})
    labels = lc.diarization.labels_from_turns([0.0, 0.9, 2.0, 5.0], [1.0, 1.5, 3.0, 6.0], turns)
    assert labels.tolist() == ["A", "B", "B", ""]


# ----- DER against published figures -------------------------------------------------------------------------------

PUBLISHED = {  # VBx README "Results" (oracle VAD), DER % ; "eval" = the test/ folder
    ("sys_mixheadset", "dev"): (1.56, 9.68, 16.33),
    ("sys_mixheadset", "test"): (2.10, 12.53, 18.99),
    ("sys_beamformed", "dev"): (2.80, 10.81, 17.66),
    ("sys_beamformed", "test"): (3.90, 14.23, 20.84),
}


def _ami(system: str, part: str):
    return (lc.read_rttm(AMI / f"ref_only_words_{part}.rttm.gz"), lc.read_rttm(AMI / f"{system}_{part}.rttm.gz"),
            lc.read_uem(AMI / f"uems_{part}.uem.gz"))


@pytest.mark.parametrize("system, part", list(PUBLISHED))
def test_der_reproduces_the_published_vbx_ami_table_forgiving(system, part):
    reference, hypothesis, uem = _ami(system, part)
    result = lc.diarization_error_rate(reference, hypothesis, uem=uem, collar=0.25, skip_overlap=True)
    assert round(100 * result.der, 2) == PUBLISHED[(system, part)][0]
    assert len(result.per_file) == {"dev": 18, "test": 16}[part]


def test_der_reproduces_the_published_vbx_ami_table_fair_and_full():
    reference, hypothesis, uem = _ami("sys_mixheadset", "dev")
    fair = lc.diarization_error_rate(reference, hypothesis, uem=uem, collar=0.25, skip_overlap=False)
    full = lc.diarization_error_rate(reference, hypothesis, uem=uem, collar=0.0, skip_overlap=False)
    assert (round(100 * fair.der, 2), round(100 * full.der, 2)) == PUBLISHED[("sys_mixheadset", "dev")][1:]
    assert full.der == pytest.approx((full.missed + full.false_alarm + full.confusion) / full.total)


# ----- the AMI meeting ES2005a -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def es2005a():
    return lc.read_similarity(ES2005A / "ES2005a_similarity.npz", reference=ES2005A / "ES2005a.rttm")


def test_der_of_the_vbx_output_on_es2005a_is_the_published_one(es2005a):
    vbx = lc.read_rttm(ES2005A / "ES2005a.vbx_output_reproduced_here.rttm")
    assert round(lc.diarization_error_rate(es2005a.reference_turns, vbx).der, 4) == VBX_ES2005A_DER


@pytest.fixture(scope="module")
def es2005a_results(es2005a):
    results = {}
    for method in lc.diarization.METHODS:
        result = lc.cluster_similarity(es2005a, method)
        hypothesis = result.turns(es2005a.start, es2005a.end, es2005a.uri)
        results[method] = (result, lc.diarization_error_rate(es2005a.reference_turns, hypothesis).der)
    return results


def test_bayes_finds_the_four_speakers_of_es2005a_and_beats_vbx(es2005a, es2005a_results):
    result, der = es2005a_results["bayes"]
    assert es2005a.n_reference_speakers == 4
    assert result.n_clusters == 4
    assert der < VBX_ES2005A_DER
    assert der < es2005a_results["ahc"][1] and der < es2005a_results["spectral"][1]
    assert result.n_clusters_posterior.idxmax() == 4
    _assert_monotone(result.trace)


def test_float32_products_give_the_float64_answer_on_es2005a(es2005a, es2005a_results, monkeypatch):
    """The block model multiplies in float32 (model.PRODUCT_DTYPE, for speed): run again in float64, ES2005a gets the
    same labels, every start the same number of iterations and speakers, and every bound within 5e-8 relative."""
    from llrcore.diarization import model

    result, _ = es2005a_results["bayes"]
    monkeypatch.setattr(model, "PRODUCT_DTYPE", np.float64)
    exact = lc.cluster_similarity(es2005a, "bayes")
    np.testing.assert_array_equal(result.labels, exact.labels)
    pd.testing.assert_frame_equal(result.runs.drop(columns="elbo"), exact.runs.drop(columns="elbo"))
    np.testing.assert_allclose(result.runs["elbo"], exact.runs["elbo"], rtol=5e-8)
    assert not np.array_equal(result.runs["elbo"], exact.runs["elbo"])  # the products did run in float32


def test_readme_s_es2005a_numbers_with_and_without_overlapped_speech(es2005a, es2005a_results):
    """docs/diarization.md's 2.8 % leaves overlapped speech out (md-eval's --ignore_overlaps); scored, it is 13.0 %."""
    result, der = es2005a_results["bayes"]
    hypothesis = result.turns(es2005a.start, es2005a.end, es2005a.uri)
    scored = lc.diarization_error_rate(es2005a.reference_turns, hypothesis, skip_overlap=False).der
    assert (round(100 * der, 1), round(100 * scored, 1)) == (2.8, 13.0)


def test_es2005a_with_the_number_of_speakers_given(es2005a):
    for method in ("bayes", "spectral"):
        result = lc.cluster_similarity(es2005a, method, n_clusters=4)
        hypothesis = result.turns(es2005a.start, es2005a.end, es2005a.uri)
        assert result.n_clusters == 4
        assert lc.diarization_error_rate(es2005a.reference_turns, hypothesis).der < VBX_ES2005A_DER


def test_bayes_finds_the_four_speakers_of_es2005a_from_its_scores_alone(es2005a):
    """The paper's setting: the matrix without times (no chain; the segments independent draws). One tied
    between-speaker Gaussian merged its closest pair of speakers (3 speakers, DER 7.73 %; issue 32); one Gaussian per
    pair finds the 4 of the reference RTTM with a DER of at most 3.1 % (pyannote.metrics, collar 0.25 s, overlap out:
    the goal of issue 32; docs/diarization.md states the figure)."""
    bare = lc.SimilarityMatrix(np.asarray(es2005a.scores))
    assert not bare.has_times
    result = lc.cluster_similarity(bare, "bayes")
    der = lc.diarization_error_rate(es2005a.reference_turns,
                                    result.turns(es2005a.start, es2005a.end, es2005a.uri)).der
    assert result.n_clusters == 4
    assert der <= 0.031 and round(100 * der, 2) == 3.08
    _assert_monotone(result.trace)


def test_one_between_gaussian_per_pair_of_speakers_is_the_conjugate_update_of_its_block():
    """Without times each pair of speakers (l, m) has its own Normal-Gamma posterior from the tempered scores of the
    pairs (i in l, j in m) alone; reference: the textbook form of the conjugate update (Murphy 2007, "Conjugate
    Bayesian analysis of the Gaussian distribution", eqs. 86-89: through the block's mean and scatter), computed
    here from the scores themselves. The diagonal (within) is the pooled update of all same-speaker pairs."""
    from llrcore.diarization.variational import VariationalBlockModel

    rng = np.random.default_rng(3)
    labels = np.repeat([0, 1, 2], [5, 7, 4])
    z = rng.normal(size=(16, 16))
    z = z + z.T
    prior = (-1.0, 2.0, 3.0, 4.0)
    beta = 0.3
    vb = VariationalBlockModel(z, beta, (1.0, 2.0, 3.0, 4.0), prior, 1.0, 0.0, pair_between=True)
    R = np.eye(3)[labels]
    DR, D2R = vb.products(R)
    within, between = vb.update_theta(*vb.statistics(R, DR, D2R)[1:])

    def textbook(x, m0, k0, a0, b0):
        n, mean = beta * x.size, x.mean()
        scatter = beta * np.sum((x - mean) ** 2)
        return ((k0 * m0 + n * mean) / (k0 + n), k0 + n, a0 + n / 2,
                b0 + scatter / 2 + k0 * n * (mean - m0) ** 2 / (2 * (k0 + n)))

    for l, m in itertools.combinations(range(3), 2):
        block = z[np.ix_(labels == l, labels == m)].ravel()
        np.testing.assert_allclose([p[l, m] for p in between], textbook(block, *prior), rtol=1e-6)
    same = np.concatenate([z[np.ix_(labels == k, labels == k)][np.triu_indices((labels == k).sum(), 1)]
                           for k in range(3)])
    np.testing.assert_allclose(within, textbook(same, 1.0, 2.0, 3.0, 4.0), rtol=1e-6)


@pytest.mark.xfail(strict=True, reason="known limit, docs/diarization.md: one real speaker alone is split")
def test_es2005a_one_speaker_at_a_time_is_one_speaker(es2005a):
    """Each reference speaker's windows alone: today split in 2 to 4 clusters.

    With one speaker there are no between-speaker scores to learn "different" from, so smaller differences become
    speakers: windows overlapping another person's speech, the overlapping windows of one utterance, the drift of a
    voice over the meeting (MEO020 scores 15-20 with itself within a minute, -13 a few minutes apart). Strict: when
    this passes, the limit in docs/diarization.md must go.
    """
    scores, reference = np.asarray(es2005a.scores), np.asarray(es2005a.reference)
    found = {}
    for speaker in np.unique(reference):
        alone = np.flatnonzero(reference == speaker)
        found[speaker] = lc.cluster_similarity(scores[np.ix_(alone, alone)], "bayes").n_clusters
    assert all(k == 1 for k in found.values()), found


# ----- a second real recording, held out: pyannote's sample scored with Resemblyzer d-vectors ----------------------


@pytest.fixture(scope="module")
def pyannote_sample():
    return lc.read_similarity(PYANNOTE_SAMPLE / "sample_similarity.npz", reference=PYANNOTE_SAMPLE / "sample.rttm")


def test_bayes_finds_the_two_speakers_of_a_held_out_recording(pyannote_sample):
    """Another recording, embedder and score type (cosines, not PLDA LLRs) than the ES2005a matrix on which the
    defaults were chosen: the two speakers are found with nothing set, and the DER is a small fraction of one
    speaker's for everything."""
    sample = pyannote_sample
    assert sample.n_reference_speakers == 2 and sample.n_segments == 74
    result = lc.cluster_similarity(sample, "bayes")
    assert result.n_clusters == 2
    assert result.n_clusters_posterior.idxmax() == 2
    _assert_monotone(result.trace)
    segment = lc.segment_scores(result.labels, sample.reference)
    assert segment.error < 0.1
    der = lc.diarization_error_rate(sample.reference_turns, result.turns(sample.start, sample.end, sample.uri)).der
    one = lc.cluster_similarity(sample, "bayes", n_clusters=1)
    one_speaker_der = lc.diarization_error_rate(sample.reference_turns,
                                                one.turns(sample.start, sample.end, sample.uri)).der
    assert one_speaker_der > 0.4  # the shorter speaker's share of the speech
    assert der < 0.05


# ----- the chain over time and the smallest speaker ----------------------------------------------------------------

PLDA_CORPUS = ROOT / "tests" / "data" / "diarization_corpus" / "plda"


# plda_k01_b was a strict xfail (issue 32, crumbs): its scattered low-quality windows, its first and last among them,
# hold 4.2 to 4.6 s, above min_speech (4 s), and the recording's own two-Gaussian fit kept them as speakers; with the
# default prior by the kind of scores (the simulated-PLDA scale) they score as the same speaker and one remains.
@pytest.mark.parametrize("name", ["plda_k01_b"])
def test_a_window_that_fits_no_one_is_not_a_speaker(name):
    """One simulated speaker whose windows vary in quality (tools/simulate_plda_matrices.py): a low-quality window
    scores low against every other, and left alone the model makes it a speaker of its own; a speaker of less than
    `min_speech` seconds is merged into its best partner, and one speaker remains. Every stage's bound is monotone."""
    matrix = lc.read_similarity(PLDA_CORPUS / f"{name}.npz", reference=PLDA_CORPUS / f"{name}.rttm")
    alone = lc.cluster_similarity(matrix, "bayes", min_speech=0.0)
    assert alone.n_clusters > 1 and np.sort(alone.cluster_sizes)[0] <= 3  # outliers, a window or three each
    result = lc.cluster_similarity(matrix, "bayes")
    assert result.n_clusters == 1
    _assert_monotone(result.trace)
    assert result.options["min_speech"] == lc.diarization.MIN_SPEECH


def test_one_start_has_more_clusters_than_a_low_eigengap_estimate(monkeypatch):
    """plda_k09_balanced (9 simulated speakers) with the prior learnt from the other fold of the PLDA corpus (its odd
    rows): the eigengap says 2, and with starts of at most 2 K + 2 = 6 clusters every run ends at 6 or fewer (a run
    only loses clusters), DER 27 %. The over-clustered start of OVER_CLUSTERED = 20 ends at the 9 with a higher
    bound than every other run, DER 3.6 % (pyannote.metrics, collar 0.25 s, overlap ignored)."""
    from llrcore.diarization import cluster

    index = pd.read_csv(PLDA_CORPUS / "corpus.csv")
    matrices = [lc.read_similarity(PLDA_CORPUS / f"{name}.npz", reference=PLDA_CORPUS / f"{name}.rttm")
                for name in index["recording"]]
    number = int(np.flatnonzero(index["recording"] == "plda_k09_balanced")[0])
    prior = lc.diarization.BlockModelPrior.from_recordings(matrices[1 - number % 2::2])
    matrix = matrices[number]

    def fit():
        result = lc.cluster_similarity(matrix, "bayes", prior=prior)
        turns = result.turns(matrix.start, matrix.end, matrix.uri)
        return result, lc.diarization_error_rate(matrix.reference_turns, turns, collar=0.25, skip_overlap=True).der

    result, der = fit()
    assert lc.diarization.baselines.eigengap_clusters(result.eigenvalues, 1, 20) == 2
    assert result.n_clusters == 9 and der < 0.05
    over = result.runs[result.runs["initial_clusters"] == cluster.OVER_CLUSTERED]
    assert over["chosen"].all() and len(over) == 1

    monkeypatch.setattr(cluster, "OVER_CLUSTERED", 0)
    few, few_der = fit()
    assert few.runs["initial_clusters"].max() == 6 and few.n_clusters <= 6 and few_der > 0.2
    assert few.elbo < result.elbo


def test_segment_times_turn_on_the_chain_and_share_out_overlapping_windows(es2005a):
    """With times, the segments are a sticky chain with p = exp(-shift / mean_turn) and each window has shift/length
    of the evidence; the same scores without times are independent draws with 1/6 of it (x-vector windows) and one
    between-speaker Gaussian per pair of speakers."""
    from llrcore.diarization.cluster import _chain_options

    timed = _chain_options(es2005a, 37.5, 30.0, 4.0, None)
    shift = float(np.median(np.diff(es2005a.start)))
    length = float(np.median(es2005a.end - es2005a.start))
    times = timed.pop("times")
    assert timed == pytest.approx({"effective_scores": 37.5 * shift / length, "loop": np.exp(-shift / 30.0),
                                   "min_cluster_size": 4.0})  # seconds of speech, counted from `times`
    assert np.array_equal(times[0], es2005a.start) and np.array_equal(times[1], es2005a.end)
    bare = _chain_options(np.asarray(es2005a.scores), 37.5, 30.0, 4.0, None)
    assert bare == {"effective_scores": 37.5 / 6, "loop": 0.0, "min_cluster_size": 21,  # 2 % of 1,025 segments
                    "pair_between": True}
    with pytest.raises(ValueError, match="mean_turn"):
        lc.cluster_similarity(es2005a, "bayes", mean_turn=0.0)
    with pytest.raises(ValueError, match="min_speech"):
        lc.cluster_similarity(es2005a, "bayes", min_speech=-1.0)


def test_a_split_bisects_the_cluster_of_two_voices_and_a_memo_changes_nothing(es2005a):
    """split_least_coherent on ES2005a's PLDA LLRs with two reference speakers pooled in one cluster: the spectral
    bisection gains most there and cuts it along the speakers; the memo of bisections that a fit keeps gives the same
    responsibilities (one entry per cluster of two segments or more), and a second call reads it."""
    from llrcore.diarization.responsibilities import one_hot, split_least_coherent

    speakers = np.unique(es2005a.reference, return_inverse=True)[1]
    pooled = np.where(speakers == 1, 0, speakers)  # the first two speakers as one cluster
    D = np.asarray(es2005a.scores, dtype=np.float64).copy()
    np.fill_diagonal(D, 0.0)
    R = one_hot(pooled, smoothing=0.0)
    plain = split_least_coherent(D, R)
    memo: dict = {}
    assert np.array_equal(split_least_coherent(D, R, memo), plain)
    assert len(memo) == np.unique(pooled).size
    assert np.array_equal(split_least_coherent(D, R, memo), plain)
    reversed_gains = {key: (-gain, half) for key, (gain, half) in memo.items()}  # read, not recomputed:
    assert not np.array_equal(split_least_coherent(D, R, reversed_gains), plain)  # another cluster is split
    halves = [set(np.flatnonzero(np.argmax(plain, axis=1) == c)) for c in range(plain.shape[1])]
    first, second = set(np.flatnonzero(speakers == 0)), set(np.flatnonzero(speakers == 1))
    for speaker in (first, second):  # each half is mostly one speaker
        assert max(len(speaker & half) for half in halves) >= 0.9 * len(speaker)


def _corpus_scores(method: str, *, learnt: bool = False) -> pd.DataFrame:
    """Every recording of the development corpus clustered with nothing given, scored as bench_diarization_corpus.py
    scores it (pyannote.metrics, collar 0.25 s per side, overlap ignored, UEM the whole recording). `learnt`: with
    the prior learnt from the labelled recordings of the other fold (rows of its corpus.csv by parity), as the
    bench's bayes-learnt."""
    rows = []
    for kind, folder in (("cosine", PLDA_CORPUS.parent), ("plda", PLDA_CORPUS)):
        index = pd.read_csv(folder / "corpus.csv")
        matrices = [lc.read_similarity(folder / f"{name}.npz", reference=folder / f"{name}.rttm")
                    for name in index["recording"]]
        priors = [lc.diarization.BlockModelPrior.from_recordings(matrices[1 - fold::2]) for fold in (0, 1)]
        for number, (row, matrix) in enumerate(zip(index.itertuples(), matrices)):
            options = {"prior": priors[number % 2]} if learnt else {}
            result = lc.cluster_similarity(matrix, method, **options)
            uem = pd.DataFrame({"uri": [row.recording], "start": [0.0], "end": [row.duration]})
            der = lc.diarization_error_rate(matrix.reference_turns, result.turns(matrix.start, matrix.end, matrix.uri),
                                            uem=uem, collar=0.25, skip_overlap=True).der
            rows.append({"kind": kind, "right": result.n_clusters == row.K, "der": der})
    return pd.DataFrame(rows)


def test_readme_s_development_corpus_numbers():
    """docs/diarization.md, "A development corpus" and "A score model learnt from labelled recordings": right K and
    mean DER per half for the Bayesian model (the default prior by the kind of scores, and one learnt on the other
    fold) and NME-SC, and over all 44. The default's numbers changed with issue 32 (the prior by the kind of scores instead of
    the recording's own fit, which had 12/24 (19.6 %), 15/20 (6.9 %); 13.8 % and 27 over all 44; clusters that do
    not cohere merged, model.MIN_COHERENCE; and NME-SC's count as the fewest speakers on cosines,
    cluster.EIGENGAP_FLOOR_KINDS, without which it had 13/24 (20.2 %); 12.8 % and 31 over all 44), and with issue 46
    (a floor met by a crumb takes NME-SC's partition: the cosines' mean DER was 13.0 %, 8.9 % over all 44)."""
    bayes, nme, learnt = _corpus_scores("bayes"), _corpus_scores("nme-sc"), _corpus_scores("bayes", learnt=True)
    for frame, expected in ((bayes, {"cosine": (16, 12.1), "plda": (18, 4.0)}),
                            (nme, {"cosine": (15, 13.0), "plda": (16, 15.7)}),
                            (learnt, {"cosine": (17, 14.7), "plda": (20, 3.4)})):
        measured = {kind: (int(part["right"].sum()), round(100 * part["der"].mean(), 1))
                    for kind, part in frame.groupby("kind")}
        assert measured == expected
    assert [round(100 * f["der"].mean(), 1) for f in (bayes, nme, learnt)] == [8.4, 14.2, 9.6]
    assert [int(f["right"].sum()) for f in (bayes, nme, learnt)] == [34, 31, 37]
