"""Empirical cross-entropy (ECE) of LLRs at any prior, and the ECE plot's three curves.

At prior log-odds ``plo = logit P(H1)`` (natural log; the plot's axis is ``plo / ln 10``, the prior log10-odds),
with ``P = sigmoid(plo)``::

    ECE(plo) = P / N_tar  sum_tar log2(1 + e^-(l + plo))  +  (1 - P) / N_non  sum_non log2(1 + e^(l + plo))

in bits: the information still missing about the true proposition after the evidence, averaged over the trials
(Ramos & González-Rodríguez). At ``plo = 0`` (P = 0.5) it is Cllr (Brümmer & du Preez), exactly: the two are
computed by the same code there. The ECE plot shows it against the prior log10-odds for

- the system's LLRs (solid),
- their PAV-calibrated version (dashed): the ECE of the PAV-optimal LLRs, the lowest any monotone transform of the
  LLRs reaches, at every prior at once (the PAV transform does not depend on the prior); ``ECE_pav(0) = minCllr``;
- the neutral reference LR = 1 (dotted): the prior entropy ``-P log2 P - (1 - P) log2 (1 - P)``.

A system whose curve rises above the reference at some prior gives, there, worse than no evidence at all.

References
----------
D. Ramos and J. González-Rodríguez, "Reliable support: measuring calibration of likelihood ratios", Forensic Science
International 230 (2013) 156-169.
D. Ramos, J. González-Rodríguez, G. Zadora and C. Aitken, "Information-theoretical assessment of the performance of
likelihood ratio computation methods", Journal of Forensic Sciences 58 (2013) 1503-1518.
N. Brümmer and J. du Preez, "Application-independent evaluation of speaker detection", CSL 20, 2006 (Cllr, PAV).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy.special import expit

from .._deprecation import LLRS, old_spellings
from ..binary.costs import cllr_bits, mean_cost_bits, softplus_bits
from ..binary.rates import ScoreCounts
from ..data.checks import as_scores
from ..data.trials import Trials
from ._trials import sorted_classes
from .units import from_log10, to_log10

__all__ = ["DEFAULT_PRIOR_LOG10_ODDS", "ECECurve", "ece", "ece_curve"]

DEFAULT_PRIOR_LOG10_ODDS = np.arange(-120, 121) / 40.0
"""Prior log10-odds of the ECE plot: -3 to 3 in steps of 0.025, with 0 exactly on the grid."""


def _priors(plo) -> np.ndarray:
    plo = np.atleast_1d(np.asarray(plo, dtype=np.float64))
    if plo.ndim != 1 or plo.size == 0 or not np.all(np.isfinite(plo)):
        raise ValueError("The prior log-odds must be finite numbers (a prior probability strictly between 0 and 1).")
    return plo


def _ece_of_llrs(tar: np.ndarray, non: np.ndarray, plo: np.ndarray) -> np.ndarray:
    """ECE in bits of LLR arrays at each prior log-odds (one pass over the trials per prior); at ``plo = 0`` it is
    Cllr computed as :func:`~llrcore.binary.costs.cllr_bits` computes it, and where a cost or a sum overflows (huge finite
    LLRs) or a prior is below the smallest float it is summed without either (:func:`~llrcore.binary.costs.mean_cost_bits`)."""
    out = np.empty(plo.size)
    for k, shift in enumerate(plo):
        if shift == 0:
            out[k] = cllr_bits(tar, non)
            continue
        with np.errstate(over="ignore", invalid="ignore"):
            out[k] = (expit(shift) * softplus_bits(-(tar + shift)).mean()
                      + expit(-shift) * softplus_bits(non + shift).mean())
        if not np.isfinite(out[k]) or abs(shift) > 700:  # overflow, or a prior below the smallest float
            out[k] = mean_cost_bits(tar, -1, shift) + mean_cost_bits(non, 1, shift)
    return out


def _pav_ece(table, plo: np.ndarray) -> np.ndarray:
    """ECE in bits of the PAV-optimal LLRs at each prior log-odds, block by block (a block without a class costs
    nothing for it, even where its LLR is infinite)."""
    blocks = table.pav
    shifted = blocks.llr[None, :] + plo[:, None]
    with np.errstate(invalid="ignore"):
        miss = np.where(blocks.n_tar > 0, blocks.n_tar * softplus_bits(-shifted), 0.0).sum(axis=1)
        fa = np.where(blocks.n_non > 0, blocks.n_non * softplus_bits(shifted), 0.0).sum(axis=1)
    return expit(plo) * (miss / table.n_tar) + expit(-plo) * (fa / table.n_non)


def _reference_ece(plo: np.ndarray) -> np.ndarray:
    """ECE of the neutral LR = 1: the prior's entropy in bits."""
    return expit(plo) * softplus_bits(-plo) + expit(-plo) * softplus_bits(plo)


