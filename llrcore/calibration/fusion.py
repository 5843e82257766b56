"""Fusion of several systems scored on the same trials: pair their trials, fit a linear fusion on development trials,
apply it to evaluation trials, and compare it with each system calibrated alone.

- :func:`align_systems` — pair the trials of several systems (by their trial ids, or by line order when the files
  have none) into one score matrix per class (:class:`AlignedSystems`); a sentence says what differs when the
  systems were not scored on the same trials.
- :func:`fuse` — BOSARIS's linear fusion ``llr = sum_k w_k s_k + b`` trained with a prior-weighted proper scoring
  rule of the Beta family on development trials (:func:`~llrcore.calibration.fit.fit_fusion`), applied to evaluation
  trials, against each system calibrated alone by the same recipe (:class:`FusionResult`).

How trials are paired
---------------------
By **ids** when every system carries the same id columns in its :attr:`~llrcore.Trials.metadata`: the first of
:data:`ID_COLUMNS` that all of them have (``model`` and ``test`` of BOSARIS/Kaldi files; ``utt`` of ASVspoof
countermeasure files; ``trial``). The order of the lines does not matter; every trial of one system must be in every
other, with the same label; ids that repeat cannot pair, and pair by line order only when both lists agree id by
id, row by row (:mod:`llrcore.data.pairing`, shared with :func:`~llrcore.compare_systems`). Otherwise by **line
order**: the i-th target trial of each system is one trial, and so on for the non-targets (and spoof trials), which
needs as many trials of each class in every system. The systems of one multi-system file (a ``dict`` from
:func:`~llrcore.read_trials`) share their trials line by line, so they are aligned by construction.

Reference
---------
N. Brümmer and G. Doddington, "Likelihood-ratio calibration using prior-weighted proper scoring rules",
Interspeech 2013 (the objective); N. Brümmer and E. de Villiers, "The BOSARIS toolkit: theory, algorithms and code
for surviving the new DCF", arXiv:1304.2865, 2013 (linear fusion, ``train_linear_fuser``); N. Brümmer and J. du Preez,
"Application-independent evaluation of speaker detection", Computer Speech and Language 20, 2006 (Cllr).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._deprecation import moved_call
from ..binary.metrics import BinaryMetrics, evaluate
from ..binary.tables import metrics_table
from ..data.pairing import ID_COLUMNS, class_blocks, pair_trials, shared_id_columns
from ..data.trials import Trials, as_systems
from ..prior import OperatingPoint
from .fit import Affine, Fusion, fit_fusion
from .quality import QualityCalibration
from .rules import BetaRule

__all__ = ["ID_COLUMNS", "AlignedSystems", "FusionResult", "align_systems", "fuse"]


@dataclass(frozen=True, eq=False)
class AlignedSystems:
    """The trials of K systems paired: one row per trial, one column per system.

    Attributes
    ----------
    names : tuple of str
        The systems, in column order.
    tar, non, spoof : ndarray
        ``(N_tar, K)``, ``(N_non, K)`` and ``(N_spoof, K)`` score matrices (read-only); row i of each is one trial.
    metadata : DataFrame
        The first system's metadata in the rows' order: the targets, then the non-targets, then the spoof trials.
    id_columns : tuple of str
        The columns the trials were paired by; empty when they were paired by line order.
    """

    names: tuple[str, ...]
    tar: np.ndarray = field(repr=False)
    non: np.ndarray = field(repr=False)
    spoof: np.ndarray = field(repr=False)
    metadata: pd.DataFrame = field(repr=False)
    id_columns: tuple[str, ...] = ()

    @property
    def by_ids(self) -> bool:
        return bool(self.id_columns)

    def system(self, k: int | str, name: str | None = None) -> Trials:
        """The aligned trials of one system (by position or name), with the shared metadata."""
        k = self.names.index(k) if isinstance(k, str) else k
        return Trials(self.tar[:, k], self.non[:, k], name=self.names[k] if name is None else name,
                      spoof=self.spoof[:, k], metadata=self.metadata)

    def transformed(self, transform, name: str) -> Trials:
        """The trials with ``transform`` applied to each class's ``(N, K)`` score matrix (a :class:`Fusion`)."""
        spoof = transform(self.spoof) if self.spoof.shape[0] else np.empty(0)
        return Trials(transform(self.tar), transform(self.non), name=name, spoof=spoof, metadata=self.metadata)

    def to_frame(self) -> pd.DataFrame:
        """One row per trial (the targets, then the non-targets, then the spoof trials): the metadata, ``class``
        and each system's score."""
        rows = [self.tar, self.non, self.spoof.reshape(-1, len(self.names))]
        classes = np.repeat(["target", "non-target", "spoof"], [len(r) for r in rows])
        frame = self.metadata.iloc[:classes.size].reset_index(drop=True).assign(**{"class": classes})
        return pd.concat([frame, pd.DataFrame(np.concatenate(rows), columns=list(self.names))], axis=1)

    def describe(self) -> str:
        """How the trials were paired, in words."""
        counts = f"{self.tar.shape[0]:,} target and {self.non.shape[0]:,} non-target trials"
        if self.spoof.shape[0]:
            counts += f" (and {self.spoof.shape[0]:,} spoof trials)"
        how = f"paired by {' and '.join(self.id_columns)}" if self.by_ids else "paired by line order"
        return f"{counts}, {how}"


