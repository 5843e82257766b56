"""The diarization held-out corpus and the default prior by the kind of scores (issue 32).

Independent references: the corpora's own SOURCE.txt files (the voices each recording was synthesised with, the
seeds and the PLDA parameters, written by the tools that made them); the preset numbers of
llrcore/diarization/block_prior.py typed in by hand with the strengths docs/diarization.md states (kappa0 = 15,
a0 = 25); the definition of cosine scores (every score in [-1, 1]); the reference RTTMs of the held-out corpus, scored
with pyannote.metrics as bench/bench_diarization_corpus.py scores them; the claims of docs/diarization.md (sections
"A held-out corpus that no choice looked at" and "Without times", read from the page) as the thresholds.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import llrcore as lc
from paths import ROOT

DEV = ROOT / "tests" / "data" / "diarization_corpus"
HELDOUT = ROOT / "tests" / "data" / "diarization_heldout"
#: docs/diarization.md, whose numbers the tests hold against a run: the page as one line of words.
STATED = " ".join((ROOT / "docs" / "diarization.md").read_text(encoding="utf-8").split())


def _stated(pattern: str) -> tuple[int, float]:
    """Right K and mean DER (%) as the page states them where ``pattern`` (two groups) matches."""
    right, der = re.search(pattern, STATED).groups()
    return int(right), float(der)


#: "A held-out corpus that no choice looked at": the default call, right K and mean DER (%).
STATED_HELDOUT = {
    "cosine": _stated(r"the default call .{0,120}: right K on (\d+) of 16 conversations \(mean DER ([\d.]+) %"),
    "plda": _stated(r"of 16 conversations \(mean DER [\d.]+ %\) and (\d+) of 16 PLDA matrices \(([\d.]+) %")}
#: "Without times": the default call on the scores alone, right K and mean DER (%) on each corpus.
STATED_WITHOUT_TIMES = {
    "dev": {"cosine": _stated(r"(\d+)/24 \(([\d.]+) %\) on cosines with NME-SC's floor"),
            "plda": _stated(r"and (\d+)/20 \(([\d.]+) %\) per pair")},
    "heldout": {"cosine": _stated(r"(\d+)/16 \(([\d.]+) %\) on cosines with the floor"),
                "plda": _stated(r"and (\d+)/16 \(([\d.]+) %\) per pair")}}
#: The issue's goal on held-out recordings, for cosines and PLDA LLRs alike.
GOAL_RIGHT_SHARE, GOAL_DER = 0.8, 10.0


def _voices(folder: Path) -> tuple[set, set]:
    """(language voices, variants) of every speaker listed in a cosine corpus's SOURCE.txt."""
    text = (folder / "SOURCE.txt").read_text(encoding="utf-8")
    pairs = re.findall(r"^\s+spk\d+: ([\w-]+)\+([\w-]+) -p \d+ -s \d+", text, flags=re.MULTILINE)
    assert pairs, f"no voices in {folder / 'SOURCE.txt'}"
    return {lang for lang, _ in pairs}, {variant.lower() for _, variant in pairs}


def _seed(path: Path) -> int:
    return int(re.search(r"seed (\d+)", path.read_text(encoding="utf-8")).group(1))


def test_the_held_out_corpus_shares_no_voice_seed_or_plda_model_with_the_development_corpus():
    dev_languages, dev_variants = _voices(DEV)
    languages, variants = _voices(HELDOUT)
    assert not languages & dev_languages
    assert not variants & dev_variants
    assert _seed(HELDOUT / "SOURCE.txt") != _seed(DEV / "SOURCE.txt")
    assert _seed(HELDOUT / "plda" / "SOURCE.txt") != _seed(DEV / "plda" / "SOURCE.txt")
    plda = (HELDOUT / "plda" / "SOURCE.txt").read_text(encoding="utf-8")
    for option in ("--dimension 48", "--drift 0.3", "--turn-effect 0.25", "--quality-sd 0.35"):
        assert option in plda  # the development matrices: 64, 0.25, 0.2, 0.3
    for folder in (HELDOUT, HELDOUT / "plda"):
        index = pd.read_csv(folder / "corpus.csv")
        assert len(index) == 16 and set(index["K"]) == set(range(1, 11))
        for name in index["recording"]:
            with np.load(folder / f"{name}.npz") as data:
                assert data["scores"].dtype == np.float32


# ----- the default prior by the kind of scores -----------------------------------------------------------------------

#: The presets of block_prior.py (rounded means and variances learnt from the development corpus), held with
#: kappa0 = 15 and a0 = 25 as docs/diarization.md states for the default call.
BY_HAND = {"cosine": lc.diarization.BlockModelPrior(0.7472, 0.5847, 0.007641, 15.0, 25.0, 1.0, 0.008751),
           "llr": lc.diarization.BlockModelPrior(5.751, -22.11, 94.82, 15.0, 25.0, 1.0, 195.7)}


def _matrix(folder: Path, name: str):
    return lc.read_similarity(folder / f"{name}.npz", reference=folder / f"{name}.rttm")


