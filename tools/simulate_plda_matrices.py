"""Simulate PLDA-style LLR matrices with a known reference from a two-covariance model.

The generative model (per recording, dimension D):

- speaker means ``m_s ~ N(0, B)`` (between-speaker covariance B);
- the recording is cut into halves of 0.75 s; a turn list on that grid (turns of 1.5-7.5 s, speakers alternating,
  speaking time balanced or not) gives each half its speaker ``z_h``; every speaker speaks at least ``MIN_HALVES``
  halves (10.5 s): a speaker below it gets extra turns at random turn boundaries (the recording gets longer);
- each half carries ``y_h = m_{z_h} + d_{z_h}(h) + u_{turn(h)}``: a per-speaker drift ``d`` (an AR(1) process over
  the speaker's halves in time order, stationary covariance ``drift * W``, correlation time ``drift_time``) and a
  per-turn effect ``u ~ N(0, turn_effect * W)`` shared by the halves of one turn;
- window i (1.5 s every 0.75 s) covers halves i and i+1 and is
  ``x_i = (y_i + y_{i+1}) / 2 + q_i (n_i + n_{i+1}) / sqrt(2)`` with half noises ``n_h ~ N(0, W)`` (within-speaker
  covariance W): overlapping windows share half of their noise; ``q_i`` is a per-window quality
  (``log q ~ N(0, quality_sd^2)``); windows across a speaker change mix two speakers.

The windows are scored with the two-covariance PLDA log-likelihood ratio of the nominal model (B, W): the drift,
turn effects and qualities are a mismatch the scorer does not know about, as in real systems. With ``T = B + W``:

    LLR(x1, x2) = log N([x1; x2]; 0, [[T, B], [B, T]]) - log N([x1; x2]; 0, [[T, 0], [0, T]])
                = x1'Q x1 + x2'Q x2 + x1'P x2 + c,
    A = (T - B T^-1 B)^-1,  Q = (T^-1 - A) / 2,  P = T^-1 B A,  c = (log|T| - log|T - B T^-1 B|) / 2.

Written to ``--out`` (default ``tests/data/diarization_corpus/plda``): per recording ``<rec>.npz`` (``scores`` N x N
float32 LLRs, ``start``/``end`` float64, ``duration``) and ``<rec>.rttm`` (the turns), ``corpus.csv`` (recording, K,
duration, windows, speaking-time shares, as the cosine corpus) and ``SOURCE.txt``. The model's parameters
(:data:`PARAMETERS`) and the designs (K = 1..10 twice, balanced and unbalanced) can be changed from the command line,
as the held-out corpus does (tests/data/diarization_heldout/plda: another seed, other parameters, K = 1..10 and six
more, balanced and unbalanced alternately). Usage::

    python tools/simulate_plda_matrices.py --seed 20261125
    python tools/simulate_plda_matrices.py --out tests/data/diarization_heldout/plda --seed 20261128 \\
        --ks 1 2 3 4 5 6 7 8 9 10 2 3 5 7 8 10 --alternate --prefix plda_h --dimension 48 --between 0.2 2.5 \\
        --within 0.4 2.5 --drift 0.35 --drift-time 40 --turn-effect 0.3 --quality-sd 0.4
"""
from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling tool below
from make_diarization_corpus import (  # noqa: E402
    MIN_SPEECH, insert_position, next_speaker, shares_of, write_index, write_recording)

HALF = 0.75  # s
WINDOW = 2 * HALF
MIN_HALVES = int(np.ceil(MIN_SPEECH / HALF - 1e-9))  # every speaker speaks at least MIN_SPEECH s: 14 halves, 10.5 s
PARAMETERS = {
    "dimension": 64,
    "between_eigenvalues": (0.3, 3.0),  # B's eigenvalues log-spaced in this range, random orientation
    "within_eigenvalues": (0.5, 2.0),  # W's likewise, another orientation
    "drift": 0.25,  # stationary drift covariance = drift * W
    "drift_time": 60.0,  # s, AR(1) correlation time of the drift
    "turn_effect": 0.2,  # per-turn effect covariance = turn_effect * W
    "quality_sd": 0.3,  # sd of log q
}


