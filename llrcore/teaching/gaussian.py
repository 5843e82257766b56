"""The theory of calibrated Gaussian LLRs: EER, d', Cllr and straight DET lines of one number, mu.

If the non-target LLRs of a calibrated system are Gaussian, "the LLR of the LLR is the LLR" forces the target
LLRs to be Gaussian too, with the same variance, the opposite mean and a variance of twice the mean:

    target LLRs ~ N(+mu, 2 mu),    non-target LLRs ~ N(-mu, 2 mu),    mu >= 0.

So one number fixes everything (``Phi`` is the standard normal distribution function):

- the separation in standard deviations ``d' = 2 mu / sqrt(2 mu) = sqrt(2 mu)``;
- the EER, at the threshold 0 by symmetry: ``EER = Phi(-mu / sqrt(2 mu)) = Phi(-sqrt(mu / 2))``, hence
  ``mu = 2 Phi^-1(EER)^2`` and ``d' = -2 Phi^-1(EER)``;
- the DET, a straight line at 45 degrees on probit axes: at LLR threshold ``t``,
  ``probit(Pmiss) = (t - mu) / sqrt(2 mu)`` and ``probit(Pfa) = (-mu - t) / sqrt(2 mu)``, whose sum does not
  depend on ``t``: ``probit(Pmiss) = -probit(Pfa) - sqrt(2 mu)``;
- Cllr, by symmetry the target half alone: ``Cllr = E[log2(1 + e^-x)]``, ``x ~ N(mu, 2 mu)``; a function of the EER
  alone, approximated by ``1 - (2 EER - 1)^2``.

:func:`gaussian_comparison` measures how close a real system is to this ideal after CMLG calibration;
:func:`gaussian_densities` and :func:`cllr_eer_curve` are the data of the explorer's figures, as results with
``.to_frame()``. The closed forms in mu (EER, d', the approximation, the densities, the Bayes error, the DET) live in
:mod:`.gaussian_closed_form` and are exported from here too.

References
----------
D. A. van Leeuwen and N. Brümmer, "The distribution of calibrated likelihood-ratios in speaker recognition",
Interspeech 2013 (slides 9-15: the derivation, EER, Cllr and the approximation; slides 16-17: CMLG).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import pandas as pd
from numpy.polynomial.hermite_e import hermegauss
from numpy.typing import ArrayLike
from scipy import integrate

from ..binary.costs import softplus
from ..calibration.calibrators import Affine
from ..calibration.cmlg import fit_cmlg
from ..data.records import one_row
from ..data.trials import Trials
from .gaussian_closed_form import (
    checked_mu,
    cllr_eer_approximation,
    dprime_from_mu,
    eer_from_mu,
    gaussian_bayes_error,
    gaussian_det,
    gaussian_llr_density,
    mu_from_dprime,
    mu_from_eer,
    scalar_or_array,
)

__all__ = [
    "CllrEerCurve",
    "GaussianDensities",
    "cllr_eer_curve",
    "gaussian_densities",
    "eer_from_mu",
    "mu_from_eer",
    "dprime_from_mu",
    "mu_from_dprime",
    "gaussian_llr_density",
    "gaussian_cllr",
    "gaussian_det",
    "gaussian_bayes_error",
    "cllr_eer_approximation",
    "gaussian_cllr_curve",
    "GaussianComparison",
    "gaussian_comparison",
]

_LN2 = np.log(2.0)


# ----- Cllr ----------------------------------------------------------------------------------------------------


def _cllr_quad(mu: float) -> float:
    """``E[log2(1 + e^-x)]``, ``x = mu + s z``, ``z ~ N(0, 1)``: adaptive quadrature in z, split where x = 0 (the
    bend of the softplus), so the integrand is smooth on each piece whatever the width of the distribution."""
    s = np.sqrt(2.0 * mu)

    def integrand(z):
        return np.exp(-0.5 * z * z) * softplus(-(mu + s * z))

    bend = -mu / s
    options = dict(epsabs=0.0, epsrel=1e-13, limit=200)
    below = integrate.quad(integrand, -np.inf, bend, **options)[0]
    above = integrate.quad(integrand, bend, np.inf, **options)[0]
    return (below + above) / np.sqrt(2.0 * np.pi) / _LN2


@lru_cache(maxsize=8)
def _hermite_rule(nodes: int) -> tuple[np.ndarray, np.ndarray]:
    return hermegauss(nodes)  # an eigenvalue problem: ~0.1 s for 256 nodes, so computed once per size


def _cllr_hermite(mu: float, nodes: int) -> float:
    """The same expectation by Gauss–Hermite quadrature (probabilists' weight ``e^{-z^2/2}``)."""
    z, w = _hermite_rule(nodes)
    s = np.sqrt(2.0 * mu)
    return float(np.sum(w * softplus(-(mu + s * z))) / np.sqrt(2.0 * np.pi) / _LN2)


def gaussian_cllr(mu, *, method: str = "quad", nodes: int = 200):
    """Cllr (bits) of calibrated Gaussian LLRs: ``(1 / ln 2) E[log(1 + e^-x)]``, ``x ~ N(mu, 2 mu)``.

    By the symmetry of the two classes the non-target half equals the target half, so this is Cllr itself:
    1 bit at mu = 0, falling to 0 as mu grows.

    Parameters
    ----------
    mu : float or array_like
        The mean of the calibrated target LLRs (natural log), zero or positive.
    method : {"quad", "hermite"}
        ``"quad"`` (default): adaptive quadrature (``scipy.integrate.quad``) split at the bend of the softplus;
        relative accuracy about 1e-13 for every mu. ``"hermite"``: Gauss–Hermite with `nodes` nodes; fast and as
        accurate for mu up to about 5 (EER above 5 %), but the softplus bends on a scale of 1 while the
        distribution's width grows as ``sqrt(2 mu)``, so it loses digits for large mu (about 1e-6 relative at
        mu = 30 with 256 nodes).
    nodes : int
        The number of Gauss–Hermite nodes, 1 to 300 (``method="hermite"`` only).

    Returns
    -------
    float or ndarray
        Cllr in bits (1 at mu = 0, 0 at infinite mu), of the shape of `mu`.
    """
    mu_array = checked_mu(mu)
    if method not in ("quad", "hermite"):
        raise ValueError('method must be "quad" or "hermite".')
    if method == "hermite" and not 1 <= int(nodes) <= 300:
        raise ValueError("Gauss–Hermite needs between 1 and 300 nodes (numpy's nodes overflow beyond).")

    def one(m: float) -> float:
        if m == 0:
            return 1.0
        if np.isinf(m):
            return 0.0
        return _cllr_quad(m) if method == "quad" else _cllr_hermite(m, int(nodes))

    values = np.array([one(float(m)) for m in mu_array.reshape(-1)]).reshape(mu_array.shape)
    return scalar_or_array(values)


@lru_cache(maxsize=1)
def _default_curve() -> tuple[np.ndarray, np.ndarray]:
    # evenly spaced for a linear EER axis, plus log-spaced small EERs for a logarithmic one
    eer = np.union1d(np.linspace(0.0, 0.5, 201), np.geomspace(1e-5, 0.01, 61))
    cllr = np.empty_like(eer)
    cllr[0] = 0.0  # EER 0: infinitely separated, Cllr 0
    cllr[1:] = gaussian_cllr(mu_from_eer(eer[1:]))
    for array in (eer, cllr):
        array.flags.writeable = False
    return eer, cllr


def gaussian_cllr_curve(eer: ArrayLike | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(eer, cllr)``: the exact Cllr (bits) of calibrated Gaussian LLRs against their EER.

    The default grid (0 to 50 % in steps of 0.25 %, plus 61 log-spaced EERs from 0.001 % to 1 %, so it draws well
    on linear and logarithmic axes) is computed once per process and returned read-only.

    Parameters
    ----------
    eer : array_like, optional
        EERs, fractions in (0, 0.5]; default the grid above (which starts at 0).

    Returns
    -------
    (eer, cllr) : tuple of ndarray
        The EERs and the exact Cllr (:func:`gaussian_cllr`) at each.
    """
    if eer is None:
        return _default_curve()
    eer = np.asarray(eer, dtype=np.float64)
    return eer, np.asarray(gaussian_cllr(mu_from_eer(eer)))


# ----- a real system against the ideal -------------------------------------------------------------------------


@dataclass(frozen=True)
class GaussianComparison:
    """A system's scores calibrated by CMLG, next to the calibrated Gaussian ideal.

    Attributes
    ----------
    name : str
    calibration : Affine
        The CMLG calibration (:func:`~llrcore.calibration.cmlg.fit_cmlg`) trained on the scores themselves.
    calibrated : Trials
        The CMLG LLRs of the trials.
    mu : float
        The fitted mu: the mean of the calibrated target LLRs, ``(m_e - m_d)^2 / (2 v)`` (so the calibrated
        non-target mean is ``-mu`` and ``a^2 v = 2 mu``).
    eer : float
        ROCCH-EER of the data (the same before and after calibration).
    cllr, min_cllr : float
        Cllr (bits) of the CMLG LLRs, and the minimum over all monotone calibrations (PAV).
    gaussian_eer : float
        EER of the ideal with the fitted mu, ``Phi(-sqrt(mu / 2))``.
    gaussian_cllr_at_mu : float
        Cllr of the ideal with the fitted mu.
    gaussian_cllr_at_eer : float
        Cllr of the ideal with the data's EER: what the data's Cllr would be if its calibrated LLRs were Gaussian.
    """

    name: str
    calibration: Affine
    calibrated: Trials
    mu: float
    eer: float
    cllr: float
    min_cllr: float
    gaussian_eer: float
    gaussian_cllr_at_mu: float
    gaussian_cllr_at_eer: float

    def to_frame(self) -> pd.DataFrame:
        """One row: ``name``, ``mu``, the system's EER (a fraction), Cllr and minCllr (bits) after CMLG calibration,
        and the ideal Gaussian system's."""
        return one_row(self)

    @property
    def collapsed(self) -> bool:
        """Whether the CMLG calibration collapsed (:attr:`~llrcore.Affine.failure` says why): then it is no
        calibration, and only :attr:`eer` and :attr:`min_cllr`, of the scores themselves, mean anything."""
        return self.calibration.collapsed

    def sentence(self) -> str:
        """How close the system is to the ideal, in one plain sentence."""
        who = self.name or "This system"
        if self.collapsed:
            return (f"{who}: the CMLG calibration failed, {self.calibration.failure}. Its EER is "
                    f"{100 * self.eer:.2f} % and the best monotone calibration of its scores reaches "
                    f"{self.min_cllr:.3f} bits.")
        return (
            f"{who}: after CMLG calibration (mu = {self.mu:.2f}) its Cllr is {self.cllr:.3f} bits; calibrated "
            f"Gaussian LLRs with the same EER ({100 * self.eer:.2f} %) would have {self.gaussian_cllr_at_eer:.3f} "
            f"bits, and the best monotone calibration of these scores reaches {self.min_cllr:.3f} bits."
        )


def gaussian_comparison(trials: Trials, *, alpha: float = 0.5) -> GaussianComparison:
    """Calibrate `trials` with CMLG (on themselves) and set them against the calibrated Gaussian ideal.

    Parameters
    ----------
    trials : Trials
        Finite scores of any scale.
    alpha : float
        CMLG's weight of the target variance in the shared variance (0.5: the mean of the two).

    Returns
    -------
    GaussianComparison
        The CMLG calibration and LLRs, the fitted mu, the data's EER, Cllr and minCllr, and the ideal's.
    """
    calibration = fit_cmlg(trials.tar, trials.non, alpha=alpha)
    calibrated = Trials(calibration(trials.tar), calibration(trials.non), name=trials.name)
    table = calibrated.sorted
    with np.errstate(over="ignore", invalid="ignore"):  # a collapsed fit (far scores) may give no finite mean
        mu = float(np.mean(calibrated.tar) - np.mean(calibrated.non)) / 2.0
    mu = max(mu, 0.0) if np.isfinite(mu) else 0.0  # (m_e - m_d)^2 / v >= 0 whatever the sign of a; only rounding
    # The data's own EER and minCllr: a calibration that collapsed (scale 0) would make every LLR equal and both 50 %.
    data = trials.sorted if calibration.collapsed else table
    eer = data.eer()
    return GaussianComparison(
        name=trials.name,
        calibration=calibration,
        calibrated=calibrated,
        mu=mu,
        eer=eer,
        cllr=table.cllr(),
        min_cllr=data.min_cllr(),
        gaussian_eer=eer_from_mu(mu),
        gaussian_cllr_at_mu=gaussian_cllr(mu),
        gaussian_cllr_at_eer=gaussian_cllr(mu_from_eer(eer)) if eer > 0 else 0.0,
    )


# ----- the explorer's figures as results ----------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class GaussianDensities:
    """The LLR densities ``N(+-mu, 2 mu)`` over a range, optionally with a system's CMLG LLR histograms and the two
    densities at one LLR (the data of :func:`~llrcore.plots.gaussian_llr_figure`).

    Attributes
    ----------
    mu : float
    llr : ndarray
        601 LLRs from ``-mu - 4.5 sqrt(2 mu)`` to ``mu + 4.5 sqrt(2 mu)``, widened to show `marked`.
    target, non_target : ndarray
        :func:`gaussian_llr_density` of each class at `llr`.
    marked : float or None
        An LLR at which the densities are compared: their ratio there is ``e^marked``.
    comparison : GaussianComparison or None
        The system whose CMLG LLRs are binned.
    edges : ndarray or None
        Bin edges over the range of `llr` (with a comparison).
    data_density : dict
        ``"target"`` / ``"non-target"`` -> the density of the system's calibrated LLRs per bin (each class's
        histogram has area 1, less the trials outside the range).
    """

    mu: float
    llr: np.ndarray
    target: np.ndarray
    non_target: np.ndarray
    marked: float | None = None
    comparison: GaussianComparison | None = None
    edges: np.ndarray | None = None
    data_density: dict = field(default_factory=dict)

    @property
    def marked_densities(self) -> tuple[float, float]:
        """The target and non-target densities at the marked LLR."""
        return (float(gaussian_llr_density(self.marked, self.mu, True)),
                float(gaussian_llr_density(self.marked, self.mu, False)))

    @property
    def marked_ratio(self) -> float:
        """Their ratio, ``e^marked`` ("the LLR of the LLR is the LLR"); infinite where the non-target density
        underflows."""
        f_tar, f_non = self.marked_densities
        return f_tar / f_non if f_non > 0 else np.inf

    def to_frame(self) -> pd.DataFrame:
        """Rows ``curve, class, llr, bin_end, density``: the ideal densities (``curve`` ``"ideal"``, no ``bin_end``),
        the system's histograms (``"data"``, one row per bin from ``llr`` to ``bin_end``) and the densities at the
        marked LLR (``"marked"``)."""
        frames = [pd.DataFrame({"curve": "ideal", "class": label, "llr": self.llr, "bin_end": np.nan,
                                "density": density})
                  for label, density in (("target", self.target), ("non-target", self.non_target))]
        if self.edges is not None:  # the histograms of a comparison
            frames += [pd.DataFrame({"curve": "data", "class": label, "llr": self.edges[:-1],
                                     "bin_end": self.edges[1:], "density": density})
                       for label, density in self.data_density.items()]
        if self.marked is not None:
            frames.append(pd.DataFrame({"curve": "marked", "class": ["target", "non-target"], "llr": self.marked,
                                        "bin_end": np.nan, "density": self.marked_densities}))
        return pd.concat(frames, ignore_index=True)


def gaussian_densities(mu: float | None = None, *, llr: float | None = None,
                       comparison: GaussianComparison | None = None, bins: int = 60) -> GaussianDensities:
    """The ideal LLR densities with mu (default the fitted mu of `comparison`), over 4.5 standard deviations
    ``sqrt(2 mu)`` beyond both means, with the comparison's CMLG LLRs in about `bins` bins and `llr` marked.

    Parameters
    ----------
    mu : float, optional
        The mean of the target LLRs (natural log), positive.
    llr : float, optional
        An LLR to mark (the range widens to show it).
    comparison : GaussianComparison, optional
        A system whose CMLG LLRs are binned.
    bins : int
        The number of histogram bins (at least 4).

    Returns
    -------
    GaussianDensities
        The 601 LLRs of the range, both densities there, and the comparison's histograms.

    Raises
    ------
    ValueError
        Without mu or comparison, or for mu <= 0 (every calibrated LLR is then 0).
    """
    if mu is None:
        if comparison is None:
            raise ValueError("Give mu, or a comparison whose fitted mu is used.")
        mu = comparison.mu
    if not mu > 0:
        raise ValueError("mu must be positive: at mu = 0 every calibrated LLR is 0.")
    s = np.sqrt(2 * mu)
    lo, hi = -mu - 4.5 * s, mu + 4.5 * s
    if llr is not None:
        lo, hi = min(lo, llr - 0.5 * s), max(hi, llr + 0.5 * s)
    x = np.linspace(lo, hi, 601)
    edges, data = None, {}
    if comparison is not None:
        edges = np.linspace(lo, hi, max(int(bins), 4) + 1)
        width = edges[1] - edges[0]
        data = {label: np.histogram(values, bins=edges)[0] / (values.size * width)
                for label, values in (("target", comparison.calibrated.tar),
                                      ("non-target", comparison.calibrated.non))}
    return GaussianDensities(mu, x, gaussian_llr_density(x, mu, True), gaussian_llr_density(x, mu, False), llr,
                             comparison, edges, data)


@dataclass(frozen=True, eq=False)
class CllrEerCurve:
    """The exact Cllr of calibrated Gaussian LLRs against their EER, with the approximation ``1 - (2 EER - 1)^2``
    (the data of :func:`~llrcore.plots.cllr_eer_figure`).

    Attributes
    ----------
    eer, cllr, approximation : ndarray
        The grid of :func:`gaussian_cllr_curve`, the exact Cllr and :func:`cllr_eer_approximation` (bits).
    max_error : float
        The largest ``|approximation - cllr|`` for EERs from 1 % to 49 % (about 0.02 bits).
    marked : float or None
        An EER at which both are given (:attr:`marked_values`).
    comparison : GaussianComparison or None
        A system placed at its EER: its Cllr after CMLG and its minCllr.
    """

    eer: np.ndarray
    cllr: np.ndarray
    approximation: np.ndarray
    max_error: float
    marked: float | None = None
    comparison: GaussianComparison | None = None

    @property
    def marked_values(self) -> tuple[float, float]:
        """The exact Cllr and the approximation at the marked EER."""
        return float(gaussian_cllr(mu_from_eer(self.marked))), float(cllr_eer_approximation(self.marked))

    def to_frame(self) -> pd.DataFrame:
        """Rows ``point, eer, cllr, approximation``: the curve (``point`` ``"curve"``), the marked EER
        (``"marked"``) and the system's ``"Cllr after CMLG"`` and ``"minCllr (PAV)"`` (no approximation)."""
        frames = [pd.DataFrame({"point": "curve", "eer": self.eer, "cllr": self.cllr,
                                "approximation": self.approximation})]
        if self.marked is not None:
            frames.append(pd.DataFrame({"point": ["marked"], "eer": [self.marked], "cllr": [self.marked_values[0]],
                                        "approximation": [self.marked_values[1]]}))
        if self.comparison is not None:
            c = self.comparison
            frames.append(pd.DataFrame({"point": ["Cllr after CMLG", "minCllr (PAV)"], "eer": c.eer,
                                        "cllr": [c.cllr, c.min_cllr], "approximation": np.nan}))
        return pd.concat(frames, ignore_index=True)


def cllr_eer_curve(eer: float | None = None, *, comparison: GaussianComparison | None = None) -> CllrEerCurve:
    """Cllr against EER of calibrated Gaussian LLRs on the default grid, with `eer` and `comparison` marked.

    Parameters
    ----------
    eer : float, optional
        An EER (a fraction) to mark.
    comparison : GaussianComparison, optional
        A system to place at its EER.

    Returns
    -------
    CllrEerCurve
        The exact Cllr and :func:`cllr_eer_approximation` (bits) on the grid, and the approximation's largest
        error for EERs from 1 % to 49 %.
    """
    grid, exact = gaussian_cllr_curve()
    approx = cllr_eer_approximation(grid)
    inside = (grid >= 0.01) & (grid <= 0.49)
    return CllrEerCurve(grid, exact, approx, float(np.max(np.abs(approx - exact)[inside])), eer, comparison)