@pytest.mark.parametrize(("folder", "name", "kind", "preset"), [
    (DEV, "synth02_k01", "cosine", "resemblyzer-1.5s-espeak"),
    (DEV / "plda", "plda_k03_balanced", "llr", "simulated-plda-1.5s"),
])
def test_the_default_prior_follows_the_kind_of_scores(folder, name, kind, preset):
    matrix = _matrix(folder, name)
    scores = np.asarray(matrix.scores)
    assert (np.abs(scores) <= 1.0 + 1e-3).all() == (kind == "cosine")  # the definition of cosines
    result = lc.cluster_similarity(matrix)
    assert result.options["prior"] == BY_HAND[kind]
    assert result.options["prior_source"] == f"{preset} (by the kind of scores)"
    given = lc.cluster_similarity(matrix, prior=BY_HAND[kind])
    np.testing.assert_array_equal(result.labels, given.labels)


def test_float32_cosines_just_above_one_are_cosines_and_llrs_just_below_minus_one_are_not():
    from llrcore.diarization.block_prior import score_kind

    cosines = np.array([[1.0000006, 0.2], [0.2, 1.0000006]], dtype=np.float32)
    assert score_kind(cosines) == "cosine"
    assert score_kind(np.array([[3.0, -1.01], [-1.01, 3.0]])) == "llr"


def test_prior_recording_is_the_two_gaussian_fit_of_the_recording():
    """``prior="recording"``: the previous default, the prior from the recording's own two-Gaussian fit."""
    matrix = _matrix(DEV, "synth02_k01")
    mixture = lc.diarization.fit_score_mixture(np.asarray(matrix.scores))
    own = lc.diarization.BlockModelPrior.from_mixture(mixture)
    result = lc.cluster_similarity(matrix, prior="recording")
    assert result.options["prior"] == own and result.options["prior_source"] == "recording"
    with pytest.raises(ValueError, match="recording, resemblyzer-1.5s-espeak, simulated-plda-1.5s"):
        lc.cluster_similarity(matrix, prior="unknown")


def test_the_default_call_finds_the_one_speaker_its_own_fit_splits():
    """synth02_k01 (one synthetic voice): the recording's own two-Gaussian fit has no different-speaker scores to
    learn "different" from and splits it in two; the cosine scale of the default prior keeps one speaker."""
    matrix = _matrix(DEV, "synth02_k01")
    assert matrix.n_reference_speakers == 1
    assert lc.cluster_similarity(matrix, prior="recording").n_clusters == 2
    assert lc.cluster_similarity(matrix).n_clusters == 1


# ----- the held-out numbers ------------------------------------------------------------------------------------------


def _default_call(corpus: Path, *, times: bool = True) -> pd.DataFrame:
    """Every recording of a corpus clustered by the default call (`times`: with the segment times, else the scores
    alone) and scored as bench_diarization_corpus.py scores it (pyannote.metrics, collar 0.25 s per side, overlap
    ignored, UEM the whole recording)."""
    rows = []
    for kind, folder in (("cosine", corpus), ("plda", corpus / "plda")):
        for row in pd.read_csv(folder / "corpus.csv").itertuples():
            matrix = _matrix(folder, row.recording)
            result = lc.cluster_similarity(matrix if times else lc.SimilarityMatrix(np.asarray(matrix.scores)))
            uem = pd.DataFrame({"uri": [row.recording], "start": [0.0], "end": [row.duration]})
            der = lc.diarization_error_rate(matrix.reference_turns, result.turns(matrix.start, matrix.end, matrix.uri),
                                            uem=uem, collar=0.25, skip_overlap=True).der
            rows.append({"kind": kind, "K": row.K, "found": result.n_clusters, "der": 100 * der})
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def heldout_default() -> pd.DataFrame:
    return _default_call(HELDOUT)


def _measured(frame: pd.DataFrame) -> dict:
    return {kind: (int((part["found"] == part["K"]).sum()), round(part["der"].mean(), 1))
            for kind, part in frame.groupby("kind")}


#: How far a mean DER may stand from the page's one-decimal figure: the CPU's BLAS kernels (with or without
#: AVX-512) move a borderline window of the scores-alone runs to another cluster, 0.07-0.08 points of the dev
#: corpus's mean DER between two machines of this workplace; the number of right counts does not move.
MACHINE_DER_TOLERANCE = 0.15


def _as_claimed(measured: dict, claimed: dict) -> bool:
    return measured.keys() == claimed.keys() and all(
        measured[k][0] == claimed[k][0] and abs(measured[k][1] - claimed[k][1]) <= MACHINE_DER_TOLERANCE
        for k in claimed)


def test_the_default_call_on_the_held_out_corpus_is_what_the_docs_claim(heldout_default):
    assert _as_claimed(_measured(heldout_default), STATED_HELDOUT), _measured(heldout_default)


@pytest.mark.parametrize("corpus", ["dev", "heldout"])
def test_the_default_call_without_times_is_what_the_docs_claim(corpus):
    """docs/diarization.md, "Without times": the scores alone (one between-speaker Gaussian per pair of speakers),
    chosen on the development corpus, measured once on the held-out one."""
    measured = _measured(_default_call({"dev": DEV, "heldout": HELDOUT}[corpus], times=False))
    assert _as_claimed(measured, STATED_WITHOUT_TIMES[corpus]), measured


