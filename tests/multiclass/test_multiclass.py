"""Multiclass Cllr, the direction-preserving calibration, pair-wise and detection analyses, MAP decisions.

References are independent of llrcore: the normalised cross-entropies and error rates published for four real
systems (tests/data/multiclass/PUBLISHED.txt), closed forms (log2 N, the prior's entropy), the paper's equations
written out with loops, scipy/sklearn peers (log_softmax, log_loss, BFGS on an objective coded here, logistic
regression, confusion_matrix). The data are read with numpy directly, not with llrcore's reader.
"""
from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from scipy import optimize
from scipy.special import log_softmax, softmax

import llrcore as lc
import paths

DATA = paths.DATA / "multiclass"
# name -> (folder, published normalised CE of the raw scores, after cross-validated affine calibration "cal",
#          published 1-ACC, published C01 normalised expected cost): PUBLISHED.txt
PUBLISHED = {
    "IEMOCAP": ("iemocap_wav2vec_pt", 0.635, 0.615, 0.349, 0.504),
    "AGNEWS": ("agnews_gpt2", 0.814, 0.536, 0.585, 0.780),
    "CIFAR10": ("cifar10_resnet-20", 0.122, 0.101, 0.074, 0.082),
    "SST2": ("sst2_gpt2", 0.917, 0.495, 0.414, 0.828),
}
COUNTS = {"IEMOCAP": [1103, 1611, 1684, 1075], "AGNEWS": [1900] * 4, "CIFAR10": [1000] * 10, "SST2": [912, 909]}


def load(name: str) -> tuple[np.ndarray, np.ndarray]:
    folder = DATA / PUBLISHED[name][0]
    scores = np.load(folder / "scores.npy", allow_pickle=False).astype(np.float64)
    labels = np.load(folder / "targets.npy", allow_pickle=False)
    assert np.bincount(labels).tolist() == COUNTS[name]  # SOURCE.txt
    return scores, labels


def published_llrs(name: str):
    """As in the publication: log_softmax(scores), minus the log of the empirical prior (which the CE uses)."""
    scores, labels = load(name)
    prior = np.bincount(labels) / labels.size
    return log_softmax(scores, axis=1) - np.log(prior), labels, prior


def entropy_bits(prior) -> float:
    prior = np.asarray(prior)
    return float(-(prior * np.log2(prior)).sum())


def gaussian_trials(n_classes=5, n=3000, seed=0, scale=2.5, shift=None):
    """LLR-like vectors: the true class's component raised, Gaussian noise, over-confident by `scale`."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, n_classes, n)
    llrs = scale * (1.5 * np.eye(n_classes)[labels] + rng.normal(0, 1, (n, n_classes)))
    if shift is not None:
        llrs += shift
    return llrs, labels


def reference_cllr(llrs, labels, prior):
    """The multiclass Cllr written out from its definition, with scipy's log_softmax."""
    log_post = log_softmax(llrs + np.log(prior), axis=1)
    return -sum(prior[i] * log_post[labels == i, i].mean() for i in range(prior.size) if prior[i] > 0) / np.log(2)


# ----- multiclass Cllr -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", PUBLISHED)
def test_normalised_cross_entropy_reproduces_the_published_value(name):
    llrs, labels, prior = published_llrs(name)
    value = lc.multiclass_cllr(llrs, labels, prior=prior) / entropy_bits(prior)
    assert abs(value - PUBLISHED[name][1]) <= 5e-4  # published to 3 decimals
    assert lc.multiclass_cllr(llrs, labels, prior="empirical") == pytest.approx(value * entropy_bits(prior), 1e-12)


@pytest.mark.parametrize("name", PUBLISHED)
def test_calibration_on_the_trials_matches_the_published_cross_validated_calibration(name):
    # The publication calibrates with the same affine family by cross-validation; training on the test trials
    # themselves can only be a little better (it is the optimum on these trials).
    llrs, labels, prior = published_llrs(name)
    calibrated = lc.fit_multiclass_affine(llrs, labels, prior=prior)(llrs)
    value = lc.multiclass_cllr(calibrated, labels, prior=prior) / entropy_bits(prior)
    assert PUBLISHED[name][2] - 0.005 <= value <= PUBLISHED[name][2] + 5e-4