def align_systems(systems: Mapping[str, Trials] | Sequence[Trials]) -> AlignedSystems:
    """Pair the trials of several systems scored on the same trials.

    Trials are paired by the first group of :data:`ID_COLUMNS` (``model`` and ``test``, else ``utt``, else
    ``trial``) that every system's metadata has, whatever their order; else by line order within each class (the
    i-th target of every system is one trial), which needs as many trials of each class in every system. The rows
    follow the first system's order.

    Parameters
    ----------
    systems : mapping name -> Trials, or sequence of Trials
        Two or more systems (one is accepted, and aligned with itself). A sequence is named by the Trials' names
        (``system 1``, ``system 2``, ... where they have none).

    Returns
    -------
    AlignedSystems

    Raises
    ------
    ValueError
        With a sentence naming the two systems and what differs: trials of one missing from the other (how many,
        and an example id), the same trial labelled differently, ids that repeat in a different order in the two
        systems, or, by line order, different numbers of trials of a class (:func:`llrcore.data.pairing.pair_trials`).
    """
    if isinstance(systems, (Mapping, Sequence)) and len(systems) == 0:
        raise ValueError("There are no systems to pair: give two or more systems scored on the same trials.")
    systems = as_systems(systems)
    names = tuple(systems)
    columns = shared_id_columns(systems.values())
    reference, ref = names[0], systems[names[0]]
    scores, by_ids = [np.concatenate(class_blocks(ref))], True
    for name in names[1:]:
        pairing = pair_trials(reference, ref, name, systems[name], columns, remedy=(
            "Fusion needs every system's score for every trial: give files of the same trials."))
        other = np.concatenate(class_blocks(systems[name]))
        scores.append(other if pairing.positions is None else other[pairing.positions])
        by_ids = by_ids and pairing.positions is not None
    matrix = np.column_stack(scores)
    matrix.flags.writeable = False
    cut = np.cumsum([ref.tar.size, ref.non.size])
    tar, non, spoof = np.split(matrix, cut)
    return AlignedSystems(names=names, tar=tar, non=non, spoof=spoof, metadata=ref.metadata,
                          id_columns=columns if by_ids else ())


