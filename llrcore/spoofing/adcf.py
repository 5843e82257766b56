"""The architecture-agnostic detection cost function (a-DCF) of a spoofing-robust speaker verifier (SASV).

An SASV system gives one score per trial and accepts the trial when ``score >= t``. Three kinds of trials: targets
(prior ``Ptar``), zero-effort non-targets (``Pnon``) and spoofing attacks (``Pspoof``), ``Ptar + Pnon + Pspoof = 1``.
Shim, Jung, Kinnunen, Evans, Bonastre and Lapidot, "a-DCF: an architecture agnostic metric with application to
spoofing-robust speaker verification", Odyssey 2024 (eq. 2 and 3), define, at threshold ``t``::

    a-DCF(t) = Cmiss Ptar Pmiss(t) + Cfa_non Pnon Pfa_non(t) + Cfa_spoof Pspoof Pfa_spoof(t)
    normalised a-DCF(t) = a-DCF(t) / min(Cmiss Ptar, Cfa_non Pnon + Cfa_spoof Pspoof)

with ``Pmiss(t) = #(target < t) / #target``, ``Pfa_non(t) = #(nontarget >= t) / #nontarget`` and ``Pfa_spoof(t) =
#(spoof >= t) / #spoof``. The denominator is the cost of the better of the two systems that decide without looking
(reject all: ``Cmiss Ptar``; accept all: the two false-alarm costs), so 1 means no better than deciding blind. It does
not matter how the score was made (one network, a fusion of a CM and an ASV score, a tandem's decision): hence
"architecture agnostic". The minimum over ``t`` (:attr:`ADCF.minimum`) is the primary metric of ASVspoof 5's SASV
track; the organisers report no actual (fixed-threshold) a-DCF, so :attr:`ADCF.actual` is there only when a threshold
is given.

Cost models (:func:`a_dcf_cost_model`), with the organisers' names:

- ``"asvspoof5"`` (default): the ASVspoof 5 evaluation package (``evaluation-package/calculate_metrics.py`` of
  github.com/asvspoof-challenge/asvspoof5): ``Pspoof 0.05, Ptar 0.95 × 0.99, Pnon 0.95 × 0.01, Cmiss 1,
  Cfa_asv 10, Cfa_cm 10``, the priors and costs of its revised t-DCF;
- ``"a-dcf-paper"``: the a-DCF paper's first configuration (a-DCF1, the defaults of github.com/shimhz/a_DCF):
  ``Pspoof 0.05, Pnon 0.05, Ptar 0.9, Cmiss 1, Cfa_asv 10, Cfa_cm 20``.

``Cfa_asv`` is the cost of accepting a non-target and ``Cfa_cm`` that of accepting a spoof (the names of
``a_dcf.CostModel`` in both codes).

Thresholds: one per unique score plus ``+inf`` (reject all), accept ``score >= t``; a block of tied scores is never
split. Infinite scores are allowed (an SASV system certain of a trial): a threshold of ``-inf`` accepts every trial, one
of ``+inf`` only the trials scored ``+inf``, and the last point still rejects every trial, ``+inf`` ones included
(its threshold is written ``+inf`` too, the one above every score), as the organisers' last point does. The
organisers' curve (``compute_a_det_curve``) has one point per trial plus one, from a stable sort that splits tie
blocks (targets first, as they are concatenated first), and reports the highest *rejected* score as the threshold. Their extra points inside a tie block first reject targets (the cost rises), then non-targets and spoofs
(it falls), so none is below the block's two ends, which are points here: the minimum is theirs bit for bit, ties or
not (test against their code), and :attr:`ADCF.threshold` is the lowest *accepted* score of the same point.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .._deprecation import old_spellings
from ..data.checks import sorted_scores, unique_of_sorted
from ..data.trials import Trials
from .tdcf import ReadOnlyCostModel, checked_values

__all__ = ["ADCF", "A_DCF_PRESETS", "a_dcf", "a_dcf_cost_model"]

_PSPOOF = 0.05
#: The named cost models of :func:`a_dcf` (see the module docstring).
A_DCF_PRESETS = {
    "asvspoof5": MappingProxyType({"Ptar": (1 - _PSPOOF) * 0.99, "Pnon": (1 - _PSPOOF) * 0.01, "Pspoof": _PSPOOF,
                                   "Cmiss": 1.0, "Cfa_asv": 10.0, "Cfa_cm": 10.0}),
    "a-dcf-paper": MappingProxyType({"Ptar": 0.9, "Pnon": 0.05, "Pspoof": 0.05,
                                     "Cmiss": 1.0, "Cfa_asv": 10.0, "Cfa_cm": 20.0}),
}
_MEANINGS = {"Ptar": "prior of a target trial", "Pnon": "prior of a zero-effort non-target trial",
             "Pspoof": "prior of a spoofing attack", "Cmiss": "cost of rejecting a target",
             "Cfa_asv": "cost of accepting a non-target", "Cfa_cm": "cost of accepting a spoof"}


def a_dcf_cost_model(preset: str = "asvspoof5") -> dict[str, float]:
    """The priors and costs of a named a-DCF cost model (a new dict each call): ``"asvspoof5"`` or ``"a-dcf-paper"``.

    Parameters
    ----------
    preset : {"asvspoof5", "a-dcf-paper"}
        The ASVspoof 5 evaluation package's cost model, or the a-DCF paper's first configuration (a-DCF1; Shim et
        al., Odyssey 2024); the module docstring gives their values.

    Returns
    -------
    dict of str to float
        ``Ptar``, ``Pnon``, ``Pspoof`` (priors adding up to 1), ``Cmiss``, ``Cfa_asv``, ``Cfa_cm`` (costs).

    Raises
    ------
    ValueError
        For an unknown `preset`.
    """
    if preset not in A_DCF_PRESETS:
        raise ValueError(f"Unknown a-DCF cost model {preset!r}: use 'asvspoof5' (the ASVspoof 5 evaluation package) "
                         "or 'a-dcf-paper' (Shim et al., Odyssey 2024, a-DCF1).")
    return dict(A_DCF_PRESETS[preset])


def _cost_model(cost_model) -> dict[str, float]:
    if cost_model is None or isinstance(cost_model, str):
        return a_dcf_cost_model("asvspoof5" if cost_model is None else cost_model)
    if not isinstance(cost_model, Mapping):
        raise ValueError("The a-DCF cost model must be a preset name or a dict of priors and costs, e.g. "
                         f"{a_dcf_cost_model()}.")
    wrong = sorted(set(cost_model) ^ set(_MEANINGS))
    if wrong:
        raise ValueError(f"The a-DCF cost model takes exactly {', '.join(_MEANINGS)} "
                         f"(not right: {', '.join(map(str, wrong))}).")
    return checked_values(cost_model, _MEANINGS, "a-DCF")


@dataclass(frozen=True, eq=False)
class ADCF(ReadOnlyCostModel):
    """The a-DCF of an SASV system over all its thresholds (see :func:`a_dcf`).

    Attributes
    ----------
    minimum : float
        The normalised minimum a-DCF over the thresholds.
    threshold : float
        The threshold of the minimum: the lowest accepted score (accept when ``score >= threshold``; the lowest such
        threshold if several reach the minimum).
    actual : float
        The normalised a-DCF at the threshold given to :func:`a_dcf` (NaN when none was given).
    thresholds : ndarray
        Every unique score in ascending order, then ``+inf`` (reject all, ``+inf`` scores included).
    curve : ndarray
        The normalised a-DCF at each of `thresholds`.
    pmiss, pfa_nontarget, pfa_spoof : ndarray
        Targets rejected, non-targets accepted, spoofs accepted at each of `thresholds`.
    cost_model : Mapping
        The priors and costs (``Ptar, Pnon, Pspoof, Cmiss, Cfa_asv, Cfa_cm``).
    default : float
        The normaliser, ``min(Cmiss Ptar, Cfa_asv Pnon + Cfa_cm Pspoof)``.
    """

    minimum: float
    threshold: float
    actual: float
    thresholds: np.ndarray = field(repr=False)
    curve: np.ndarray = field(repr=False)
    pmiss: np.ndarray = field(repr=False)
    pfa_nontarget: np.ndarray = field(repr=False)
    pfa_spoof: np.ndarray = field(repr=False)
    cost_model: Mapping = field(repr=False)
    default: float

    def to_frame(self) -> pd.DataFrame:
        """One row per threshold: ``threshold``, ``pmiss``, ``pfa_nontarget``, ``pfa_spoof``, ``a_dcf``."""
        return pd.DataFrame({"threshold": self.thresholds, "pmiss": self.pmiss, "pfa_nontarget": self.pfa_nontarget,
                             "pfa_spoof": self.pfa_spoof, "a_dcf": self.curve})


def _rates(tar: np.ndarray, non: np.ndarray, spoof: np.ndarray, thresholds
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Targets rejected, non-targets and spoofs accepted at `thresholds` (accept ``score >= t``), from sorted scores."""
    below = [np.searchsorted(scores, thresholds, side="left") for scores in (tar, non, spoof)]
    return below[0] / tar.size, (non.size - below[1]) / non.size, (spoof.size - below[2]) / spoof.size


