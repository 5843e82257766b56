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
``Pfa_cm Pfa_spoof_asv`` there. Their double loop is ``O(M N)`` for ``M`` ASV and ``N`` CM operating points; here the
``rho = 1/2`` path comes from a binary search of each ASV point's ``Pmiss_tdm - Pfa_tdm``, which rises with the CM
threshold (``O(M log N)``: a second on the ASVspoof 2019 LA eval scores, where the double loop takes hours and the
ASVspoof 5 package switches to a coarse-then-fine search, ``compute_teer_accelerated``).

Operating points: one per unique score plus ``+inf`` for each system; a block of tied scores is never split.
Thresholds are the lowest *accepted* scores (accept ``score >= threshold``). The organisers' curves have one point
per trial, from a stable sort that splits tie blocks, and reports the highest *rejected* score. On scores without ties
both have the same points and the t-EER is theirs bit for bit (tests against their code). With ties, their extra
points inside a block are operating points no threshold reaches, and unlike a minimum cost, the crossing can fall on
one of them: here it is their loop's crossing on the points a threshold reaches (test), which on heavily tied lists
(scores rounded to integers) can differ from their figure by several points of t-EER. On the ASVspoof 2019 LA files,
whose 6 decimals tie a few hundred scores, it does not differ.

Only the five marginal score sets enter: the CM's bona fide and spoof scores and the ASV's target, non-target and spoof
scores. For an SASV list where every trial has both scores (ASVspoof 5), the CM's bona fide scores are those of the
target and the non-target trials together, as the organisers' code takes them.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..data.checks import as_scores

__all__ = ["TandemEER", "t_eer"]

#: The spoof prevalence of the path the organisers follow; any value gives the same concurrent point.
_RHO = 0.5


