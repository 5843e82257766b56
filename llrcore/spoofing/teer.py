"""The concurrent tandem equal error rate (t-EER) of a countermeasure (CM) in front of a speaker verifier (ASV).

A trial passes the tandem when the CM accepts it as bona fide (``cm score >= s``) and the ASV accepts the claimed
speaker (``asv score >= t``). With the CM's and the ASV's errors taken as independent (their scores may come from
different trials, as ASVspoof 2019's do), the tandem's error rates at the two thresholds are (Kinnunen, Delgado,
Evans et al., "Tandem assessment of spoofing countermeasures and automatic speaker verification: fundamentals",
IEEE/ACM TASLP 28, 2020, sec. IV)::

    Pmiss_tdm(s, t)     = Pmiss_cm(s) + (1 - Pmiss_cm(s)) Pmiss_asv(t)       targets rejected
    Pfa_non_tdm(s, t)   = (1 - Pmiss_cm(s)) Pfa_non_asv(t)                   non-targets accepted
    Pfa_spoof_tdm(s, t) = Pfa_cm(s) Pfa_spoof_asv(t)                         spoofs accepted

with ``Pmiss_cm`` the share of bona fide trials (targets and non-targets alike) the CM rejects and ``Pfa_cm`` the share
of spoofs it accepts. Kinnunen, Lee, Tak, Evans and Nautsch, "t-EER: parameter-free tandem evaluation of
countermeasures and biometric comparators", IEEE TPAMI 46 (2024; online 2023), take, for a spoof prevalence ``rho``,
``Pfa_tdm = (1 - rho) Pfa_non_tdm + rho Pfa_spoof_tdm`` and follow the *t-EER path*, the thresholds where
``Pmiss_tdm = Pfa_tdm``. All the paths cross at one point, where the three rates are equal whatever ``rho``: the
**concurrent t-EER**, one number without any parameter, ``Pfa_spoof_tdm`` there.

Computed as the organisers compute it (``compute_teer`` of the ASVspoof 5 evaluation package,
github.com/asvspoof-challenge/asvspoof5, ``evaluation-package/calculate_modules.py``, and the t-EER paper's code,
github.com/TakHemlata/T-EER): for every ASV operating point ``t`` inside the region where a t-EER exists,
``Pmiss_asv(t) < (Pfa_non_asv(t) + Pfa_spoof_asv(t)) / 2``, the CM operating point of the ``rho = 1/2`` path is the
one with the smallest ``|Pmiss_tdm - Pfa_tdm|``; of these pairs the crossing is the one closest to
``Pfa_non_asv / Pfa_spoof_asv = Pfa_cm / (1 - Pmiss_cm)`` (where ``Pfa_non_tdm = Pfa_spoof_tdm``), and the t-EER is
``Pfa_cm Pfa_spoof_asv`` there. Their double loop is ``O(M N)`` for ``M`` ASV and ``N`` CM operating points (hours on
the ASVspoof 2019 LA eval scores, where the ASVspoof 5 package switches to a coarse-then-fine search,
``compute_teer_accelerated``). Here ``Pmiss_tdm - Pfa_tdm`` rises with the CM threshold and with the ASV threshold, so
where it reaches 0 is a staircase: every 8th CM point finds the ASV point where it gets there, and each ASV point then
searches only the 8 CM points of its block (``O((N / 8) log M + M log 8)``: 20 ms on those scores); the same argmin,
bit for bit. The ASV's points do not depend on the CM: :func:`asv_points` makes them once for several CMs.

Operating points (`convention`):

- ``"llrcore"`` (default): one per unique score plus one that rejects everything (threshold ``+inf``) for each
  system; a block of tied scores is never split, so every point is one a threshold reaches. Thresholds are the lowest
  *accepted* scores (accept ``score >= threshold``). Infinite scores are allowed: a ``-inf`` threshold accepts all,
  a ``+inf`` one the ``+inf`` scores, and only the last point rejects those.
- ``"asvspoof5"``: the organisers' curves (``compute_det_curve``, ``compute_Pmiss_Pfa_Pspoof_curves``): one point per
  trial plus one, in the order of a stable sort of the scores concatenated class by class (bona fide before spoof for
  the CM; target, non-target, then spoof for the ASV), so a block of tied scores is split, its trials rejected one
  class after the other. Their thresholds are the highest *rejected* score (the lowest score minus 0.001 where
  nothing is rejected). Equal to ``compute_teer`` bit for bit, ties or not (tests against their code).
- ``"asvspoof5-accelerated"``: the evaluation package's ``compute_teer_accelerated``, which its
  ``calculate_aDCF_tdcf_tEER`` calls (the leaderboard's figure): when both curves have at least 3,000 points, the
  crossing of every ``len // 3000``-th point of each, then ``compute_teer`` on the 1,600 points either side of it
  (the path then covers that window only); else ``compute_teer``.

On scores without ties the first two have the same points and the same t-EER. With ties, the organisers' extra points
inside a block are operating points no threshold reaches, and unlike a minimum cost, the crossing can fall on one of
them (their split rejects a block's bona fide trials before its spoofs, which moves the CM's curve between the block's
two ends): on scores rounded to 0.1 the two differ by up to tens of points of t-EER, on 2 decimals by a fraction of a
point. On the ASVspoof 2019 LA files, whose 6 decimals tie a few hundred scores, they agree.

Only the five marginal score sets enter: the CM's bona fide and spoof scores and the ASV's target, non-target and spoof
scores. For an SASV list where every trial has both scores (ASVspoof 5), the CM's bona fide scores are those of the
target and the non-target trials together, as the organisers' code takes them.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .._deprecation import old_spellings
from ..data.checks import sorted_scores, unique_of_sorted
from ..data.records import one_row

__all__ = ["TEER_CONVENTIONS", "ASVPoints", "TandemEER", "asv_points", "t_eer", "t_eer_conventions"]

#: The spoof prevalence of the path the organisers follow; any value gives the same concurrent point.
_RHO = 0.5
#: The operating points of :func:`t_eer` (see the module docstring).
TEER_CONVENTIONS = ("llrcore", "asvspoof5", "asvspoof5-accelerated")
#: ``compute_teer_accelerated``'s defaults: the coarse search's number of points, the fine search's half window.
_DECIMATED_SIZE, _WINDOW = 3000, 1600
#: The CM points of a block in the search of the crossings (:func:`_first_crossing`).
_STRIDE = 8


@dataclass(frozen=True, eq=False)
class TandemEER:
    """The concurrent t-EER of a CM and an ASV (see :func:`t_eer`); ``float(result)`` is :attr:`value`.

    Attributes
    ----------
    value : float
        The concurrent t-EER (a fraction): the tandem's spoof false-alarm rate at the crossing of the t-EER paths.
    cm_threshold, asv_threshold : float
        The crossing's thresholds: with ``convention="llrcore"`` the lowest accepted scores (accept
        ``score >= threshold``), with the organisers' conventions their thresholds, the highest rejected scores.
    pmiss, pfa_nontarget, pfa_spoof : float
        The tandem's miss, non-target false-alarm and spoof false-alarm rates there (nearly equal).
    path_asv, path_cm : ndarray
        The ``rho = 1/2`` t-EER path: ASV thresholds where a t-EER exists and the CM threshold paired with each.
    path_teer : ndarray
        The t-EER along that path, ``(Pmiss_tdm + Pfa_tdm) / 2``.
    convention : str
        The operating points it was computed on (:data:`TEER_CONVENTIONS`).
    """

    value: float
    cm_threshold: float
    asv_threshold: float
    pmiss: float
    pfa_nontarget: float
    pfa_spoof: float
    path_asv: np.ndarray = field(repr=False)
    path_cm: np.ndarray = field(repr=False)
    path_teer: np.ndarray = field(repr=False)
    convention: str = "llrcore"

    def to_frame(self) -> pd.DataFrame:
        """One row: ``t-EER``, the two thresholds, the three error rates (fractions) and ``convention``."""
        return one_row(self, columns={"value": "t-EER"})

    def __float__(self) -> float:
        return self.value


@dataclass(frozen=True, eq=False)
class ASVPoints:
    """The ASV's operating points for the t-EER (see :func:`asv_points`): computed once, shared by every CM in tandem
    with that ASV (``t_eer(cm_bonafide, cm_spoof, asv=points)``). The arrays are read-only.

    Attributes
    ----------
    thresholds : ndarray
        The ASV thresholds, ascending: the lowest accepted scores then ``+inf`` (``"llrcore"``), or the organisers'
        highest rejected scores (``"asvspoof5"``, ``"asvspoof5-accelerated"``).
    pmiss, pfa_nontarget, pfa_spoof : ndarray
        The ASV's miss, non-target false-alarm and spoof false-alarm rates at each threshold.
    convention : str
        The t-EER convention they were made for (:data:`TEER_CONVENTIONS`).
    """

    thresholds: np.ndarray = field(repr=False)
    pmiss: np.ndarray = field(repr=False)
    pfa_nontarget: np.ndarray = field(repr=False)
    pfa_spoof: np.ndarray = field(repr=False)
    convention: str = "llrcore"

    def __post_init__(self):
        for values in self.curves:
            values.flags.writeable = False  # shared by every CM (and kept in the app's cache)

    @property
    def curves(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(thresholds, pmiss, pfa_nontarget, pfa_spoof)``."""
        return self.thresholds, self.pmiss, self.pfa_nontarget, self.pfa_spoof

    def to_frame(self) -> pd.DataFrame:
        """One row per operating point: ``threshold``, ``pmiss``, ``pfa_nontarget``, ``pfa_spoof``."""
        return pd.DataFrame(dict(zip(("threshold", "pmiss", "pfa_nontarget", "pfa_spoof"), self.curves)))