@pytest.mark.parametrize("name", PUBLISHED)
def test_map_identification_error_rates_reproduce_the_published_ones(name):
    llrs, labels, prior = published_llrs(name)
    errors = lc.identification_errors(llrs, labels, prior)
    assert abs(errors.error_rate - PUBLISHED[name][3]) <= 5e-4  # 1 - accuracy
    assert abs(errors.normalised_error - PUBLISHED[name][4]) <= 5e-4  # normalised expected cost, 0-1 costs


def test_cllr_equals_sklearn_log_loss_with_the_empirical_prior():
    from sklearn.metrics import log_loss

    llrs, labels = gaussian_trials(4, 2000, seed=3)
    prior = np.bincount(labels) / labels.size
    posteriors = softmax(llrs + np.log(prior), axis=1)
    expected = log_loss(labels, posteriors, labels=np.arange(4)) / np.log(2)
    assert lc.multiclass_cllr(llrs, labels, prior="empirical") == pytest.approx(expected, rel=1e-10)


def test_cllr_is_equation_17_of_the_paper_written_out():
    llrs, labels = gaussian_trials(4, 300, seed=4)
    n = llrs.shape[1]
    total = 0.0
    for i in range(n):
        trials = llrs[labels == i]
        total += np.mean([np.log2(sum(np.exp(-(t[i] - t[j])) for j in range(n))) for t in trials])
    assert lc.multiclass_cllr(llrs, labels) == pytest.approx(total / n, rel=1e-12)


@pytest.mark.parametrize("n", [2, 3, 7, 20])
def test_a_useless_system_scores_log2_n(n):
    labels = np.arange(5 * n) % n
    assert lc.multiclass_cllr(np.zeros((5 * n, n)), labels) == pytest.approx(np.log2(n), abs=1e-14)
    assert lc.multiclass_cllr(np.full((5 * n, n), 3.7), labels) == pytest.approx(np.log2(n), abs=1e-14)


def test_a_useless_system_scores_the_entropy_of_any_prior():
    prior = np.array([0.5, 0.3, 0.15, 0.05])
    labels = np.arange(40) % 4
    assert lc.multiclass_cllr(np.zeros((40, 4)), labels, prior) == pytest.approx(entropy_bits(prior), abs=1e-14)


def test_two_classes_give_the_binary_cllr():
    llrs, labels = gaussian_trials(2, 1000, seed=5)
    d = llrs[:, 1] - llrs[:, 0]
    assert lc.multiclass_cllr(llrs, labels) == pytest.approx(lc.cllr(d[labels == 1], d[labels == 0]), rel=1e-12)


def test_cllr_ignores_a_constant_added_to_each_trial_and_matches_the_reference_at_any_prior():
    llrs, labels = gaussian_trials(5, 2000, seed=6)
    prior = np.array([0.1, 0.4, 0.2, 0.2, 0.1])
    shifted = llrs + np.random.default_rng(1).normal(0, 50, (llrs.shape[0], 1))
    value = lc.multiclass_cllr(llrs, labels, prior)
    assert value == pytest.approx(reference_cllr(llrs, labels, prior), rel=1e-12)
    assert lc.multiclass_cllr(shifted, labels, prior) == pytest.approx(value, rel=1e-10)


def test_a_prior_on_two_classes_is_their_pairwise_binary_cllr():
    llrs, labels = gaussian_trials(4, 2000, seed=7)
    prior = np.array([0.0, 0.5, 0.0, 0.5])
    d = llrs[:, 1] - llrs[:, 3]
    expected = lc.cllr(d[labels == 1], d[labels == 3])
    assert lc.multiclass_cllr(llrs, labels, prior) == pytest.approx(expected, rel=1e-12)


def test_ruled_out_true_class_costs_infinity():
    llrs = np.array([[0.0, -np.inf], [0.0, 1.0]])
    assert lc.multiclass_cllr(llrs, np.array([1, 0])) == np.inf