def random_covariance(rng: np.random.Generator, dimension: int, low: float, high: float) -> np.ndarray:
    rotation, _ = np.linalg.qr(rng.normal(size=(dimension, dimension)))
    return (rotation * np.geomspace(low, high, dimension)) @ rotation.T


class TwoCovariancePLDA:
    """The closed-form two-covariance PLDA LLR of every pair of rows of X."""

    def __init__(self, between: np.ndarray, within: np.ndarray):
        self.between, self.within = between, within
        total = between + within
        total_inv = np.linalg.inv(total)
        schur = total - between @ total_inv @ between
        a = np.linalg.inv(schur)
        self.Q = 0.5 * (total_inv - a)
        self.Q = 0.5 * (self.Q + self.Q.T)
        self.P = total_inv @ between @ a
        self.P = 0.5 * (self.P + self.P.T)
        self.c = 0.5 * (np.linalg.slogdet(total)[1] - np.linalg.slogdet(schur)[1])

    def matrix(self, X: np.ndarray) -> np.ndarray:
        q = np.einsum("id,de,ie->i", X, self.Q, X)
        L = q[:, None] + q[None, :] + X @ self.P @ X.T + self.c
        return 0.5 * (L + L.T)

    def pair(self, x1: np.ndarray, x2: np.ndarray) -> float:
        """The same LLR from the two joint Gaussians (the definition; for checks)."""
        from scipy.stats import multivariate_normal

        total = self.between + self.within
        zero = np.zeros_like(total)
        same = np.block([[total, self.between], [self.between, total]])
        different = np.block([[total, zero], [zero, total]])
        z = np.concatenate([x1, x2])
        return float(multivariate_normal(cov=same).logpdf(z) - multivariate_normal(cov=different).logpdf(z))


def turn_halves(speaker: int, leader: int | None, rng: np.random.Generator) -> int:
    """A turn's length in halves: 2-10, or 6-10 for a dominant speaker (``leader``) and 2-6 for the others."""
    if leader is None:
        return int(rng.integers(2, 11))
    return int(rng.integers(6, 11) if speaker == leader else rng.integers(2, 7))


def plan_turns(k: int, shares: np.ndarray, leader: int | None, halves: int, rng: np.random.Generator) -> np.ndarray:
    """Speaker of each half: turns of 2-10 halves (1.5-7.5 s), never the same speaker twice in a row; a dominant
    speaker (``leader``) holds 6-10 halves, the others 2-6. `halves` halves, then the speaking floor: while a
    speaker has fewer than MIN_HALVES halves, the one with the fewest gets an extra turn (drawn as its others), put
    at a random turn boundary not next to one of its own turns; the plan gets longer by them."""
    z, current = [], None
    while len(z) < halves:
        current = next_speaker(shares, current, rng)
        z += [current] * turn_halves(current, leader, rng)
    z = z[:halves]
    turns = [[z[0], 0]]
    for s in z:
        if s == turns[-1][0]:
            turns[-1][1] += 1
        else:
            turns.append([s, 1])
    while True:
        spoken = np.zeros(k, int)
        for s, length in turns:
            spoken[s] += length
        if spoken.min() >= MIN_HALVES:
            return np.array([s for s, length in turns for _ in range(length)])
        speaker = int(np.argmin(spoken))
        length = turn_halves(speaker, leader, rng)
        turns.insert(insert_position([s for s, _ in turns], speaker, rng), [speaker, length])