@pytest.mark.xfail(strict=True, reason="issue 32's goal is not met on the held-out corpus (docs/diarization.md: "
                   "by how much, what was tried); strict: when it passes, the page's statement must change")
def test_the_goal_on_held_out_recordings(heldout_default):
    for kind, (right, der) in _measured(heldout_default).items():
        assert right >= GOAL_RIGHT_SHARE * 16 and der < GOAL_DER, kind


# ----- crumbs: a cluster must earn its place -------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "before"), [("plda_k01_a", 2), ("plda_k01_b", 3)])
def test_scattered_low_quality_windows_are_not_speakers(name, before):
    """The development corpus's single-speaker PLDA matrices with the recording's own prior: without the coherence
    rule (min_coherence=None) its low-quality windows, which score low with everybody and with each other, are kept
    as extra speakers; with it (the default, model.MIN_COHERENCE) one speaker remains."""
    from llrcore.diarization import cluster, model

    matrix = _matrix(DEV / "plda", name)
    timing = cluster._chain_options(matrix, model.EFFECTIVE_SCORES, model.MEAN_TURN, model.MIN_SPEECH, None)
    scores = np.asarray(matrix.scores)
    mixture = lc.diarization.fit_score_mixture(scores)
    starts = {"one speaker": np.zeros(matrix.n_segments, dtype=np.int64),
              "AHC K=8": cluster.ahc_labels(scores, mixture, n_clusters=8)[0]}
    prior = lc.diarization.BlockModelPrior.from_mixture(mixture)
    kept = model.fit_block_model(scores, starts, prior=prior, min_coherence=None, **timing)
    assert kept.n_clusters == before
    assert lc.cluster_similarity(matrix, prior="recording").n_clusters == 1


@pytest.mark.parametrize("name", ["plda_k03_unbalanced", "plda_k04_unbalanced", "plda_k07_unbalanced"])
def test_short_real_speakers_are_kept(name):
    """Unbalanced PLDA recordings whose least speaker has 10.5 s (the corpus's floor): every speaker is found."""
    matrix = _matrix(DEV / "plda", name)
    assert lc.cluster_similarity(matrix).n_clusters == matrix.n_reference_speakers


def test_coherence_is_the_mean_expected_log_density_ratio_of_a_cluster_s_pairs_apart_in_time():
    """model.cluster_coherence against a loop over the pairs of each cluster, overlapping pairs (found by comparing
    every pair's times) left out, with the expected log-densities of the fitted Gaussians."""
    from llrcore.diarization import model
    from llrcore.diarization.block_prior import expected_log_density_coefficients
    from llrcore.diarization.responsibilities import one_hot
    from llrcore.diarization.variational import VariationalBlockModel

    rng = np.random.default_rng(3)
    n = 40
    start = np.sort(rng.uniform(0, 30, n))
    end = start + rng.uniform(0.3, 2.0, n)
    labels = rng.integers(0, 3, n)
    z = rng.normal(size=(n, n))
    z = 0.5 * (z + z.T) + 2.0 * (labels[:, None] == labels[None, :])
    vb = VariationalBlockModel(z, 0.5, (1.0, 10.0, 2.0, 2.0), (-1.0, 10.0, 2.0, 2.0), 1.0, 0.0)
    st = vb.refresh(vb.start(one_hot(labels, smoothing=0.0)))
    got = model.cluster_coherence(vb, st, model.overlapping_pairs(start, end))
    (w0, w1, w2), (b0, b1, b2) = (expected_log_density_coefficients(*q) for q in st.theta)
    hard = np.argmax(st.R, axis=1)
    for c in range(st.R.shape[1]):
        values = [(w0 + w1 * vb.D[i, j] + w2 * vb.D[i, j] ** 2) - (b0 + b1 * vb.D[i, j] + b2 * vb.D[i, j] ** 2)
                  for i in range(n) for j in range(i + 1, n)
                  if hard[i] == c and hard[j] == c and not (start[i] < end[j] and start[j] < end[i])]
        assert got[c] == pytest.approx(np.mean(values), rel=1e-4)


def test_the_command_line_takes_the_recording_s_own_prior(capsys):
    """``llrcore diarize --prior recording``: each recording clustered with its own two-Gaussian fit as prior, as
    ``cluster_recordings(..., prior="recording")``; without --prior, the default by the kind of scores."""
    from llrcore.cli import main

    files = [str(DEV / "synth02_k01.npz"), str(DEV / "plda" / "plda_k01_b.npz")]
    matrices = lc.read_corpus(files)
    for extra, options in ((["--prior", "recording"], {"prior": "recording"}), ([], {})):
        assert main(["diarize", *files, *extra, "--csv"]) == 0
        printed = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out), index_col="uri")
        expected = lc.score_corpus(matrices, lc.cluster_recordings(matrices, "bayes", **options)).to_frame()
        assert list(printed["found"]) == list(expected["found"])
    assert list(printed["found"])[:2] == [1, 1]  # the default: one speaker each
