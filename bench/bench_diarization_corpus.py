"""Benchmark: every clustering method of ``lc.cluster_similarity`` on the diarization development or held-out corpus.

    python bench/bench_diarization_corpus.py [--corpus dev|heldout] [--methods bayes ahc ...] [--no-write]

The development corpus is tests/data/diarization_corpus: synthetic espeak-ng conversations scored as Resemblyzer
cosines (tools/make_diarization_corpus.py) and PLDA-style LLR matrices from a two-covariance model
(tools/simulate_plda_matrices.py), K = 1..10; the Bayesian model's defaults were chosen on it. The held-out corpus,
tests/data/diarization_heldout, is made by the same tools with other seeds, other voices (no language voice or
variant in common) and other PLDA parameters; no choice looked at it. For each recording and method, with the number
of speakers inferred (nothing given): the K found, the DER (pyannote.metrics through ``lc.diarization_error_rate``,
collar 0.25 s per side, overlap ignored, a UEM of the whole recording, as the tests score the demos) and the wall
time of one call. Methods the installed llrcore does not know are skipped. ``bayes`` is the default call (its prior
by the kind of scores); ``bayes-recording`` the Bayesian model with the prior from the recording's own two-Gaussian
fit (``prior="recording"``, the default before); ``bayes-learnt`` the Bayesian model with the prior learnt from
labelled recordings (``BlockModelPrior.from_recordings``): on the development corpus cross-validated (recordings of
even rows of its corpus.csv get the prior of the odd ones, and the other way round), on the held-out corpus learnt
from the whole development corpus of the same kind of scores.

Writes the section "## Diarization development corpus (synthetic cosines and PLDA)" (or "## Diarization held-out
corpus ...") of bench/RESULTS.md (other sections kept). A benchmark, not a test.
"""
from __future__ import annotations

import argparse
import csv
import os
import platform
import subprocess
import time
from pathlib import Path

import numpy as np
import pandas as pd

import llrcore as lc
from _results import publish

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CORPORA = {"dev": ROOT / "tests" / "data" / "diarization_corpus",
           "heldout": ROOT / "tests" / "data" / "diarization_heldout"}
SECTIONS = {"dev": "## Diarization development corpus (synthetic cosines and PLDA)",
            "heldout": "## Diarization held-out corpus (other seeds, voices and PLDA parameters; no choice made on it)"}
METHODS = ("bayes", "bayes-recording", "ahc", "spectral", "nme-sc", "bayes-learnt")
LEARNT = "bayes-learnt"
OWN_FIT = "bayes-recording"


def recordings(corpus: Path):
    for kind, folder in (("cosine", corpus), ("plda", corpus / "plda")):
        with open(folder / "corpus.csv", newline="", encoding="utf-8") as f:
            for row in csv.DictReader(f):
                yield kind, folder, row


def numbered(corpus: Path):
    """(corpus, fold, folder, row): the fold is the parity of the row's number in its corpus.csv."""
    counts: dict = {}
    for kind, folder, row in recordings(corpus):
        counts[kind] = counts.get(kind, -1) + 1
        yield kind, counts[kind] % 2, folder, row


def learnt_priors(name: str) -> dict:
    """(corpus, fold) -> the prior learnt from the labelled recordings of the development corpus's other fold, or,
    for the held-out corpus, from all of the development corpus (of the same kind of scores)."""
    folds: dict = {}
    for kind, fold, folder, row in numbered(CORPORA["dev"]):
        matrix = lc.read_similarity(folder / f"{row['recording']}.npz", reference=folder / f"{row['recording']}.rttm")
        folds.setdefault((kind, fold), []).append(matrix)
    learn = lc.diarization.BlockModelPrior.from_recordings
    if name == "heldout":
        return {(kind, fold): learn(folds[(kind, 0)] + folds[(kind, 1)]) for kind, fold in folds}
    return {(kind, fold): learn(folds[(kind, 1 - fold)]) for kind, fold in folds}


def cluster(matrix, method: str, prior=None):
    if method == LEARNT:
        return lc.cluster_similarity(matrix, "bayes", prior=prior)
    if method == OWN_FIT:
        return lc.cluster_similarity(matrix, "bayes", prior="recording")
    return lc.cluster_similarity(matrix, method)


