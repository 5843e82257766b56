"""Synthetic speaker-verification scores with cohort files, for score normalisation (seeded, rebuildable).

    python tools/make_cohort_files.py [--out assets/normalization_demo] [--seed 31] [--models 40] [--tests 160]
                                      [--cohort 200] [--trials 2000]

Embeddings of speakers: each speaker a random direction in 64 dimensions, each recording its speaker's direction
plus within-speaker noise of its own strength plus a common direction to its own degree (the nuisances that make
every recording's impostor scores sit at their own level and spread, which Z/T/S-norm remove). Cosine scores (both sides L2-normalised,
as WeSpeaker and SpeechBrain score) are written, 5 decimals as WeSpeaker writes them:

- ``scores.txt``        ``model test score``       the trials (models and test segments are single recordings)
- ``key.txt``           ``model test target|nontarget``
- ``enrol_cohort.txt``  ``model cohort score``     every model against every cohort recording
- ``test_cohort.txt``   ``test cohort score``      every test segment against every cohort recording

The cohort's speakers are none of the evaluation's. Nothing here is real speech.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

DIM = 64


def _recordings(rng, speakers: np.ndarray, common: np.ndarray) -> np.ndarray:
    """L2-normalised embeddings of recordings of the given speakers (rows of their direction): each with its own
    amount of noise (short or poor recordings) and of the common direction (an offset every recording shares to its
    own degree, as the mean embedding that is not subtracted)."""
    n = speakers.shape[0]
    noise = rng.normal(0.0, 1.0, (n, DIM)) * rng.uniform(0.15, 0.6, (n, 1))
    e = speakers + noise + common * rng.uniform(0.0, 1.5, (n, 1))
    return e / np.linalg.norm(e, axis=1, keepdims=True)


def make(out: Path, seed: int = 31, n_models: int = 40, n_tests: int = 160, n_cohort: int = 200,
         n_trials: int = 2000) -> None:
    rng = np.random.default_rng(seed)
    common = rng.normal(0.0, 1.0, DIM) / np.sqrt(DIM) * 3
    n_speakers = n_models  # one enrolment recording per evaluation speaker
    voices = rng.normal(0.0, 1.0, (n_speakers + n_cohort, DIM)) / np.sqrt(DIM) * 3
    model_speaker = np.arange(n_models)
    test_speaker = rng.integers(0, n_speakers, n_tests)
    models = _recordings(rng, voices[model_speaker], common)
    tests = _recordings(rng, voices[test_speaker], common)
    cohort = _recordings(rng, voices[n_speakers:], common)  # one recording of each cohort speaker
    model_ids = [f"spk{s:03d}/enrol.wav" for s in model_speaker]
    test_ids = [f"spk{s:03d}/test{j:03d}.wav" for j, s in enumerate(test_speaker)]
    cohort_ids = [f"cohort/spk{n_speakers + j:03d}.wav" for j in range(n_cohort)]
    # trials: each test segment against its own speaker's model (when it has one) and random others, no repeats
    pairs = {(test_speaker[j], j) for j in range(n_tests)}
    while len(pairs) < n_trials:
        pairs.add((int(rng.integers(0, n_models)), int(rng.integers(0, n_tests))))
    pairs = sorted(pairs, key=lambda p: (p[1], p[0]))
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "scores.txt", "w") as scores, open(out / "key.txt", "w") as key:
        for m, t in pairs:
            scores.write(f"{model_ids[m]} {test_ids[t]} {models[m] @ tests[t]:.5f}\n")
            key.write(f"{model_ids[m]} {test_ids[t]} {'target' if test_speaker[t] == m else 'nontarget'}\n")
    for filename, ids, embeddings in (("enrol_cohort.txt", model_ids, models), ("test_cohort.txt", test_ids, tests)):
        matrix = embeddings @ cohort.T
        with open(out / filename, "w") as f:
            f.writelines(f"{i} {c} {s:.5f}\n" for i, row in zip(ids, matrix) for c, s in zip(cohort_ids, row))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "assets/normalization_demo")
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--models", type=int, default=40)
    parser.add_argument("--tests", type=int, default=160)
    parser.add_argument("--cohort", type=int, default=200)
    parser.add_argument("--trials", type=int, default=2000)
    args = parser.parse_args()
    make(args.out, args.seed, args.models, args.tests, args.cohort, args.trials)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