@dataclass(frozen=True, eq=False)
class TandemEER:
    """The concurrent t-EER of a CM and an ASV (see :func:`t_eer`); ``float(result)`` is :attr:`value`.

    Attributes
    ----------
    value : float
        The concurrent t-EER (a fraction): the tandem's spoof false-alarm rate at the crossing of the t-EER paths.
    cm_threshold, asv_threshold : float
        The crossing's thresholds (accept ``score >= threshold``).
    pmiss, pfa_nontarget, pfa_spoof : float
        The tandem's miss, non-target false-alarm and spoof false-alarm rates there (nearly equal).
    path_asv, path_cm : ndarray
        The ``rho = 1/2`` t-EER path: ASV thresholds where a t-EER exists and the CM threshold paired with each.
    path_teer : ndarray
        The t-EER along that path, ``(Pmiss_tdm + Pfa_tdm) / 2``.
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

    def __float__(self) -> float:
        return self.value


def _sorted(scores, what: str) -> np.ndarray:
    scores = np.sort(as_scores(scores, what))
    if not np.isfinite(scores[[0, -1]]).all():
        raise ValueError(f"The {what} must be finite numbers (one is infinite).")
    return scores


def _cm_points(bonafide: np.ndarray, spoof: np.ndarray):
    """Thresholds, miss and false-alarm rates of the CM, one point per unique score and ``+inf``."""
    thresholds = np.append(np.unique(np.concatenate([bonafide, spoof])), np.inf)
    pmiss = np.searchsorted(bonafide, thresholds, side="left") / bonafide.size
    pfa = (spoof.size - np.searchsorted(spoof, thresholds, side="left")) / spoof.size
    return thresholds, pmiss, pfa


def _asv_points(tar: np.ndarray, non: np.ndarray, spoof: np.ndarray):
    """Thresholds, miss, non-target and spoof false-alarm rates of the ASV (``1 - rejected / N``, as the organisers
    write them, so that every rate is theirs bit for bit)."""
    thresholds = np.append(np.unique(np.concatenate([tar, non, spoof])), np.inf)
    pmiss = np.searchsorted(tar, thresholds, side="left") / tar.size
    pfa_non = 1 - np.searchsorted(non, thresholds, side="left") / non.size
    pfa_spoof = 1 - np.searchsorted(spoof, thresholds, side="left") / spoof.size
    return thresholds, pmiss, pfa_non, pfa_spoof


def _gap(cm_pmiss, cm_pfa, a, b, c):
    """``Pmiss_tdm - Pfa_tdm`` on the ``rho = 1/2`` path, written as the organisers write it."""
    pmiss_tdm = cm_pmiss + (1 - cm_pmiss) * a
    pfa_tdm = (1 - _RHO) * (1 - cm_pmiss) * b + _RHO * cm_pfa * c
    return pmiss_tdm - pfa_tdm, pmiss_tdm, pfa_tdm


def _first_at_least(cm_pmiss, cm_pfa, a, b, c, level) -> np.ndarray:
    """For each ASV point, the first CM point whose gap is at least `level` (``len(cm)`` if none): a binary search,
    the gap rising with the CM threshold."""
    low, high = np.zeros(a.size, dtype=np.int64), np.full(a.size, cm_pmiss.size, dtype=np.int64)
    while (low < high).any():
        middle = (low + high) // 2
        probe = np.minimum(middle, cm_pmiss.size - 1)
        below = (low < high) & (_gap(cm_pmiss[probe], cm_pfa[probe], a, b, c)[0] < level)
        low = np.where(below, middle + 1, low)
        high = np.where(below | (low >= high), high, middle)
    return low


def _path_index(cm_pmiss, cm_pfa, a, b, c) -> np.ndarray:
    """For each ASV point, the first CM point of smallest ``|gap|`` (``np.argmin`` of the organisers' loop)."""
    last = cm_pmiss.size - 1
    after = _first_at_least(cm_pmiss, cm_pfa, a, b, c, 0.0)  # first gap >= 0
    before = np.maximum(after - 1, 0)
    after = np.minimum(after, last)
    gap_before = np.abs(_gap(cm_pmiss[before], cm_pfa[before], a, b, c)[0])
    gap_after = np.abs(_gap(cm_pmiss[after], cm_pfa[after], a, b, c)[0])
    take_before = gap_before <= gap_after  # on a tie the earlier point, as argmin does
    # the first point of the (negative) run of equal gaps that ends at `before`
    level = _gap(cm_pmiss[before], cm_pfa[before], a, b, c)[0]
    start = np.minimum(_first_at_least(cm_pmiss, cm_pfa, a, b, c, level), before)
    return np.where(take_before, start, after)


def t_eer(cm_bonafide, cm_spoof, asv_target, asv_nontarget, asv_spoof) -> TandemEER:
    """The concurrent t-EER of a countermeasure in tandem with a speaker verifier (Kinnunen et al., IEEE TPAMI 2023).

    The definition and the organisers' way of finding it are in the module docstring (:mod:`llrcore.spoofing.teer`).
    Equal to ``compute_teer`` of the ASVspoof 5 evaluation package, given as a fraction (theirs is in percent).

    Parameters
    ----------
    cm_bonafide, cm_spoof : array_like
        CM scores of bona fide and of spoofed trials (higher = more bona fide). For an SASV list (ASVspoof 5), the
        bona fide ones are the CM scores of its target and its non-target trials together.
    asv_target, asv_nontarget, asv_spoof : array_like
        ASV scores of target, zero-effort non-target and spoofed trials.

    Returns
    -------
    TandemEER

    Raises
    ------
    ValueError
        With a sentence for empty, NaN or infinite scores.
    """
    bonafide = _sorted(cm_bonafide, "CM scores of bona fide trials")
    cm_spoof = _sorted(cm_spoof, "CM scores of spoofed trials")
    tar = _sorted(asv_target, "ASV target scores")
    non = _sorted(asv_nontarget, "ASV non-target scores")
    spoof = _sorted(asv_spoof, "ASV spoof scores")
    cm_thresholds, cm_pmiss, cm_pfa = _cm_points(bonafide, cm_spoof)
    asv_thresholds, a, b, c = _asv_points(tar, non, spoof)

    # where the rho = 1/2 path exists; never empty: the lowest threshold misses nothing and accepts everything
    allowed = a < (1 - _RHO) * b + _RHO * c
    a, b, c, asv_thresholds = a[allowed], b[allowed], c[allowed], asv_thresholds[allowed]
    index = _path_index(cm_pmiss, cm_pfa, a, b, c)
    _, pmiss_tdm, pfa_tdm = _gap(cm_pmiss[index], cm_pfa[index], a, b, c)
    with np.errstate(divide="ignore", invalid="ignore"):  # 0/0 and x/0 are never the crossing, as in their loop
        criterion = np.abs(b / c - cm_pfa[index] / (1 - cm_pmiss[index]))
    criterion[np.isnan(criterion)] = np.inf
    best = int(np.argmin(criterion))
    if not np.isfinite(criterion[best]):  # not met on any list tried; said rather than a wrong number
        raise ValueError("The t-EER paths never cross: wherever a t-EER exists, the ASV accepts no spoof or the CM "
                         "rejects every bona fide trial.")
    point = index[best]
    return TandemEER(
        value=float(c[best] * cm_pfa[point]), cm_threshold=float(cm_thresholds[point]),
        asv_threshold=float(asv_thresholds[best]),
        pmiss=float(cm_pmiss[point] + (1 - cm_pmiss[point]) * a[best]),
        pfa_nontarget=float((1 - cm_pmiss[point]) * b[best]), pfa_spoof=float(cm_pfa[point] * c[best]),
        path_asv=asv_thresholds, path_cm=cm_thresholds[index], path_teer=(pmiss_tdm + pfa_tdm) / 2,
    )
