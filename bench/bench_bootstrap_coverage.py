"""Benchmark: how often nominal 95 % bootstrap intervals cover the true EER, minDCF and Cllr, per interval method,
on the designs that chose the default and on held-out designs that no choice looked at.

Data whose truth is known: calibrated Gaussian LLRs (van Leeuwen & Brümmer 2013), targets ~ N(mu, 2 mu) and
non-targets ~ N(-mu, 2 mu); a design is (mu, targets, non-targets, P_target, first seed), sample s drawn with
``numpy.random.default_rng(first seed + s)``. The true values, by closed form and quadrature (no llrcore code):

- EER = Phi(-sqrt(mu / 2)), so EER e needs mu = 2 Phi^-1(e)^2;
- minDCF at P (C_miss = C_fa = 1, normalised by min(P, 1 - P)): the Bayes threshold of calibrated LLRs,
  ``t = log((1 - P) / P)``, is optimal, so ``minDCF = (P Phi((t - mu) / sqrt(2 mu)) + (1 - P) Phi((-t - mu) /
  sqrt(2 mu))) / min(P, 1 - P)``;
- Cllr = E[log2(1 + e^-x)], x ~ N(mu, 2 mu) (scipy quadrature).

Each sample gets ``lc.bootstrap(trials, n=R, seed=s, p_target=P, smooth=True)`` (BCa with its grouped jackknife, and
the smoothed bootstrap of minDCF), and every method's interval is made from the same replicates:

- ``percentile``: ``result.interval(metric, "percentile")`` (Efron & Tibshirani 1993, ch. 13);
- ``BC``: BCa without the acceleration (``llrcore.uncertainty.intervals.bca_interval(..., 0.0, ...)``: bias correction only);
- ``BCa``: ``result.interval(metric, "bca")`` (Efron 1987);
- ``basic``: ``2 estimate - (upper, lower)`` of the percentile interval (Davison & Hinkley 1997, eq. 5.6);
- ``smoothed``: ``result.interval("min_dcf", "smoothed")``, the basic interval of the shrunk smoothed bootstrap
  (Silverman & Young 1987; ``llrcore.uncertainty.intervals``; minDCF only);
- ``bracket``: ``result.interval("min_dcf", "bracket")``, the out-of-bag bracket (``llrcore.uncertainty.intervals``;
  minDCF only);
- ``default``: what ``lc.bootstrap`` gives without ``smooth=``: for minDCF ``bracket`` when it rests on fewer than
  30 misses or false alarms (``llrcore.uncertainty.intervals.rests_on_few_errors``, the rule of 30), else ``BCa``;
  ``BCa`` for the others.

The designs: **chose** are those the method was chosen on (EER 7.9 % and 2.3 %, 300 + 3,000, P_target 0.01, seeds
from 10,000: the benchmark's design before the smoothed bootstrap; the out-of-bag bracket was chosen on them too);
every other design is **held out**: it was run once, after the choice, with nothing changed afterwards.

Coverage is the share of samples whose interval holds the true value, with its binomial standard error
``sqrt(c (1 - c) / S)``; "below" counts samples whose interval lies wholly below the truth (too optimistic).

**Few groups** (``--grouped``): trials that share a speaker, drawn whole with ``group_by="speaker"``. Speaker g of
G has its own target offset b_g and non-target offset c_g, both ~ N(0, rho 2 mu); its targets are
``mu + b_g + N(0, (1 - rho) 2 mu)`` and its non-targets ``-mu + c_g + N(0, (1 - rho) 2 mu)``, so each class is
N(+-mu, 2 mu) over the population of speakers (calibrated, the truths above) while the trials of one speaker are
correlated (rho within a class). ``lc.bootstrap(trials, group_by="speaker")`` draws the speakers, then their trials
within them (two levels, ``llrcore.uncertainty.resampling``); ``percentile``, ``BCa`` and minDCF's ``bracket`` are the
intervals of its replicates, **default** what it gives by default. The designs are (mu, G, targets and non-targets
per speaker, rho, P_target, first seed); **development** designs are those the two-level draws were chosen on,
**held out** the others (other seeds, G = 10, 20 and 60, another EER and rho, unequal speakers), run once after the
choice.

This is a benchmark, not a test: it prints and records numbers, it asserts nothing. Run::

    python bench/bench_bootstrap_coverage.py               # 200 samples x 200 replicates per design, 2 processes
    python bench/bench_bootstrap_coverage.py --size small  # 30 samples x 100 replicates, prints only
    python bench/bench_bootstrap_coverage.py --size default --write  # 200 samples x 1,000 replicates (lc.bootstrap's
                                                                      # default n), about 5 times the full run
    python bench/bench_bootstrap_coverage.py --grouped     # few groups: 300 samples x 200 replicates per design
"""
from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd
from _results import publish
from scipy import integrate, stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import llrcore as lc  # noqa: E402
from llrcore.uncertainty.intervals import (  # noqa: E402
    bca_interval,
    bracket_interval,
    percentile_interval,
    rests_on_few_errors,
)

