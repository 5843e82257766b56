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
  rejecting a score equal to the threshold, in float32 (whose rounding breaks ties); minDCF not normalised.
- **Kaldi** ``compute-eer`` — the miss rate at the first target score where the false-alarm rate falls below it
  (each class sorted apart: order-free).
- **scikit-learn** ``roc_curve`` + ``brentq(lambda x: 1 - x - interp1d(fpr, tpr)(x), 0, 1)`` — the crossing of the
  straight lines between DET steps; NIST's SRE scorer interpolates its EER the same way.
- **voxceleb_trainer** ``tuneThreshold`` — the ``roc_curve`` point nearest the diagonal, the larger of its two rates.
- **NIST SRE scorer** (``compute_c_norm``) — minDCF over the DET steps, normalised by
  ``C_default = min(C_miss P, C_fa (1 - P))``.
- **Kaldi** ``sid/compute_min_dcf.py`` and voxceleb_trainer's ``ComputeMinDcf`` (the same code) — the same cost
  after each trial in turn, tied trials walked in file order: with ties across the classes, order-dependent.

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

from .._deprecation import COSTS, old_spellings
from ..data.records import one_row
from ..data.trials import Trials
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

    def to_frame(self) -> pd.DataFrame:
        """One row: ``tool``, ``EER``, ``minDCF`` (fractions), ``threshold``, ``why`` and ``source``."""
        return one_row(self, columns={"eer": "EER", "min_dcf": "minDCF"})


@dataclass(frozen=True)
class EERConventions:
    """The EER and minDCF of one set of scores as each tool computes them; the first row is ours (the reference).

    ``mixed_ties`` counts the distinct scores held by both a target and a non-target: there the tools that walk
    the trials one at a time depend on the order they leave tied trials in. ``file_order``: whether Kaldi's and
    voxceleb_trainer's minDCF walked the tied trials in the order of their file (known when the trials were read
    from one), or targets first.
    """

    conventions: tuple[Convention, ...]
    operating_point: OperatingPoint
    mixed_ties: int
    file_order: bool = False

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
                         "walk the trials one at a time (ASVspoof, NIST, the minDCF of Kaldi and voxceleb_trainer) "
                         "can give other values there depending on the order of the tied trials; the rows here walk "
                         "tied targets first as ASVspoof's stable sort does, take each tie as one step for NIST, and "
                         + ("walk them in the file's order for Kaldi's and voxceleb_trainer's minDCF, as their "
                            "script does." if self.file_order else
                            "walk them targets first for Kaldi's and voxceleb_trainer's minDCF (their script on a file "
                            "listing its targets first: these trials do not say the order of a file)."))
        return notes


# ----- the DET as each tool sees it --------------------------------------------------------------------------------


def walked_order(s: SortedScores) -> tuple[np.ndarray, np.ndarray]:
    """``(labels, places)``: the trials sorted by score with tied targets before tied non-targets, as a stable sort
    of ``[tar, non]`` leaves them (``labels`` 1.0 for a target), rebuilt from the two sorted classes; ``places`` are
    the targets' and then the non-targets' positions in that order."""
    tar_at = np.arange(s.n_tar) + np.searchsorted(s.non, s.tar, side="left")
    non_at = np.arange(s.n_non) + np.searchsorted(s.tar, s.non, side="right")
    labels = np.zeros(s.n_tar + s.n_non)
    labels[tar_at] = 1.0
    return labels, np.concatenate([tar_at, non_at])


def nearest_trial_eer(s: SortedScores) -> tuple[float, float]:
    """ASVspoof's ``compute_eer``: ``(eer, threshold)`` at the trial-by-trial DET point nearest ``FRR = FAR``.

    The trials are walked in the order of ``np.argsort(concatenate([tar, non]), kind="mergesort")`` (tied targets
    before tied non-targets, :func:`walked_order`); the rates are computed with the organisers' expressions, so the
    value is theirs to the last bit. The threshold is the sorted score at that point (the lowest score minus 0.001
    before the first trial).
    """
    labels, places = walked_order(s)
    n = labels.size
    tar_sums = np.cumsum(labels)
    non_sums = s.n_non - (np.arange(1, n + 1) - tar_sums)
    frr = np.concatenate(([0.0], tar_sums / s.n_tar))
    far = np.concatenate(([1.0], non_sums / s.n_non))
    i = int(np.argmin(np.abs(frr - far)))
    merged = np.empty(n)
    merged[places] = np.concatenate([s.tar, s.non])
    threshold = merged[0] - 0.001 if i == 0 else merged[i - 1]
    return float(np.mean((frr[i], far[i]))), float(threshold)