def simulate(k: int, balanced: bool, plda: TwoCovariancePLDA, rng: np.random.Generator, params: dict,
             duration: float | None = None):
    """One recording of `k` speakers; its length is the corpus's (60 + 12 k + U(0, 20) s, at most 200 s) unless
    `duration` (s) is given, as the benchmark does for a matrix of realistic size; either is cut to whole halves and
    lengthened by the speaking floor's extra turns when a speaker has fewer than MIN_HALVES halves (never at the
    benchmark's sizes)."""
    dimension = params["dimension"]
    drawn = float(min(200.0, 60.0 + 12.0 * k + rng.uniform(0.0, 20.0)))  # drawn either way: the corpus's seed stream
    duration = drawn if duration is None else float(duration)
    halves = int(duration // HALF)
    duration = halves * HALF
    leader = None
    if k == 1 or balanced:
        shares = np.full(k, 1.0 / k)
    else:
        shares = rng.dirichlet(np.full(k, 1.0)) + 0.03
        leader = int(rng.integers(k))
        shares[leader] += shares.sum()
        shares /= shares.sum()
    z = plan_turns(k, shares, leader, halves, rng)
    halves = z.size  # the speaking floor's extra turns make the recording longer
    duration = halves * HALF
    turn_id = np.concatenate([[0], np.cumsum(z[1:] != z[:-1])])

    chol_b = np.linalg.cholesky(plda.between)
    chol_w = np.linalg.cholesky(plda.within)
    means = rng.normal(size=(k, dimension)) @ chol_b.T
    rho = np.exp(-HALF / params["drift_time"])
    drift = np.zeros((halves, dimension))
    for s in range(k):
        state = rng.normal(size=dimension) @ chol_w.T * np.sqrt(params["drift"])
        for h in np.flatnonzero(z == s):
            step = rng.normal(size=dimension) @ chol_w.T
            state = rho * state + np.sqrt(1 - rho ** 2) * np.sqrt(params["drift"]) * step
            drift[h] = state
    turn_effects = rng.normal(size=(turn_id[-1] + 1, dimension)) @ chol_w.T * np.sqrt(params["turn_effect"])
    y = means[z] + drift + turn_effects[turn_id]
    noise = rng.normal(size=(halves, dimension)) @ chol_w.T
    quality = np.exp(rng.normal(0.0, params["quality_sd"], halves - 1))
    X = 0.5 * (y[:-1] + y[1:]) + quality[:, None] * (noise[:-1] + noise[1:]) / np.sqrt(2.0)
    start = np.arange(halves - 1) * HALF
    end = start + WINDOW

    turns, h0 = [], 0
    for h in range(1, halves + 1):
        if h == halves or z[h] != z[h0]:
            turns.append((h0 * HALF, h * HALF, int(z[h0])))
            h0 = h
    return plda.matrix(X), start, end, duration, turns, z


def designs(ks: list[int] | None, alternate: bool, prefix: str | None) -> list[tuple[str, int, bool]]:
    """(name, K, balanced) of each recording: by default K = 1..10, each balanced and unbalanced (K = 1 twice, ``a``
    and ``b``); with `ks`, one recording per entry, all balanced and unbalanced in turn if `alternate` (else both for
    each), named ``<prefix><index>_k<K>_<balanced|unbalanced>``."""
    if ks is None:
        return [(f"plda_k01_{'a' if balanced else 'b'}" if k == 1 else  # K = 1 has no imbalance: two draws
                 f"plda_k{k:02d}_{'balanced' if balanced else 'unbalanced'}", k, balanced)
                for k in range(1, 11) for balanced in (True, False)]
    plan = ([(k, i % 2 == 0) for i, k in enumerate(ks)] if alternate
            else [(k, balanced) for k in ks for balanced in (True, False)])
    return [(f"{prefix or 'plda_'}{i:02d}_k{k:02d}_{'balanced' if balanced else 'unbalanced'}", k, balanced)
            for i, (k, balanced) in enumerate(plan, start=1)]


def parse(argv=None) -> tuple[argparse.Namespace, dict]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("tests/data/diarization_corpus/plda"))
    parser.add_argument("--seed", type=int, default=20261125)
    parser.add_argument("--ks", type=int, nargs="+", help="K of each design (default: 1..10, both balances)")
    parser.add_argument("--alternate", action="store_true", help="with --ks: balanced and unbalanced in turn")
    parser.add_argument("--prefix", help="with --ks: recording names <prefix><index>_k<K>_<balance>")
    parser.add_argument("--dimension", type=int, default=PARAMETERS["dimension"])
    parser.add_argument("--between", type=float, nargs=2, default=PARAMETERS["between_eigenvalues"],
                        metavar=("LOW", "HIGH"), help="range of B's eigenvalues")
    parser.add_argument("--within", type=float, nargs=2, default=PARAMETERS["within_eigenvalues"],
                        metavar=("LOW", "HIGH"), help="range of W's eigenvalues")
    for name in ("drift", "drift_time", "turn_effect", "quality_sd"):
        parser.add_argument(f"--{name.replace('_', '-')}", type=float, default=PARAMETERS[name])
    args = parser.parse_args(argv)
    params = {"dimension": args.dimension, "between_eigenvalues": tuple(args.between),
              "within_eigenvalues": tuple(args.within), "drift": args.drift, "drift_time": args.drift_time,
              "turn_effect": args.turn_effect, "quality_sd": args.quality_sd}
    return args, params


