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
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..data.trials import Trials
from .adcf import _cost_model, a_dcf
from .tandem import POOLED, TandemEvaluation
from .teer import ASVPoints, asv_points, conventions_table, every_convention, t_eer

__all__ = ["ASV_SCORE", "CM_SCORE", "TandemASV", "sasv_parts", "sasv_table", "tandem_asv", "tandem_teer_conventions"]

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


@dataclass(frozen=True, eq=False)
class TandemASV:
    """The speaker verifier's side of :func:`sasv_table`, row by row (see :func:`tandem_asv`): made once and shared by
    every CM in tandem with that ASV.

    Attributes
    ----------
    points : dict of str to ASVPoints
        The ASV's t-EER operating points (:func:`~llrcore.asv_points`) on each row's trials, by attack and
        ``"pooled"``.
    min_a_dcf : dict of str to float
        The min a-DCF of the ASV's scores taken as SASV scores, the column ``min a-DCF (ASV)``, keyed the same.
    teer_convention : str
        The t-EER convention of the points (:data:`~llrcore.TEER_CONVENTIONS`).
    cost_model : dict
        The a-DCF's priors and costs.
    asv_trials : dict of str to Trials
        The ASV's trials of each row, whose points these are.
    """

    points: dict[str, ASVPoints] = field(repr=False)
    min_a_dcf: dict[str, float]
    teer_convention: str
    cost_model: dict = field(repr=False)
    asv_trials: dict[str, Trials] = field(repr=False)

    def to_frame(self) -> pd.DataFrame:
        """One row per attack, then ``pooled``: ``attack``, ``min a-DCF (ASV)`` and ``ASV points`` (how many)."""
        return pd.DataFrame({"attack": list(self.points), "min a-DCF (ASV)": list(self.min_a_dcf.values()),
                             "ASV points": [points.thresholds.size for points in self.points.values()]})

    def check(self, evaluation: TandemEvaluation, *, cost_model: str | Mapping | None, teer_convention: str) -> None:
        """A ValueError with a sentence unless these are of `evaluation`'s ASV (the same scores in every row) and of
        the t-EER convention and a-DCF cost model asked for."""
        if teer_convention != self.teer_convention:
            raise ValueError(f"The ASV's side (asv=) was made for the {self.teer_convention!r} t-EER, not the "
                             f"{teer_convention!r} one: make it with lc.tandem_asv(evaluation, "
                             f"teer_convention={teer_convention!r}).")
        if _cost_model(cost_model) != dict(self.cost_model):
            raise ValueError("The ASV's side (asv=) was made with another a-DCF cost model: make it with "
                             "lc.tandem_asv(evaluation, cost_model=...) and the same cost model as the table.")
        rows = {row.attack: row.asv_trials for row in evaluation.rows}
        if rows.keys() != self.asv_trials.keys() or not all(
                _same_scores(trials, self.asv_trials[attack]) for attack, trials in rows.items()):
            raise ValueError(f"The ASV's side (asv=) is not of the ASV of {evaluation.name or 'this evaluation'} "
                             "(its attacks or scores differ): make it with lc.tandem_asv(evaluation).")


def _same_scores(a: Trials, b: Trials) -> bool:
    """Whether two sets of ASV trials hold the same targets, non-targets and spoofs, in the same order."""
    return all(x is y or np.array_equal(x, y) for x, y in zip((a.tar, a.non, a.spoof), (b.tar, b.non, b.spoof)))


def tandem_asv(evaluation: TandemEvaluation, *, cost_model: str | Mapping | None = "asvspoof5",
               teer_convention: str = "llrcore") -> TandemASV:
    """The ASV's side of :func:`sasv_table`, made once for every CM in tandem with that ASV.

    What :func:`sasv_table` needs of the ASV does not depend on the CM: on each row's trials (the ASV's targets and
    non-targets with one attack's spoofs, then all spoofs), its t-EER operating points (:func:`~llrcore.asv_points`)
    and its own min a-DCF (:func:`~llrcore.a_dcf`). Made once, ``sasv_table(evaluation, asv=side)`` for each CM's
    evaluation gives the same tables bit for bit as ``sasv_table(evaluation)``, without computing them again.

    Parameters
    ----------
    evaluation : TandemEvaluation
        Any CM in tandem with the ASV (:func:`~llrcore.evaluate_tandem`, the same ASV and attack column for all).
    cost_model : str or dict
        The a-DCF's, as in :func:`sasv_table`.
    teer_convention : {"llrcore", "asvspoof5", "asvspoof5-accelerated"}
        The t-EER's operating points, as in :func:`sasv_table`.

    Returns
    -------
    TandemASV

    Raises
    ------
    ValueError
        For an unknown cost model or t-EER convention.
    """
    trials = {row.attack: row.asv_trials for row in evaluation.rows}
    adcfs = {attack: a_dcf(asv.tar, asv.non, asv.spoof, cost_model=cost_model) for attack, asv in trials.items()}
    return TandemASV(
        points={attack: asv_points(asv.tar, asv.non, asv.spoof, convention=teer_convention)
                for attack, asv in trials.items()},
        min_a_dcf={attack: result.minimum for attack, result in adcfs.items()}, teer_convention=teer_convention,
        cost_model=dict(adcfs[POOLED].cost_model), asv_trials=trials)


def sasv_table(evaluation: TandemEvaluation, *, sasv: Trials | None = None,
               cost_model: str | Mapping | None = "asvspoof5", percent: bool = True,
               teer_convention: str = "llrcore", asv: TandemASV | None = None) -> pd.DataFrame:
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
    asv : TandemASV, optional
        The ASV's side of the table made once for every CM (:func:`tandem_asv`, with the same cost model and
        convention); by default made here. The same table bit for bit.

    Returns
    -------
    DataFrame
        One row per attack of `evaluation`, then ``pooled``: ``attack``, ``t-EER %`` (or ``t-EER``), ``min a-DCF
        (ASV)`` (normalised) and, with `sasv`, ``min a-DCF``.

    Raises
    ------
    ValueError
        For an unknown cost model or t-EER convention, a row whose t-EER does not exist (:func:`~llrcore.t_eer`), or
        an `asv` of another ASV, cost model or convention.
    """
    if asv is None:
        asv = tandem_asv(evaluation, cost_model=cost_model, teer_convention=teer_convention)
    else:
        asv.check(evaluation, cost_model=cost_model, teer_convention=teer_convention)
    scale, unit = (100.0, " %") if percent else (1.0, "")
    spoof_attacks = None
    if sasv is not None and evaluation.by is not None:
        spoof_attacks = sasv.metadata[evaluation.by].astype(str).to_numpy()[sasv.tar.size + sasv.non.size:]
    records = []
    for row in evaluation.rows:
        cm = row.cm_trials
        record = {"attack": row.attack,
                  f"t-EER{unit}": scale * t_eer(cm.tar, cm.non, convention=teer_convention,
                                                asv=asv.points[row.attack]).value,
                  "min a-DCF (ASV)": asv.min_a_dcf[row.attack]}
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
    records, shared = [], None
    for name, evaluation in evaluations.items():
        cm, asv = evaluation.pooled.cm_trials, evaluation.pooled.asv_trials
        if shared is None or not _same_scores(asv, shared[0]):  # the ASV's points once for every CM with it
            shared = asv, every_convention(asv.tar, asv.non, asv.spoof)
        table = conventions_table(cm.tar, cm.non, shared[1])
        records.append({"system": name, **dict(zip(table["tool"], table["t-EER %"]))})
    return pd.DataFrame.from_records(records)