def test_multiclass_scores_validate_their_input():
    with pytest.raises(ValueError, match="NaN"):
        lc.MulticlassScores([[0.0, np.nan]], [0])
    with pytest.raises(ValueError, match=r"\+inf"):
        lc.MulticlassScores([[0.0, np.inf], [0, 1]], [0, 1])
    with pytest.raises(ValueError, match="not a class number"):
        lc.MulticlassScores([[0.0, 1.0], [1, 0]], [0, 2])
    with pytest.raises(ValueError, match="no trials of class 'b'"):
        lc.MulticlassScores([[0.0, 1.0], [1, 0]], [0, 0], classes=["a", "b"])
    with pytest.raises(ValueError, match="3 labels"):
        lc.MulticlassScores([[0.0, 1.0], [1, 0]], [0, 1, 1])
    with pytest.raises(ValueError, match="prior has 3 values"):
        lc.multiclass_cllr([[0.0, 1.0], [1, 0]], [0, 1], prior=[0.2, 0.3, 0.5])
    with pytest.raises(ValueError, match="no trials of class"):
        lc.multiclass_cllr([[0.0, 1.0, 0.0], [1, 0, 0]], [0, 1])
    scores = lc.MulticlassScores(np.eye(3), [0, 1, 2], classes=["a", "b", "c"])
    assert not scores.llrs.flags.writeable and scores.class_index("c") == 2


# ----- calibration ---------------------------------------------------------------------------------------------------


def objective_bits(theta, llrs, labels, prior):
    """Cllr of alpha * l + (gamma_0 .. gamma_{N-2}, 0), coded independently of llrcore."""
    gamma = np.append(theta[1:], 0.0)
    return reference_cllr(theta[0] * llrs + gamma, labels, prior)


def objective_gradient(theta, llrs, labels, prior):
    """Analytic gradient of :func:`objective_bits` (bits), written from the softmax derivative."""
    gamma = np.append(theta[1:], 0.0)
    posteriors = softmax(theta[0] * llrs + gamma + np.log(prior), axis=1)
    weights = (prior / np.bincount(labels, minlength=prior.size))[labels][:, None]
    residual = weights * (posteriors - np.eye(prior.size)[labels])
    return np.concatenate([[np.sum(residual * llrs)], residual.sum(axis=0)[:-1]]) / np.log(2)


def as_theta(calibration) -> np.ndarray:
    return np.concatenate([[calibration.scale], calibration.offsets[:-1] - calibration.offsets[-1]])


@pytest.mark.parametrize("name", ["IEMOCAP", "AGNEWS", "CIFAR10"])
def test_calibration_is_the_exact_optimum_bfgs_agrees(name):
    scores, labels = load(name)
    llrs = log_softmax(scores, axis=1)
    prior = np.full(llrs.shape[1], 1 / llrs.shape[1])
    calibration = lc.fit_multiclass_affine(llrs, labels)
    theta = as_theta(calibration)
    assert np.abs(objective_gradient(theta, llrs, labels, prior)).max() < 1e-10
    start = np.concatenate([[1.0], np.zeros(llrs.shape[1] - 1)])
    bfgs = optimize.minimize(objective_bits, start, args=(llrs, labels, prior), jac=objective_gradient,
                             method="BFGS", options={"gtol": 1e-10, "maxiter": 2000})
    value = lc.multiclass_cllr(calibration(llrs), labels)
    assert value == pytest.approx(bfgs.fun, abs=1e-10)
    assert value <= bfgs.fun + 1e-12
    np.testing.assert_allclose(theta, bfgs.x, atol=2e-5)
    assert abs(calibration.offsets.sum()) < 1e-12


def test_two_class_calibration_is_weighted_logistic_regression():
    from sklearn.linear_model import LogisticRegression

    llrs, labels = load("SST2")
    d = llrs[:, 1] - llrs[:, 0]
    weights = 0.5 / np.bincount(labels)[labels]
    model = LogisticRegression(C=np.inf, tol=1e-12, max_iter=10_000).fit(d[:, None], labels,
                                                                          sample_weight=weights * d.size)
    calibration = lc.fit_multiclass_affine(llrs, labels)
    assert calibration.scale == pytest.approx(model.coef_[0, 0], rel=1e-6)
    assert calibration.offsets[1] - calibration.offsets[0] == pytest.approx(model.intercept_[0], abs=1e-6)