def _cost(model: Mapping, pmiss, pfa_non, pfa_spoof, default: float):
    # the organisers' order of operations, so that the minimum is theirs bit for bit
    return (model["Cmiss"] * model["Ptar"] * pmiss + model["Cfa_asv"] * model["Pnon"] * pfa_non
            + model["Cfa_cm"] * model["Pspoof"] * pfa_spoof) / default


@old_spellings({"target": "tar", "nontarget": "non"})
def a_dcf(tar: ArrayLike | Trials, non: ArrayLike | None, spoof: ArrayLike | None, *,
          cost_model: str | Mapping | None = "asvspoof5", threshold: float | None = None) -> ADCF:
    """Normalised a-DCF of an SASV system over all its thresholds, with its minimum (Shim et al., Odyssey 2024).

    The formula, the cost models and the threshold convention are in the module docstring
    (:mod:`llrcore.spoofing.adcf`). With the default cost model, :attr:`ADCF.minimum` is the a-DCF of the ASVspoof 5
    evaluation package (``calculate_aDCF_tdcf_tEER``).

    Parameters
    ----------
    tar, non, spoof : array_like
        SASV scores (one per trial; higher = more likely the claimed speaker, bona fide) of target, zero-effort
        non-target and spoofed trials; ``+inf`` and ``-inf`` allowed, NaN refused.
    cost_model : str or dict
        ``"asvspoof5"`` (default), ``"a-dcf-paper"``, or a dict with ``Ptar, Pnon, Pspoof, Cmiss, Cfa_asv, Cfa_cm``.
    threshold : float, optional
        A fixed threshold: :attr:`ADCF.actual` is the normalised a-DCF there (accept ``score >= threshold``).

    Returns
    -------
    ADCF

    Raises
    ------
    ValueError
        With a sentence for empty scores or missing ones (NaN), an unknown preset or a bad cost model.
    """
    model = _cost_model(cost_model)
    tar = sorted_scores(tar, "SASV scores of target trials")
    non = sorted_scores(non, "SASV scores of non-target trials")
    spf = sorted_scores(spoof, "SASV scores of spoofed trials")
    default = min(model["Cfa_asv"] * model["Pnon"] + model["Cfa_cm"] * model["Pspoof"], model["Cmiss"] * model["Ptar"])
    if not default > 0:
        raise ValueError("The a-DCF cannot be normalised with this cost model: a system that rejects everything, or "
                         "one that accepts everything, costs nothing.")
    scores = unique_of_sorted(tar, non, spf)
    thresholds = np.append(scores, np.inf)
    # reject all: no threshold rejects a +inf score, so this point's rates are written out rather than counted
    pmiss, pfa_non, pfa_spoof = (np.append(rate, everything_rejected) for rate, everything_rejected
                                 in zip(_rates(tar, non, spf, scores), (1.0, 0.0, 0.0)))
    curve = _cost(model, pmiss, pfa_non, pfa_spoof, default)
    best = int(np.argmin(curve))
    actual = np.nan
    if threshold is not None:
        if np.isnan(float(threshold)):
            raise ValueError("The a-DCF threshold is missing (NaN).")
        actual = float(_cost(model, *_rates(tar, non, spf, float(threshold)), default))
    return ADCF(minimum=float(curve[best]), threshold=float(thresholds[best]), actual=actual, thresholds=thresholds,
                curve=curve, pmiss=pmiss, pfa_nontarget=pfa_non, pfa_spoof=pfa_spoof,
                cost_model=MappingProxyType(model), default=float(default))