def walked_min_dcf(walked: np.ndarray, op: OperatingPoint) -> float:
    """Kaldi's ``sid/compute_min_dcf.py`` (``ComputeErrorRates``, ``ComputeMinDcf``; voxceleb_trainer's copy is the
    same code): the normalised cost after each trial in turn, `walked` being the labels (1.0 for a target) of the
    trials sorted by score in file order (:func:`file_walk`). The rates and the cost are the script's float64
    expressions.
    """
    n_tar = float(np.count_nonzero(walked))
    fnrs = np.cumsum(walked) / n_tar
    fprs = 1 - np.cumsum(1 - walked) / float(walked.size - n_tar)
    c_miss, c_fa, p = float(op.c_miss), float(op.c_fa), float(op.p_target)
    return float(np.min(c_miss * fnrs * p + c_fa * fprs * (1 - p))) / c_default(op)


def file_walk(trials, s: SortedScores) -> np.ndarray:
    """The labels (1.0 for a target) of the trials in the order Kaldi's script walks them: sorted by score, Python's
    stable ``sorted`` leaving tied trials in the order of the file. Where a target and a non-target share a score the
    points inside the tie, which no threshold reaches, depend on that order: it is the file's when `trials` knows it
    (:attr:`~llrcore.Trials.file_labels`, kept by the readers), else tied targets first (a file listing its targets
    first)."""
    if getattr(trials, "file_labels", None) is None:
        return walked_order(s)[0]
    scores, labels = trials.in_file_order()
    return labels[np.argsort(scores, kind="stable")].astype(np.float64)


def speechbrain_rates(s: SortedScores) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """SpeechBrain's ``(thresholds, frr, far)`` in 32-bit floats, as its ``EER`` and ``minDCF`` build them.

    The scores become float32 (as ``torch.tensor`` makes them), the thresholds are the distinct scores and the
    midpoints between neighbours; ``FRR = P(tar <= t)`` and ``FAR = P(non > t)`` are float32 counts divided in
    float32. A NaN threshold (the midpoint of -inf and +inf) is compared false with every score, as torch does.
    """
    tar, non = s.tar.astype(np.float32), s.non.astype(np.float32)  # float32 keeps the order: no new sort
    distinct = np.unique(np.concatenate([tar, non]))
    thresholds = np.sort(np.concatenate([distinct, (distinct[:-1] + distinct[1:]) / np.float32(2)]))
    compared = ~np.isnan(thresholds)
    rejected_tar = np.where(compared, np.searchsorted(tar, thresholds, side="right"), 0)
    accepted_non = np.where(compared, s.n_non - np.searchsorted(non, thresholds, side="right"), 0)
    frr = rejected_tar.astype(np.float32) / np.float32(s.n_tar)
    far = accepted_non.astype(np.float32) / np.float32(s.n_non)
    return thresholds, frr, far


def speechbrain_eer(s: SortedScores) -> tuple[float, float]:
    """SpeechBrain's ``EER``: ``((FAR + FRR) / 2, t)`` at the threshold ``t`` its loop settles on.

    The loop keeps threshold ``i`` when ``|FAR_i - FRR_i|``, computed in float32, is below the kept one's
    ``|FAR - FRR|`` computed in float64 from its float32 rates. With ``r_i`` the float32 difference and ``e_i`` the
    float64 one (``r_i`` is ``e_i`` rounded to float32, for fewer than 2**29 trials of a class), a smaller ``r``
    always wins and a larger one never does, so the loop ends among the thresholds of the smallest ``r``: at the
    first whose ``e`` does not exceed it (no later one can beat it), or at the last when every ``e`` exceeds it
    (each then beats the one before). Ties of the exact rates are thus broken by the rounding of float32.
    """
    thresholds, frr, far = speechbrain_rates(s)
    rounded = np.abs(far - frr)
    exact = np.abs(far.astype(np.float64) - frr.astype(np.float64))
    smallest = np.flatnonzero(rounded == rounded.min())
    settled = exact[smallest] <= rounded[smallest]
    i = smallest[int(np.argmax(settled))] if settled.any() else smallest[-1]
    return (float(far[i]) + float(frr[i])) / 2, float(thresholds[i])