def test_calibration_at_a_prior_is_the_exact_optimum_and_ignores_zero_prior_classes():
    llrs, labels = gaussian_trials(5, 4000, seed=8)
    prior = np.array([0.3, 0.0, 0.4, 0.2, 0.1])
    calibration = lc.fit_multiclass_affine(llrs, labels, prior=prior)
    active = prior > 0
    reduced = lc.fit_multiclass_affine(llrs[active[labels]][:, active],
                                       np.cumsum(active)[labels[active[labels]]] - 1, prior=prior[active])
    assert calibration.scale == pytest.approx(reduced.scale, rel=1e-9)
    gaps = np.diff(calibration.offsets[active]), np.diff(reduced.offsets)
    np.testing.assert_allclose(*gaps, atol=1e-8)
    theta = np.concatenate([[reduced.scale], reduced.offsets[:-1] - reduced.offsets[-1]])
    sub_llrs, sub_labels = llrs[active[labels]][:, active], np.cumsum(active)[labels[active[labels]]] - 1
    assert np.abs(objective_gradient(theta, sub_llrs, sub_labels, prior[active])).max() < 1e-10


def test_calibration_ignores_trial_constants_and_follows_a_permutation_of_the_classes():
    llrs, labels = gaussian_trials(4, 3000, seed=9)
    base = lc.fit_multiclass_affine(llrs, labels)
    shifted = lc.fit_multiclass_affine(llrs + np.random.default_rng(2).normal(0, 9, (llrs.shape[0], 1)), labels)
    assert shifted.scale == pytest.approx(base.scale, rel=1e-8)
    np.testing.assert_allclose(shifted.offsets, base.offsets, atol=1e-8)
    order = np.array([2, 0, 3, 1])
    permuted = lc.fit_multiclass_affine(llrs[:, order], np.argsort(order)[labels])
    assert permuted.scale == pytest.approx(base.scale, rel=1e-8)
    np.testing.assert_allclose(permuted.offsets, base.offsets[order], atol=1e-8)


def test_calibration_recovers_a_known_miscalibration():
    # Perfectly calibrated LLRs (they are the log-likelihoods of the generating model) distorted by scale 3 and
    # offsets: the fit must (nearly) undo it.
    rng = np.random.default_rng(10)
    n, k = 200_000, 3
    labels = rng.integers(0, k, n)
    means = 1.2 * np.eye(k)
    x = means[labels] + rng.normal(0, 1, (n, k))
    true_llrs = x @ means.T  # log N(x; m_i, I) up to a constant per trial
    offsets = np.array([0.5, -1.0, 0.5])
    calibration = lc.fit_multiclass_affine(3.0 * true_llrs + offsets, labels)
    assert calibration.scale == pytest.approx(1 / 3, rel=0.02)
    np.testing.assert_allclose(calibration.offsets, -offsets / 3, atol=0.03)


def test_large_set_subsample_then_polish_is_still_the_exact_optimum():
    llrs, labels = gaussian_trials(4, 260_000, seed=11, shift=np.array([0.0, 1.0, -2.0, 0.5]))
    prior = np.full(4, 0.25)
    theta = as_theta(lc.fit_multiclass_affine(llrs, labels))
    assert np.abs(objective_gradient(theta, llrs, labels, prior)).max() < 1e-9


def test_separated_classes_are_refused():
    llrs = np.array([[3.0, 0.0], [2.0, 0.0], [0.0, 2.0], [0.0, 4.0]])
    with pytest.raises(ValueError, match="separate the classes perfectly"):
        lc.fit_multiclass_affine(llrs, np.array([0, 0, 1, 1]))
    with pytest.raises(ValueError, match="finite"):
        lc.fit_multiclass_affine(np.array([[0.0, -np.inf], [0, 1], [1, 0]]), np.array([0, 1, 0]))