@dataclass(frozen=True, eq=False)
class FusionResult:
    """A linear fusion trained on development trials, and each of its systems calibrated alone by the same recipe.

    Attributes
    ----------
    fusion : Fusion or QualityCalibration
        ``llr = sum_k weights[k] * s_k + offset``, the scores in the order of :attr:`names` (with quality measures,
        their weights follow).
    calibrations : dict of str -> Affine
        Each system calibrated alone: ``llr = scale * s + offset``, the same rule, prior weighting and
        regularisation, trained on the same development trials.
    names : tuple of str
        The systems fused.
    rule, plo, regularisation :
        The recipe: proper scoring rule, prior weighting ``tau``, penalty on the standardised weights.
    dev, evaluation : AlignedSystems
        The paired development trials and the paired evaluation trials (None when there are none).
    fused_dev, fused_eval : Trials
        The fused LLRs of the development and the evaluation trials (None), named :attr:`fusion_name`, with the
        trials' metadata.
    calibrated_dev, calibrated_eval : dict of str -> Trials
        Each system's LLRs calibrated alone, under the system's name.
    metrics : dict of str -> BinaryMetrics
        The fusion's, then each calibrated system's metrics on the judged trials (evaluation trials, or the
        development trials when there are none) at the operating point.
    """

    fusion: Fusion | QualityCalibration  # (fitted with quality measures)
    calibrations: dict[str, Affine]
    names: tuple[str, ...]
    rule: BetaRule
    plo: float
    regularisation: float
    dev: AlignedSystems
    evaluation: AlignedSystems | None
    fused_dev: Trials
    fused_eval: Trials | None
    calibrated_dev: dict[str, Trials]
    calibrated_eval: dict[str, Trials] | None
    metrics: dict[str, BinaryMetrics]
    fusion_name: str = "fusion"

    @property
    def judged_on(self) -> str:
        """``"evaluation"``, or ``"development"`` when no evaluation trials were given."""
        return "development" if self.evaluation is None else "evaluation"

    @property
    def fused(self) -> Trials:
        """The fused LLRs of the judged trials."""
        return self.fused_dev if self.fused_eval is None else self.fused_eval

    @property
    def systems(self) -> dict[str, Trials]:
        """The fusion, then each system calibrated alone, on the judged trials: what the figures compare."""
        calibrated = self.calibrated_dev if self.calibrated_eval is None else self.calibrated_eval
        return {self.fusion_name: self.fused, **calibrated}

    @property
    def best_single(self) -> str:
        """The system whose calibration alone has the lowest Cllr on the judged trials (the first of equals)."""
        return min(self.names, key=lambda n: self.metrics[n].cllr)

    @property
    def beats_best_single(self) -> bool:
        """Whether the fusion's Cllr on the judged trials is lower than that of the best system calibrated alone."""
        best = self.metrics[self.best_single].cllr
        return bool(self.metrics[self.fusion_name].cllr < best)

    @property
    def best_single_at_operating_point(self) -> str:
        """The system calibrated alone with the lowest actual DCF at the metrics' operating point (first of equals)."""
        return min(self.names, key=lambda n: self.metrics[n].act_dcf)

    @property
    def beats_at_operating_point(self) -> bool:
        """Whether the fusion's normalised actual DCF at the metrics' operating point is lower than that of every
        system calibrated alone and below 1, the cost of deciding without any system."""
        ours = self.metrics[self.fusion_name].act_dcf
        return bool(ours < self.metrics[self.best_single_at_operating_point].act_dcf and ours < 1.0)

    def verdict(self) -> str:
        """Deprecated: :meth:`sentence` (the same words, after a FutureWarning, for one release)."""
        moved_call("FusionResult.verdict()", "FusionResult.sentence()")
        return self.sentence()

    def sentence(self) -> str:
        """The comparison in two sentences: by Cllr, which judges the LLRs at every operating point at once (what the
        fusion's training objective is, as in BOSARIS and FoCal), then by actual DCF at the operating point of the
        metrics, where the fused LLRs are used, e.g. ``"On Cllr (every operating point at once), the fusion beats the
        best single system, B, calibrated alone: 0.330 vs 0.354 bits on the evaluation trials. At the operating point
        (P_target = 0.01) it does not beat the best there, A alone: actDCF 3.033 vs 0.940 (1 = deciding without any
        system); worse than no system there."``"""
        best = self.best_single
        ours, theirs = self.metrics[self.fusion_name].cllr, self.metrics[best].cllr
        verb = "beats" if self.beats_best_single else "does not beat"
        where = ("the evaluation trials" if self.evaluation is not None
                 else "the development trials it was trained on (no evaluation trials: an optimistic comparison)")
        fused, best_op = self.metrics[self.fusion_name], self.best_single_at_operating_point
        costs = "" if fused.c_miss == fused.c_fa == 1 else f", C_miss = {fused.c_miss:g}, C_fa = {fused.c_fa:g}"
        useless = "; worse than no system there" if fused.act_dcf >= 1 else ""
        return (f"On Cllr (every operating point at once), the fusion {verb} the best single system, {best}, "
                f"calibrated alone: {ours:.3f} vs {theirs:.3f} bits on {where}. At the operating point (P_target = "
                f"{fused.p_target:g}{costs}) it {'beats' if self.beats_at_operating_point else 'does not beat'} "
                f"the best there, {best_op} alone: actDCF {fused.act_dcf:.3f} vs {self.metrics[best_op].act_dcf:.3f} "
                f"(1 = deciding without any system){useless}.")

    def to_frame(self) -> pd.DataFrame:
        """The comparison table on the judged trials: one row per system (the fusion first), the columns of
        :func:`~llrcore.metrics_table` with the EER in percent (``EER %``), Cllr and minCllr in bits."""
        return metrics_table(self.metrics.values(), eer_percent=True)

    def weights_frame(self) -> pd.DataFrame:
        """The fusion's weights, one row per system: ``weight``, and ``weight × spread``, the weight times the
        standard deviation of the system's development scores, comparable across systems whatever their units. (The
        offset is ``fusion.offset``; :meth:`formula` shows both.) With quality measures, one row per feature."""
        if isinstance(self.fusion, QualityCalibration):
            return self.fusion.weights_frame().rename(columns={"feature": "system"})
        spread = np.concatenate([self.dev.tar, self.dev.non]).std(axis=0)
        weights = np.asarray(self.fusion.weights, dtype=np.float64)
        return pd.DataFrame({"system": list(self.names), "weight": weights, "weight × spread": weights * spread})

    def formula(self, digits: int = 4) -> str:
        """The fusion as text: ``llr = 0.961·LFCC-GMM + 0.105·RawNet2-a + ... + 2.227``."""
        if isinstance(self.fusion, QualityCalibration):
            return self.fusion.formula(digits)
        terms = " ".join(f"{'+' if w >= 0 else '−'} {abs(w):.{digits}g}·{n}" for w, n in
                         zip(self.fusion.weights, self.names)).removeprefix("+ ")
        b = self.fusion.offset
        return f"llr = {terms} {'+' if b >= 0 else '−'} {abs(b):.{digits}g}"

    def calibrator_json(self) -> str:
        """The fusion as JSON text (``to_json()``; read back by :func:`~llrcore.load_calibrator`): the weights in
        the order of :attr:`names`, the rule, prior weighting and regularisation it was trained with."""
        if isinstance(self.fusion, QualityCalibration):
            return self.fusion.to_json()
        return self.fusion.to_json(names=self.names, rule=self.rule, plo=self.plo, regularisation=self.regularisation)

    def scores_frame(self, part: str = "evaluation") -> pd.DataFrame:
        """The fused LLRs of one part (``"evaluation"`` or ``"development"``) as a table that
        :func:`~llrcore.read_trials` reads back: the trials' metadata columns (their ids first), ``score`` and
        ``label`` (``target``, ``nontarget`` or ``spoof``), one row per trial, targets first."""
        trials = self.fused_dev if part == "development" else self.fused_eval
        if trials is None:
            raise ValueError("There are no evaluation trials: the fusion was trained and judged on development trials.")
        frame = trials.metadata.copy()
        frame = frame.drop(columns=[c for c in ("score", "label") if c in frame.columns])
        frame["score"] = np.concatenate([trials.tar, trials.non, trials.spoof])
        labels = np.repeat(["target", "nontarget", "spoof"], [trials.tar.size, trials.non.size, trials.spoof.size])
        frame["label"] = labels
        return frame


