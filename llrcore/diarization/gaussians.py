"""Score distributions of a similarity matrix: the two-Gaussian mixture every method starts from, and Gaussian fits.

:func:`fit_score_mixture` fits ``w N(mu_within, var_within) + (1 - w) N(mu_between, var_between)`` to the
off-diagonal scores by EM, with no labels. It gives the AHC baseline its stopping threshold (where the two weighted
densities cross), the spectral baseline its affinities (the posterior probability that a pair is same-speaker) and
the Bayesian block model the centres of its priors. :class:`GaussianFit` is a fitted or posterior Gaussian.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit

__all__ = ["ScoreMixture", "GaussianFit", "fit_score_mixture", "off_diagonal"]

def off_diagonal(scores: np.ndarray, max_pairs: int | None = None) -> np.ndarray:
    """The scores above the diagonal (each unordered pair once), or an evenly spaced subset of `max_pairs` of them."""
    n = scores.shape[0]
    rows, columns = np.triu_indices(n, 1)
    if max_pairs is not None and rows.size > max_pairs:
        keep = np.linspace(0, rows.size - 1, max_pairs).round().astype(np.int64)
        rows, columns = rows[keep], columns[keep]
    return scores[rows, columns]


@dataclass(frozen=True)
class GaussianFit:
    """A Gaussian fitted to (or the posterior mean of) a group of scores: mean, variance and the number of pairs."""

    mean: float
    variance: float
    count: float = 0.0

    @property
    def std(self) -> float:
        return float(np.sqrt(self.variance))

    def pdf(self, x) -> np.ndarray:
        x = np.asarray(x, dtype=np.float64)
        return np.exp(-0.5 * (x - self.mean) ** 2 / self.variance) / np.sqrt(2 * np.pi * self.variance)

    def logpdf(self, x) -> np.ndarray:
        x = np.asarray(x, dtype=np.float64)
        return -0.5 * (x - self.mean) ** 2 / self.variance - 0.5 * np.log(2 * np.pi * self.variance)


@dataclass(frozen=True)
class ScoreMixture:
    """Two-Gaussian mixture of the pairwise scores: same-speaker (within) and different-speaker (between) pairs.

    Attributes
    ----------
    weight : float
        Share of within-speaker pairs, ``w``.
    within, between : GaussianFit
        The two components; ``within.mean > between.mean``.
    """

    weight: float
    within: GaussianFit
    between: GaussianFit

    def llr(self, scores) -> np.ndarray:
        """Log-likelihood ratio ``log N(s | within) - log N(s | between)`` of each score."""
        return self.within.logpdf(scores) - self.between.logpdf(scores)

    def p_within(self, scores) -> np.ndarray:
        """Posterior probability that a pair with this score is same-speaker: ``sigmoid(llr + logit(w))``."""
        return expit(self.llr(scores) + np.log(self.weight / (1.0 - self.weight)))

    @property
    def threshold(self) -> float:
        """The score where the two weighted densities cross (``p_within = 1/2``), between the two means.

        Solves ``log w N(t | within) = log (1 - w) N(t | between)``, a quadratic in t; the root between the means
        is taken (the one nearest their midpoint if neither lies between them).
        """
        mw, vw = self.within.mean, self.within.variance
        mb, vb = self.between.mean, self.between.variance
        offset = np.log(self.weight / (1 - self.weight)) - 0.5 * np.log(vw / vb)
        # a t^2 + b t + c = 0 from -(t-mw)^2/(2vw) + (t-mb)^2/(2vb) + offset = 0
        a = 0.5 / vb - 0.5 / vw
        b = mw / vw - mb / vb
        c = 0.5 * mb**2 / vb - 0.5 * mw**2 / vw + offset
        midpoint = 0.5 * (mw + mb)
        if abs(a) < 1e-12 * (1 / vw + 1 / vb):
            return float(-c / b) if b != 0 else float(midpoint)
        disc = b * b - 4 * a * c
        if disc < 0:
            return float(midpoint)
        roots = np.array([(-b + np.sqrt(disc)) / (2 * a), (-b - np.sqrt(disc)) / (2 * a)])
        between = roots[(roots >= min(mw, mb)) & (roots <= max(mw, mb))]
        candidates = between if between.size else roots
        return float(candidates[np.argmin(np.abs(candidates - midpoint))])


def fit_score_mixture(scores, *, bins: int = 4096, iterations: int = 1000, tol: float = 1e-10) -> ScoreMixture:
    """Fit a two-Gaussian mixture to the off-diagonal scores of a similarity matrix by EM.

    EM runs on a fine histogram of all the pairs (`bins` equal bins over their range, each bin's count at its
    centre): as exact as the scores for any practical purpose (the bin width is a few thousandths of the range)
    and independent of N in cost. Started from the top quarter of the scores (within) against the rest
    (between); the component with the higher mean is called *within*. A matrix whose off-diagonal scores are all
    equal gives two equal components.

    Parameters
    ----------
    scores : array_like, shape (N, N)
        A symmetric similarity matrix (N >= 2).
    """
    scores = np.asarray(scores, dtype=np.float64)
    x_all = off_diagonal(scores)
    if x_all.size == 0:
        raise ValueError("A score mixture needs at least two segments (one pair of scores).")
    lo, hi = float(x_all.min()), float(x_all.max())
    n_pairs = float(x_all.size)
    if hi <= lo:
        g = GaussianFit(lo, 1.0, n_pairs / 2)
        return ScoreMixture(0.5, g, g)
    counts, edges = np.histogram(x_all, bins=bins, range=(lo, hi))
    keep = counts > 0
    x, c = 0.5 * (edges[:-1] + edges[1:])[keep], counts[keep].astype(np.float64)
    floor = ((hi - lo) / bins) ** 2  # variances never collapse below a bin
    cut = np.quantile(x_all, 0.75)
    upper = x >= cut
    if upper.all() or not upper.any():
        upper = x >= x[len(x) // 2]

    def moments(weights):
        total = weights.sum()
        mean = (weights @ x) / total
        return total / n_pairs, mean, max((weights @ (x - mean) ** 2) / total, floor)

    w, mw, vw = moments(c * upper)
    _, mb, vb = moments(c * ~upper)
    previous = -np.inf
    for _ in range(iterations):
        log_w = np.log(w) - 0.5 * np.log(2 * np.pi * vw) - 0.5 * (x - mw) ** 2 / vw
        log_b = np.log1p(-w) - 0.5 * np.log(2 * np.pi * vb) - 0.5 * (x - mb) ** 2 / vb
        top = np.maximum(log_w, log_b)
        log_total = top + np.log(np.exp(log_w - top) + np.exp(log_b - top))
        p = np.exp(log_w - log_total)
        if not 1e-9 < (c @ p) / n_pairs < 1 - 1e-9:
            break
        w, mw, vw = moments(c * p)
        _, mb, vb = moments(c * (1 - p))
        loglik = float(c @ log_total) / n_pairs
        if loglik - previous < tol * (1 + abs(loglik)):
            break
        previous = loglik
    if mw < mb:
        w, mw, mb, vw, vb = 1 - w, mb, mw, vb, vw
    return ScoreMixture(float(w), GaussianFit(float(mw), float(vw), w * n_pairs),
                        GaussianFit(float(mb), float(vb), (1 - w) * n_pairs))