HEADING = "## Bootstrap interval coverage (calibrated Gaussian LLRs)"
#: The section of each size that writes one (``--size default`` has its own, beside the full run's).
HEADINGS = {"full": HEADING, "small": HEADING,
            "default": "## Bootstrap interval coverage at lc.bootstrap's default 1,000 replicates"}
LEVEL = 0.95
SIZES = {"full": (200, 200), "small": (30, 100), "default": (200, 1000)}  # samples, replicates; default: lc.bootstrap's n
METRICS = {"eer": "EER", "min_dcf": "minDCF", "cllr": "Cllr"}
METHODS = ("percentile", "BC", "BCa", "basic", "smoothed", "bracket", "default")


def mu_of_eer(eer: float) -> float:
    return 2 * stats.norm.ppf(eer) ** 2


#: name -> (role, mu, targets, non-targets, P_target, first seed)
DESIGNS = {
    "EER 7.9 %, 300 + 3,000, P 0.01": ("chose", 4.0, 300, 3000, 0.01, 10_000),
    "EER 2.3 %, 300 + 3,000, P 0.01": ("chose", 8.0, 300, 3000, 0.01, 10_000),
    "EER 7.9 %, 300 + 3,000, P 0.01, other seeds": ("held out", 4.0, 300, 3000, 0.01, 80_000),
    "EER 1 %, 300 + 3,000, P 0.01": ("held out", mu_of_eer(0.01), 300, 3000, 0.01, 20_000),
    "EER 15 %, 300 + 3,000, P 0.01": ("held out", mu_of_eer(0.15), 300, 3000, 0.01, 30_000),
    "EER 7.9 %, 1,000 + 10,000, P 0.01": ("held out", 4.0, 1000, 10_000, 0.01, 40_000),
    "EER 7.9 %, 100 + 1,000, P 0.01": ("held out", 4.0, 100, 1000, 0.01, 50_000),
    "EER 7.9 %, 300 + 3,000, P 0.05": ("held out", 4.0, 300, 3000, 0.05, 60_000),
    "EER 7.9 %, 300 + 3,000, P 0.001": ("held out", 4.0, 300, 3000, 0.001, 70_000),
}


