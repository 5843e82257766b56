"""Why do my numbers differ? The EER and minDCF as each common tool computes them, beside ours.

Every tool below draws the same empirical DET from the same scores; they differ in which points of it they look
at and how they go between them. Each convention is a small function of the sorted scores
(:class:`~llrcore.binary.rates.SortedScores`, sorted once): the steps of the DET (``det_steps``: one point per
distinct score) or, where a tool walks the trials one at a time, that walk rebuilt from the two sorted classes.

- **ours / BOSARIS / PYLLR** — the ROC convex hull (ROCCH-EER; minDCF over all thresholds).
- **ASVspoof 2019/2021** ``eval_metrics.compute_eer`` — the trial-by-trial DET point where ``|FRR - FAR|`` is
  smallest, EER = the mean of the two rates there (tied scores walked targets first: a stable argsort of
  ``[tar, non]``).
- **SpeechBrain** ``utils.metric_stats.EER`` / ``minDCF`` — the same nearest-point rule over distinct scores,
  rejecting a score equal to the threshold; minDCF not normalised.
- **Kaldi** ``compute-eer`` — the miss rate at the first target score where the false-alarm rate falls below it.
- **scikit-learn** ``roc_curve`` + ``brentq(lambda x: 1 - x - interp1d(fpr, tpr)(x), 0, 1)`` — the crossing of the
  straight lines between DET steps; NIST's SRE scorer interpolates its EER the same way.
- **voxceleb_trainer** ``tuneThreshold`` — the ``roc_curve`` point nearest the diagonal, the larger of its two rates.
- **NIST SRE scorer** (``compute_c_norm``), Kaldi's ``sid/compute_min_dcf.py`` and voxceleb_trainer's
  ``ComputeMinDcf`` — minDCF over the DET steps, normalised by ``C_default = min(C_miss P, C_fa (1 - P))``.

Sources (read for this module): github.com/asvspoof-challenge/2021 ``eval-package/eval_metrics.py`` (commit
9b33f5e); github.com/speechbrain/speechbrain ``speechbrain/utils/metric_stats.py`` (9c826ef); github.com/kaldi-asr/kaldi
``src/ivectorbin/compute-eer.cc`` and ``egs/sre08/v1/sid/compute_min_dcf.py`` (f400766); github.com/clovaai/
voxceleb_trainer ``tuneThreshold.py`` (f51bab8); scikit-learn 1.9 ``sklearn.metrics.roc_curve``; NIST SRE16 scoring
software v4.1 (O. Sadjadi), ``compute_pmiss_pfa_rbst``, ``compute_eer``, ``compute_c_norm``.

References
----------
F. Provost and T. Fawcett, "Robust classification for imprecise environments", Machine Learning 42, 2001 (ROCCH).
N. Brümmer and E. de Villiers, "The BOSARIS Toolkit: theory, algorithms and code", 2011 (ROCCH-EER).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..prior import OperatingPoint, as_operating_point
from .metrics import min_dcf, trials_table
from .rates import SortedScores

__all__ = ["Convention", "EERConventions", "eer_conventions", "roc_curve"]


@dataclass(frozen=True)
class Convention:
    """One tool's EER (and minDCF, where it has one) on the same scores.

    ``eer`` is a fraction; ``min_dcf`` NaN when the tool computes none; ``threshold`` the score the tool reports
    with its EER (NaN when it reports none); ``why`` one sentence on how it differs from the ROCCH.
    """

    tool: str
    eer: float
    min_dcf: float
    threshold: float
    why: str
    source: str


@dataclass(frozen=True)
class EERConventions:
    """The EER and minDCF of one set of scores as each tool computes them; the first row is ours (the reference).

    ``mixed_ties`` counts the distinct scores held by both a target and a non-target: there the tools that walk
    the trials one at a time depend on the order they leave tied trials in.
    """

    conventions: tuple[Convention, ...]
    operating_point: OperatingPoint
    mixed_ties: int

    @property
    def reference(self) -> Convention:
        return self.conventions[0]

    def to_frame(self, percent: bool = False) -> pd.DataFrame:
        """One row per tool: EER, its difference from ours, minDCF and its difference, threshold, why.

        With ``percent=True`` the EER and its difference are in % (points), as the app and the CLI print them.
        """
        scale = 100.0 if percent else 1.0
        eer_name = "EER %" if percent else "EER"
        ref = self.reference
        return pd.DataFrame({
            "tool": [c.tool for c in self.conventions],
            eer_name: [scale * c.eer for c in self.conventions],
            f"{eer_name} − ours": [scale * (c.eer - ref.eer) for c in self.conventions],
            "minDCF": [c.min_dcf for c in self.conventions],
            "minDCF − ours": [c.min_dcf - ref.min_dcf for c in self.conventions],
            "threshold": [c.threshold for c in self.conventions],
            "why": [c.why for c in self.conventions],
        })

    def notes(self) -> list[str]:
        """Sentences on what the table cannot show: ties across the classes, the operating point of minDCF."""
        op = self.operating_point
        notes = [(f"minDCF at P_target {op.p_target:g}, C_miss {op.c_miss:g}, C_fa {op.c_fa:g} (SpeechBrain's and "
                  "Kaldi's default is P_target 0.01 with unit costs)."),
                 ("NIST's primary metric averages such minDCFs at two priors (SRE'21: P_target 0.01 and 0.05), "
                  "each normalised as here: the Cprimary of the metrics table with that preset.")]
        if self.mixed_ties:
            notes.append(f"{self.mixed_ties:,} distinct scores are shared by a target and a non-target: tools that "
                         "walk the trials one at a time (ASVspoof, NIST, voxceleb_trainer) can give other values "
                         "there depending on the order of the tied trials; the rows here take each tie as one step "
                         "(ASVspoof's: targets first, as its stable sort does).")
        return notes


# ----- the DET as each tool sees it --------------------------------------------------------------------------------


def nearest_trial_eer(s: SortedScores) -> tuple[float, float]:
    """ASVspoof's ``compute_eer``: ``(eer, threshold)`` at the trial-by-trial DET point nearest ``FRR = FAR``.

    The trials are walked in the order of ``np.argsort(concatenate([tar, non]), kind="mergesort")`` (tied targets
    before tied non-targets), rebuilt here from the two sorted classes; the rates are computed with the
    organisers' expressions, so the value is theirs to the last bit. The threshold is the sorted score at that
    point (the lowest score minus 0.001 before the first trial).
    """
    n = s.n_tar + s.n_non
    tar_at = np.arange(s.n_tar) + np.searchsorted(s.non, s.tar, side="left")  # places in the merged order
    non_at = np.arange(s.n_non) + np.searchsorted(s.tar, s.non, side="right")
    labels = np.zeros(n)
    labels[tar_at] = 1.0
    tar_sums = np.cumsum(labels)
    non_sums = s.n_non - (np.arange(1, n + 1) - tar_sums)
    frr = np.concatenate(([0.0], tar_sums / s.n_tar))
    far = np.concatenate(([1.0], non_sums / s.n_non))
    i = int(np.argmin(np.abs(frr - far)))
    merged = np.empty(n)
    merged[tar_at], merged[non_at] = s.tar, s.non
    threshold = merged[0] - 0.001 if i == 0 else merged[i - 1]
    return float(np.mean((frr[i], far[i]))), float(threshold)


def speechbrain_eer(s: SortedScores) -> tuple[float, float]:
    """SpeechBrain's ``EER``: over the distinct scores ``t``, ``FRR = P(tar <= t)`` and ``FAR = P(non > t)``; the
    first ``t`` where ``|FAR - FRR|`` is smallest gives ``((FAR + FRR) / 2, t)``.

    Its midpoint thresholds repeat the rates of the score below them and never win (a strictly smaller difference
    is needed), so the distinct scores suffice. SpeechBrain computes the rates in 32-bit floats: its values may
    differ from these in the seventh digit.
    """
    pfa, pmiss = s.det_steps()
    frr, far = pmiss[1:], pfa[1:]  # threshold u_k rejects the scores <= u_k: the step above u_k
    i = int(np.argmin(np.abs(far - frr)))
    return float((far[i] + frr[i]) / 2), float(s.unique[i])


def kaldi_eer(s: SortedScores) -> tuple[float, float]:
    """Kaldi's ``compute-eer``: ``(eer, threshold)`` as ``ComputeEer`` in ``src/ivectorbin/compute-eer.cc`` finds them.

    Scores are read as 32-bit floats (``BaseFloat``). For target positions ``p = 0, 1, ...`` it looks at the
    non-target ``nontarget_size - 1 - floor(nontarget_size * p / target_size)`` from the top and stops at the first
    ``p`` where that non-target is below ``tar[p]``; EER = ``p / target_size``, threshold = ``tar[p]``.
    """
    tar, non = s.tar.astype(np.float32), s.non.astype(np.float32)  # float32 keeps the order: no new sort
    p = np.arange(s.n_tar - 1)
    position = np.maximum(s.n_non - 1 - ((s.n_non * p) * 1.0 / s.n_tar).astype(np.int64), 0)
    below = np.flatnonzero(non[position] < tar[p])
    stop = int(below[0]) if below.size else s.n_tar - 1
    return stop * 1.0 / s.n_tar, float(tar[stop])


def interpolated_eer(s: SortedScores) -> float:
    """Where the straight lines between consecutive DET steps cross ``Pmiss = Pfa``: the root that
    ``brentq(lambda x: 1 - x - interp1d(fpr, tpr)(x), 0, 1)`` finds on scikit-learn's ``roc_curve``, solved exactly
    (and NIST SRE's ``compute_eer``, which interpolates its trial-by-trial DET the same way)."""
    pfa, pmiss = s.det_steps()
    j = int(np.argmax(pmiss >= pfa))  # first step on or past the diagonal; step 0 is (1, 0)
    if pmiss[j] == pfa[j]:
        return float(pfa[j])
    d_fa, d_miss = pfa[j] - pfa[j - 1], pmiss[j] - pmiss[j - 1]
    return float(pfa[j - 1] + (pfa[j - 1] - pmiss[j - 1]) / (d_miss - d_fa) * d_fa)


def roc_curve(s: SortedScores, drop_intermediate: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(fpr, tpr, thresholds)`` exactly as ``sklearn.metrics.roc_curve(labels, scores)`` returns them, from the
    sorted scores (scikit-learn is not needed).

    Thresholds are the distinct scores from the top, after ``inf``; with `drop_intermediate` a point is dropped
    when the second differences of both the false- and true-positive counts are zero there (scikit-learn's test
    for a point on the straight line between its neighbours).
    """
    tps = np.cumsum(s.tar_counts[::-1]).astype(np.float64)  # accepted targets at each distinct score, top down
    fps = np.cumsum(s.non_counts[::-1]).astype(np.float64)
    thresholds = s.unique[::-1]
    if drop_intermediate and fps.size > 2:
        keep = np.concatenate(([True], np.logical_or(np.diff(fps, 2), np.diff(tps, 2)), [True]))
        tps, fps, thresholds = tps[keep], fps[keep], thresholds[keep]
    tps, fps = np.concatenate(([0.0], tps)), np.concatenate(([0.0], fps))
    return fps / fps[-1], tps / tps[-1], np.concatenate(([np.inf], thresholds))


def voxceleb_trainer_eer(s: SortedScores) -> tuple[float, float]:
    """voxceleb_trainer's ``tuneThresholdfromScore``: the ``roc_curve`` point where ``|fnr - fpr|`` is smallest
    (the first such, from the top threshold), EER = ``max(fpr, fnr)`` there, with its threshold."""
    fpr, tpr, thresholds = roc_curve(s)
    fnr = 1 - tpr
    i = int(np.nanargmin(np.absolute(fnr - fpr)))
    return float(max(fpr[i], fnr[i])), float(thresholds[i])


def step_min_cost(s: SortedScores, op: OperatingPoint) -> float:
    """``min over DET steps of C_miss P Pmiss + C_fa (1 - P) Pfa``, the step that accepts every trial left out (as
    NIST's ``compute_pmiss_pfa_rbst``, SpeechBrain's thresholds and Kaldi's ``ComputeErrorRates`` leave it out).

    Unnormalised: SpeechBrain's ``minDCF``; divided by ``C_default`` it is NIST's ``compute_c_norm``.
    """
    pfa, pmiss = s.det_steps()
    p = op.p_target
    return float(np.min(op.c_miss * pmiss[1:] * p + op.c_fa * pfa[1:] * (1 - p)))


def c_default(op: OperatingPoint) -> float:
    """``min(C_miss P, C_fa (1 - P))``: the cost of deciding without the system, by which minDCF is normalised."""
    return min(op.c_miss * op.p_target, op.c_fa * (1 - op.p_target))


# ----- the table ---------------------------------------------------------------------------------------------------

ASVSPOOF = "https://github.com/asvspoof-challenge/2021/blob/9b33f5e/eval-package/eval_metrics.py"
SPEECHBRAIN = "https://github.com/speechbrain/speechbrain/blob/9c826ef/speechbrain/utils/metric_stats.py"
KALDI = "https://github.com/kaldi-asr/kaldi/blob/f400766/src/ivectorbin/compute-eer.cc"
SKLEARN = "https://scikit-learn.org/stable/modules/generated/sklearn.metrics.roc_curve.html"
VOXCELEB_TRAINER = "https://github.com/clovaai/voxceleb_trainer/blob/f51bab8/tuneThreshold.py"
NIST_SRE = "NIST SRE16 scoring software v4.1 (O. Sadjadi): compute_eer, compute_c_norm"

WHY = {
    "ours": "The reference: the EER where the ROC convex hull crosses Pmiss = Pfa (reachable by mixing the "
            "decisions of two thresholds), minDCF the lowest normalised cost over all thresholds.",
    "asvspoof": "Takes the single trial-by-trial DET point nearest FRR = FAR and averages its two rates without "
                "interpolating (either side of the hull's crossing), walking tied scores targets first, through "
                "points that no threshold reaches.",
    "speechbrain": "The same nearest-point rule over the distinct scores only (a tie is one step, a score equal to "
                   "the threshold is rejected); its minDCF is not normalised: ours times min(C_miss P, C_fa (1-P)).",
    "kaldi": "Reports the miss rate at the first target score where the false-alarm rate has fallen below it, in "
             "steps of 1/(number of targets), with 32-bit scores and no interpolation; minDCF as NIST's scorer.",
    "sklearn": "Interpolates the ROC linearly between its steps; the ROCCH interpolates on the convex hull, which "
               "lies on or below those lines, so this EER is never below ours.",
    "voxceleb_trainer": "Takes the roc_curve point nearest the diagonal (after scikit-learn dropped collinear "
                        "points) and reports the larger of its two rates; minDCF as NIST's scorer.",
    "nist": "minDCF over the DET steps normalised by C_default = min(C_miss P, C_fa (1-P)), the same as ours (a "
            "linear cost is lowest at a hull vertex, which is a step); its EER interpolates the steps linearly.",
}


def eer_conventions(trials, p_target=0.01, c_miss: float = 1.0, c_fa: float = 1.0) -> EERConventions:
    """The EER (and minDCF) of `trials` as each common tool computes it, each with the sentence saying why it
    differs from the ROCCH-EER.

    Parameters
    ----------
    trials : Trials or SortedScores
        The scores (sorted once; every convention reads the same sorted arrays).
    p_target, c_miss, c_fa : float or OperatingPoint
        The operating point of the minDCF column (default P_target 0.01 with unit costs, SpeechBrain's, Kaldi's
        and voxceleb_trainer's default).

    Returns
    -------
    EERConventions
        One :class:`Convention` per tool; ``.to_frame()`` for the table.

    Examples
    --------
    >>> import llrcore as lc
    >>> table = lc.eer_conventions(lc.Trials([1.0, 2.0, 3.0], [0.0, 1.5]))
    >>> [round(c.eer, 4) for c in table.conventions][:3]
    [0.2, 0.4167, 0.4167]
    """
    s = trials_table(trials)
    op = as_operating_point(p_target, c_miss, c_fa)
    step_cost = step_min_cost(s, op)
    nist_dcf = step_cost / c_default(op)
    asvspoof, speechbrain, kaldi = nearest_trial_eer(s), speechbrain_eer(s), kaldi_eer(s)
    voxceleb = voxceleb_trainer_eer(s)
    interpolated = interpolated_eer(s)
    rows = (
        Convention("llrcore / BOSARIS / PYLLR (ROCCH)", s.eer(), float(min_dcf(s, op)), np.nan, WHY["ours"],
                   "Brümmer & de Villiers, BOSARIS Toolkit (2011): rocch2eer"),
        Convention("ASVspoof 2019/2021 compute_eer", asvspoof[0], np.nan, asvspoof[1], WHY["asvspoof"], ASVSPOOF),
        Convention("SpeechBrain EER / minDCF", speechbrain[0], step_cost, speechbrain[1], WHY["speechbrain"],
                   SPEECHBRAIN),
        Convention("Kaldi compute-eer / compute_min_dcf.py", kaldi[0], nist_dcf, kaldi[1], WHY["kaldi"], KALDI),
        Convention("scikit-learn roc_curve + interp1d/brentq", interpolated, np.nan, np.nan, WHY["sklearn"], SKLEARN),
        Convention("voxceleb_trainer tuneThreshold", voxceleb[0], nist_dcf, voxceleb[1], WHY["voxceleb_trainer"],
                   VOXCELEB_TRAINER),
        Convention("NIST SRE scorer (compute_c_norm)", interpolated, nist_dcf, np.nan, WHY["nist"], NIST_SRE),
    )
    mixed = int(np.count_nonzero((s.tar_counts > 0) & (s.non_counts > 0)))
    return EERConventions(rows, op, mixed)
