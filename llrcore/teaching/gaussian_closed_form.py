"""Calibrated Gaussian LLRs in closed form: EER, d', the Cllr approximation, the densities, the Bayes error and the
DET, each a formula in mu (the theory is :mod:`llrcore.teaching.gaussian`'s, which computes Cllr itself, an integral).

References
----------
D. A. van Leeuwen and N. Brümmer, "The distribution of calibrated likelihood-ratios in speaker recognition",
Interspeech 2013 (slides 9-15).
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import ndtr, ndtri

from ..prior import sigmoid

__all__ = ["cllr_eer_approximation", "dprime_from_mu", "eer_from_mu", "gaussian_bayes_error", "gaussian_det",
           "gaussian_llr_density", "mu_from_dprime", "mu_from_eer"]


def checked_mu(mu, what: str = "mu") -> np.ndarray:
    mu = np.asarray(mu, dtype=np.float64)
    if np.any(np.isnan(mu)) or np.any(mu < 0):
        raise ValueError(f"{what} of calibrated Gaussian LLRs must be zero or positive.")
    return mu


def scalar_or_array(values: np.ndarray):
    return float(values) if values.ndim == 0 else values


# ----- conversions ---------------------------------------------------------------------------------------------


def eer_from_mu(mu):
    """EER of calibrated Gaussian LLRs with means ``+-mu``: ``Phi(-sqrt(mu / 2))`` (0.5 at mu = 0).

    Parameters
    ----------
    mu : float or array_like
        The mean of the calibrated target LLRs (natural log), zero or positive.

    Returns
    -------
    float or ndarray
        The EER, a fraction (an array for an array of mu).
    """
    return scalar_or_array(ndtr(-np.sqrt(checked_mu(mu) / 2)))


def mu_from_eer(eer):
    """The mean ``mu = 2 Phi^-1(EER)^2`` of calibrated Gaussian LLRs with this EER.

    Parameters
    ----------
    eer : float or array_like
        The EER, a fraction in (0, 0.5].

    Returns
    -------
    float or ndarray
        mu (natural-log LLRs), 0 at an EER of 0.5.

    Raises
    ------
    ValueError
        For an EER outside (0, 0.5]: a calibrated system never does worse than 50 %, and an EER of 0 needs an
        infinite mu.
    """
    eer = np.asarray(eer, dtype=np.float64)
    if np.any(np.isnan(eer)) or np.any((eer <= 0) | (eer > 0.5)):
        raise ValueError("The EER must be a fraction above 0 and at most 0.5 (50 %).")
    return scalar_or_array(2.0 * ndtri(eer) ** 2)


def dprime_from_mu(mu):
    """Separation of the two LLR distributions in standard deviations: ``d' = 2 mu / sqrt(2 mu) = sqrt(2 mu)``.

    Parameters
    ----------
    mu : float or array_like
        The mean of the calibrated target LLRs (natural log), zero or positive; the non-target LLRs' is -mu and
        both variances are 2 mu.

    Returns
    -------
    float or ndarray
        d'.
    """
    return scalar_or_array(np.sqrt(2.0 * checked_mu(mu)))


def mu_from_dprime(dprime):
    """Inverse of :func:`dprime_from_mu`: ``mu = d'^2 / 2``.

    Parameters
    ----------
    dprime : float or array_like
        d', zero or positive (a negative or NaN one is a ValueError).

    Returns
    -------
    float or ndarray
        mu (natural-log LLRs).
    """
    dprime = checked_mu(dprime, "d'")
    return scalar_or_array(dprime**2 / 2.0)


def cllr_eer_approximation(eer):
    """The slides' approximation ``Cllr ~ 1 - (2 EER - 1)^2`` (bits) of the Cllr of calibrated Gaussian LLRs.

    Exact at EER = 0 and 0.5. Over EER from 1 % to 49 % it overestimates the exact :func:`~llrcore.teaching.gaussian.gaussian_cllr` by at
    most 0.0208 bits (near EER = 19.5 %): "within about 0.02", as the slides say; below about 1 % it slightly
    underestimates.

    Parameters
    ----------
    eer : float or array_like
        The EER, a fraction.

    Returns
    -------
    float or ndarray
        The approximate Cllr in bits.
    """
    eer = np.asarray(eer, dtype=np.float64)
    return scalar_or_array(1.0 - (2.0 * eer - 1.0) ** 2)


# ----- densities, rates, DET -----------------------------------------------------------------------------------


def gaussian_llr_density(l, mu: float, target: bool, *, log: bool = False):
    """Density of calibrated Gaussian LLRs at `l`: ``N(l | +mu, 2 mu)`` for targets, ``N(l | -mu, 2 mu)`` else.

    "The LLR of the LLR is the LLR": ``density(l, mu, True) / density(l, mu, False) = e^l`` for every ``l``
    (exactly: ``-(l - mu)^2 + (l + mu)^2 = 4 mu l``, divided by ``2 (2 mu)``).

    Parameters
    ----------
    l : float or array_like
        LLRs (natural log).
    mu : float
        The mean of the target LLRs, positive (at mu = 0 every LLR is 0: a ValueError).
    target : bool
        The target class's density, else the non-target class's.
    log : bool
        Return the log density, finite far out in the tails where the density underflows.

    Returns
    -------
    float or ndarray
        The density (or its log) at each `l`.
    """
    mu = float(checked_mu(mu))
    if mu <= 0:
        raise ValueError("mu must be positive for the LLR densities (at mu = 0 every LLR is 0).")
    l = np.asarray(l, dtype=np.float64)
    variance = 2.0 * mu
    mean = mu if target else -mu
    log_density = -((l - mean) ** 2) / (2.0 * variance) - 0.5 * np.log(2.0 * np.pi * variance)
    return scalar_or_array(log_density if log else np.exp(log_density))


def gaussian_bayes_error(mu: float, plo):
    """Bayes error rate of calibrated Gaussian LLRs at prior log-odds `plo` (the threshold ``-plo``), closed form.

    ``Pe = sigmoid(plo) Phi((-plo - mu) / s) + sigmoid(-plo) Phi((plo - mu) / s)``, ``s = sqrt(2 mu)``. Its maximum,
    at ``plo = 0``, is the EER; its area ``int Pe dplo`` is ``2 ln 2 Cllr`` (the APE curve).

    Parameters
    ----------
    mu : float
        The mean of the target LLRs, zero or positive (at 0 the prior alone decides).
    plo : float or array_like
        Prior log-odds ``logit(P_target)``.

    Returns
    -------
    float or ndarray
        The Bayes error rate (a fraction) at each `plo`.
    """
    mu = float(checked_mu(mu))
    plo = np.asarray(plo, dtype=np.float64)
    if mu == 0:  # every LLR is 0: decide by the prior alone
        return scalar_or_array(np.minimum(sigmoid(plo), sigmoid(-plo)))
    s = np.sqrt(2.0 * mu)
    return scalar_or_array(sigmoid(plo) * ndtr((-plo - mu) / s) + sigmoid(-plo) * ndtr((plo - mu) / s))


def gaussian_det(mu: float, pfa: ArrayLike | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The DET of calibrated Gaussian LLRs: ``Pmiss = Phi(-Phi^-1(Pfa) - sqrt(2 mu))``, a line of slope -1 on
    probit axes crossing the diagonal at the EER.

    Parameters
    ----------
    pfa : array_like, optional
        False-alarm rates; default 401 values evenly spaced in probit from 1e-6 to 1 - 1e-6.

    Returns
    -------
    (pfa, pmiss) : tuple of ndarray
    """
    dprime = dprime_from_mu(mu)
    pfa = ndtr(np.linspace(ndtri(1e-6), -ndtri(1e-6), 401)) if pfa is None else np.asarray(pfa, dtype=np.float64)
    return pfa, ndtr(-ndtri(pfa) - dprime)