def speechbrain_min_dcf(s: SortedScores, op: OperatingPoint) -> float:
    """SpeechBrain's ``minDCF``: ``min_t C_miss FRR P + C_fa FAR (1 - P)`` in float32 (unnormalised)."""
    _, frr, far = speechbrain_rates(s)
    # Python floats stay weak under NumPy's promotion, as torch's scalars do: the products stay float32
    c_miss, c_fa, p = float(op.c_miss), float(op.c_fa), float(op.p_target)
    return float(np.min(c_miss * frr * p + c_fa * far * (1 - p)))


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
    NIST's ``compute_pmiss_pfa_rbst`` leaves it out); divided by ``C_default`` it is NIST's ``compute_c_norm``.
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
                   "the threshold is rejected), in 32-bit floats whose rounding breaks ties between equally near "
                   "points; its minDCF is not normalised: ours times min(C_miss P, C_fa (1-P)).",
    "kaldi": "Reports the miss rate at the first target score where the false-alarm rate has fallen below it, in "
             "steps of 1/(number of targets), with 32-bit scores and no interpolation (each class sorted apart: no "
             "order matters); its minDCF walks the trials one at a time in file order, so scores tied across the "
             "classes give a value that depends on that order (here the file's, or targets first where it is not known).",
    "sklearn": "Interpolates the ROC linearly between its steps; the ROCCH interpolates on the convex hull, which "
               "lies on or below those lines, so this EER is never below ours.",
    "voxceleb_trainer": "Takes the roc_curve point nearest the diagonal (after scikit-learn dropped collinear "
                        "points) and reports the larger of its two rates; its minDCF is Kaldi's script (the same "
                        "code), so it depends on the file's order of tied trials too.",
    "nist": "minDCF over the DET steps normalised by C_default = min(C_miss P, C_fa (1-P)), the same as ours (a "
            "linear cost is lowest at a hull vertex, which is a step); its EER interpolates the steps linearly.",
}


@old_spellings(positional=COSTS)
def eer_conventions(trials: Trials | SortedScores, *, p_target: float | OperatingPoint = 0.01, c_miss: float = 1.0,
                    c_fa: float = 1.0) -> EERConventions:
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
    nist_dcf = step_min_cost(s, op) / c_default(op)
    walked_dcf = walked_min_dcf(file_walk(trials, s), op)
    asvspoof, speechbrain, kaldi = nearest_trial_eer(s), speechbrain_eer(s), kaldi_eer(s)
    voxceleb = voxceleb_trainer_eer(s)
    interpolated = interpolated_eer(s)
    rows = (
        Convention("llrcore / BOSARIS / PYLLR (ROCCH)", s.eer(), float(min_dcf(s, p_target=op)), np.nan, WHY["ours"],
                   "Brümmer & de Villiers, BOSARIS Toolkit (2011): rocch2eer"),
        Convention("ASVspoof 2019/2021 compute_eer", asvspoof[0], np.nan, asvspoof[1], WHY["asvspoof"], ASVSPOOF),
        Convention("SpeechBrain EER / minDCF", speechbrain[0], speechbrain_min_dcf(s, op), speechbrain[1],
                   WHY["speechbrain"], SPEECHBRAIN),
        Convention("Kaldi compute-eer / compute_min_dcf.py", kaldi[0], walked_dcf, kaldi[1], WHY["kaldi"], KALDI),
        Convention("scikit-learn roc_curve + interp1d/brentq", interpolated, np.nan, np.nan, WHY["sklearn"], SKLEARN),
        Convention("voxceleb_trainer tuneThreshold", voxceleb[0], walked_dcf, voxceleb[1], WHY["voxceleb_trainer"],
                   VOXCELEB_TRAINER),
        Convention("NIST SRE scorer (compute_c_norm)", interpolated, nist_dcf, np.nan, WHY["nist"], NIST_SRE),
    )
    mixed = int(np.count_nonzero((s.tar_counts > 0) & (s.non_counts > 0)))
    return EERConventions(rows, op, mixed, file_order=getattr(trials, "file_labels", None) is not None)