def _pair_evaluation(dev_names: tuple[str, ...], eval_systems) -> dict[str, Trials]:
    """Evaluation systems in the development systems' order: by name when every development system's name is among
    them (a multi-system evaluation file may hold more), else by position."""
    systems = as_systems(eval_systems)
    if set(dev_names) <= set(systems):
        return {name: systems[name] for name in dev_names}
    if len(systems) != len(dev_names):
        raise ValueError(f"The fusion is trained on {len(dev_names)} development systems but applied to "
                         f"{len(systems)} evaluation systems; give one evaluation system per development system.")
    return dict(zip(dev_names, systems.values()))


def fuse(dev_systems: Mapping[str, Trials] | Sequence[Trials],
         eval_systems: Mapping[str, Trials] | Sequence[Trials] | None = None, *, rule: BetaRule | None = None,
         plo: float = 0.0, regularisation: float = 0.0, p_target: float | OperatingPoint = 0.01, c_miss: float = 1.0,
         c_fa: float = 1.0, quality: Sequence[str] | None = None) -> FusionResult:
    """Linear fusion of several systems trained on development trials, judged against each system calibrated alone.

    The fused LLR of a trial with scores ``s_1 ... s_K`` is ``llr = sum_k w_k s_k + b`` (BOSARIS's linear fusion).
    The weights and offset minimise the prior-weighted objective of a proper scoring rule of the Beta family
    (Brümmer & Doddington 2013, eq. 3) on the development trials::

        E(w, b) = P mean_tar C(sigmoid(llr + tau) | H1) + (1 - P) mean_non C(sigmoid(llr + tau) | H2)
                  + (lambda / 2) sum_k (w_k sigma_k)^2,        tau = plo, P = sigmoid(tau),

    where ``sigma_k`` is the standard deviation of system k's pooled development scores and ``lambda`` the
    `regularisation` (:func:`~llrcore.calibration.fit.fit_fusion`). With the logarithmic rule (1, 1) and
    ``lambda = 0`` this is prior-weighted logistic regression, and at ``tau = 0`` ``E / ln 2`` is the Cllr of the
    fused development LLRs (Brümmer & du Preez 2006). Each system is also calibrated alone by the same recipe
    (``K = 1``: the same rule, ``tau`` and ``lambda``, the same development trials), so that the comparison says
    what fusing adds over calibrating one system.

    Parameters
    ----------
    dev_systems : mapping name -> Trials, or sequence of Trials
        Two or more systems scored on the same development trials (see :func:`align_systems`); a multi-system
        file from :func:`~llrcore.read_trials` is such a mapping.
    eval_systems : mapping or sequence of Trials, optional
        The same systems on the evaluation trials: matched by name when every name of `dev_systems` is among
        theirs (a multi-system file may hold more systems), else by position. Without them the comparison is made
        on the development trials (optimistic).
    rule : BetaRule, optional
        The proper scoring rule; logarithmic (logistic regression) by default.
    plo : float
        The prior weighting ``tau = logit(P)`` of the objective.
    regularisation : float
        ``lambda >= 0``. Needed when the systems together separate the development classes (the weights would grow
        without bound); 1e-3 to 1e-2 is mild.
    p_target, c_miss, c_fa :
        The operating point of the metrics (minDCF, actDCF); `p_target` may be an :class:`~llrcore.OperatingPoint`.
    quality : list of str, optional
        Metadata columns of the first system (development and evaluation) fused as more inputs, ``llr = sum_k w_k
        s_k + sum_j v_j q_j + b``: :attr:`FusionResult.fusion` is then a
        :class:`~llrcore.calibration.quality.QualityCalibration` (QMF). The systems alone are calibrated without them.

    Returns
    -------
    FusionResult
        ``.to_frame()`` compares the fusion with each system calibrated alone, ``.sentence()`` says whether it beats
        the best of them by Cllr (``.beats_best_single``, ``.best_single``) and by actual DCF at the operating point
        (``.beats_at_operating_point``, ``.best_single_at_operating_point``).

    Raises
    ------
    ValueError
        With a sentence: fewer than two systems, systems not scored on the same trials (:func:`align_systems`),
        or a fusion that cannot be trained (e.g. separable development trials without regularisation).

    References
    ----------
    N. Brümmer and G. Doddington, "Likelihood-ratio calibration using prior-weighted proper scoring rules",
    Interspeech 2013. N. Brümmer and E. de Villiers, "The BOSARIS toolkit", arXiv:1304.2865, 2013.
    N. Brümmer and J. du Preez, "Application-independent evaluation of speaker detection", CSL 20, 2006.
    """
    rule = rule or BetaRule.logarithmic()
    dev = align_systems(dev_systems)
    if len(dev.names) < 2:
        raise ValueError("Fusion needs two or more systems; to calibrate one system, use calibration.")
    evaluation = None if eval_systems is None else align_systems(_pair_evaluation(dev.names, eval_systems))
    fusion = (fit_fusion(dev.tar, dev.non, rule, plo=plo, regularisation=regularisation) if quality is None else
              QualityCalibration.fit(dev, quality, fit_fusion, rule=rule, plo=plo, regularisation=regularisation))
    if fusion.collapsed:  # no fusion to judge (llrcore.calibration.checks): said, not shown as one
        raise ValueError(f"the fusion collapsed ({fusion.failure}). Remove the far scores, or fuse other systems.")
    calibrations = {}
    for k, name in enumerate(dev.names):
        alone = fit_fusion(dev.tar[:, k], dev.non[:, k], rule, plo=plo, regularisation=regularisation)
        if alone.collapsed:
            raise ValueError(f"{name} calibrated alone collapsed ({alone.failure}), so the fusion cannot be compared "
                             "with it. Remove the far scores, or fuse other systems.")
        calibrations[name] = Affine(scale=float(alone.weights[0]), offset=alone.offset)
    fusion_name = "fusion"
    while fusion_name in dev.names:  # a system of that name keeps it: the fusion's row and curve are named apart
        fusion_name += " (fused)"

    def calibrated(aligned: AlignedSystems) -> dict[str, Trials]:
        return {name: aligned.transformed(lambda scores, k=k, affine=affine: affine(scores[:, k]), name)
                for k, (name, affine) in enumerate(calibrations.items())}

    def fused(aligned: AlignedSystems) -> Trials:
        return aligned.transformed(fusion, fusion_name) if quality is None else fusion(aligned, fusion_name)

    fused_dev = fused(dev)
    fused_eval = None if evaluation is None else fused(evaluation)
    calibrated_dev = calibrated(dev)
    calibrated_eval = None if evaluation is None else calibrated(evaluation)
    judged = {fusion_name: fused_dev if fused_eval is None else fused_eval,
              **(calibrated_dev if calibrated_eval is None else calibrated_eval)}
    metrics = {name: evaluate(trials.sorted, p_target=p_target, c_miss=c_miss, c_fa=c_fa, name=name)
               for name, trials in judged.items()}
    return FusionResult(fusion=fusion, calibrations=calibrations, names=dev.names, rule=rule, plo=float(plo),
                        regularisation=float(regularisation), dev=dev, evaluation=evaluation, fused_dev=fused_dev,
                        fused_eval=fused_eval, calibrated_dev=calibrated_dev, calibrated_eval=calibrated_eval,
                        metrics=metrics, fusion_name=fusion_name)