# ----- pair-wise -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["IEMOCAP", "CIFAR10"])
def test_pairwise_min_cllr_is_unchanged_by_calibration_and_bounds_both_cllrs(name):
    scores, labels = load(name)
    llrs = log_softmax(scores, axis=1)
    calibration = lc.fit_multiclass_affine(llrs, labels)
    calibrated = calibration(llrs)
    table = lc.pairwise_analysis(llrs, labels, calibrated=calibrated)
    n = llrs.shape[1]
    assert len(table) == n * (n - 1) // 2
    assert list(table.columns) == ["class_a", "class_b", "cllr", "cllr_calibrated", "min_cllr"]
    for row, (a, b) in zip(table.itertuples(), combinations(range(n), 2)):
        assert (row.class_a, row.class_b) == (str(a), str(b))
        tar, non = labels == a, labels == b
        d, dc = llrs[:, a] - llrs[:, b], calibrated[:, a] - calibrated[:, b]
        assert row.cllr == pytest.approx(lc.cllr(d[tar], d[non]), rel=1e-12)
        assert row.cllr_calibrated == pytest.approx(lc.cllr(dc[tar], dc[non]), rel=1e-12)
        assert row.min_cllr == pytest.approx(lc.min_cllr(dc[tar], dc[non]), abs=1e-12)  # unchanged
        assert row.min_cllr <= min(row.cllr, row.cllr_calibrated) + 1e-12


def test_pairwise_default_calibration_and_names():
    scores = lc.MulticlassScores(*gaussian_trials(3, 900, seed=12), classes=["eng", "hin", "man"])
    table = lc.pairwise_analysis(scores)
    assert table[["class_a", "class_b"]].values.tolist() == [["eng", "hin"], ["eng", "man"], ["hin", "man"]]
    calibration = lc.fit_multiclass_affine(scores)
    expected = lc.pairwise_analysis(scores.llrs, scores.labels, calibration, classes=scores.classes)
    np.testing.assert_allclose(table["cllr_calibrated"], expected["cllr_calibrated"], rtol=1e-12)


# ----- detection -----------------------------------------------------------------------------------------------------


def test_detection_llr_is_equation_9_written_out():
    llrs, _ = gaussian_trials(5, 200, seed=13)
    prior = np.array([0.1, 0.3, 0.2, 0.25, 0.15])
    t = 2
    expected = [-np.log(sum(prior[i] / (1 - prior[t]) * np.exp(-(row[t] - row[i])) for i in range(5) if i != t))
                for row in llrs]
    np.testing.assert_allclose(lc.detection_llrs(llrs, t, prior), expected, rtol=1e-12, atol=1e-12)
    flat = [-np.log(np.mean([np.exp(-(row[t] - row[i])) for i in range(5) if i != t])) for row in llrs]
    np.testing.assert_allclose(lc.detection_llrs(llrs, t), flat, rtol=1e-12, atol=1e-12)


def test_detection_llr_is_the_posterior_log_odds_minus_the_prior_log_odds():
    llrs, _ = gaussian_trials(4, 500, seed=14)
    prior = np.array([0.1, 0.2, 0.3, 0.4])
    posterior = softmax(llrs + np.log(prior), axis=1)[:, 1]
    expected = np.log(posterior) - np.log1p(-posterior) - (np.log(prior[1]) - np.log1p(-prior[1]))
    np.testing.assert_allclose(lc.detection_llrs(llrs, 1, prior), expected, rtol=1e-9, atol=1e-9)
    two = np.column_stack([llrs[:, 0], llrs[:, 3]])
    np.testing.assert_allclose(lc.detection_llrs(two, 1), two[:, 1] - two[:, 0], atol=1e-12)