def _with_reject_all(thresholds: np.ndarray, *rates: np.ndarray):
    """The points at `thresholds` (the unique scores) and a last one that rejects every trial, ``+inf`` ones too: its
    threshold written ``+inf`` (above every score), its rates written out (miss 1, false alarms 0), since no
    threshold rejects a ``+inf`` score."""
    return (np.append(thresholds, np.inf), *(np.append(rate, end) for rate, end in zip(rates, (1.0, 0.0, 0.0))))


def _cm_points(bonafide: np.ndarray, spoof: np.ndarray):
    """Thresholds, miss and false-alarm rates of the CM, one point per unique score and one that rejects all."""
    thresholds = unique_of_sorted(bonafide, spoof)
    pmiss = np.searchsorted(bonafide, thresholds, side="left") / bonafide.size
    pfa = (spoof.size - np.searchsorted(spoof, thresholds, side="left")) / spoof.size
    return _with_reject_all(thresholds, pmiss, pfa)


def _asv_points(tar: np.ndarray, non: np.ndarray, spoof: np.ndarray):
    """Thresholds, miss, non-target and spoof false-alarm rates of the ASV (``1 - rejected / N``, as the organisers
    write them, so that every rate is theirs bit for bit), one point per unique score and one that rejects all."""
    thresholds = unique_of_sorted(tar, non, spoof)
    pmiss = np.searchsorted(tar, thresholds, side="left") / tar.size
    pfa_non = 1 - np.searchsorted(non, thresholds, side="left") / non.size
    pfa_spoof = 1 - np.searchsorted(spoof, thresholds, side="left") / spoof.size
    return _with_reject_all(thresholds, pmiss, pfa_non, pfa_spoof)