@old_spellings(LLRS, positional=("plo",), prior="plo", prior_kind="plo values")
def ece(tar: ArrayLike | Trials, non: ArrayLike | None = None, *, plo: ArrayLike = 0.0) -> float | np.ndarray:
    """Empirical cross-entropy in bits of natural-log LLRs at prior log-odds `plo` (natural log).

    ``ECE = P mean_tar log2(1 + e^-(l + plo)) + (1 - P) mean_non log2(1 + e^(l + plo))``, ``P = sigmoid(plo)``;
    ``ece(trials, plo=0) == cllr(trials)`` (the same expression). For the prior log10-odds ``o`` of a forensic ECE plot,
    pass ``plo = from_log10(o)``.

    Parameters
    ----------
    tar : Trials or array_like
        One :class:`~llrcore.Trials` or the same-source LLRs.
    non : array_like, optional
        The different-source LLRs, with an array `tar`.
    plo : float or array_like
        Prior log-odds ``logit P(H1)``, finite. An array gives an array.

    Returns
    -------
    float or ndarray
    """
    if isinstance(tar, (Trials, ScoreCounts)):
        table, _ = sorted_classes(tar, non)
        tar_llrs, non_llrs = table.tar, table.non
    else:  # in the order given, as cllr(tar, non) takes them: ece(tar, non, plo=0) is cllr(tar, non) to the last bit
        tar_llrs, non_llrs = as_scores(tar, "target LLRs"), as_scores(non, "non-target LLRs")
    values = _ece_of_llrs(tar_llrs, non_llrs, _priors(plo))
    return float(values[0]) if np.ndim(plo) == 0 else values


@dataclass(frozen=True)
class ECECurve:
    """The three curves of an ECE plot of one system, in bits, over prior log-odds.

    Attributes
    ----------
    name : str
    plo : ndarray
        Prior log-odds ``logit P(H1)`` (natural log); :attr:`prior_log10_odds` is the plot's axis.
    system : ndarray
        ECE of the system's LLRs.
    pav : ndarray
        ECE of the PAV-calibrated LLRs (the minimum over monotone transforms, at every prior).
    reference : ndarray
        ECE of the neutral LR = 1 (the prior's entropy).
    cllr, min_cllr : float
        ``ECE(0)`` of the system and of the PAV LLRs, in bits.
    """

    name: str
    plo: np.ndarray = field(repr=False)
    system: np.ndarray = field(repr=False)
    pav: np.ndarray = field(repr=False)
    reference: np.ndarray = field(repr=False)
    cllr: float
    min_cllr: float

    @property
    def prior_log10_odds(self) -> np.ndarray:
        """The prior log10-odds ``log10(P / (1 - P))`` of each point."""
        return to_log10(self.plo)

    @property
    def p_target(self) -> np.ndarray:
        """The prior probability ``P(H1)`` of each point."""
        return expit(self.plo)

    @property
    def cllr_cal(self) -> float:
        """``Cllr_cal = Cllr - Cllr_min`` in bits: the calibration loss, the gap between the solid and dashed
        curves at prior log-odds 0."""
        return self.cllr - self.min_cllr

    def to_frame(self) -> pd.DataFrame:
        """One row per prior: ``prior_log10_odds``, ``plo``, ``p_target``, ``ece``, ``ece_pav``, ``ece_reference``."""
        return pd.DataFrame({"prior_log10_odds": self.prior_log10_odds, "plo": self.plo, "p_target": self.p_target,
                             "ece": self.system, "ece_pav": self.pav, "ece_reference": self.reference})


@old_spellings({**LLRS, "prior_log10_odds": ("plo", from_log10)})
def ece_curve(tar: ArrayLike | Trials, non: ArrayLike | None = None, *, plo: ArrayLike | None = None,
              name: str | None = None) -> ECECurve:
    """The ECE plot's curves (system, PAV-calibrated, neutral reference) over a range of prior log-odds.

    Parameters
    ----------
    tar, non
        One :class:`~llrcore.Trials` or the same-source and different-source natural-log LLRs.
    plo : array_like, optional
        The prior log-odds ``logit P(H1)`` (natural log; for log10-odds ``o`` give ``from_log10(o)``); default
        :data:`DEFAULT_PRIOR_LOG10_ODDS` (log10-odds -3 to 3; lir's ``plot_ece`` uses the same range). Cllr and
        minCllr are computed at 0 whether or not it is on the grid.
    name : str, optional
        The system's name (default the Trials' name).

    Returns
    -------
    ECECurve
        The ECE in bits of the system, of its PAV-calibrated LLRs and of the neutral reference (LLR 0) at each
        prior, with the Cllr and minCllr.

    Raises
    ------
    ValueError
        When a class has no LLR, an LLR is missing (NaN), or a prior log-odds is not finite.
    """
    table, trials_name = sorted_classes(tar, non)
    plo = _priors(from_log10(DEFAULT_PRIOR_LOG10_ODDS) if plo is None else plo)
    return ECECurve(
        name=trials_name if name is None else name,
        plo=plo,
        system=_ece_of_llrs(table.tar, table.non, plo),
        pav=_pav_ece(table, plo),
        reference=_reference_ece(plo),
        cllr=table.cllr(),
        min_cllr=table.min_cllr(),
    )