def test_detection_analysis_uses_the_binary_tools_on_detection_trials():
    scores = lc.MulticlassScores(*load("IEMOCAP"), classes=["anger", "happiness", "neutral", "sadness"])
    table = lc.detection_analysis(scores)
    assert table["target"].tolist() == list(scores.classes)
    assert table["n_target"].tolist() == COUNTS["IEMOCAP"]
    det = lc.detection_llrs(scores.llrs, 1)
    tar, non = det[scores.labels == 1], det[scores.labels != 1]
    row = table.iloc[1]
    assert row["cllr"] == pytest.approx(lc.cllr(tar, non), rel=1e-12)
    assert row["min_cllr"] == pytest.approx(lc.min_cllr(tar, non), rel=1e-12)
    assert row["eer"] == pytest.approx(lc.eer(tar, non), rel=1e-12)
    assert (table["cllr_calibrated"] < table["cllr"]).all()  # the paper's finding, here on IEMOCAP too
    trials = lc.detection_trials(scores, target="happiness")
    assert trials.name == "happiness" and trials.tar.size == 1611


# ----- decisions -----------------------------------------------------------------------------------------------------


def test_map_decisions_are_the_largest_posterior_and_confusion_matches_sklearn():
    from sklearn.metrics import confusion_matrix

    llrs, labels = gaussian_trials(4, 3000, seed=15)
    prior = np.array([0.05, 0.15, 0.3, 0.5])
    decisions = lc.map_decisions(llrs, prior)
    np.testing.assert_array_equal(decisions, np.argmax(softmax(llrs + np.log(prior), axis=1), axis=1))
    errors = lc.identification_errors(llrs, labels, prior)
    expected = confusion_matrix(labels, decisions, labels=np.arange(4))
    np.testing.assert_array_equal(errors.confusion, expected)
    class_error = 1 - np.diag(expected) / expected.sum(axis=1)
    assert errors.error_rate == pytest.approx(prior @ class_error, rel=1e-12)
    assert errors.default_error == pytest.approx(0.5)
    assert errors.to_frame().loc["1", "2"] == expected[1, 2]


def test_detection_and_pairwise_decisions_follow_bayes_and_equation_11():
    llrs, _ = gaussian_trials(5, 4000, seed=16)
    prior = np.array([0.1, 0.35, 0.2, 0.25, 0.1])
    t = 1
    posterior = softmax(llrs + np.log(prior), axis=1)
    detected = lc.detection_decisions(llrs, t, prior)
    np.testing.assert_array_equal(detected, posterior[:, t] >= 0.5)
    # eq. 11: detecting H_t requires every pair-wise threshold to be passed (necessary, not sufficient)
    passed = np.all([lc.pairwise_decisions(llrs, t, i, prior) for i in range(5) if i != t], axis=0)
    assert np.all(passed[detected])
    assert passed.sum() > detected.sum()
    a, b = 2, 4
    np.testing.assert_array_equal(lc.pairwise_decisions(llrs, a, b, prior), posterior[:, a] >= posterior[:, b])


def test_scores_to_llrs_removes_the_training_prior():
    scores, labels = load("IEMOCAP")
    prior = np.bincount(labels) / labels.size
    llrs = lc.scores_to_llrs(scores, "log-posterior", "empirical", labels)
    np.testing.assert_allclose(llrs, scores - np.log(prior))
    logits = lc.scores_to_llrs(scores + 5.0, "logit")
    assert lc.multiclass_cllr(logits, labels) == pytest.approx(lc.multiclass_cllr(scores, labels), rel=1e-12)
    with pytest.raises(ValueError, match="training prior"):
        lc.scores_to_llrs(scores, "llr", "empirical", labels)
    with pytest.raises(ValueError, match="not known"):
        lc.scores_to_llrs(scores, "probabilities")


def test_analyse_multiclass_bundles_everything():
    scores = lc.MulticlassScores(*gaussian_trials(3, 1500, seed=17))
    analysis = lc.analyse_multiclass(scores)
    assert analysis.reference == pytest.approx(np.log2(3))
    assert analysis.cllr == pytest.approx(lc.multiclass_cllr(scores))
    assert analysis.cllr_calibrated < analysis.cllr
    assert analysis.calibration_loss == pytest.approx(analysis.cllr - analysis.cllr_calibrated)
    np.testing.assert_allclose(analysis.calibrated, analysis.calibration(scores.llrs))
    assert len(analysis.pairwise) == 3 and len(analysis.detection) == 3