def _trial_order(classes: list[np.ndarray]):
    """The organisers' walk: the scores of all `classes` (each sorted) in the order of a stable sort of their
    concatenation, and after each trial the number of every class's trials rejected so far.

    A trial's place is its rank in its class plus the number of other classes' trials before it: those with a lower
    score, and on a tie those of the classes concatenated before its own (no argsort needed).
    """
    size = sum(scores.size for scores in classes)
    merged, label = np.empty(size), np.empty(size, dtype=np.int64)
    for k, scores in enumerate(classes):
        place = np.arange(scores.size)
        for j, other in enumerate(classes):
            if j != k:
                place += np.searchsorted(other, scores, side="right" if j < k else "left")
        merged[place], label[place] = scores, k
    rejected = [np.cumsum(label == k) for k in range(len(classes))]
    return np.concatenate([[merged[0] - 0.001], merged]), rejected


def _cm_trial_points(bonafide: np.ndarray, spoof: np.ndarray):
    """The CM's curve as ``compute_det_curve`` draws it: one point per trial plus one."""
    thresholds, (bonafide_rejected, spoof_rejected) = _trial_order([bonafide, spoof])
    pmiss = np.concatenate([[0.0], bonafide_rejected / bonafide.size])
    pfa = np.concatenate([[1.0], (spoof.size - spoof_rejected) / spoof.size])
    return thresholds, pmiss, pfa


