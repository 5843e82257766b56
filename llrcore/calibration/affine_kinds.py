"""The affine calibrations that are more than one :class:`~llrcore.Affine`: one per condition of the trials, and one
whose features include quality measures (QMF). Each function returns one type; :func:`~llrcore.fit_affine` fits the
single affine calibration ``llr = a s + b`` that both build on.

References
----------
N. Brümmer and G. Doddington, "Likelihood-ratio calibration using prior-weighted proper scoring rules",
Interspeech 2013 (the objective; calibrations trained separately for male and female trials, sec. 5).
"""
from __future__ import annotations

from collections.abc import Sequence

from ..data.trials import Trials
from .conditional import ConditionalCalibration
from .fit import fit_affine, fit_fusion
from .quality import QualityCalibration, fit_quality
from .rules import BetaRule

__all__ = ["fit_affine_by_condition", "fit_quality_affine"]


def fit_affine_by_condition(trials: Trials, by: str | Sequence[str], *, rule: BetaRule | None = None,
                            plo: float = 0.0) -> ConditionalCalibration:
    """One affine calibration per condition of `trials`, and one on all of them pooled.

    For each condition ``c`` (a value of the column `by`, or a combination of values of several), ``llr = a_c s +
    b_c`` minimises the objective of `rule` at prior weighting `plo` on that condition's trials alone
    (:func:`~llrcore.fit_affine`); the pooled calibration serves trials of no condition or of one unseen in training.

    Parameters
    ----------
    trials : Trials
        The training trials, with metadata.
    by : str or list of str
        The metadata column(s) of the conditions (crossed when several).
    rule : BetaRule, optional
        The proper scoring rule; logarithmic by default.
    plo : float
        Prior weighting ``tau``.

    Returns
    -------
    ConditionalCalibration
        Called on Trials, it reads each trial's condition from their metadata.
    """
    if not isinstance(trials, Trials):
        raise TypeError("A calibration per condition needs one Trials with metadata, as "
                        f"fit_affine_by_condition(trials, by=...), not a {type(trials).__name__}.")
    return ConditionalCalibration.fit(trials, by, fit_affine, rule=rule, plo=plo)


def fit_quality_affine(trials: Trials, quality: Sequence[str] | None, *,
                       bilinear: Sequence[tuple[str, str]] | None = None, rule: BetaRule | None = None,
                       plo: float = 0.0) -> QualityCalibration:
    """Affine calibration with quality measures (QMF): ``llr = w s + sum_j v_j q_j + sum_(i, j) u_ij qm_i qt_j + b``
    minimising the objective of `rule` at prior weighting `plo` (:mod:`llrcore.calibration.quality`).

    Parameters
    ----------
    trials : Trials
        The training trials, whose metadata hold the measures.
    quality : list of str
        Metadata columns taken as features (durations, embedding magnitudes, ...; :func:`~llrcore.pair_quality`).
    bilinear : list of (str, str), optional
        Pairs of a model-side and a test-side measure whose products are features too (BOSARIS's quality fuser).
    rule : BetaRule, optional
        The proper scoring rule; logarithmic by default.
    plo : float
        Prior weighting ``tau``.

    Returns
    -------
    QualityCalibration
        Called on Trials that carry the same metadata columns.
    """
    return fit_quality(fit_fusion, trials, rule=rule, plo=plo, quality=quality, bilinear=bilinear)