GROUPED_HEADING = "## Bootstrap interval coverage with few groups (speakers sharing an effect)"
GROUPED_SIZE = (300, 200)  # samples, replicates
GROUPED_METHODS = ("percentile", "BCa", "bracket", "default")
#: Targets per speaker of the unequal design, dealt to the speakers in turn (10 on average; non-targets 10 times as
#: many).
UNEQUAL = (2, 5, 10, 15, 18)
#: name -> (role, mu, speakers G, targets and non-targets per speaker, rho, P_target, first seed)
GROUPED_DESIGNS = {
    "G 30, EER 7.9 %, 10 + 100 per speaker, rho 0.3": ("development", 4.0, 30, 10, 100, 0.3, 0.01, 100_000),
    "G 30, EER 2.3 %, 10 + 100 per speaker, rho 0.3": ("development", 8.0, 30, 10, 100, 0.3, 0.01, 110_000),
    "G 30, EER 7.9 %, 10 + 100 per speaker, rho 0.3, other seeds": ("held out", 4.0, 30, 10, 100, 0.3, 0.01,
                                                                    200_000),
    "G 10, EER 7.9 %, 30 + 300 per speaker, rho 0.3": ("held out", 4.0, 10, 30, 300, 0.3, 0.01, 210_000),
    "G 20, EER 7.9 %, 15 + 150 per speaker, rho 0.3": ("held out", 4.0, 20, 15, 150, 0.3, 0.01, 220_000),
    "G 60, EER 7.9 %, 5 + 50 per speaker, rho 0.3": ("held out", 4.0, 60, 5, 50, 0.3, 0.01, 230_000),
    "G 30, EER 15 %, 10 + 100 per speaker, rho 0.1": ("held out", mu_of_eer(0.15), 30, 10, 100, 0.1, 0.01, 240_000),
    "G 30, EER 7.9 %, unequal speakers (2 to 18 + 20 to 180), rho 0.3": (
        "held out", 4.0, 30, UNEQUAL, tuple(10 * n for n in UNEQUAL), 0.3, 0.01, 250_000),
}


def truth(mu: float, p_target: float) -> dict[str, float]:
    """The true EER, minDCF and Cllr of calibrated Gaussian LLRs with means +-mu (closed forms, quadrature)."""
    sigma = np.sqrt(2 * mu)
    t = np.log((1 - p_target) / p_target)
    min_dcf = (p_target * stats.norm.cdf((t - mu) / sigma) + (1 - p_target) * stats.norm.cdf((-t - mu) / sigma))
    density = stats.norm(mu, sigma).pdf
    cllr, _ = integrate.quad(lambda x: np.logaddexp(0, -x) / np.log(2) * density(x), -np.inf, np.inf)
    return {"eer": float(stats.norm.cdf(-np.sqrt(mu / 2))), "min_dcf": float(min_dcf / min(p_target, 1 - p_target)),
            "cllr": cllr}


def intervals(result: lc.BootstrapResult, metric: str, few: bool) -> dict[str, tuple[float, float]]:
    """Every method's interval of `metric` from the same replicates; ``default`` is what ``lc.bootstrap`` gives by
    default: the out-of-bag bracket of minDCF when `few` (the rule of 30), BCa otherwise."""
    values, estimate = result.replicates[metric].to_numpy(), getattr(result.estimate, metric)
    low, high = result.interval(metric, "percentile")
    found = {"percentile": (low, high), "BC": bca_interval(values, estimate, 0.0, LEVEL),
             "BCa": result.interval(metric, "bca"), "basic": (2 * estimate - high, 2 * estimate - low)}
    if metric == "min_dcf":
        found["smoothed"] = result.interval(metric, "smoothed")
        found["bracket"] = result.interval(metric, "bracket")
    found["default"] = found["bracket" if metric == "min_dcf" and few else "BCa"]
    return found


def coverage(design: tuple, samples: int, replicates: int) -> dict:
    """(covered, below) counts per (metric, method) over `samples` samples of `design`."""
    _, mu, n_tar, n_non, p_target, first = design
    true = truth(mu, p_target)
    run, few_errors = {"truth": true, "covered": {}, "below": {}, "width": {}}, 0
    sigma = np.sqrt(2 * mu)
    start = time.perf_counter()
    for s in range(samples):
        rng = np.random.default_rng(first + s)
        trials = lc.Trials(rng.normal(mu, sigma, n_tar), rng.normal(-mu, sigma, n_non))
        result = lc.bootstrap(trials, n=replicates, level=LEVEL, seed=s, p_target=p_target, smooth=True, threads=1)
        few = rests_on_few_errors(trials.tar, trials.non, lc.OperatingPoint(p_target))
        few_errors += few
        for metric, value in true.items():
            tally(run, metric, value, intervals(result, metric, few), samples)
    return run | {"few_errors": few_errors, "seconds": time.perf_counter() - start}


