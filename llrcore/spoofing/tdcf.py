"""Tandem detection cost function (t-DCF): a spoofing countermeasure (CM) judged in front of a speaker verifier (ASV).

The CM is a gate: a trial it accepts as bona fide goes on to the ASV, which accepts or rejects the claimed speaker.
The t-DCF is the expected cost of the tandem's errors, as a function of the CM threshold, with the ASV kept at a
fixed operating point. Three kinds of trials: targets (prior ``Ptar``), zero-effort non-targets (``Pnon``) and spoofing
attacks (``Pspoof``), with ``Ptar + Pnon + Pspoof = 1``. The ASV enters only through three error rates at its
threshold ``tau_asv`` (accept when ``score >= tau_asv``):

- ``Pmiss_asv``: targets rejected, ``#(tar < tau_asv) / #tar``;
- ``Pfa_asv``: non-targets accepted, ``#(non >= tau_asv) / #non``;
- ``Pmiss_spoof_asv``: spoofing attacks rejected, ``#(spoof < tau_asv) / #spoof``; its complement
  ``Pfa_spoof_asv = 1 - Pmiss_spoof_asv`` is the ASV's *spoof false-alarm rate*, :func:`spoof_false_alarm_rate`.

The CM enters through its miss rate (bona fide rejected) and false-alarm rate (spoofs accepted) at each CM threshold
``s`` (accept as bona fide when ``score >= s``): ``Pmiss_cm(s) = #(bonafide < s) / #bonafide`` and
``Pfa_cm(s) = #(spoof >= s) / #spoof``, counted per unique score (a block of tied scores is never split), from one
``np.sort`` of each class and ``np.searchsorted``.

Two formulations (:func:`tdcf`, ``formulation=``):

``"revised"`` (default) — Kinnunen et al., IEEE/ACM TASLP 28 (2020), "Tandem assessment of spoofing countermeasures
and automatic speaker verification: fundamentals", used from ASVspoof 2021 on (the organisers' ``compute_tDCF`` of the
ASVspoof 2021 evaluation package, ``eval-package/eval_metrics.py`` of github.com/asvspoof-challenge/2021)::

    t-DCF(s) = C0 + C1 Pmiss_cm(s) + C2 Pfa_cm(s)
    C0 = Ptar Cmiss Pmiss_asv + Pnon Cfa Pfa_asv
    C1 = Ptar Cmiss - C0
    C2 = Pspoof Cfa_spoof Pfa_spoof_asv
    normalised t-DCF(s) = t-DCF(s) / (C0 + min(C1, C2))

The denominator is the cost of the better of the two CMs that decide without looking (accept all or reject all),
so a normalised value above 1 means the CM does worse than no CM.

``"legacy"`` — the ASVspoof 2019 challenge's t-DCF: Kinnunen et al., "t-DCF: a detection cost function for the tandem
assessment of spoofing countermeasures and automatic speaker verification", Odyssey 2018, as specified in the
ASVspoof 2019 evaluation plan (the organisers' ``tDCF_python`` package, ``eval_metrics.py`` ``compute_tDCF``)::

    t-DCF(s) = C1 Pmiss_cm(s) + C2 Pfa_cm(s)
    C1 = Ptar (Cmiss_cm - Cmiss_asv Pmiss_asv) - Pnon Cfa_asv Pfa_asv
    C2 = Cfa_cm Pspoof (1 - Pmiss_spoof_asv)
    normalised t-DCF(s) = t-DCF(s) / min(C1, C2)

Default cost models are the organisers' (both: ``Pspoof = 0.05``, ``Ptar = 0.95 * 0.99``, ``Pnon = 0.95 * 0.01``;
revised: ``Cmiss = 1, Cfa = 10, Cfa_spoof = 10``; legacy: ``Cmiss_asv = 1, Cfa_asv = 10, Cmiss_cm = 1, Cfa_cm = 10``):
:func:`tdcf_cost_model`.

The default ASV threshold is the organisers' convention, :func:`asv_eer_threshold`: the threshold their
``compute_eer`` returns for the ASV's target and non-target scores. With it and the default cost model, :func:`tdcf`
gives the minimum t-DCF of the organisers' code (reproduced: the ASVspoof 2019 ``tDCF_python`` ``compute_tDCF`` for
``"legacy"``, the ASVspoof 2021 evaluation package's ``compute_tDCF`` for ``"revised"``; this module is an own
implementation of the published formulas, none of the organisers' code is in it). The curves differ in their set of
thresholds, not in their minimum: the organisers' curve has one point per trial plus one, from one stable sort of
all CM scores (a block of tied scores is split, bona fide first, and the threshold of a point is the highest *rejected*
score); here one point per unique score plus one (the threshold is the lowest *accepted* score; the last point,
``+inf``, rejects everything). The organisers' extra points inside a tie block first reject bona fide trials (the
cost rises), then spoofs (it falls), so none is below the block's two ends, which are points here.

SPF-EER (ASV target-vs-spoof equal error rate, as reported since ASVspoof 2021) needs nothing new:
``lc.eer(asv_tar, asv_spoof)``, llrcore's ROCCH-EER. The organisers' figure is their ``compute_eer`` (no convex hull:
the mean of miss and false alarm at the point where they are closest), which can be far higher when the ROC is not
convex, as target-vs-spoof ROCs often are: on the ASVspoof 2019 LA eval ASV scores ROCCH gives 42.86 %, their
convention 45.89 % (dev: 32.69 % and 33.08 %).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from ..data.checks import sorted_scores, unique_of_sorted

__all__ = [
    "TandemDCF",
    "asv_eer_threshold",
    "spoof_false_alarm_rate",
    "tdcf",
    "tdcf_cost_model",
    "tdcf_weights",
]

_PSPOOF = 0.05
_PRIORS = {"Pspoof": _PSPOOF, "Ptar": (1 - _PSPOOF) * 0.99, "Pnon": (1 - _PSPOOF) * 0.01}
_COST_MODELS = {
    "revised": MappingProxyType({**_PRIORS, "Cmiss": 1.0, "Cfa": 10.0, "Cfa_spoof": 10.0}),
    "legacy": MappingProxyType({**_PRIORS, "Cmiss_asv": 1.0, "Cfa_asv": 10.0, "Cmiss_cm": 1.0, "Cfa_cm": 10.0}),
}
_MEANINGS = {
    "Ptar": "prior of a target trial",
    "Pnon": "prior of a zero-effort non-target trial",
    "Pspoof": "prior of a spoofing attack",
    "Cmiss": "cost of the tandem rejecting a target",
    "Cfa": "cost of the tandem accepting a non-target",
    "Cfa_spoof": "cost of the tandem accepting a spoof",
    "Cmiss_asv": "cost of the ASV rejecting a target",
    "Cfa_asv": "cost of the ASV accepting a non-target",
    "Cmiss_cm": "cost of the CM rejecting a bona fide trial",
    "Cfa_cm": "cost of the CM accepting a spoof",
}


def _formulation(formulation: str) -> str:
    if formulation not in _COST_MODELS:
        raise ValueError(
            f"Unknown t-DCF formulation {formulation!r}: use 'revised' (Kinnunen et al. 2020, ASVspoof 2021 on) "
            "or 'legacy' (ASVspoof 2019)."
        )
    return formulation


def tdcf_cost_model(formulation: str = "revised") -> dict[str, float]:
    """The organisers' default t-DCF cost model of `formulation` (a new dict each call, free to change).

    ``"revised"`` (ASVspoof 2021 evaluation package): ``Pspoof 0.05, Ptar 0.9405, Pnon 0.0095, Cmiss 1, Cfa 10,
    Cfa_spoof 10``. ``"legacy"`` (ASVspoof 2019 ``tDCF_python``): the same priors, ``Cmiss_asv 1, Cfa_asv 10,
    Cmiss_cm 1, Cfa_cm 10``.

    Parameters
    ----------
    formulation : {"revised", "legacy"}
        The t-DCF: revised (Kinnunen et al., IEEE/ACM TASLP 2020) or legacy (ASVspoof 2019).

    Returns
    -------
    dict of str to float
        The priors ``Ptar``, ``Pnon``, ``Pspoof`` (fractions adding up to 1) and the costs, by the names above.

    Raises
    ------
    ValueError
        For an unknown `formulation`.
    """
    return dict(_COST_MODELS[_formulation(formulation)])


def _cost_model(cost_model, formulation: str) -> dict[str, float]:
    if cost_model is None:
        return tdcf_cost_model(formulation)
    if not isinstance(cost_model, Mapping):
        raise ValueError("The t-DCF cost model must be a dict of named priors and costs, e.g. "
                         f"{tdcf_cost_model(formulation)}.")
    needed = set(_COST_MODELS[formulation])
    other = next(name for name in _COST_MODELS if name != formulation)
    if set(cost_model) == set(_COST_MODELS[other]):
        raise ValueError(f"This is a cost model of the {other} t-DCF (it has {', '.join(_COST_MODELS[other])}); "
                         f"pass formulation={other!r} with it, or give {', '.join(_COST_MODELS[formulation])}.")
    missing = [key for key in _COST_MODELS[formulation] if key not in cost_model]
    if missing:
        raise ValueError(f"The {formulation} t-DCF cost model lacks " + ", ".join(
            f"{key} ({_MEANINGS[key]})" for key in missing) + ".")
    extra = sorted(set(cost_model) - needed)
    if extra:
        known = [key for key in extra if key in _MEANINGS]
        hint = f" (those belong to the {other} formulation)" if len(known) == len(extra) else ""
        raise ValueError(f"The {formulation} t-DCF cost model does not use {', '.join(map(str, extra))}{hint}; "
                         f"it takes exactly {', '.join(_COST_MODELS[formulation])}.")
    return checked_values(cost_model, {key: _MEANINGS[key] for key in _COST_MODELS[formulation]}, "t-DCF")


def checked_values(cost_model: Mapping, meanings: dict[str, str], metric: str) -> dict[str, float]:
    """The priors and costs of `cost_model` named in `meanings` (name -> what it is) as floats, each finite and at
    least 0 and the priors Ptar, Pnon and Pspoof adding up to 1, or a ValueError with a sentence naming the `metric`'s
    (``"t-DCF"``, ``"a-DCF"``) cost model."""
    model = {}
    for key, meaning in meanings.items():
        try:
            value = float(cost_model[key])
        except (TypeError, ValueError):
            raise ValueError(f"The {metric} cost model's {key} ({meaning}) must be a number, "
                             f"not {cost_model[key]!r}.") from None
        if not np.isfinite(value) or value < 0:
            raise ValueError(f"The {metric} cost model's {key} ({meaning}) must be a finite number of at least "
                             f"0, not {value}.")
        model[key] = value
    total = model["Ptar"] + model["Pnon"] + model["Pspoof"]
    if abs(total - 1) > 1e-10:
        raise ValueError(f"The {metric} priors Ptar, Pnon and Pspoof must add up to 1; they add up to {total:.10g}.")
    return model


def _rejected(sorted_scores: np.ndarray, threshold) -> np.ndarray:
    """How many of the sorted scores lie below `threshold` (rejected when accepting ``score >= threshold``)."""
    return np.searchsorted(sorted_scores, threshold, side="left")


def asv_eer_threshold(asv_tar: ArrayLike, asv_non: ArrayLike) -> float:
    """The ASV threshold at its equal-error point, by the ASVspoof organisers' convention (their ``compute_eer``).

    All scores are put in one ascending order, the targets before the non-targets among equal scores. Point ``i``
    (``i = 0 .. N``) rejects the first ``i`` of them: miss rate ``(targets among them) / #tar`` and false-alarm rate
    ``(non-targets not among them) / #non``. The first point (``i = 0``) whose ``|miss - false alarm|`` is smallest
    gives the threshold: the ``i``-th score (the highest rejected one), or the lowest score minus 0.001 when
    ``i = 0``. The ASV error rates of the t-DCF then accept ``score >= threshold``, as the organisers' code does (so
    at a point that rejected the threshold score itself, the rates used differ from the point's by that score).

    Computed here from one ``np.sort`` per class with exact counts; equal to the organisers' value bit for bit (test).

    Parameters
    ----------
    asv_tar, asv_non : array_like
        The ASV's scores of target and of zero-effort non-target trials.

    Returns
    -------
    float
        The ASV score threshold.

    Raises
    ------
    ValueError
        When a set of scores is missing, empty or holds NaN.
    """
    tar = sorted_scores(asv_tar, "ASV target scores")
    non = sorted_scores(asv_non, "ASV non-target scores")
    pooled = np.sort(np.concatenate([tar, non]), kind="stable")  # timsort merges the two sorted classes
    taken = np.arange(1, pooled.size + 1)  # the first i scores rejected at point i
    below = _rejected(pooled, pooled)  # scores strictly below the i-th one
    tar_below = _rejected(tar, pooled)
    tar_tied = np.searchsorted(tar, pooled, side="right") - tar_below
    tar_taken = tar_below + np.minimum(tar_tied, taken - below)  # targets come first in a tie
    miss = np.concatenate([[0.0], tar_taken / tar.size])
    false_alarm = np.concatenate([[1.0], (non.size - (taken - tar_taken)) / non.size])
    point = int(np.argmin(np.abs(miss - false_alarm)))
    return float(pooled[0] - 0.001) if point == 0 else float(pooled[point - 1])


def spoof_false_alarm_rate(asv_spoof: ArrayLike, threshold: float) -> float:
    """The ASV's spoof false-alarm rate: the share of spoofing attacks it accepts, ``#(spoof >= threshold) / #spoof``.

    ``Pfa_spoof_asv`` of the revised t-DCF, ``1 - Pmiss_spoof_asv`` of the legacy one.

    Parameters
    ----------
    asv_spoof : array_like
        The ASV's scores of spoofing attacks.
    threshold : float
        An ASV score threshold (e.g. :func:`asv_eer_threshold`); accept when ``score >= threshold``.

    Returns
    -------
    float
        The fraction of spoofing attacks the ASV accepts.

    Raises
    ------
    ValueError
        For spoof scores that are missing, empty or hold NaN, or a NaN threshold.
    """
    spoof = sorted_scores(asv_spoof, "ASV spoof scores")
    threshold = float(threshold)
    if np.isnan(threshold):
        raise ValueError("The ASV threshold is missing (NaN).")
    return int(spoof.size - _rejected(spoof, threshold)) / spoof.size


class ReadOnlyCostModel:
    """Pickling for a result whose ``cost_model`` is read-only (a :class:`types.MappingProxyType`, which pickle
    refuses): kept as a plain dict in the pickle, read-only again when loaded."""

    cost_model: Mapping  # the result's field

    def __getstate__(self) -> dict:
        return {**self.__dict__, "cost_model": dict(self.cost_model)}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state, cost_model=MappingProxyType(state["cost_model"]))


@dataclass(frozen=True, eq=False)
class TandemDCF(ReadOnlyCostModel):
    """The t-DCF of a countermeasure in tandem with a fixed speaker verifier (see :func:`tdcf`).

    Attributes
    ----------
    formulation : str
        ``"revised"`` (Kinnunen et al. 2020, ASVspoof 2021 on) or ``"legacy"`` (ASVspoof 2019).
    minimum : float
        Normalised minimum t-DCF over the CM thresholds.
    threshold : float
        The CM threshold of the minimum (accept as bona fide when ``score >= threshold``; the first one if several).
    thresholds : ndarray
        The CM thresholds of the curve: every unique CM score in ascending order, then ``+inf`` (reject all).
    curve : ndarray
        Normalised t-DCF at each of `thresholds`.
    pmiss_cm, pfa_cm : ndarray
        The CM's miss rate (bona fide rejected) and false-alarm rate (spoofs accepted) at each of `thresholds`.
    asv_threshold : float
        The ASV threshold (accept when ``score >= asv_threshold``).
    pmiss_asv, pfa_asv, pmiss_spoof_asv : float
        The ASV error rates used: targets rejected, non-targets accepted, spoofs rejected.
    cost_model : Mapping
        The priors and costs used (names as in the organisers' code).
    c0, c1, c2 : float
        The (unnormalised) weights of the formulation: ``t-DCF = c0 + c1 Pmiss_cm + c2 Pfa_cm`` (``c0 = 0`` in the
        legacy one).
    default : float
        The normaliser: ``c0 + min(c1, c2)`` (revised) or ``min(c1, c2)`` (legacy).
    """

    formulation: str
    minimum: float
    threshold: float
    thresholds: np.ndarray = field(repr=False)
    curve: np.ndarray = field(repr=False)
    pmiss_cm: np.ndarray = field(repr=False)
    pfa_cm: np.ndarray = field(repr=False)
    asv_threshold: float
    pmiss_asv: float
    pfa_asv: float
    pmiss_spoof_asv: float
    cost_model: Mapping = field(repr=False)
    c0: float
    c1: float
    c2: float
    default: float

    @property
    def pfa_spoof_asv(self) -> float:
        """The ASV's spoof false-alarm rate, ``1 - pmiss_spoof_asv``."""
        return 1.0 - self.pmiss_spoof_asv

    @property
    def floor(self) -> float:
        """The normalised t-DCF of an error-free CM, ``c0 / default`` (0 in the legacy formulation)."""
        return self.c0 / self.default

    def to_frame(self) -> pd.DataFrame:
        """One row per CM threshold: ``threshold``, ``pmiss_cm``, ``pfa_cm``, ``tdcf`` (normalised)."""
        return pd.DataFrame({"threshold": self.thresholds, "pmiss_cm": self.pmiss_cm, "pfa_cm": self.pfa_cm,
                             "tdcf": self.curve})


def tdcf_weights(formulation: str, model: Mapping, pmiss_asv: float, pfa_asv: float,
                 pfa_spoof_asv: float) -> tuple[float, float, float, float]:
    """``(c0, c1, c2, default)`` of a formulation at the ASV's error rates: ``t-DCF = c0 + c1 Pmiss_cm + c2 Pfa_cm``,
    normalised by `default` (the formulas are in the module docstring; `model` is a checked cost model)."""
    if formulation == "revised":
        c0 = model["Ptar"] * model["Cmiss"] * pmiss_asv + model["Pnon"] * model["Cfa"] * pfa_asv
        c1 = model["Ptar"] * model["Cmiss"] - c0
        c2 = model["Pspoof"] * model["Cfa_spoof"] * pfa_spoof_asv
        return c0, c1, c2, c0 + min(c1, c2)
    c1 = model["Ptar"] * (model["Cmiss_cm"] - model["Cmiss_asv"] * pmiss_asv) \
        - model["Pnon"] * model["Cfa_asv"] * pfa_asv
    c2 = model["Cfa_cm"] * model["Pspoof"] * pfa_spoof_asv
    return 0.0, c1, c2, min(c1, c2)


def tdcf(cm_bonafide: ArrayLike, cm_spoof: ArrayLike, asv_tar: ArrayLike, asv_non: ArrayLike, asv_spoof: ArrayLike, *,
         formulation: str = "revised", cost_model: Mapping | None = None, asv_threshold: float | None = None
         ) -> TandemDCF:
    """Normalised t-DCF of a spoofing countermeasure over all its thresholds, with its minimum.

    The formulas of both formulations, the cost models and the ASV threshold convention are in the module docstring
    (:mod:`llrcore.spoofing.tdcf`). With the defaults this is the minimum t-DCF of the organisers' evaluation code: ASVspoof
    2021's ``compute_tDCF`` (``"revised"``) or ASVspoof 2019's ``tDCF_python`` ``compute_tDCF`` (``"legacy"``).

    Parameters
    ----------
    cm_bonafide, cm_spoof : array_like
        CM scores of bona fide and of spoofed trials (higher = more bona fide; any scale). ``+inf`` and ``-inf``
        allowed (a threshold of ``-inf`` accepts every trial; the last point, threshold written ``+inf``, rejects
        every trial, ``+inf`` ones included, as the organisers' last point does); NaN refused.
    asv_tar, asv_non, asv_spoof : array_like
        ASV scores of target, zero-effort non-target and spoofed trials (e.g. ``Trials.tar``, ``.non`` and
        ``.spoof`` of the organisers' ASV score file read with :func:`llrcore.read_trials`).
    formulation : {"revised", "legacy"}
    cost_model : dict, optional
        Priors and costs with the organisers' names: ``Ptar, Pnon, Pspoof, Cmiss, Cfa, Cfa_spoof`` (revised) or
        ``Ptar, Pnon, Pspoof, Cmiss_asv, Cfa_asv, Cmiss_cm, Cfa_cm`` (legacy); default :func:`tdcf_cost_model`.
    asv_threshold : float, optional
        ASV score threshold (accept when ``score >= asv_threshold``); default :func:`asv_eer_threshold`.

    Returns
    -------
    TandemDCF

    Raises
    ------
    ValueError
        With a sentence for empty scores, NaN, an unknown formulation, a bad cost model, or
        ASV error rates that leave the t-DCF without a meaning (a negative weight or a zero normaliser).
    """
    formulation = _formulation(formulation)
    model = _cost_model(cost_model, formulation)
    bonafide = sorted_scores(cm_bonafide, "CM scores of bona fide trials")
    spoof = sorted_scores(cm_spoof, "CM scores of spoofed trials")
    tar = sorted_scores(asv_tar, "ASV target scores")
    non = sorted_scores(asv_non, "ASV non-target scores")
    asv_spoof = sorted_scores(asv_spoof, "ASV spoof scores")
    if asv_threshold is None:
        asv_threshold = asv_eer_threshold(tar, non)
    asv_threshold = float(asv_threshold)
    if np.isnan(asv_threshold):
        raise ValueError("The ASV threshold is missing (NaN).")

    pmiss_asv = int(_rejected(tar, asv_threshold)) / tar.size
    pfa_asv = int(non.size - _rejected(non, asv_threshold)) / non.size
    spoof_rejected = int(_rejected(asv_spoof, asv_threshold))
    pmiss_spoof_asv = spoof_rejected / asv_spoof.size
    pfa_spoof_asv = (asv_spoof.size - spoof_rejected) / asv_spoof.size

    c0, c1, c2, default = tdcf_weights(formulation, model, pmiss_asv, pfa_asv, pfa_spoof_asv)
    if c1 < 0 or c2 < 0:
        raise ValueError(
            f"At this ASV threshold ({asv_threshold:.6g}: misses {pmiss_asv:.2%} of targets, accepts {pfa_asv:.2%} "
            f"of non-targets and {1 - pmiss_spoof_asv:.2%} of spoofs) the t-DCF has a negative weight "
            f"(C1 = {c1:.4g}, C2 = {c2:.4g}): the ASV errs so much that the t-DCF means nothing. "
            "Check the ASV scores and their labels, or choose another ASV threshold."
        )
    if not default > 0:
        raise ValueError(
            f"At this ASV threshold ({asv_threshold:.6g}) the t-DCF cannot be normalised: the cost of a CM that "
            f"decides without looking is 0 (the ASV accepts {1 - pmiss_spoof_asv:.2%} of spoofs), so any CM can "
            "only add cost."
        )

    scores = unique_of_sorted(bonafide, spoof)
    thresholds = np.append(scores, np.inf)
    # reject all: no threshold rejects a +inf score, so this point's rates are written out rather than counted
    pmiss_cm = np.append(_rejected(bonafide, scores) / bonafide.size, 1.0)
    pfa_cm = np.append((spoof.size - _rejected(spoof, scores)) / spoof.size, 0.0)
    curve = (c0 + c1 * pmiss_cm + c2 * pfa_cm) / default
    best = int(np.argmin(curve))
    return TandemDCF(
        formulation=formulation, minimum=float(curve[best]), threshold=float(thresholds[best]),
        thresholds=thresholds, curve=curve, pmiss_cm=pmiss_cm, pfa_cm=pfa_cm, asv_threshold=asv_threshold,
        pmiss_asv=pmiss_asv, pfa_asv=pfa_asv, pmiss_spoof_asv=pmiss_spoof_asv, cost_model=MappingProxyType(model),
        c0=float(c0), c1=float(c1), c2=float(c2), default=float(default),
    )