def _asv_trial_points(tar: np.ndarray, non: np.ndarray, spoof: np.ndarray):
    """The ASV's curves as ``compute_Pmiss_Pfa_Pspoof_curves`` draws them: one point per trial plus one."""
    thresholds, (tar_rejected, non_rejected, spoof_rejected) = _trial_order([tar, non, spoof])
    pmiss = np.concatenate([[0.0], tar_rejected / tar.size])
    pfa_non = np.concatenate([[1.0], 1 - non_rejected / non.size])
    pfa_spoof = np.concatenate([[1.0], 1 - spoof_rejected / spoof.size])
    return thresholds, pmiss, pfa_non, pfa_spoof


def _convention(convention: str) -> str:
    if convention not in TEER_CONVENTIONS:
        raise ValueError(f"Unknown t-EER convention {convention!r}: use 'llrcore' (the points a threshold reaches), "
                         "'asvspoof5' (ASVspoof 5's compute_teer) or 'asvspoof5-accelerated' (its "
                         "compute_teer_accelerated).")
    return convention


def asv_points(asv_tar: ArrayLike, asv_non: ArrayLike, asv_spoof: ArrayLike, *,
               convention: str = "llrcore") -> ASVPoints:
    """The ASV's operating points of :func:`t_eer`, to compute once and hand to it for every CM.

    The t-EER of several CMs in tandem with one ASV needs the ASV's points once: ``points = asv_points(asv_tar,
    asv_non, asv_spoof)``, then ``t_eer(cm_bonafide, cm_spoof, asv=points)`` for each CM, the same numbers bit for bit
    as ``t_eer(cm_bonafide, cm_spoof, asv_tar, asv_non, asv_spoof)``. The points of each convention are in the module
    docstring (:mod:`llrcore.spoofing.teer`): ``"llrcore"``, one per unique score and one that rejects everything,
    with ``Pmiss_asv(t) = #(tar < t) / #tar``, ``Pfa_non_asv(t) = 1 - #(non < t) / #non`` and ``Pfa_spoof_asv(t) =
    1 - #(spoof < t) / #spoof``; ``"asvspoof5"`` and ``"asvspoof5-accelerated"``, one per trial plus one, as the
    ASVspoof 5 evaluation package's ``compute_Pmiss_Pfa_Pspoof_curves`` draws them.

    Parameters
    ----------
    asv_tar, asv_non, asv_spoof : array_like
        ASV scores of target, zero-effort non-target and spoofed trials.
    convention : {"llrcore", "asvspoof5", "asvspoof5-accelerated"}
        The convention of the t-EER they serve (:func:`t_eer`'s `convention`).

    Returns
    -------
    ASVPoints

    Raises
    ------
    ValueError
        With a sentence for empty or missing (NaN) scores, or an unknown convention.
    """
    classes = (sorted_scores(asv_tar, "ASV target scores"), sorted_scores(asv_non, "ASV non-target scores"),
               sorted_scores(asv_spoof, "ASV spoof scores"))
    points = _asv_points if _convention(convention) == "llrcore" else _asv_trial_points
    thresholds, pmiss, pfa_nontarget, pfa_spoof = points(*classes)
    return ASVPoints(thresholds, pmiss, pfa_nontarget, pfa_spoof, convention=convention)