def grouped_sample(design: tuple, rng: np.random.Generator) -> lc.Trials:
    """One sample of a grouped design (module docstring): speaker offsets, then targets, then non-targets."""
    _, mu, groups, n_tar, n_non, rho, _, _ = design
    per_tar, per_non = (np.resize(np.atleast_1d(n), groups) for n in (n_tar, n_non))
    between, within = np.sqrt(rho * 2 * mu), np.sqrt((1 - rho) * 2 * mu)
    speaker_tar, speaker_non = np.repeat(np.arange(groups), per_tar), np.repeat(np.arange(groups), per_non)
    b, c = rng.normal(0, between, groups), rng.normal(0, between, groups)
    tar = mu + b[speaker_tar] + rng.normal(0, within, speaker_tar.size)
    non = -mu + c[speaker_non] + rng.normal(0, within, speaker_non.size)
    return lc.Trials(tar, non, metadata=pd.DataFrame({"speaker": np.concatenate([speaker_tar, speaker_non])}))


def grouped_intervals(result: lc.BootstrapResult, metric: str) -> dict[str, tuple[float, float]]:
    """The percentile and BCa intervals of `metric` (and minDCF's out-of-bag bracket) from the same replicates, and
    the default one."""
    found = {"percentile": result.interval(metric, "percentile"), "BCa": result.interval(metric, "bca")}
    if metric == "min_dcf":
        found["bracket"] = result.interval(metric, "bracket")
    found["default"] = result.interval(metric)
    return found


def grouped_coverage(design: tuple, samples: int, replicates: int) -> dict:
    """(covered, below) counts and mean widths per (metric, method) over `samples` samples of a grouped design."""
    p_target, first = design[6], design[7]
    true = truth(design[1], p_target)
    run = {"truth": true, "covered": {}, "below": {}, "width": {}}
    start = time.perf_counter()
    for s in range(samples):
        trials = grouped_sample(design, np.random.default_rng(first + s))
        result = lc.bootstrap(trials, n=replicates, level=LEVEL, group_by="speaker", seed=s, p_target=p_target,
                              threads=1)
        for metric, value in true.items():
            tally(run, metric, value, grouped_intervals(result, metric), samples)
    run["seconds"] = time.perf_counter() - start
    return run


def tally(run: dict, metric: str, value: float, found: dict, samples: int) -> None:
    """Count whether each interval of `found` covers `value` or lies below it, and add its share of the mean width."""
    for method, (low, high) in found.items():
        run["covered"][metric, method] = run["covered"].get((metric, method), 0) + (low <= value <= high)
        run["below"][metric, method] = run["below"].get((metric, method), 0) + (high < value)
        run["width"][metric, method] = run["width"].get((metric, method), 0.0) + (high - low) / samples


def cell(run: dict, metric: str, method: str, samples: int) -> str:
    if (metric, method) not in run["covered"]:
        return "—"
    c, b = run["covered"][metric, method] / samples, run["below"][metric, method] / samples
    text = f"{100 * c:.1f} ± {100 * np.sqrt(c * (1 - c) / samples):.1f} [{100 * b:.1f}]"
    return f"**{text}**" if method == "default" else text


def render(runs: dict, samples: int, replicates: int, seconds: float, command: str, processes: int,
           heading: str = HEADING) -> str:
    out = [heading, "",
           f"`{command}`: {samples} samples per design, {replicates:,} replicates each, nominal {100 * LEVEL:g} % "
           f"intervals ({seconds:.0f} s on {processes} processes). Coverage % ± binomial standard error; in brackets "
           "the % of samples whose interval lies wholly below the truth. **default**: what `lc.bootstrap` gives by "
           "default (BCa; "
           "for minDCF the out-of-bag bracket when it rests on fewer than 30 misses or false alarms, "
           "the rule of 30, else BCa). Below each table, the minDCF intervals' mean width per method. "
           "*chose*: the designs the method was chosen on; "
           "*held out*: designs no choice looked at (other seeds, EERs, sizes and P_target), run once after the "
           "choice.", ""]
    for name, run in runs.items():
        role, mu, n_tar, n_non, p_target, first = DESIGNS[name]
        true = run["truth"]
        out += [f"{name} ({role}; mu = {mu:.3g}, seeds from {first:,}; true EER {100 * true['eer']:.2f} %, minDCF "
                f"{true['min_dcf']:.4f}, Cllr {true['cllr']:.4f}; minDCF on fewer than 30 errors in "
                f"{run['few_errors']} of {samples} samples)", "",
                "| metric | " + " | ".join(METHODS) + " |", "|---" * (len(METHODS) + 1) + "|"]
        out += [f"| {label} | " + " | ".join(cell(run, metric, method, samples) for method in METHODS) + " |"
                for metric, label in METRICS.items()]
        out += ["", "minDCF's mean interval width: " + ", ".join(
            f"{method} {run['width']['min_dcf', method]:.3f}" for method in METHODS), ""]
    return "\n".join(out) + "\n"


