"""The prior of the Bayesian Gaussian block model and the conjugate algebra its variational inference uses.

- :class:`BlockModelPrior` — Normal-Gamma priors of the within- and between-speaker score Gaussians (within above
  between: the soft ordering constraint) and the concentration of the Dirichlet process over partitions;
  empirical Bayes from a two-Gaussian fit of the scores (:meth:`BlockModelPrior.from_mixture`), or learnt from
  labelled recordings (:meth:`BlockModelPrior.from_recordings`; :data:`PRESETS`, learnt from the development corpus)
  through the :class:`PairMoments` of each recording's same-speaker and different-speaker pairs; the default call's
  prior by the kind of scores (:func:`prior_for_scores`: cosines or LLRs, :func:`score_kind`).
- :func:`crp_log_prior` — the Chinese restaurant process prior of a partition.
- Normal-Gamma posteriors, expected log-densities and Kullback-Leibler divergences of Normal-Gamma and Beta
  distributions (Bishop, *Pattern Recognition and Machine Learning*, sec. 2.3.6 and 10.1; the thesis chapter of
  :mod:`llrcore.diarization.model`).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
from scipy.special import betaln, digamma, gammaln

from .._choices import DIARIZATION_PRIOR_ALIASES, DIARIZATION_PRIORS
from .gaussians import ScoreMixture
from .prior_file import HYPERPARAMETERS, PriorSource, read_prior_json, write_prior_json

__all__ = [
    "COSINE_SLACK",
    "KIND_PRESETS",
    "KIND_SHAPE",
    "KIND_STRENGTH",
    "LEARNT_SHAPE",
    "LEARNT_STRENGTH",
    "PRESETS",
    "PRESET_ALIASES",
    "PRIOR_STRENGTH",
    "BlockModelPrior",
    "PairMoments",
    "labelled_pair_moments",
    "crp_log_prior",
    "expected_log_density_coefficients",
    "kl_beta",
    "kl_normal_gamma",
    "ng_posterior",
    "prior_for_scores",
    "score_kind",
]

#: Default kappa0: each prior mean weighs as much as this many tempered scores (the soft ordering constraint).
PRIOR_STRENGTH = 10.0
#: kappa0 and a0 of a prior learnt from labelled recordings (:meth:`BlockModelPrior.from_recordings`): its means and
#: variances weigh as much as this many tempered scores, far more than one recording's own (one window's are worth
#: ``effective_scores``), so they set the scale of "same" and "different" speaker. Learnt on one half of the
#: development corpus and tested on the other (both ways; bench/RESULTS.md), right K and mean DER on the cosine and
#: PLDA halves: kappa0 = a0 = 10: 12/24 (20.4 %), 17/20 (4.2 %); kappa0 = 1000 and a0 = 1, 10, 30 or 100: 17/24
#: (15.0 to 14.6 %), 19/20 (3.7 %); a0 = 300: 17/24 (14.7 %), 20/20 (3.4 %); a0 = 1000: 17/24 (14.8 %), 20/20
#: (3.5 %); kappa0 = a0 = 1e5: 14/24 (13.9 %), 20/20 (3.5 %). The means are held firmly, the variances less: a
#: recording's own spread of scores still counts.
LEARNT_STRENGTH = 1000.0
LEARNT_SHAPE = 300.0

_LOG_2PI = float(np.log(2 * np.pi))


# ----- Normal-Gamma and Beta algebra -------------------------------------------------------------------------------


def ng_posterior(n, s1, s2, m0, k0, a0, b0):
    """Normal-Gamma posterior (m, kappa, a, b) from (weighted) count, sum and sum of squares of the scores."""
    k = k0 + n
    m = (k0 * m0 + s1) / k
    a = a0 + 0.5 * n
    b = b0 + 0.5 * np.maximum(s2 + k0 * m0**2 - k * m**2, 0.0)
    return m, k, a, b


def expected_log_density_coefficients(m, k, a, b):
    """(c0, c1, c2) with ``E_q[log N(d | mu, 1/lambda)] = c0 + c1 d + c2 d^2`` under Normal-Gamma q."""
    precision = a / b
    c2 = -0.5 * precision
    c1 = precision * m
    c0 = 0.5 * (digamma(a) - np.log(b) - _LOG_2PI) - 0.5 * precision * m**2 - 0.5 / k
    return c0, c1, c2


def kl_normal_gamma(m, k, a, b, m0, k0, a0, b0):
    """KL(NG(m, k, a, b) || NG(m0, k0, a0, b0)) with mu | lambda ~ N(m, 1/(k lambda)), lambda ~ Gamma(a, rate b)."""
    kl_gamma = (a - a0) * digamma(a) - gammaln(a) + gammaln(a0) + a0 * (np.log(b) - np.log(b0)) + a * (b0 - b) / b
    kl_normal = 0.5 * (k0 / k - 1.0 - np.log(k0 / k) + k0 * (a / b) * (m - m0) ** 2)
    return kl_gamma + kl_normal


def kl_beta(g1, g2, a1, a2):
    """KL(Beta(g1, g2) || Beta(a1, a2))."""
    return (betaln(a1, a2) - betaln(g1, g2) + (g1 - a1) * digamma(g1) + (g2 - a2) * digamma(g2)
            + (a1 - g1 + a2 - g2) * digamma(g1 + g2))


def crp_log_prior(labels, alpha: float = 1.0) -> float:
    """Log-probability of a partition under the Chinese restaurant process (eq. 5.87 of the thesis chapter).

    ``log p(Z) = K log alpha + log Gamma(alpha) - log Gamma(alpha + N) + sum_k log Gamma(|B_k|)``.
    """
    _, sizes = np.unique(np.asarray(labels), return_counts=True)
    n = int(sizes.sum())
    return float(sizes.size * np.log(alpha) + gammaln(alpha) - gammaln(alpha + n) + gammaln(sizes).sum())


# ----- prior -----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PairMoments:
    """Count, mean and sum of squared deviations from the mean (``m2``) of a set of scores.

    Sets pool exactly with ``+`` (Chan, Golub and LeVeque's pairwise update: ``m2 = m2_a + m2_b + delta^2 n_a n_b /
    n``), so the moments of several recordings are computed once and any selection of them pooled without going back
    to the scores (a leave-one-out prior costs no pass over the matrices).
    """

    count: int = 0
    mean: float = 0.0
    m2: float = 0.0

    @classmethod
    def of(cls, scores: np.ndarray) -> PairMoments:
        scores = np.asarray(scores, dtype=np.float64)
        if scores.size == 0:
            return cls()
        mean = float(scores.mean())
        return cls(int(scores.size), mean, float(np.sum((scores - mean) ** 2)))

    def __add__(self, other: PairMoments) -> PairMoments:
        if other.count == 0:
            return self
        if self.count == 0:
            return other
        count = self.count + other.count
        delta = other.mean - self.mean
        return PairMoments(count, self.mean + delta * other.count / count,
                           self.m2 + other.m2 + delta**2 * self.count * other.count / count)

    @property
    def variance(self) -> float:
        """The population variance ``m2 / count`` (``numpy.var``)."""
        return self.m2 / self.count


def labelled_pair_moments(matrix) -> tuple[PairMoments, PairMoments]:
    """The :class:`PairMoments` of a labelled recording's same-speaker and of its different-speaker pairs ``i < j``
    (segments labelled by the matrix's reference)."""
    if matrix.reference is None:
        raise ValueError(f"{matrix.name or 'A recording'}: a prior is learnt from labelled recordings; this one has "
                         "no reference.")
    labels = np.unique(np.asarray(matrix.reference), return_inverse=True)[1]
    rows, columns = np.triu_indices(labels.size, 1)
    same = labels[rows] == labels[columns]
    pairs = np.asarray(matrix.scores, dtype=np.float64)[rows, columns]
    return PairMoments.of(pairs[same]), PairMoments.of(pairs[~same])


@dataclass(frozen=True)
class BlockModelPrior:
    """Hyper-parameters of the block model, in the units of the scores.

    Attributes
    ----------
    within_mean, between_mean : float
        Prior means of the within-speaker Gaussian and of the between-speaker Gaussian (within > between: the
        paper's soft ordering constraint).
    variance : float
        Prior guess of the score variance (``b0 / a0``); of the within-speaker scores only when `between_variance`
        is given.
    mean_strength : float
        kappa0: the prior of each mean weighs as much as this many (tempered) scores.
    shape : float
        a0 of the Gamma prior on the precisions (weak for small values).
    concentration : float
        alpha of the Dirichlet process / Chinese restaurant process.
    between_variance : float, optional
        Prior guess of the between-speaker score variance (default: `variance`).
    learnt_on : PriorSource, optional
        What it was learnt on (recordings, embedder, windows, its leave-one-out report); not compared.
    """

    within_mean: float
    between_mean: float
    variance: float
    mean_strength: float = PRIOR_STRENGTH
    shape: float = 1.0
    concentration: float = 1.0
    between_variance: float | None = None
    learnt_on: PriorSource | None = field(default=None, compare=False)

    def to_json(self) -> str:
        """The prior as JSON text (the schema of :mod:`llrcore.diarization.prior_file`); :meth:`from_json` reads
        it back equal bit for bit."""
        values = {name: getattr(self, name) for name in HYPERPARAMETERS}
        return write_prior_json({name: None if v is None else float(v) for name, v in values.items()},
                                self.learnt_on)

    @classmethod
    def from_json(cls, text: str) -> BlockModelPrior:
        """The prior of :meth:`to_json`'s text; ValueError with a sentence if it is not one."""
        values, source = read_prior_json(text)
        return cls(**values, learnt_on=source)

    @property
    def report(self):
        """The leave-one-out report on the recordings it was learnt on
        (:class:`~llrcore.diarization.prior_file.LeaveOneOut`), or None."""
        return None if self.learnt_on is None else self.learnt_on.leave_one_out

    @classmethod
    def from_mixture(cls, mixture: ScoreMixture, *, concentration: float = 1.0, mean_strength: float = PRIOR_STRENGTH,
                     shape: float = 1.0) -> BlockModelPrior:
        """Empirical-Bayes prior: the means of the two components of the score mixture, their mean variance."""
        variance = 0.5 * (mixture.within.variance + mixture.between.variance)
        return cls(mixture.within.mean, mixture.between.mean, variance, mean_strength, shape, concentration)

    @classmethod
    def from_recordings(cls, matrices, *, mean_strength: float = LEARNT_STRENGTH, shape: float = LEARNT_SHAPE,
                        concentration: float = 1.0) -> BlockModelPrior:
        """A prior learnt from labelled recordings of the same kind of scores: the mean and variance of all their
        same-speaker pairs and of all their different-speaker pairs (segments labelled by their reference), held
        with the weight of `mean_strength` and `shape` tempered scores (:data:`LEARNT_STRENGTH`).

        Each matrix needs a reference; at least one must have two speakers or more.
        """
        return cls.from_pair_moments([labelled_pair_moments(matrix) for matrix in matrices],
                                     mean_strength=mean_strength, shape=shape, concentration=concentration)

    @classmethod
    def from_pair_moments(cls, moments, *, mean_strength: float = LEARNT_STRENGTH, shape: float = LEARNT_SHAPE,
                          concentration: float = 1.0) -> BlockModelPrior:
        """:meth:`from_recordings` from the :func:`labelled_pair_moments` of each recording (a sequence of
        (same-speaker, different-speaker) pairs of :class:`PairMoments`), pooled."""
        within = sum((same for same, _ in moments), PairMoments())
        between = sum((different for _, different in moments), PairMoments())
        if within.count < 2 or between.count < 2:
            raise ValueError("A prior needs same-speaker and different-speaker pairs: give labelled recordings, at "
                             "least one with two speakers or more.")
        return cls(within.mean, between.mean, within.variance, mean_strength, shape, concentration, between.variance)

    def standardised(self, location: float, scale: float) -> tuple[tuple, tuple]:
        """Normal-Gamma hyper-parameters (m0, kappa0, a0, b0) of the within and between Gaussians for scores
        standardised as ``(s - location) / scale``."""
        between_variance = self.variance if self.between_variance is None else self.between_variance
        within = ((self.within_mean - location) / scale, self.mean_strength, self.shape,
                  self.shape * self.variance / scale**2)
        between = ((self.between_mean - location) / scale, self.mean_strength, self.shape,
                   self.shape * between_variance / scale**2)
        return within, between


_DEV_CORPUS = ("tests/data/diarization_corpus (tools/make_diarization_corpus.py, seed 20261125; its SOURCE.txt): "
               "synthetic espeak-ng conversations")
#: Priors learnt from the development corpus (tests/data/diarization_corpus; :meth:`BlockModelPrior.from_recordings`
#: on all its cosine recordings, and on all its PLDA matrices; rounded to 4 digits, a test recomputes them), named by
#: the embedder and windows of the scores they fit; for scores made as that corpus's only.
#: ``resemblyzer-1.5s-espeak``: cosines of Resemblyzer d-vectors of 1.5 s windows every 0.75 s of synthetic espeak-ng
#: voices in a room; they do not carry over to real voices: on pyannote's real sample (Resemblyzer, 1.5 s windows
#: every 0.25 s) it finds 1 speaker of 2. ``simulated-plda-1.5s``: the LLRs of tools/simulate_plda_matrices.py
#: (two-covariance PLDA of 1.5 s windows every 0.75 s); a real PLDA system's LLRs have their own scale. For real
#: recordings, learn the prior from labelled recordings of the same system (:func:`~llrcore.fit_diarization_prior`).
#: The names before issue 46 (``synthetic-cosine``, ``simulated-plda``) are :data:`PRESET_ALIASES`.
PRESETS = dict(zip(DIARIZATION_PRIORS, (
    BlockModelPrior(0.7472, 0.5847, 0.007641, LEARNT_STRENGTH, LEARNT_SHAPE, 1.0, 0.008751, PriorSource(
        24, embedder="Resemblyzer 0.1.4 d-vectors (cosine)", windows="1.5 s every 0.75 s", data=_DEV_CORPUS)),
    BlockModelPrior(5.751, -22.11, 94.82, LEARNT_STRENGTH, LEARNT_SHAPE, 1.0, 195.7, PriorSource(
        20, embedder="simulated two-covariance PLDA (LLR)", windows="1.5 s every 0.75 s",
        data="tests/data/diarization_corpus/plda (tools/simulate_plda_matrices.py, seed 20261125)")),
), strict=True))
#: The presets' former names.
PRESET_ALIASES = dict(DIARIZATION_PRIOR_ALIASES)

#: Scores within [-1 - this, 1 + this] are taken for cosines: unit vectors in float32 give self-similarities of
#: 1.0000006 and the like.
COSINE_SLACK = 1e-3
#: The preset of each kind of scores (:func:`score_kind`) that the default call's prior is centred on.
KIND_PRESETS = {"cosine": "resemblyzer-1.5s-espeak", "llr": "simulated-plda-1.5s"}
#: kappa0 and a0 of the default call's prior (:func:`prior_for_scores`): its means and variances are those of the
#: kind's preset, held as firmly as recordings of one kind differ from each other. On the development corpus the
#: recordings' own same-speaker (different-speaker) mean scores spread around the pooled ones with sd tau, and
#: kappa0 = sigma^2 / tau^2 (sigma^2 the pooled variance of the scores) is 18 (13) for its cosines and 27 (10) for its
#: PLDA LLRs: 15. Their variances spread with a coefficient of variation of 0.17-0.23, 1 / cv^2 = 19-34: a0 = 25.
#: Cross-validated there (the preset learnt on one half, tested on the other, as bench/RESULTS.md's bayes-learnt),
#: right K and mean DER on the cosines and PLDA LLRs: kappa0 = 15, a0 = 25: 13/24 (20.0 %), 18/20 (4.0 %); the
#: recording's own two-Gaussian fit (the previous default): 12/24 (19.6 %), 15/20 (6.9 %); the preset held as
#: :meth:`BlockModelPrior.from_recordings` holds it (kappa0 = 1000, a0 = 300): 17/24 (14.7 %), 20/20 (3.4 %), but
#: on the two real recordings of the tests it fails: AMI ES2005a 5 speakers of 4 (DER 8.2 % where it is 2.8 %),
#: pyannote's sample 1 of 2; kappa0 = 20 already finds 1 on the sample, kappa0 <= 300 with a0 <= 30 keeps ES2005a.
KIND_STRENGTH = 15.0
KIND_SHAPE = 25.0


def score_kind(scores) -> str:
    """``"cosine"`` when every score lies in [-1, 1] (to :data:`COSINE_SLACK`), else ``"llr"``."""
    scores = np.asarray(scores)
    return ("cosine" if float(np.min(scores)) >= -1.0 - COSINE_SLACK and float(np.max(scores)) <= 1.0 + COSINE_SLACK
            else "llr")


def prior_for_scores(scores, *, concentration: float = 1.0) -> tuple[str, BlockModelPrior]:
    """The default call's prior for this kind of scores and the name of the preset it is centred on.

    The preset of :data:`KIND_PRESETS` for :func:`score_kind` (cosines: ``"resemblyzer-1.5s-espeak"``, LLRs:
    ``"simulated-plda-1.5s"``), its means and variances held with the weight of :data:`KIND_STRENGTH` and
    :data:`KIND_SHAPE` tempered scores instead of :data:`LEARNT_STRENGTH` and :data:`LEARNT_SHAPE`: the scale of
    "same" and "different" speaker comes from the kind of scores, and a recording whose own scores sit elsewhere (a
    real embedder's, another PLDA) can still move it.
    """
    name = KIND_PRESETS[score_kind(scores)]
    return name, replace(PRESETS[name], mean_strength=KIND_STRENGTH, shape=KIND_SHAPE, concentration=concentration)