def _asv_given(asv_tar, asv_non, asv_spoof, asv: ASVPoints | None, convention: str) -> ASVPoints:
    """The ASV's points: `asv`, or those of its three score sets; a sentence when both or neither are given, or when
    the points are of another convention."""
    given = [scores is not None for scores in (asv_tar, asv_non, asv_spoof)]
    if asv is None:
        if not all(given):
            raise ValueError("Give the ASV's target, non-target and spoof scores (asv_tar, asv_non, asv_spoof), or "
                             "its points computed once (asv=lc.asv_points(asv_tar, asv_non, asv_spoof)).")
        return asv_points(asv_tar, asv_non, asv_spoof, convention=convention)
    if any(given):
        raise ValueError("Give the ASV's scores (asv_tar, asv_non, asv_spoof) or its points (asv=), not both.")
    if not isinstance(asv, ASVPoints):
        raise TypeError(f"asv= takes the ASV's points made by lc.asv_points, not a {type(asv).__name__}.")
    if asv.convention != convention:
        raise ValueError(f"These ASV points are for the {asv.convention!r} t-EER; make them with "
                         f"lc.asv_points(..., convention={convention!r}) for the {convention!r} one.")
    return asv


def _gap(cm_pmiss, cm_pfa, a, b, c):
    """``Pmiss_tdm - Pfa_tdm`` on the ``rho = 1/2`` path, written as the organisers write it."""
    pmiss_tdm = cm_pmiss + (1 - cm_pmiss) * a
    pfa_tdm = (1 - _RHO) * (1 - cm_pmiss) * b + _RHO * cm_pfa * c
    return pmiss_tdm - pfa_tdm, pmiss_tdm, pfa_tdm


def _first_reached(low: np.ndarray, high: np.ndarray, size: int, reached) -> np.ndarray:
    """For each search, the first index in ``[low, high)`` where ``reached(index)`` holds (`high` if none), `reached`
    being False then True over an index below `size`: one binary search of all of them at once."""
    while (open_ := low < high).any():
        middle = (low + high) // 2
        hit = reached(np.minimum(middle, size - 1))
        low, high = np.where(open_ & ~hit, middle + 1, low), np.where(open_ & hit, middle, high)
    return low


def _first_crossing(cm_pmiss, cm_pfa, a, b, c) -> np.ndarray:
    """For each ASV point, the first CM point whose gap is at least 0 (``len(cm)`` if none).

    The gap rises with the CM threshold and with the ASV threshold (``a`` rises, ``b`` and ``c`` fall; each product
    and sum of :func:`_gap` is rounded monotonically, so it does in floating point too): where it is at least 0 is a
    staircase. Every ``_STRIDE``-th CM point finds the first ASV point where its gap reaches 0 (binary searches over
    the ASV points), a ``searchsorted`` of those gives each ASV point the block of ``_STRIDE`` CM points that holds
    its crossing, and a binary search inside the block ends it: ``(N / _STRIDE) log M + M log _STRIDE`` gaps for
    ``M`` ASV and ``N`` CM points, where a binary search of every ASV point over all the CM points takes
    ``M log N``.
    """
    size = cm_pmiss.size
    sampled = np.arange(0, size + _STRIDE - 1, _STRIDE)
    sampled[-1] = size - 1  # the last CM point closes the last block
    pmiss, pfa = cm_pmiss[sampled], cm_pfa[sampled]
    first_asv = _first_reached(np.zeros(sampled.size, dtype=np.int64), np.full(sampled.size, a.size), a.size,
                               lambda i: _gap(pmiss, pfa, a[i], b[i], c[i])[0] >= 0)
    # the first sampled CM point whose gap at this ASV point is at least 0: first_asv falls along the CM points, so
    # the sampled points reached at ASV point i are the last ones, as many as first_asv values up to i
    block = sampled.size - np.cumsum(np.bincount(first_asv, minlength=a.size + 1))[:a.size]
    return _first_reached(np.append(0, sampled + 1)[block], np.append(sampled, size)[block], size,
                          lambda j: _gap(cm_pmiss[j], cm_pfa[j], a, b, c)[0] >= 0)


