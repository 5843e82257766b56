"""Adaptive S-norm of 1M trials against a 5,000-recording cohort (top N = 300): llrcore.normalize_scores beside a
straightforward numpy implementation (WeSpeaker's ``score_norm.py``: each row sorted, the top N's mean and std, then
a Python loop over the trials), in the same run.

    python bench/bench_normalize.py [--size small] [--write | --no-write]

Writes the section "## Score normalisation: AS-norm (1M trials, 5,000-recording cohort, top 300)" of
bench/RESULTS.md. A benchmark, not a test. The cohort scores are cosine scores of random float32 embeddings (as
embeddings come from a network), 5,000 models and 20,000 test segments; building them is not timed.
"""
from __future__ import annotations

import argparse
import os

import numpy as np
import pandas as pd

import llrcore as lc
from _results import best_time, publish

SECTION = "## Score normalisation: AS-norm (1M trials, 5,000-recording cohort, top 300)"
SIZES = {"full": (1_000_000, 5_000, 20_000, 5_000), "small": (100_000, 1_000, 4_000, 5_000)}
TOP_N = 300


def cohort_scores(rng, ids, cohort, dim=192):
    e = rng.normal(size=(len(ids), dim)).astype(np.float32)
    e /= np.linalg.norm(e, axis=1, keepdims=True)
    return lc.CohortScores(ids, e @ cohort.T)


def straightforward(model_ids, test_ids, scores, enrol, test, top_n):
    """WeSpeaker's way: full sort of every row, the top N's statistics, a dict and a loop over the trials."""
    def mean_std(matrix):
        top = np.sort(matrix, axis=1)[:, ::-1][:, :top_n]
        return np.mean(top, axis=1), np.std(top, axis=1)

    e_mean, e_std = mean_std(enrol.scores)
    t_mean, t_std = mean_std(test.scores)
    e_index = {k: i for i, k in enumerate(enrol.ids)}
    t_index = {k: i for i, k in enumerate(test.ids)}
    out = np.empty(len(scores))
    for n, (m, t, s) in enumerate(zip(model_ids, test_ids, scores)):
        i, j = e_index[m], t_index[t]
        out[n] = 0.5 * ((s - e_mean[i]) / e_std[i] + (s - t_mean[j]) / t_std[j])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=SIZES, default="full")
    parser.add_argument("--write", action="store_true", help="write RESULTS.md at any size")
    parser.add_argument("--no-write", action="store_true", help="never write RESULTS.md")
    args = parser.parse_args()
    n_trials, n_models, n_tests, n_cohort = SIZES[args.size]
    rng = np.random.default_rng(31)
    cohort = rng.normal(size=(n_cohort, 192)).astype(np.float32)
    cohort /= np.linalg.norm(cohort, axis=1, keepdims=True)
    model_names = np.array([f"id{k:05d}/enrol/{k:05d}.wav" for k in range(n_models)])
    test_names = np.array([f"id{k:05d}/test/{k:05d}.wav" for k in range(n_tests)])
    enrol, test = cohort_scores(rng, model_names, cohort), cohort_scores(rng, test_names, cohort)
    models = model_names[rng.integers(0, n_models, n_trials)]
    tests = test_names[rng.integers(0, n_tests, n_trials)]
    raw = rng.normal(0.1, 0.2, n_trials)
    labels = rng.random(n_trials) < 0.05
    # ids as the readers hold them: categorical columns
    meta = pd.DataFrame({"model": pd.Categorical(models), "test": pd.Categorical(tests)})
    trials = lc.Trials.from_labels(raw, labels, name="sys", metadata=meta)
    ours_time, ours_times, ours = best_time(lambda: lc.normalize_scores(trials, enrol, test, "as-norm", TOP_N), 5)
    plain_time, plain_times, plain = best_time(
        lambda: straightforward(models, tests, raw, enrol, test, TOP_N), 2)
    reference = np.concatenate([plain[labels], plain[~labels]])
    agreement = float(np.max(np.abs(ours.scores - reference)))
    cpus = len(os.sched_getaffinity(0))
    text = f"""{SECTION}

{n_trials:,} trials, {n_models:,} models and {n_tests:,} test segments each scored against a cohort of {n_cohort:,}
recordings (float32 cosine scores), adaptive S-norm with the top {TOP_N}; best of 5 (llrcore) and of 2 (numpy), on
{cpus} CPUs.

| implementation | best (s) | runs (s) |
|---|---:|---:|
| llrcore.normalize_scores (np.partition per row block on the pool, ids factorised once, gathered per trial) | {ours_time:.3f} | {", ".join(f"{t:.2f}" for t in ours_times)} |
| straightforward numpy (WeSpeaker's score_norm.py: np.sort per row, dict + loop over trials) | {plain_time:.3f} | {", ".join(f"{t:.2f}" for t in plain_times)} |

Speed-up {plain_time / ours_time:.1f}x; largest difference between the two normalised scores {agreement:.1e}
(numpy's mean and std of float32 scores accumulate in float32, as WeSpeaker's would; llrcore's in float64). Target:
under 10 s on 2 cores.
"""
    publish(SECTION, text, args)


if __name__ == "__main__":
    main()
