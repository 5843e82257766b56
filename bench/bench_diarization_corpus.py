"""Benchmark: every clustering method of ``lc.cluster_similarity`` on the diarization development corpus.

    python bench/bench_diarization_corpus.py [--methods bayes ahc spectral nme-sc] [--no-write]

The corpus is tests/data/diarization_corpus: synthetic espeak-ng conversations scored as Resemblyzer cosines
(tools/make_diarization_corpus.py) and PLDA-style LLR matrices from a two-covariance model
(tools/simulate_plda_matrices.py), K = 1..10; the Bayesian model's defaults were chosen on it. For each recording
and method, with the number of speakers inferred (nothing given): the K found, the DER (pyannote.metrics through
``lc.diarization_error_rate``, collar 0.25 s per side, overlap ignored, a UEM of the whole recording, as the tests
score the demos) and the wall time of one call. Methods the installed llrcore does not know are skipped.
``bayes-learnt`` is the Bayesian model with the prior learnt from labelled recordings
(``BlockModelPrior.from_recordings``) of the same half of the corpus, cross-validated: recordings of even rows of
its corpus.csv get the prior of the odd ones, and the other way round.

Writes the section "## Diarization development corpus (synthetic cosines and PLDA)" of bench/RESULTS.md (other
sections kept). A benchmark, not a test.
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
CORPUS = ROOT / "tests" / "data" / "diarization_corpus"
SECTION = "## Diarization development corpus (synthetic cosines and PLDA)"
METHODS = ("bayes", "ahc", "spectral", "nme-sc", "bayes-learnt")
LEARNT = "bayes-learnt"


def recordings():
    for kind, folder in (("cosine", CORPUS), ("plda", CORPUS / "plda")):
        with open(folder / "corpus.csv", newline="", encoding="utf-8") as f:
            for row in csv.DictReader(f):
                yield kind, folder, row


def numbered():
    """(corpus, fold, folder, row): the fold is the parity of the row's number in its corpus.csv."""
    counts: dict = {}
    for kind, folder, row in recordings():
        counts[kind] = counts.get(kind, -1) + 1
        yield kind, counts[kind] % 2, folder, row


def learnt_priors() -> dict:
    """(corpus, fold) -> the prior learnt from the labelled recordings of the other fold."""
    folds: dict = {}
    for kind, fold, folder, row in numbered():
        matrix = lc.read_similarity(folder / f"{row['recording']}.npz", reference=folder / f"{row['recording']}.rttm")
        folds.setdefault((kind, fold), []).append(matrix)
    return {(kind, fold): lc.diarization.BlockModelPrior.from_recordings(folds[(kind, 1 - fold)])
            for kind, fold in folds}


def cluster(matrix, method: str, prior=None):
    if method == LEARNT:
        return lc.cluster_similarity(matrix, "bayes", prior=prior)
    return lc.cluster_similarity(matrix, method)


def available(method: str, matrix) -> bool:
    if method == LEARNT:
        return hasattr(lc.diarization, "PRESETS")
    try:
        lc.cluster_similarity(matrix, method)
    except (ValueError, NotImplementedError, KeyError) as err:
        print(f"method {method!r} skipped: {err}")
        return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--methods", nargs="+", default=list(METHODS))
    parser.add_argument("--no-write", action="store_true", help="do not write bench/RESULTS.md")
    args = parser.parse_args()
    args.size, args.write = "full", True  # the corpus has one size: publish writes unless --no-write

    rows, methods = [], None
    priors = learnt_priors() if LEARNT in args.methods and hasattr(lc.diarization, "PRESETS") else {}
    for kind, fold, folder, row in numbered():
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
    publish(SECTION, section(frame, methods), args)


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):  # pragma: no cover
        return "unknown"


def section(frame: pd.DataFrame, methods: list[str]) -> str:
    out = [SECTION, "",
           "`python bench/bench_diarization_corpus.py`: every method of `lc.cluster_similarity` with nothing given "
           "(K inferred) on tests/data/diarization_corpus — synthetic espeak-ng conversations as Resemblyzer cosines "
           "and PLDA LLR matrices from a two-covariance model, K = 1..10 (see their SOURCE.txt). DER with "
           "pyannote.metrics (collar 0.25 s per side, overlap ignored, UEM = the whole recording); time of one call.",
           "", f"Machine: {os.cpu_count()} CPUs, {platform.platform()}; python {platform.python_version()}, numpy "
           f"{np.__version__}; llrcore at commit {_commit()}. Methods not in this llrcore are skipped (asked for: "
           f"{', '.join(METHODS)}; run: {', '.join(methods)}).",
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