def _path_index(cm_pmiss, cm_pfa, a, b, c) -> np.ndarray:
    """For each ASV point, the first CM point of smallest ``|gap|`` (``np.argmin`` of the organisers' loop)."""
    last = cm_pmiss.size - 1
    after = _first_crossing(cm_pmiss, cm_pfa, a, b, c)  # first gap >= 0
    before = np.maximum(after - 1, 0)
    after = np.minimum(after, last)
    gap_before = _gap(cm_pmiss[before], cm_pfa[before], a, b, c)[0]
    take_before = np.abs(gap_before) <= np.abs(_gap(cm_pmiss[after], cm_pfa[after], a, b, c)[0])  # argmin's tie
    index = np.where(take_before, before, after)
    # where the gap before `before` is the same, argmin takes the first point of that run of equal gaps
    run = np.flatnonzero(take_before & (before > 0))
    run = run[_gap(cm_pmiss[before[run] - 1], cm_pfa[before[run] - 1], a[run], b[run], c[run])[0] == gap_before[run]]
    level, a, b, c = gap_before[run], a[run], b[run], c[run]
    index[run] = _first_reached(np.zeros(run.size, dtype=np.int64), before[run] - 1, cm_pmiss.size,
                                lambda j: _gap(cm_pmiss[j], cm_pfa[j], a, b, c)[0] >= level)
    return index


def _crossing(cm, asv):
    """The concurrent point of the CM's points `cm` ``(thresholds, pmiss, pfa)`` and the ASV's `asv` ``(thresholds,
    pmiss, pfa_non, pfa_spoof)``: ``(ASV index, CM index, path)``, the path as ``(ASV indices, CM indices)``."""
    cm_pmiss, cm_pfa = cm[1], cm[2]
    # where the rho = 1/2 path exists; never empty on a whole curve: the first point misses nothing, accepts all
    allowed = np.flatnonzero(asv[1] < (1 - _RHO) * asv[2] + _RHO * asv[3])
    a, b, c = (rate[allowed] for rate in asv[1:])
    index = _path_index(cm_pmiss, cm_pfa, a, b, c)
    with np.errstate(divide="ignore", invalid="ignore"):  # 0/0 and x/0 are never the crossing, as in their loop
        criterion = np.abs(b / c - cm_pfa[index] / (1 - cm_pmiss[index]))
    criterion[np.isnan(criterion)] = np.inf
    best = int(np.argmin(criterion)) if criterion.size else 0
    if not criterion.size or not np.isfinite(criterion[best]):  # said rather than a wrong number
        raise ValueError("The t-EER paths never cross: wherever a t-EER exists, the ASV accepts no spoof or the CM "
                         "rejects every bona fide trial.")
    return int(allowed[best]), int(index[best]), (allowed, index)


def _points(points, keep):
    """The points `points` (thresholds and rates) at the indices or slice `keep`."""
    return tuple(values[keep] for values in points)


