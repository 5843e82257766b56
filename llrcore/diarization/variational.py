"""Mean-field variational inference of the Bayesian Gaussian block model: one run from one starting point.

The model, its prior and why the score likelihood is tempered by ``beta`` are in :mod:`llrcore.diarization.model`;
the driver that runs this from several starts, with merge moves and re-seeding, is
:func:`~llrcore.diarization.model.fit_block_model`. This module holds one run: the updates, the bound, the step.

``q(z, s, v, theta) = q(z, s) prod_k Beta(v_k) q(theta)`` with Normal-Gamma ``q(theta)`` and q(z, s) a chain (s:
the redraw indicators). With its marginals R (N x T), the expected block statistics are matrix products:
ordered-pair counts ``R^T (11^T - I) R = n n^T - R^T R``, score sums ``R^T D R`` and sums of squares ``R^T D2 R``
(D = S with zero diagonal, D2 = D**2); the diagonal of each is the within Gaussian's, the rest the between one's
(or, one Gaussian per pair of speakers, each off-diagonal entry its pair's).
The expected log-density of a score under a Normal-Gamma posterior (m, kappa, a, b) is the quadratic
``c0 + c1 d + c2 d^2`` with ``c2 = -a/(2b)``, ``c1 = (a/b) m``, ``c0 = (psi(a) - log b - log 2 pi)/2 -
(a/b) m^2/2 - 1/(2 kappa)``; so each segment's expected log-likelihood as speaker k is

    e_ik = beta * [ ((n^T - R) C0) + (D R) C1 + (D2 R) C2 ]_ik

with C0, C1, C2 the T x T coefficient matrices (diagonal: within; elsewhere: between), and the optimal q(z, s) for
given logits e is the chain's posterior with emissions exp(e), computed exactly by forward-backward
(:func:`~llrcore.diarization.chain.sticky_chain`, which also gives the partition term ``log Z - sum R e`` of the
bound and the expected draws from pi that update q(v)). The parameter updates are the conjugate Normal-Gamma and
Beta posteriors (:mod:`llrcore.diarization.block_prior`). Updating all segments at once is not coordinate ascent
(the pair terms couple them), so the new logits are a direction: ``e + rho (e* - e)`` is accepted only if the
evidence lower bound (ELBO) does not decrease (rho = 1, 1/2, 1/4, ...), and the ELBO is monotone over iterations.
(Bishop, *Pattern Recognition and Machine Learning*, ch. 10; Publication I of the thesis chapter ``papers/004``.)
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import digamma

from .block_prior import expected_log_density_coefficients, kl_beta, kl_normal_gamma, ng_posterior
from .chain import sticky_chain
from .responsibilities import has_empty_cluster, merge_columns

__all__ = ["VBState", "VariationalBlockModel"]

#: Logit gap that pins a segment to its label (a run that keeps draining re-seeded clusters stops there).
_PIN = 50.0


@dataclass
class VBState:
    """q(z) as a sticky chain: its logits e, marginals R (with their products with D and D2), expected draws from
    pi and log normaliser; the q(theta), q(v) that go with them; `log_pi` is E[log pi] when q(z) was computed."""

    R: np.ndarray
    DR: np.ndarray
    D2R: np.ndarray
    logits: np.ndarray
    draws: np.ndarray
    log_z: float
    log_pi: np.ndarray
    theta: tuple = ()
    sticks: tuple = ()
    elbo: float = -np.inf


class VariationalBlockModel:
    """Mean-field VB of the block model on standardised scores `z` (see the module docstring for the equations).

    `beta` tempers the score likelihood, `within_prior` and `between_prior` are the Normal-Gamma priors (m0, kappa0,
    a0, b0) in the units of `z`, `alpha` the concentration of the stick-breaking prior, `log_scale` the log of the
    standardisation's scale (its Jacobian keeps the bound in the scores' own units) and `loop` the chain's loop
    probability; the two N^2 products of an iteration run in `dtype`. `pair_between`: one between Gaussian per pair
    of speakers, each drawn from `between_prior`, instead of one for all pairs.
    """

    def __init__(self, z: np.ndarray, beta: float, within_prior: tuple, between_prior: tuple, alpha: float,
                 log_scale: float, loop: float = 0.0, dtype=np.float64, pair_between: bool = False):
        self.pair_between = bool(pair_between)
        self.D = z.astype(dtype)  # the precision of the products (model.PRODUCT_DTYPE says why float32)
        np.fill_diagonal(self.D, 0.0)
        self.D2 = self.D * self.D
        #: responsibilities.bisect by member set: a fit bisects the same clusters again on every re-seed and run
        self.bisections: dict = {}
        self.N = z.shape[0]
        self.beta = float(beta)
        self.within_prior = within_prior
        self.between_prior = between_prior
        self.alpha = float(alpha)
        self.loop = float(loop)
        # the bound refers to the scores in their own units: Jacobian of the standardisation, tempered like them
        self.jacobian = -self.beta * 0.5 * self.N * (self.N - 1) * log_scale

    # -- pieces ------------------------------------------------------------------------------------------------

    def products(self, R: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``D @ R`` and ``D2 @ R`` (in the model's precision, returned in float64)."""
        R = R.astype(self.D.dtype)
        return (self.D @ R).astype(np.float64), (self.D2 @ R).astype(np.float64)

    @staticmethod
    def statistics(R, DR, D2R):
        n = R.sum(axis=0)
        pairs = np.outer(n, n) - R.T @ R  # ordered pairs (i != j) per block
        return n, pairs, R.T @ DR, R.T @ D2R

    def update_theta(self, pairs, sums, squares):
        """q(theta) of the within Gaussian from the diagonal blocks and of the between Gaussian from all the others,
        or with `pair_between` of one between Gaussian per pair of speakers, each from its own block (T x T arrays of
        their parameters; the diagonal is not used)."""
        within = self._posterior([0.5 * np.trace(x) for x in (pairs, sums, squares)], self.within_prior)
        if self.pair_between:
            return within, self._posterior((pairs, sums, squares), self.between_prior)
        return within, self._tied(pairs, sums, squares)

    def tied_between(self, st: VBState) -> tuple:
        """q(theta) of one between Gaussian for all pairs of speakers under q(z), as the tied model has it (a cluster's
        coherence is judged against it with either model: :func:`~llrcore.diarization.model.cluster_coherence`)."""
        return self._tied(*self.statistics(st.R, st.DR, st.D2R)[1:])

    def _tied(self, pairs, sums, squares) -> tuple:
        # the T x T statistics count ordered pairs: the blocks above the diagonal hold each pair of segments once
        return self._posterior([0.5 * float(x.sum()) - 0.5 * np.trace(x) for x in (pairs, sums, squares)],
                               self.between_prior)

    def _posterior(self, statistics, prior) -> tuple:
        """Normal-Gamma posterior of tempered statistics: the count, sum and sum of squares of a group of pairs."""
        n, s1, s2 = (self.beta * np.asarray(x, dtype=np.float64) for x in statistics)
        return ng_posterior(n, s1, s2, *prior)

    def update_sticks(self, draws):
        tail = np.cumsum(draws[::-1])[::-1]  # sum_{j >= k} draws_j
        return 1.0 + draws[:-1], self.alpha + tail[1:]

    @staticmethod
    def expected_log_pi(g1, g2):
        total = digamma(g1 + g2)
        log_v, log_1mv = digamma(g1) - total, digamma(g2) - total
        return np.concatenate([log_v, [0.0]]) + np.concatenate([[0.0], np.cumsum(log_1mv)])

    @staticmethod
    def coefficients(within, between, k: int):
        """The T x T matrices C0, C1, C2 of the expected log-density (diagonal: within; elsewhere: between)."""
        matrices = []
        for w, b in zip(expected_log_density_coefficients(*within), expected_log_density_coefficients(*between)):
            m = np.array(np.broadcast_to(b, (k, k)), dtype=np.float64)
            np.fill_diagonal(m, float(w))
            matrices.append(m)
        return matrices

    def parameter_terms(self, theta, sticks, k: int) -> tuple:
        """What the bound needs of q(theta) and q(v) alone: the coefficient matrices, E[log pi] and the KL
        divergences from the priors (shared by every candidate step of one iteration, which keeps them fixed)."""
        within, between = theta
        kl_between = np.asarray(kl_normal_gamma(*between, *self.between_prior))
        if kl_between.ndim:  # one Gaussian per pair of speakers: the pairs above the diagonal
            kl_between = kl_between[np.triu_indices(k, 1)].sum()
        kl = float(kl_normal_gamma(*within, *self.within_prior)) + float(kl_between)
        g1, g2 = sticks
        kl += float(np.sum(kl_beta(g1, g2, 1.0, self.alpha))) if g1.size else 0.0
        return self.coefficients(within, between, k), self.expected_log_pi(g1, g2), kl

    def elbo(self, st: VBState, statistics, terms) -> float:
        """The bound, from the block statistics of q(z) and the :meth:`parameter_terms` of q(theta) and q(v).

        The partition part ``E_q[log p(z, s | v)] + H(q(z, s))`` is ``log Z - sum R e`` for the E[log pi] q(z) was
        computed with, plus ``draws . (E[log pi] - that)`` when q(v) has moved since (sticky_chain's docstring)."""
        (c0, c1, c2), log_pi, kl = terms
        _, pairs, sums, squares = statistics
        expected_loglik = 0.5 * float(np.sum(c0 * pairs + c1 * sums + c2 * squares))
        partition = st.log_z - float(np.sum(st.R * st.logits)) + float(st.draws @ (log_pi - st.log_pi))
        return self.beta * expected_loglik + self.jacobian - kl + partition

    def logits(self, R, DR, D2R, coefficients) -> np.ndarray:
        """``e_ik = beta [ (n - r_i) C0 + (D R) C1 + (D2 R) C2 ]_ik``: window i's expected log-likelihood as k."""
        c0, c1, c2 = coefficients
        return self.beta * ((R.sum(axis=0) - R) @ c0 + DR @ c1 + D2R @ c2)

    def chain_state(self, logits, log_pi, theta=(), sticks=()) -> VBState:
        """q(z) for these logits: the chain's marginals and their products (one N^2 product)."""
        chain = sticky_chain(logits, log_pi, self.loop)
        return VBState(chain.marginals, *self.products(chain.marginals), logits, chain.draws, chain.log_z, log_pi,
                      theta, sticks)

    def refresh(self, st: VBState) -> VBState:
        """Exact updates of q(theta) and q(v) for the current q(z), and the bound."""
        statistics = self.statistics(st.R, st.DR, st.D2R)
        st.theta = self.update_theta(*statistics[1:])
        st.sticks = self.update_sticks(st.draws)
        st.elbo = self.elbo(st, statistics, self.parameter_terms(st.theta, st.sticks, st.R.shape[1]))
        return st

    def start(self, R: np.ndarray, *, pinned: bool = False) -> VBState:
        """A state from responsibilities (smoothed hard labels, a merge, a split): q(theta) from their statistics,
        q(v) from the speaker changes of their hard labels, then q(z) of the chain for the logits they give, or,
        `pinned`, for logits that hold every segment to its hard label (0 for it, -:data:`_PIN` for the others)."""
        R = R[:, np.argsort(-R.sum(axis=0), kind="stable")]  # the stick-breaking order: largest first
        DR, D2R = self.products(R)
        _, pairs, sums, squares = self.statistics(R, DR, D2R)
        theta = self.update_theta(pairs, sums, squares)
        hard = np.argmax(R, axis=1)
        changes = np.r_[True, hard[1:] != hard[:-1]] if self.loop > 0 else np.ones(hard.size, dtype=bool)
        sticks = self.update_sticks(np.bincount(hard[changes], minlength=R.shape[1]) + 1e-3)
        coefficients, log_pi, _ = self.parameter_terms(theta, sticks, R.shape[1])
        if pinned:
            logits = np.full(R.shape, -_PIN)
            logits[np.arange(hard.size), hard] = 0.0
        else:
            logits = self.logits(R, DR, D2R, coefficients)
        return self.refresh(self.chain_state(logits, log_pi, theta, sticks))

    def responsibility_step(self, st: VBState) -> tuple[VBState, bool]:
        """New logits along ``e + rho (e* - e)`` with q(theta), q(v) held; returns (state, moved).

        e* are the mean-field logits of the current q(z); the full step rho = 1 is tried first and halved until the
        bound does not decrease (all windows move at once, which coordinate ascent does not promise)."""
        terms = self.parameter_terms(st.theta, st.sticks, st.R.shape[1])
        target = self.logits(st.R, st.DR, st.D2R, terms[0])
        rho = 1.0
        while rho >= 1.0 / 256:
            candidate = self.chain_state(st.logits + rho * (target - st.logits), terms[1], st.theta, st.sticks)
            candidate.elbo = self.elbo(candidate, self.statistics(candidate.R, candidate.DR, candidate.D2R), terms)
            if candidate.elbo >= st.elbo:
                return candidate, True
            rho *= 0.5
        return st, False

    def merge_score(self, st: VBState, l: int, m: int) -> float:
        """A cheap ranking of the merge of clusters l and m: the bound's likelihood and parameter terms with the
        columns of R and of its products added (no N^2 work), the partition term left out."""
        R, DR, D2R = (merge_columns(A, l, m) for A in (st.R, st.DR, st.D2R))
        statistics = self.statistics(R, DR, D2R)
        theta = self.update_theta(*statistics[1:])
        (c0, c1, c2), _, kl = self.parameter_terms(theta, self.update_sticks(merge_columns(st.draws, l, m)),
                                                   R.shape[1])
        _, pairs, sums, squares = statistics
        return self.beta * 0.5 * float(np.sum(c0 * pairs + c1 * sums + c2 * squares)) - kl

    def run(self, st: VBState, *, max_iter: int, tol: float, on_iteration=None):
        """Iterate from a state until the bound stops rising (by less than `tol` of it) or a cluster empties.

        Returns the final state, the ELBO per iteration and whether it stopped because a cluster emptied (expected
        size below half a segment and nobody's most probable cluster): the caller then drops it and starts a new
        stage, rather than spending many iterations draining it.
        """
        history = [st.elbo]
        if on_iteration is not None:
            on_iteration(0, st)
        for iteration in range(1, max_iter + 1):
            st, moved = self.responsibility_step(st)
            st = self.refresh(st)
            history.append(st.elbo)
            if on_iteration is not None:
                on_iteration(iteration, st)
            if not moved or history[-1] - history[-2] <= tol * (1.0 + abs(history[-1])):
                break
            if st.R.shape[1] > 1 and has_empty_cluster(st.R):
                return st, np.array(history), True
        return st, np.array(history), False