def render_grouped(runs: dict, samples: int, replicates: int, seconds: float, command: str, processes: int) -> str:
    out = [GROUPED_HEADING, "",
           f"`{command}`: {samples} samples per design, {replicates:,} replicates each, nominal {100 * LEVEL:g} % "
           f"intervals; `lc.bootstrap(trials, group_by=\"speaker\")` draws the speakers, then their trials within "
           f"them ({seconds:.0f} s on {processes} processes). Coverage % ± binomial standard error; in brackets the % "
           "of samples whose interval lies wholly below the truth. *percentile*, *BCa* and *bracket* (minDCF's "
           "out-of-bag bracket): intervals of the same replicates; **default**: what `lc.bootstrap` gives by default "
           "(BCa; for minDCF the bracket when it rests on fewer than 30 errors). The design (module docstring of "
           "`bench/bench_bootstrap_coverage.py`): each class N(+-mu, 2 mu) over speakers, rho of its variance shared "
           "by a speaker's trials; G speakers, targets + non-targets per speaker."]
    for role in ("development", "held out"):
        note = (" (the two-level draws were chosen on these)" if role == "development"
                else " (run once, after the choice)")
        out += ["", f"**{role.capitalize()} designs**{note}", "",
                "| design | truth | metric | " + " | ".join(GROUPED_METHODS) + " |",
                "|---" * (len(GROUPED_METHODS) + 3) + "|"]
        for name, run in runs.items():
            design = GROUPED_DESIGNS[name]
            if design[0] != role:
                continue
            out += [f"| {name}, seeds from {design[7]:,} | {run['truth'][metric]:.4f} | {label} | "
                    + " | ".join(cell(run, metric, method, samples) for method in GROUPED_METHODS) + " |"
                    for metric, label in METRICS.items()]
    return "\n".join(out) + "\n"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", choices=sorted(SIZES), default="full")
    parser.add_argument("--design", action="append", help="run only this design (repeatable)")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--write", action="store_true", help="write RESULTS.md at any size")
    parser.add_argument("--no-write", action="store_true", help="never write RESULTS.md")
    parser.add_argument("--grouped", action="store_true", help="the designs with few groups (speakers)")
    args = parser.parse_args(argv)
    samples, replicates = GROUPED_SIZE if args.grouped and args.size == "full" else SIZES[args.size]
    designs, work = (GROUPED_DESIGNS, grouped_coverage) if args.grouped else (DESIGNS, coverage)
    names = args.design or list(designs)
    command = "python bench/bench_bootstrap_coverage.py" + ("" if args.size == "full" else f" --size {args.size}")
    command += " --grouped" if args.grouped else ""
    if args.design:
        command += " " + " ".join(f"--design '{name}'" for name in names)
    start = time.perf_counter()
    with ProcessPoolExecutor(args.processes) as pool:
        futures = {name: pool.submit(work, designs[name], samples, replicates) for name in names}
        runs = {}
        for name, future in futures.items():
            runs[name] = future.result()
            print(f"{name} done ({runs[name]['seconds']:.0f} s)", flush=True)
    seconds = time.perf_counter() - start
    if args.grouped:
        publish(GROUPED_HEADING, render_grouped(runs, samples, replicates, seconds, command, args.processes), args)
        return
    heading = HEADINGS[args.size]
    publish(heading, render(runs, samples, replicates, seconds, command, args.processes, heading), args)


if __name__ == "__main__":
    main()