def available(method: str, matrix) -> bool:
    if method in (LEARNT, OWN_FIT):
        return hasattr(lc.diarization.block_prior, "prior_for_scores")
    try:
        lc.cluster_similarity(matrix, method)
    except (ValueError, NotImplementedError, KeyError) as err:
        print(f"method {method!r} skipped: {err}")
        return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", choices=sorted(CORPORA), default="dev")
    parser.add_argument("--methods", nargs="+", default=list(METHODS))
    parser.add_argument("--no-write", action="store_true", help="do not write bench/RESULTS.md")
    args = parser.parse_args()
    args.size, args.write = "full", True  # the corpus has one size: publish writes unless --no-write

    rows, methods, loads = [], None, [os.getloadavg()[0]]
    priors = learnt_priors(args.corpus) if LEARNT in args.methods and hasattr(lc.diarization, "PRESETS") else {}
    for kind, fold, folder, row in numbered(CORPORA[args.corpus]):
        name, k, duration = row["recording"], int(row["K"]), float(row["duration"])
        matrix = lc.read_similarity(folder / f"{name}.npz", reference=folder / f"{name}.rttm")
        if methods is None:
            methods = [m for m in args.methods if available(m, matrix)]
        uem = pd.DataFrame({"uri": [name], "start": [0.0], "end": [duration]})
        line = [f"{kind:6s} {name:22s} K={k:2d} N={matrix.n_segments:4d}"]
        for method in methods:
            started = time.perf_counter()
            result = cluster(matrix, method, priors.get((kind, fold)))
            seconds = time.perf_counter() - started
            turns = result.turns(matrix.start, matrix.end, matrix.uri)
            der = lc.diarization_error_rate(matrix.reference_turns, turns, uem=uem, collar=0.25,
                                            skip_overlap=True).der
            rows.append({"corpus": kind, "recording": name, "K": k, "N": matrix.n_segments, "method": method,
                         "found": int(result.n_clusters), "der": der, "seconds": seconds})
            line.append(f"{method} {result.n_clusters:2d} {100 * der:5.1f}%")
        print("  ".join(line), flush=True)
    frame = pd.DataFrame(rows)
    loads.append(os.getloadavg()[0])
    publish(SECTIONS[args.corpus], section(frame, methods, args.corpus, loads), args)


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):  # pragma: no cover
        return "unknown"


def section(frame: pd.DataFrame, methods: list[str], corpus: str, loads: list[float]) -> str:
    what = ("tests/data/diarization_corpus — synthetic espeak-ng conversations as Resemblyzer cosines and PLDA LLR "
            "matrices from a two-covariance model, K = 1..10 (see their SOURCE.txt); the defaults were chosen on it"
            if corpus == "dev" else
            "tests/data/diarization_heldout — made by the same tools with other seeds, voices that share no espeak-ng "
            "language voice or variant with the development corpus's, and other PLDA parameters (see its SOURCE.txt); "
            "no method, default or hyper-parameter was chosen on it (it was measured once with the defaults chosen "
            "before it existed, once with the coherence rule at -2, once at -3, and once with NME-SC's count as "
            "the fewest speakers on cosines, each change made on development-corpus evidence: docs/diarization.md)")
    learnt = ("the prior learnt on the other half of the development corpus (cross-validated)" if corpus == "dev"
              else "the prior learnt on the whole development corpus (the presets, held firmly)")
    out = [SECTIONS[corpus], "",
           f"`python bench/bench_diarization_corpus.py --corpus {corpus}`: every method of `lc.cluster_similarity` "
           f"with nothing given (K inferred) on {what}. `bayes` is the default call (the prior by the kind of "
           f"scores), `bayes-recording` the prior from the recording's own two-Gaussian fit (the previous default), "
           f"`bayes-learnt` {learnt}. DER with pyannote.metrics (collar 0.25 s per side, overlap ignored, UEM = the "
           "whole recording); time of one call.",
           "", f"Machine: {os.cpu_count()} CPUs, {platform.platform()}; python {platform.python_version()}, numpy "
           f"{np.__version__}; llrcore at commit {_commit()}. Methods not in this llrcore are skipped (asked for: "
           f"{', '.join(METHODS)}; run: {', '.join(methods)}). 1-minute load average {loads[0]:.1f} at the start and "
           f"{loads[1]:.1f} at the end (other work on the machine lengthens the times, not the counts or the DERs).",
           "", "| corpus | method | recordings | K right | mean abs K error | mean DER | median DER | total time [s] |",
           "|---|---|---:|---:|---:|---:|---:|---:|"]
    for (kind, method), g in frame.groupby(["corpus", "method"], sort=False):
        out.append(f"| {kind} | {method} | {len(g)} | {(g.found == g.K).sum()} / {len(g)} | "
                   f"{np.abs(g.found - g.K).mean():.2f} | {100 * g.der.mean():.1f} % | {100 * g.der.median():.1f} % | "
                   f"{g.seconds.sum():.1f} |")
    out += ["", "K found per recording (true K first; DER in %):", "",
            "| corpus | recording | K | N | " + " | ".join(methods) + " |",
            "|---|---|---:|---:|" + "---|" * len(methods)]
    for (kind, name), g in frame.groupby(["corpus", "recording"], sort=False):
        by = g.set_index("method")
        out.append(f"| {kind} | {name} | {g.K.iloc[0]} | {g.N.iloc[0]} | "
                   + " | ".join(f"{by.found[m]} ({100 * by.der[m]:.1f})" for m in methods) + " |")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    main()
