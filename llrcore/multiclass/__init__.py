"""Multiclass (language-recognition style) evaluation and calibration of log-likelihood vectors.

A multiclass recogniser gives, per trial ``t``, a vector of N relative log-likelihoods ``l_t`` (natural log, defined
up to an additive constant per trial). With a prior ``pi`` the posterior of class i is
``P_i(t) = pi_i exp(l_ti) / sum_j pi_j exp(l_tj)`` (eq. 4 of the paper). From that one vector come:

- :func:`multiclass_cllr` — ``Cllr = -sum_i pi_i mean_{t in class i} log2 P_i(t)`` in bits (eq. 17 with the flat
  prior ``pi_i = 1/N``); ``log2 N`` is the useless reference (entropy of the prior in general).
- :func:`fit_multiclass_affine` — the direction-preserving calibration ``l' = alpha l + gamma`` (eq. 18: a scalar
  scale and N offsets defined up to a common constant, N free parameters), trained by minimising that Cllr
  (multiclass logistic regression) with Newton's method on the exact gradient and Hessian. ``Cllr - Cllr^T`` is
  the calibration loss.
- :func:`pairwise_analysis` — every pair of classes as a binary problem with LLR ``l_i - l_j``: Cllr before and
  after calibration and minCllr by PAV (which the calibration cannot change: it is monotone on each pair).
- :func:`detection_llrs` — one-against-the-rest LLR of eq. 9 with a prior over the non-targets (flat by default),
  so every binary tool (Cllr, APE, DET, EER) applies per target; :func:`detection_analysis` tabulates them.
- MAP decisions for identification, detection and pair-wise questions with any prior
  (:func:`map_decisions`, :func:`detection_decisions`, :func:`pairwise_decisions`) and
  :func:`identification_errors` (confusion matrix, per-class and prior-weighted error rates).
- Classifier calibration as machine learning sees it: :mod:`.corp` (the CORP reliability curve and its exact
  MCB - DSC + UNC decomposition), :mod:`.binned` (the binned ECE of ML papers), :mod:`.temperature` (temperature
  scaling) and :mod:`.classifier` (the three on raw and scaled outputs, as the page shows them).
- :func:`cavg` — the NIST LRE average detection cost of those detection decisions (normalised as in the LRE 2017
  plan), its minimum over a shared threshold, and :func:`lre_cprimary` (LRE 2017: mean at P_target 0.5 and 0.1).

Scores of classifiers are turned into LLRs with :func:`scores_to_llrs` (logits and log-posteriors lose the log of
the training prior). Functions take an ``(T, N)`` LLR matrix with integer labels ``0..N-1``, or a
:class:`MulticlassScores` alone.

Modules, mirroring the binary side: the data (:mod:`llrcore.data.multiclass`), :mod:`~.cllr`,
:mod:`~.calibration`, :mod:`~.analysis` (pair-wise and detection) and :mod:`~.decisions`. The reader is
:func:`llrcore.io.read_multiclass` (``lc.read_multiclass``).

Reference: N. Brümmer and D. van Leeuwen, "On calibration of language recognition scores", Odyssey 2006.
"""
from ..data.multiclass import SCORE_TYPES, MulticlassScores, class_prior, scores_to_llrs
from .analysis import (
    MulticlassAnalysis,
    analyse_multiclass,
    detection_analysis,
    detection_llrs,
    detection_trials,
    llrs_with_prior,
    pairwise_analysis,
)
from .calibration import MulticlassAffine, fit_multiclass_affine
from .cavg import LRE17_P_TARGETS, cavg, cavg_table, lre_cprimary
from .cllr import multiclass_cllr
from .decisions import (
    IdentificationErrors,
    confusion_matrix,
    detection_decisions,
    identification_errors,
    map_decisions,
    pairwise_decisions,
)

__all__ = [
    "LRE17_P_TARGETS",
    "SCORE_TYPES",
    "IdentificationErrors",
    "MulticlassAffine",
    "MulticlassAnalysis",
    "MulticlassScores",
    "analyse_multiclass",
    "cavg",
    "cavg_table",
    "class_prior",
    "confusion_matrix",
    "detection_analysis",
    "detection_decisions",
    "detection_llrs",
    "detection_trials",
    "fit_multiclass_affine",
    "identification_errors",
    "lre_cprimary",
    "llrs_with_prior",
    "map_decisions",
    "multiclass_cllr",
    "pairwise_analysis",
    "pairwise_decisions",
    "scores_to_llrs",
]