def _accelerated_window(cm, asv):
    """``compute_teer_accelerated``'s fine-search window: the CM's and the ASV's points within ``_WINDOW`` of the
    crossing of every ``len // _DECIMATED_SIZE``-th point, or all of them when either curve is shorter."""
    asv_step, cm_step = asv[0].size // _DECIMATED_SIZE, cm[0].size // _DECIMATED_SIZE
    if not (asv_step and cm_step):
        return cm, asv
    asv_index, cm_index, _ = _crossing(_points(cm, slice(None, None, cm_step)),
                                       _points(asv, slice(None, None, asv_step)))
    asv_centre, cm_centre = asv_index * asv_step, cm_index * cm_step
    return (_points(cm, slice(max(cm_centre - _WINDOW, 0), cm_centre + _WINDOW)),
            _points(asv, slice(max(asv_centre - _WINDOW, 0), asv_centre + _WINDOW)))


@old_spellings({"asv_target": "asv_tar", "asv_nontarget": "asv_non"})
def t_eer(cm_bonafide: ArrayLike, cm_spoof: ArrayLike, asv_tar: ArrayLike | None = None,
          asv_non: ArrayLike | None = None, asv_spoof: ArrayLike | None = None, *, convention: str = "llrcore",
          asv: ASVPoints | None = None) -> TandemEER:
    """The concurrent t-EER of a countermeasure in tandem with a speaker verifier (Kinnunen et al., IEEE TPAMI 2023).

    The definition, the organisers' way of finding it and the conventions are in the module docstring
    (:mod:`llrcore.spoofing.teer`); :func:`t_eer_conventions` puts the conventions side by side.

    Parameters
    ----------
    cm_bonafide, cm_spoof : array_like
        CM scores of bona fide and of spoofed trials (higher = more bona fide). For an SASV list (ASVspoof 5), the
        bona fide ones are the CM scores of its target and its non-target trials together.
    asv_tar, asv_non, asv_spoof : array_like, optional
        ASV scores of target, zero-effort non-target and spoofed trials; or, instead, `asv`.
    convention : {"llrcore", "asvspoof5", "asvspoof5-accelerated"}
        The operating points: ``"llrcore"`` (default) those a threshold reaches, tie blocks never split;
        ``"asvspoof5"`` one per trial, tie blocks split as the ASVspoof 5 evaluation package's ``compute_teer``
        splits them (its value bit for bit, as a fraction where theirs is in percent); ``"asvspoof5-accelerated"``
        its ``compute_teer_accelerated``, the coarse-then-fine search its ``calculate_aDCF_tdcf_tEER`` runs.
    asv : ASVPoints, optional
        The ASV's points made once by :func:`asv_points` (with the same `convention`), instead of its three score
        sets: the t-EER of many CMs with one ASV computes them once. The same numbers bit for bit.

    Returns
    -------
    TandemEER

    Raises
    ------
    ValueError
        With a sentence for empty or missing (NaN) scores, an unknown convention, or the ASV given both as scores
        and as points (or neither), or as points of another convention. Infinite scores are allowed.
    TypeError
        For an `asv` that is not an :class:`ASVPoints`.
    """
    curves = _asv_given(asv_tar, asv_non, asv_spoof, asv, _convention(convention)).curves
    bonafide = sorted_scores(cm_bonafide, "CM scores of bona fide trials")
    cm_spoof = sorted_scores(cm_spoof, "CM scores of spoofed trials")
    cm = (_cm_points if convention == "llrcore" else _cm_trial_points)(bonafide, cm_spoof)
    if convention == "asvspoof5-accelerated":
        cm, curves = _accelerated_window(cm, curves)
    asv_index, cm_index, (path_asv, path_cm) = _crossing(cm, curves)
    _, pmiss_tdm, pfa_tdm = _gap(cm[1][path_cm], cm[2][path_cm], *(rate[path_asv] for rate in curves[1:]))
    (cm_threshold, cm_pmiss, cm_pfa), (asv_threshold, a, b, c) = _points(cm, cm_index), _points(curves, asv_index)
    return TandemEER(
        value=float(c * cm_pfa), cm_threshold=float(cm_threshold), asv_threshold=float(asv_threshold),
        pmiss=float(cm_pmiss + (1 - cm_pmiss) * a), pfa_nontarget=float((1 - cm_pmiss) * b),
        pfa_spoof=float(cm_pfa * c), path_asv=curves[0][path_asv], path_cm=cm[0][path_cm],
        path_teer=(pmiss_tdm + pfa_tdm) / 2, convention=convention,
    )


