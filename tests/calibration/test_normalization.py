"""Score normalisation (Z-, T-, S- and adaptive S-norm): ``lc.normalize_scores`` against its peers' formulas.

Independent references:

- WeSpeaker ``wespeaker/bin/score_norm.py`` (https://github.com/wenet-e2e/wespeaker/blob/
  dfa741957e5c11f477623b6e583d67d0af25ee88/wespeaker/bin/score_norm.py, commit dfa74195): ``get_mean_std`` and the
  per-trial loop of ``main`` reimplemented literally below (full sort descending, ``[:top_n]``, ``np.mean``,
  ``np.std``; S-norm is its ``top_n = cohort size``), top_n = 300 of ``examples/voxceleb/v2/run.sh``;
- SpeechBrain ``recipes/VoxCeleb/SpeakerRec/speaker_verification_cosine.py`` (https://github.com/speechbrain/
  speechbrain/blob/9c826ef3937bac885c8a6ca86c6889a30f256fb5/recipes/VoxCeleb/SpeakerRec/
  speaker_verification_cosine.py, commit 9c826ef3): ``get_verification_scores`` reimplemented literally per trial
  with numpy in place of torch (torch is not installed here): ``CosineSimilarity(eps=1e-6)``, ``torch.topk(k,
  dim=0)[0]`` = the k largest, ``torch.mean``, ``torch.std`` = the unbiased (Bessel, ``ddof=1``) estimate as torch
  documents its default;
- hand values of a four-recording cohort.
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import llrcore as lc
from paths import ROOT

DATA = ROOT / "assets/normalization_demo"  # the demo data, also the tests'


# ----- the peers, literally -----------------------------------------------------------------------------------------
def wespeaker_get_mean_std(emb, cohort, top_n):
    emb = emb / np.sqrt(np.sum(emb**2, axis=1, keepdims=True))
    cohort = cohort / np.sqrt(np.sum(cohort**2, axis=1, keepdims=True))
    emb_cohort_score = np.matmul(emb, cohort.T)
    emb_cohort_score = np.sort(emb_cohort_score, axis=1)[:, ::-1]
    emb_cohort_score_topn = emb_cohort_score[:, :top_n]
    emb_mean = np.mean(emb_cohort_score_topn, axis=1)
    emb_std = np.std(emb_cohort_score_topn, axis=1)
    return emb_mean, emb_std


def wespeaker_score_norm(lines, enroll_emb, test_emb, cohort_emb, enroll_utt2idx, test_utt2idx, method, top_n):
    if method == "snorm":
        top_n = cohort_emb.shape[0]
    enroll_mean, enroll_std = wespeaker_get_mean_std(enroll_emb, cohort_emb, top_n)
    test_mean, test_std = wespeaker_get_mean_std(test_emb, cohort_emb, top_n)
    out = []
    for line in lines:
        line = line.strip().split()
        enroll_idx = enroll_utt2idx[line[0]]
        test_idx = test_utt2idx[line[1]]
        score = float(line[2])
        normed_score = 0.5 * ((score - enroll_mean[enroll_idx]) / enroll_std[enroll_idx]
                              + (score - test_mean[test_idx]) / test_std[test_idx])
        out.append(normed_score)
    return np.array(out)


def speechbrain_cosine(a, b, eps=1e-6):
    return np.sum(a * b, axis=-1) / np.maximum(np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1), eps)


def speechbrain_scores(trials, enrol_dict, test_dict, train_cohort, score_norm, cohort_size=None):
    scores = []
    for enrol_id, test_id in trials:
        enrol, test = enrol_dict[enrol_id], test_dict[test_id]
        score_e_c = speechbrain_cosine(enrol[None, :], train_cohort)
        if cohort_size is not None:
            score_e_c = np.sort(score_e_c)[::-1][:cohort_size]  # torch.topk(k, dim=0)[0]
        mean_e_c, std_e_c = np.mean(score_e_c), np.std(score_e_c, ddof=1)  # torch.std: unbiased
        score_t_c = speechbrain_cosine(test[None, :], train_cohort)
        if cohort_size is not None:
            score_t_c = np.sort(score_t_c)[::-1][:cohort_size]
        mean_t_c, std_t_c = np.mean(score_t_c), np.std(score_t_c, ddof=1)
        score = speechbrain_cosine(enrol, test)
        if score_norm == "z-norm":
            score = (score - mean_e_c) / std_e_c
        elif score_norm == "t-norm":
            score = (score - mean_t_c) / std_t_c
        elif score_norm == "s-norm":
            score = 0.5 * ((score - mean_e_c) / std_e_c + (score - mean_t_c) / std_t_c)
        scores.append(score)
    return np.array(scores)


# ----- a small embedding world ----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def world():
    rng = np.random.default_rng(5)
    dim, n_enrol, n_test, n_cohort = 16, 12, 30, 500
    enrol = rng.normal(size=(n_enrol, dim)) + rng.normal(size=dim)
    test = rng.normal(size=(n_test, dim)) + rng.normal(size=dim)
    cohort = rng.normal(size=(n_cohort, dim))
    enrol_ids = [f"e{i}" for i in range(n_enrol)]
    test_ids = [f"t{j}" for j in range(n_test)]
    pairs = [(enrol_ids[i], test_ids[j]) for i in range(n_enrol) for j in range(n_test) if (i + j) % 3 == 0]
    e_dict = dict(zip(enrol_ids, enrol))
    t_dict = dict(zip(test_ids, test))
    raw = np.array([speechbrain_cosine(e_dict[m], t_dict[t]) for m, t in pairs])
    labels = np.array([(int(m[1:]) + int(t[1:])) % 2 == 0 for m, t in pairs])
    metadata = pd.DataFrame(pairs, columns=["model", "test"])
    trials = lc.Trials.from_labels(raw, labels, name="sys", metadata=metadata)
    return dict(enrol=enrol, test=test, cohort=cohort, enrol_ids=enrol_ids, test_ids=test_ids, pairs=pairs,
                raw=raw, labels=labels, trials=trials,
                enrol_cohort=lc.CohortScores.from_embeddings(enrol_ids, enrol, cohort),
                test_cohort=lc.CohortScores.from_embeddings(test_ids, test, cohort))


def in_trial_order(world, values):
    """Values given per pair (file order) in the order of Trials.scores (targets first, stable)."""
    labels = world["labels"]
    return np.concatenate([values[labels], values[~labels]])


def normalized(world, method, **kw):
    return lc.normalize_scores(world["trials"], world["enrol_cohort"], world["test_cohort"], method, **kw).scores


@pytest.mark.parametrize("method, top_n", [("snorm", None), ("asnorm", 300), ("asnorm", 50)])
def test_equals_wespeaker_score_norm(world, method, top_n):
    lines = [f"{m} {t} {float(s)!r} x" for (m, t), s in zip(world["pairs"], world["raw"])]
    reference = wespeaker_score_norm(lines, world["enrol"], world["test"], world["cohort"],
                                     {k: i for i, k in enumerate(world["enrol_ids"])},
                                     {k: i for i, k in enumerate(world["test_ids"])}, method, top_n)
    ours = normalized(world, "as-norm" if method == "asnorm" else "s-norm", top_n=top_n)
    np.testing.assert_allclose(ours, in_trial_order(world, reference), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("method", ["z-norm", "t-norm", "s-norm"])
@pytest.mark.parametrize("cohort_size", [None, 100])
def test_equals_speechbrain_with_ddof_1(world, method, cohort_size):
    reference = speechbrain_scores(world["pairs"], dict(zip(world["enrol_ids"], world["enrol"])),
                                   dict(zip(world["test_ids"], world["test"])), world["cohort"], method, cohort_size)
    ours = normalized(world, method, top_n=cohort_size, ddof=1)
    np.testing.assert_allclose(ours, in_trial_order(world, reference), rtol=1e-10, atol=1e-12)


def test_as_norm_defaults_to_wespeakers_top_300(world):
    np.testing.assert_array_equal(normalized(world, "as-norm"), normalized(world, "as-norm", top_n=300))
    assert not np.allclose(normalized(world, "as-norm"), normalized(world, "s-norm"))
    name = lc.normalize_scores(world["trials"], world["enrol_cohort"], world["test_cohort"]).name
    assert name == "sys (as-norm, top 300)"


def test_hand_values():
    # model m: cohort scores 1, 2, 3, 4 -> mean 2.5, std (ddof 0) sqrt(1.25); test t: 0, 0, 2, 2 -> mean 1, std 1
    enrol = lc.CohortScores(["m"], [[1.0, 2.0, 3.0, 4.0]], ["c1", "c2", "c3", "c4"])
    test = lc.CohortScores(["t"], [[0.0, 0.0, 2.0, 2.0]], ["c1", "c2", "c3", "c4"])
    meta = pd.DataFrame({"model": ["m", "m"], "test": ["t", "t"]})
    trials = lc.Trials([5.0], [1.0], metadata=meta)
    z = lc.normalize_scores(trials, enrol, test, "z-norm")
    np.testing.assert_allclose(z.scores, [2.5 / np.sqrt(1.25), -1.5 / np.sqrt(1.25)])
    t = lc.normalize_scores(trials, enrol, test, "t-norm")
    np.testing.assert_allclose(t.scores, [4.0, 0.0])
    s = lc.normalize_scores(trials, enrol, test, "s-norm")
    np.testing.assert_allclose(s.scores, (z.scores + t.scores) / 2)
    # top 2: model 3, 4 -> mean 3.5, std 0.5; test 2, 2 has no spread
    with pytest.raises(ValueError, match="all equal"):
        lc.normalize_scores(trials, enrol, test, "as-norm", top_n=2)
    z2 = lc.normalize_scores(trials, enrol, test, "z-norm", top_n=2, ddof=1)
    np.testing.assert_allclose(z2.scores, [(5 - 3.5) / np.sqrt(0.5), (1 - 3.5) / np.sqrt(0.5)])
    np.testing.assert_allclose(z.metadata["model_cohort_mean"], [2.5, 2.5])


def test_long_table_in_memory_equals_matrix(world):
    frame = world["enrol_cohort"].to_frame().sample(frac=1.0, random_state=1)  # any order of lines
    a = lc.normalize_scores(world["trials"], frame, world["test_cohort"], "s-norm")
    np.testing.assert_allclose(a.scores, normalized(world, "s-norm"), rtol=1e-13)


def test_same_trials_metadata_and_spoof():
    meta = pd.DataFrame({"model": ["a", "a", "b"], "test": ["x", "y", "z"], "attack": ["-", "-", "A07"]})
    trials = lc.Trials([0.9], [0.1], spoof=[0.5], metadata=meta, name="cm")
    cohort = lc.CohortScores(["a", "b", "x", "y", "z"], np.arange(20.0).reshape(5, 4) ** 1.5)
    out = lc.normalize_scores(trials, cohort, cohort, "s-norm")
    assert (out.tar.size, out.non.size, out.spoof.size) == (1, 1, 1)
    assert list(out.metadata["attack"]) == ["-", "-", "A07"]
    expected_spoof = 0.5 * sum((0.5 - r.mean()) / r.std() for r in (cohort.scores[1], cohort.scores[4]))
    np.testing.assert_allclose(out.spoof, [expected_spoof])


def test_cohort_leakage_warns_with_counts(world):
    leaky = lc.CohortScores(world["enrol_ids"], world["enrol_cohort"].scores,
                            ["e1", "e2", "t5"] + [f"c{j}" for j in range(497)])
    with pytest.warns(UserWarning, match=r"Cohort leakage: 3 of the 500 .* \(2 among the model ids, 1 among the test"):
        lc.normalize_scores(world["trials"], leaky, world["test_cohort"], "s-norm")
    problems = lc.normalization_problems(world["trials"], "s-norm", leaky, world["test_cohort"])
    assert len(problems) == 1 and "enrolment cohort" in problems[0]


def test_one_sided_norm_of_a_one_to_one_list_warns():
    meta = pd.DataFrame({"model": ["a", "b", "c"], "test": ["x", "y", "z"]})
    trials = lc.Trials([0.9], [0.1, 0.2], metadata=meta)
    cohort = lc.CohortScores(["a", "b", "c", "x", "y", "z"], np.random.default_rng(0).normal(size=(6, 10)))
    for method in ("z-norm", "t-norm"):
        with pytest.warns(UserWarning, match="one-to-one list"):
            lc.normalize_scores(trials, cohort, cohort, method)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lc.normalize_scores(trials, cohort, cohort, "s-norm")
        # a model in several trials: not one-to-one, no warning
        lc.normalize_scores(lc.Trials([0.9], [0.1, 0.2], metadata=meta.assign(model="a")), cohort, cohort, "z-norm")


@pytest.mark.filterwarnings("ignore:Every model and every test segment")  # the one-to-one list of these trials
@pytest.mark.parametrize("call, message", [
    (lambda t, c: lc.normalize_scores(t, c, c, "x-norm"), "z-norm, t-norm, s-norm, as-norm"),
    (lambda t, c: lc.normalize_scores(t, None, c, "s-norm"), "needs enrol_cohort"),
    (lambda t, c: lc.normalize_scores(t, c, None, "t-norm"), "needs test_cohort"),
    (lambda t, c: lc.normalize_scores(t, c, c, "as-norm", top_n=1), "at least 2"),
    (lambda t, c: lc.normalize_scores(t, c, c, "z-norm", ddof=2), "ddof is 0"),
    (lambda t, c: lc.normalize_scores(lc.Trials([1.0], [0.0]), c, c, "s-norm"), "model and test ids"),
    (lambda t, c: lc.normalize_scores(t, lc.CohortScores(["a"], [[0.0, 1.0]]), c, "z-norm"),
     r"1 model id of the trials has no cohort scores \(for example 'b'\)"),
])
def test_errors_are_sentences(call, message):
    meta = pd.DataFrame({"model": ["a", "b"], "test": ["x", "y"]})
    cohort = lc.CohortScores(["a", "b", "x", "y"], [[0.0, 1.0], [0.0, 2.0], [1.0, 2.0], [3.0, 1.0]])
    with pytest.raises(ValueError, match=message):
        call(lc.Trials([1.0], [0.0], metadata=meta), cohort)


def test_cohort_scores_from_a_long_table_refuse_gaps_and_repeats():
    frame = pd.DataFrame({"id": ["a", "a", "b"], "cohort": ["c1", "c2", "c1"], "score": [0.1, 0.2, 0.3]})
    with pytest.raises(ValueError, match="b has 1 cohort scores but the cohort has 2"):
        lc.CohortScores.from_frame(frame)
    with pytest.raises(ValueError, match="scored twice") as info:
        lc.CohortScores.from_frame(pd.concat([frame, frame.iloc[[0]]], ignore_index=True))
    assert info.value.row == 3


def test_sample_files_normalise_and_help():
    """The committed sample (tools/make_cohort_files.py): S-norm lowers the EER of its raw cosine scores."""
    trials = lc.read_trials(DATA / "scores.txt", key=DATA / "key.txt")
    enrol, test = lc.read_cohort_scores(DATA / "enrol_cohort.txt"), lc.read_cohort_scores(DATA / "test_cohort.txt")
    out = lc.normalize_scores(trials, enrol, test, "s-norm")
    assert lc.eer(out.tar, out.non) < lc.eer(trials.tar, trials.non)


def test_no_number_depends_on_the_number_of_threads():
    rng = np.random.default_rng(2)
    cohort = lc.CohortScores([f"i{k}" for k in range(1000)], rng.normal(size=(1000, 700)).astype(np.float32))
    meta = pd.DataFrame({"model": rng.choice(cohort.ids, 5000), "test": rng.choice(cohort.ids, 5000)})
    trials = lc.Trials.from_labels(rng.normal(size=5000), rng.random(5000) < 0.1, metadata=meta)
    one = lc.normalize_scores(trials, cohort, cohort, "as-norm", threads=1)
    two = lc.normalize_scores(trials, cohort, cohort, "as-norm", threads=2)
    np.testing.assert_array_equal(one.scores, two.scores)
