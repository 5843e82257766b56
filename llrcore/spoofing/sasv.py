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
"""
from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from .adcf import a_dcf
from .tandem import TandemEvaluation
from .teer import t_eer

__all__ = ["sasv_table"]


def sasv_table(evaluation: TandemEvaluation, *, cost_model: str | Mapping | None = "asvspoof5",
               percent: bool = True) -> pd.DataFrame:
    """One row per attack, then ``pooled`` (the rows of :meth:`TandemEvaluation.to_frame`): ``attack``, ``t-EER``
    and ``min a-DCF (ASV)`` (see the module docstring, :mod:`llrcore.spoofing.sasv`).

    Parameters
    ----------
    evaluation : TandemEvaluation
    cost_model : str or dict
        The a-DCF's: ``"asvspoof5"`` (default), ``"a-dcf-paper"`` or a dict (:func:`~llrcore.a_dcf`).
    percent : bool
        The t-EER in percent, its column named ``t-EER %`` (default), or a fraction named ``t-EER``.
    """
    scale, unit = (100.0, " %") if percent else (1.0, "")
    records = []
    for row in evaluation.rows:
        cm, asv = row.cm_trials, row.asv_trials
        records.append({"attack": row.attack,
                        f"t-EER{unit}": scale * t_eer(cm.tar, cm.non, asv.tar, asv.non, asv.spoof).value,
                        "min a-DCF (ASV)": a_dcf(asv.tar, asv.non, asv.spoof, cost_model=cost_model).minimum})
    return pd.DataFrame.from_records(records)