def command(args: argparse.Namespace, params: dict) -> str:
    """The command line that made the corpus (options left at their defaults not repeated)."""
    words = ["python tools/simulate_plda_matrices.py", f"--out {shlex.quote(str(args.out))}", f"--seed {args.seed}"]
    if args.ks is not None:
        words.append("--ks " + " ".join(map(str, args.ks)) + (" --alternate" if args.alternate else ""))
        words += [f"--prefix {shlex.quote(args.prefix)}"] if args.prefix else []
    flags = {"dimension": "--dimension", "between_eigenvalues": "--between", "within_eigenvalues": "--within",
             "drift": "--drift", "drift_time": "--drift-time", "turn_effect": "--turn-effect",
             "quality_sd": "--quality-sd"}
    for key, flag in flags.items():
        value = params[key]
        if value != PARAMETERS[key]:
            words.append(f"{flag} {' '.join(f'{v:g}' for v in value) if isinstance(value, tuple) else f'{value:g}'}")
    return " ".join(words)


def main(argv=None) -> None:
    args, params = parse(argv)
    rng = np.random.default_rng(args.seed)
    dimension = params["dimension"]
    plda = TwoCovariancePLDA(random_covariance(rng, dimension, *params["between_eigenvalues"]),
                             random_covariance(rng, dimension, *params["within_eigenvalues"]))
    x = rng.normal(size=(2, dimension))  # the closed form against the definition
    closed, direct = plda.matrix(x)[0, 1], plda.pair(x[0], x[1])
    assert abs(closed - direct) < 1e-6 * max(1.0, abs(direct)), (closed, direct)

    args.out.mkdir(parents=True, exist_ok=True)
    rows, described = [], []
    for name, k, balanced in designs(args.ks, args.alternate, args.prefix):
        S, start, end, duration, turns, z = simulate(k, balanced, plda, rng, params)
        rows.append(write_recording(args.out, name, S, start, end, duration, turns, k))
        shares = shares_of(turns, k)
        centre = z[1:]  # the speaker at each window's centre (the start of its second half)
        i, j = np.triu_indices(start.size, 1)
        far = (j - i) >= 2
        same = centre[i] == centre[j]
        within = S[i[same & far], j[same & far]]
        between = S[i[~same], j[~same]]
        described.append(f"  {name}: K = {k}, {duration:.2f} s, {start.size} windows, {len(turns)} turns, "
                         f"least speech {min(np.bincount(z, minlength=k)) * HALF:.2f} s, shares "
                         f"{', '.join(f'{100 * v:.0f}' for v in shares)} %; LLR within (non-overlapping) "
                         f"{within.mean():.1f} +- {within.std():.1f}"
                         + (f", between {between.mean():.1f} +- {between.std():.1f}\n" if k > 1 else "\n"))
        print(described[-1].strip(), flush=True)
    plan = ("K = 1..10" if args.ks is None else
            f"K = {', '.join(map(str, args.ks))} ({'balanced and unbalanced in turn' if args.alternate else 'both'})")
    twice = "; K = 1 twice" if args.ks is None else ""
    text = f"""\
PLDA-style LLR matrices simulated from a two-covariance model, with their references
====================================================================================

Made by tools/simulate_plda_matrices.py, seed {args.seed} (numpy.random.default_rng):
  {command(args, params)}

Files (the formats of the cosine corpus one folder up)
  <rec>.npz    scores (N x N float32 PLDA LLRs, natural log, symmetric), start, end (float64, s), duration (s)
  <rec>.rttm   the reference turns (speakers spk01..spkKK)
  corpus.csv   recording, K, duration (s), windows, shares (speaking-time share of spk01;spk02;...)

Model (see the tool's docstring for the formulas)
  dimension D = {dimension}; B = R1 diag(geomspace{params['between_eigenvalues']}) R1',
  W = R2 diag(geomspace{params['within_eigenvalues']}) R2'
  (R1, R2 random orthogonal, drawn first from the seed); speaker means m_s ~ N(0, B).
  Halves of {HALF} s; turns of 2-10 halves (1.5-7.5 s), the next speaker drawn by share, never the current one.
  Speaking floor: every speaker speaks at least {MIN_HALVES} halves ({MIN_HALVES * HALF:g} s, i.e. >= {MIN_SPEECH:g} s,
  as in the cosine corpus). A speaker below it after the planned length gets extra turns (drawn as its other
  turns), each put at a random turn boundary not next to one of its own, until it has; the recording gets longer by
  them. Without it some speakers had 2-4 halves of speech (1.5-3 s), which no method can count. (Redrawing the
  plan until every speaker reaches the floor cannot work in the unbalanced design: at the planned length the
  non-dominant speakers average 15-13 halves each for K = 7-10, and no draw in 500 met the floor for K >= 7.)
  Half value y_h = m_z + d_z(h) + u_turn: drift AR(1) per speaker over its halves, stationary covariance
  {params['drift']} W, correlation time {params['drift_time']:g} s; turn effect u ~ N(0, {params['turn_effect']} W).
  Window i = halves i, i+1 ({WINDOW} s every {HALF} s): x_i = (y_i + y_(i+1))/2 + q_i (n_i + n_(i+1))/sqrt(2),
  n_h ~ N(0, W) (neighbouring windows share one half's noise), log q_i ~ N(0, {params['quality_sd']}^2).
  Scores: the closed-form two-covariance PLDA LLR of the nominal (B, W) (checked against the ratio of the two
  joint Gaussians with scipy), which ignores drift, turn effects and quality.
  Designs: {plan}, each balanced (equal turn-taking weights; shares still vary with the turn lengths) and
  unbalanced (weights Dirichlet(1) + 0.03, one dominant speaker's raised by their sum: it takes about every
  other turn, its turns 6-10 halves, the others' 2-6){twice}.
  Length 60 + 12 K + U(0, 20) s, capped at 200 s, cut to whole halves, then the speaking floor's extra turns.
  A window's reference speaker: the one at its centre (windows across a change mix two speakers).

Recordings (LLR mean +- sd; within-speaker over windows >= 2 halves apart, i.e. not overlapping)
{''.join(described)}"""
    print(f"{args.out}: {len(rows)} recordings, {write_index(args.out, rows, text):.1f} MB")


if __name__ == "__main__":
    main()