#: Each convention's name and the sentence saying where its points come from (:func:`t_eer_conventions`).
_TOOLS = {
    "llrcore": ("llrcore (default)", "Only operating points a threshold reaches: each block of tied scores is "
                "accepted or rejected whole."),
    "asvspoof5": ("ASVspoof 5 compute_teer", "One operating point per trial: its stable sort splits each block of "
                  "tied scores, rejecting the block's bona fide trials before its spoofs (targets before "
                  "non-targets before spoofs for the ASV), points no threshold reaches, and the crossing can fall "
                  "on one of them."),
    "asvspoof5-accelerated": ("ASVspoof 5 compute_teer_accelerated", "compute_teer near the crossing found on every "
                              "len // 3000-th point of each curve (what the evaluation package's "
                              "calculate_aDCF_tdcf_tEER reports); compute_teer itself below 3,000 trials."),
}


def t_eer_conventions(cm_bonafide: ArrayLike, cm_spoof: ArrayLike, asv_tar: ArrayLike, asv_non: ArrayLike,
                      asv_spoof: ArrayLike) -> pd.DataFrame:
    """The concurrent t-EER in each convention of :func:`t_eer`, side by side, with the sentence saying why they
    differ (only on tied scores: see the module docstring, :mod:`llrcore.spoofing.teer`).

    Parameters
    ----------
    cm_bonafide, cm_spoof, asv_tar, asv_non, asv_spoof : array_like
        As :func:`t_eer`.

    Returns
    -------
    DataFrame
        One row per convention (:data:`TEER_CONVENTIONS`): ``convention``, ``tool``, ``t-EER %``, ``CM threshold``,
        ``ASV threshold`` (each convention's own, see :class:`TandemEER`) and ``why``.

    Examples
    --------
    The worked example of docs/conventions.md (``## t-EER``): a bona fide and a spoof CM score tied at 1.

    >>> import llrcore as lc
    >>> table = lc.t_eer_conventions([1], [0, 1, 3], [4], [1], [0, 3])
    >>> table["t-EER %"].round(2).tolist()
    [66.67, 33.33, 33.33]
    """
    return conventions_table(cm_bonafide, cm_spoof, every_convention(asv_tar, asv_non, asv_spoof))


def every_convention(asv_tar: ArrayLike, asv_non: ArrayLike, asv_spoof: ArrayLike) -> dict[str, ASVPoints]:
    """The ASV's points (:func:`asv_points`) of every convention, by name: the organisers' two conventions share one
    walk of the trials."""
    theirs = asv_points(asv_tar, asv_non, asv_spoof, convention="asvspoof5")
    return {"llrcore": asv_points(asv_tar, asv_non, asv_spoof), "asvspoof5": theirs,
            "asvspoof5-accelerated": replace(theirs, convention="asvspoof5-accelerated")}


def conventions_table(cm_bonafide: ArrayLike, cm_spoof: ArrayLike, asv: Mapping[str, ASVPoints]) -> pd.DataFrame:
    """:func:`t_eer_conventions` with the ASV's points of every convention made once (:func:`every_convention`)."""
    rows = []
    for convention, (tool, why) in _TOOLS.items():
        result = t_eer(cm_bonafide, cm_spoof, convention=convention, asv=asv[convention])
        rows.append({"convention": convention, "tool": tool, "t-EER %": 100 * result.value,
                     "CM threshold": result.cm_threshold, "ASV threshold": result.asv_threshold, "why": why})
    return pd.DataFrame.from_records(rows)
