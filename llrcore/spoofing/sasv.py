"""ASVspoof 5's SASV metrics beside the t-DCF: the concurrent t-EER and the a-DCF, pooled and per attack.

:func:`sasv_table` takes a :class:`~llrcore.TandemEvaluation` (:func:`~llrcore.evaluate_tandem`) and computes, on the
very trials of each of its rows (all bona fide trials and one attack's spoofs, :attr:`AttackRow.cm_trials` and
:attr:`AttackRow.asv_trials`; then all spoofs):

- ``t-EER``: the concurrent t-EER of the CM in tandem with the ASV (:func:`~llrcore.t_eer`; Kinnunen et al., IEEE
  TPAMI 2023); no threshold is fixed, so the ASV threshold of the t-DCF plays no part;
- ``min a-DCF (ASV)``: the min a-DCF (:func:`~llrcore.a_dcf`; Shim et al., Odyssey 2024) of the ASV's own scores
  taken as SASV scores (targets, non-targets, spoofs): the speaker verifier with no countermeasure, the reference an
  SASV system must beat. It is the same for every CM. The a-DCF needs one score per trial; a CM and an ASV scored on
  different trial lists (ASVspoof 2019's organisers' files) give no tandem score per trial, so a tandem's own a-DCF
  needs an SASV score file (ASVspoof 5's ``sasv-score``).

An ASVspoof 5 track 2 score file holds all three scores of each trial (``spk filename cm-score asv-score
sasv-score``, read with its key by :func:`~llrcore.read_trials`: the SASV score as the trials' score, labelled
target/nontarget/spoof, the other two as metadata). :func:`sasv_parts` takes the CM's and the ASV's trials out of it,
grouped as the organisers' ``calculate_aDCF_tdcf_tEER`` (evaluation-package/calculate_metrics.py) groups them: the CM's
bona fide scores are those of the target and non-target trials, its spoofed scores those of the spoof trials; the
ASV's targets, non-targets and spoofs are the trials'. Given the SASV trials (``sasv=``), :func:`sasv_table` adds the
tandem's own ``min a-DCF``, ASVspoof 5's primary metric, from the SASV scores: pooled, and per attack on every
target and non-target trial with that attack's spoofs.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ..data.trials import Trials
from .adcf import a_dcf
from .tandem import POOLED, TandemEvaluation
from .teer import t_eer, t_eer_conventions

__all__ = ["ASV_SCORE", "CM_SCORE", "sasv_parts", "sasv_table", "tandem_teer_conventions"]

#: The metadata columns of an ASVspoof 5 SASV score file holding each trial's CM and ASV scores, and the CM key.
CM_SCORE, ASV_SCORE, CM_LABEL = "cm-score", "asv-score", "cm-label"


def sasv_parts(trials: Trials) -> tuple[Trials, Trials]:
    """The countermeasure's and the speaker verifier's trials of an ASVspoof 5 SASV score file.

    Parameters
    ----------
    trials : Trials
        SASV scores with their target, non-target and spoof trials and the metadata columns ``cm-score`` and
        ``asv-score`` (an ASVspoof 5 track 2 file read with its key, :func:`~llrcore.read_trials`).

    Returns
    -------
    cm, asv : Trials
        ``cm``: bona fide = the ``cm-score`` of the target and non-target trials, spoofed (non-targets) = that of the
        spoof trials; ``asv``: the ``asv-score`` of the targets, non-targets and spoofs (``asv.spoof``). Both keep
        the other metadata columns (an ``attack`` column makes the per-attack tables).

    Raises
    ------
    ValueError
        With a sentence: no spoof trials, a score column missing or not a number on every trial (a single SASV
        system's file, ``-`` in both, has only its a-DCF), or a ``cm-label`` that disagrees with the trial's class.
    """
    name = trials.name or "the SASV scores"
    if trials.spoof.size == 0:
        raise ValueError(f"{name} have no spoof trials: an ASVspoof 5 SASV file labels its trials target, nontarget "
                         "and spoof (read it with its key).")
    meta = trials.metadata
    cm_scores, asv_scores = (_scores(meta, column, name) for column in (CM_SCORE, ASV_SCORE))
    bona_fide = trials.tar.size + trials.non.size
    if CM_LABEL in meta.columns:
        spoof = meta[CM_LABEL].astype(str).str.lower().to_numpy() == "spoof"
        wrong = int(spoof[:bona_fide].sum() + (~spoof[bona_fide:]).sum())
        if wrong:
            raise ValueError(f"{name}: the cm-label of {wrong:,} trials disagrees with their ASV label (a target or "
                             "non-target trial is bona fide, a spoof trial spoof): check the key.")
    rest = meta.drop(columns=[c for c in (CM_SCORE, ASV_SCORE, CM_LABEL) if c in meta.columns])
    cm = Trials(cm_scores[:bona_fide], cm_scores[bona_fide:], name=f"{trials.name} CM".strip(), metadata=rest)
    asv = Trials(asv_scores[:trials.tar.size], asv_scores[trials.tar.size:bona_fide], spoof=asv_scores[bona_fide:],
                 name=f"{trials.name} ASV".strip(), metadata=rest)
    return cm, asv


def _scores(meta: pd.DataFrame, column: str, name: str) -> np.ndarray:
    if column not in meta.columns:
        raise ValueError(f"{name} have no {column!r} column (their columns: {', '.join(meta.columns) or 'none'}): "
                         "the CM's and the ASV's scores of each trial come from an ASVspoof 5 SASV file "
                         "(spk filename cm-score asv-score sasv-score).")
    values = pd.to_numeric(meta[column].astype(str), errors="coerce").to_numpy(np.float64)
    missing = int(np.isnan(values).sum())
    if missing:
        raise ValueError(f"{name} have no number in {column!r} on {missing:,} of {values.size:,} trials (a single "
                         "SASV system's file has '-' there): only the a-DCF of the SASV scores can be computed.")
    return values


def sasv_table(evaluation: TandemEvaluation, *, sasv: Trials | None = None,
               cost_model: str | Mapping | None = "asvspoof5", percent: bool = True,
               teer_convention: str = "llrcore") -> pd.DataFrame:
    """One row per attack, then ``pooled`` (the rows of :meth:`TandemEvaluation.to_frame`): ``attack``, ``t-EER``
    and ``min a-DCF (ASV)`` (see the module docstring, :mod:`llrcore.spoofing.sasv`), and ``min a-DCF`` of the SASV
    scores when `sasv` is given.

    Parameters
    ----------
    evaluation : TandemEvaluation
        The CM in tandem with the ASV (:func:`~llrcore.evaluate_tandem`), per attack and pooled.
    sasv : Trials, optional
        The SASV scores of the same trials (the file :func:`sasv_parts` split): the tandem's own min a-DCF, per
        attack on its targets, non-targets and that attack's spoofs (the attack from the metadata column
        ``evaluation.by``).
    cost_model : str or dict
        The a-DCF's: ``"asvspoof5"`` (default), ``"a-dcf-paper"`` or a dict (:func:`~llrcore.a_dcf`).
    percent : bool
        The t-EER in percent, its column named ``t-EER %`` (default), or a fraction named ``t-EER``.
    teer_convention : {"llrcore", "asvspoof5", "asvspoof5-accelerated"}
        The t-EER's operating points (:func:`~llrcore.t_eer`'s `convention`): ours (default), or the ASVspoof 5
        evaluation package's ``compute_teer`` or ``compute_teer_accelerated``; they differ only on tied scores.

    Returns
    -------
    DataFrame
        One row per attack of `evaluation`, then ``pooled``: ``attack``, ``t-EER %`` (or ``t-EER``), ``min a-DCF
        (ASV)`` (normalised) and, with `sasv`, ``min a-DCF``.

    Raises
    ------
    ValueError
        For an unknown cost model or t-EER convention, or a row whose t-EER does not exist (:func:`~llrcore.t_eer`).
    """
    scale, unit = (100.0, " %") if percent else (1.0, "")
    spoof_attacks = None
    if sasv is not None and evaluation.by is not None:
        spoof_attacks = sasv.metadata[evaluation.by].astype(str).to_numpy()[sasv.tar.size + sasv.non.size:]
    records = []
    for row in evaluation.rows:
        cm, asv = row.cm_trials, row.asv_trials
        record = {"attack": row.attack,
                  f"t-EER{unit}": scale * t_eer(cm.tar, cm.non, asv.tar, asv.non, asv.spoof,
                                                convention=teer_convention).value,
                  "min a-DCF (ASV)": a_dcf(asv.tar, asv.non, asv.spoof, cost_model=cost_model).minimum}
        if sasv is not None:
            spoof = sasv.spoof if row.attack == POOLED else sasv.spoof[spoof_attacks == row.attack]
            record["min a-DCF"] = a_dcf(sasv.tar, sasv.non, spoof, cost_model=cost_model).minimum
        records.append(record)
    return pd.DataFrame.from_records(records)


def tandem_teer_conventions(evaluations: Mapping[str, TandemEvaluation]) -> pd.DataFrame:
    """Each CM's pooled t-EER (%) in every convention of :func:`~llrcore.t_eer`, side by side: ours and the
    ASVspoof 5 evaluation package's ``compute_teer`` and ``compute_teer_accelerated``, which differ from ours only
    on tied scores (why: :func:`~llrcore.t_eer_conventions`, the module docstring of :mod:`llrcore.spoofing.teer`).

    Parameters
    ----------
    evaluations : mapping of CM system name to TandemEvaluation
        Each CM with the same ASV (:func:`~llrcore.evaluate_tandem`); the pooled row's trials are taken.

    Returns
    -------
    DataFrame
        One row per CM: ``system``, then one column per convention named by its tool (``llrcore (default)``,
        ``ASVspoof 5 compute_teer``, ``ASVspoof 5 compute_teer_accelerated``), the t-EER in percent.
    """
    records = []
    for name, evaluation in evaluations.items():
        row = next(row for row in evaluation.rows if row.attack == POOLED)
        cm, asv = row.cm_trials, row.asv_trials
        table = t_eer_conventions(cm.tar, cm.non, asv.tar, asv.non, asv.spoof)
        records.append({"system": name, **dict(zip(table["tool"], table["t-EER %"]))})
    return pd.DataFrame.from_records(records)
