"""The sticky Markov chain of the block model (llrcore.diarization.chain): its exact posterior for given logits.

References are independent of llrcore: the sum over every speaker sequence and every stay/redraw choice written out
(brute force, small N), a log-space forward-backward with the full K x K transition matrix (scipy's logsumexp, one
window after another, large N), and the closed form of independent windows (p = 0: a softmax per window).
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.special import logsumexp, softmax

from llrcore.diarization.chain import loop_probability, sticky_chain


def brute_force(logits, pi, p):
    """log Z, marginals q(z_t = k) and expected draws from pi, by enumerating z and the redraw indicators s."""
    n, k = logits.shape
    total, marginals, draws = 0.0, np.zeros((n, k)), np.zeros(k)
    for z in itertools.product(range(k), repeat=n):
        for s in itertools.product((0, 1), repeat=n - 1):
            if any(not redraw and z[t + 1] != z[t] for t, redraw in enumerate(s)):
                continue  # a stay keeps the speaker
            weight = pi[z[0]] * np.exp(logits[0, z[0]])
            for t, redraw in enumerate(s, start=1):
                weight *= ((1 - p) * pi[z[t]] if redraw else p) * np.exp(logits[t, z[t]])
            total += weight
            marginals[np.arange(n), z] += weight
            draws[z[0]] += weight
            for t, redraw in enumerate(s, start=1):
                draws[z[t]] += weight * redraw
    return np.log(total), marginals / total, draws / total


def log_space(logits, log_pi, p):
    """Forward-backward in logs with the full transition matrix p I + (1 - p) 1 pi^T; log Z, the marginals and the
    expected draws from pi (window 1, and every redraw: q(s_t = 1, z_t = k))."""
    n, k = logits.shape
    transition = np.log(p * np.eye(k) + (1 - p) * np.exp(log_pi)[None, :])
    alpha, beta = np.empty((n, k)), np.zeros((n, k))
    alpha[0] = log_pi + logits[0]
    for t in range(1, n):
        alpha[t] = logits[t] + logsumexp(alpha[t - 1][:, None] + transition, axis=0)
    for t in range(n - 2, -1, -1):
        beta[t] = logsumexp(transition + logits[t + 1] + beta[t + 1], axis=1)
    log_z = logsumexp(alpha[-1])
    redraws = logsumexp(alpha[:-1], axis=1)[:, None] + np.log(1 - p) + log_pi + logits[1:] + beta[1:] - log_z
    marginals = np.exp(alpha + beta - log_z)
    return log_z, marginals, marginals[0] + np.exp(redraws).sum(axis=0)


@pytest.mark.parametrize("n, k, p", [(1, 3, 0.9), (2, 2, 0.5), (5, 3, 0.7), (6, 2, 0.97)])
def test_the_chain_sums_every_sequence_and_every_redraw(n, k, p):
    rng = np.random.default_rng(n * 10 + k)
    logits = rng.normal(0.0, 2.0, (n, k))
    pi = rng.dirichlet(np.ones(k)) * 0.9  # E[log pi] exponentiated sums to less than one
    log_z, marginals, draws = brute_force(logits, pi, p)
    chain = sticky_chain(logits, np.log(pi), p)
    assert chain.log_z == pytest.approx(log_z, rel=1e-13, abs=1e-13)
    np.testing.assert_allclose(chain.marginals, marginals, atol=1e-13)
    np.testing.assert_allclose(chain.draws, draws, atol=1e-13)


@pytest.mark.parametrize("n, k, spread", [(17, 4, 3.0), (500, 6, 10.0), (2000, 10, 30.0)])
@pytest.mark.parametrize("p", [0.5, 0.97, 0.999])
def test_the_chunked_recursion_equals_one_window_after_another(n, k, spread, p):
    """The chain runs in chunks of windows side by side; a plain log-space recursion gives the same, with logits as
    far apart as pinned labels (30 nats) and speaker weights down to 1e-6."""
    rng = np.random.default_rng(n)
    logits = rng.normal(0.0, spread, (n, k))
    log_pi = np.log(np.r_[rng.dirichlet(np.ones(k - 1)) * 0.95, 1e-6])
    log_z, marginals, draws = log_space(logits, log_pi, p)
    chain = sticky_chain(logits, log_pi, p)
    assert chain.log_z == pytest.approx(log_z, rel=1e-13)
    np.testing.assert_allclose(chain.marginals, marginals, atol=1e-8)
    np.testing.assert_allclose(chain.marginals.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(chain.draws, draws, rtol=1e-8, atol=1e-8)


def test_no_loop_is_independent_windows():
    rng = np.random.default_rng(7)
    logits, log_pi = rng.normal(0.0, 3.0, (50, 4)), np.log([0.4, 0.3, 0.2, 0.05])
    chain = sticky_chain(logits, log_pi, 0.0)
    np.testing.assert_allclose(chain.marginals, softmax(logits + log_pi, axis=1), atol=1e-15)
    np.testing.assert_allclose(chain.draws, chain.marginals.sum(axis=0))
    assert chain.log_z == pytest.approx(float(logsumexp(logits + log_pi, axis=1).sum()), rel=1e-14)
    tiny = sticky_chain(logits, log_pi, 1e-300)  # the recursion, with a loop too small to matter
    assert tiny.log_z == pytest.approx(chain.log_z, rel=1e-14)
    np.testing.assert_allclose(tiny.marginals, chain.marginals, atol=1e-14)


def test_loop_probability_from_the_window_times():
    start = np.arange(0.0, 30.0, 0.75)
    assert loop_probability(start, 30.0) == pytest.approx(np.exp(-0.75 / 30.0))
    assert loop_probability(start[::-1], 30.0) == pytest.approx(np.exp(-0.75 / 30.0))  # any order
    assert loop_probability([3.0], 30.0) == 0.0
    # a speaker keeps the floor for mean_turn seconds on average: 1 / (1 - p) windows
    assert 0.75 / (1 - loop_probability(start, 30.0)) == pytest.approx(30.0, rel=0.02)
