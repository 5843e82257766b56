"""Validation of an LR method as the forensic guideline proposes it: a validation matrix, before and after calibration.

Meuwly, Ramos & Haraksim (2017) validate an LR method by its *performance characteristics*, each measured by a
*performance metric*, shown by a *graphical representation*, and judged by a *validation criterion* the laboratory
sets beforehand, with a pass/fail *decision*:

========================  ===================================  ========================  ======================
characteristic            metric                               figure                    example criterion
========================  ===================================  ========================  ======================
accuracy                  Cllr (bits)                          ECE plot                  Cllr < 0.3 bits
discriminating power      EER; Cllr_min (bits)                 DET plot; ECE plot (PAV)  EER < 5 %; < 0.2 bits
calibration               Cllr_cal (bits); devPAV (log10);     ECE plot; calibration     < 0.1 bits; < 0.5;
                          rates of misleading evidence         vs PAV; Tippett plot      < 5 % each
robustness (conditions)   largest Cllr of any condition        Cllr per condition        < 0.5 bits
========================  ===================================  ========================  ======================

**The criteria are the laboratory's decision** (the guideline: they are set before the validation, for the case type
and the data, often relative to a baseline method). The defaults of :class:`ValidationCriteria` are *examples* to be
replaced; nothing here says they suit any casework. A metric passes when its value is strictly below its criterion
(``value < criterion``; equal fails); a criterion of None is not judged.

The LLRs are judged twice: **as given**, and **after calibration** (affine logistic regression or PAV) trained by
k-fold cross-validation on the same trials (:class:`~llrcore.calibration.folds.Folds`: every trial calibrated by a calibrator
that never saw it) or on a separate development set, then **limited to the ELUB bounds** of the calibrated training
LLRs (:func:`~llrcore.forensic.elub_bounded`, Vergeer et al. 2016): an LR the training data cannot support is
reported as the bound. The validated method is the calibrated one when there is a calibration, else the LLRs as
given. The results (the matrix's rows and stages) are :mod:`llrcore.forensic.validation_results`; the criteria
:mod:`llrcore.forensic.criteria`.

References
----------
D. Meuwly, D. Ramos and R. Haraksim, "A guideline for the validation of likelihood ratio methods used for forensic
evidence evaluation", Forensic Science International 276 (2017) 142-153 (the validation matrix).
G. S. Morrison et al., "Consensus on validation of forensic voice comparison", Science & Justice 61 (2021) 299-309.
P. Vergeer et al., Science & Justice 56 (2016) 482-491 (ELUB); Forensic Science International 321 (2021) 110722
(devPAV).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..calibration.analysis import check_method, method_fitter
from ..calibration.folds import Folds, collapsed_folds, collapsed_folds_words
from ..calibration.rules import BetaRule
from ..data.trials import Trials
from .criteria import CHARACTERISTICS, METRICS, ValidationCriteria, ValidationMetric, verbal_scale_frame
from .elub import ElubBounds, elub_bounded, elub_bounds
from .validation_results import (
    AS_GIVEN,
    CALIBRATED,
    LRValidation,
    ValidationRow,
    ValidationStage,
    stage,
    validation_rows,
)

__all__ = [
    "CHARACTERISTICS",
    "METRICS",
    "LRValidation",
    "ValidationCriteria",
    "ValidationMetric",
    "ValidationRow",
    "ValidationStage",
    "validate_lr_method",
    "verbal_scale_frame",
]


def _groups(trials: Trials, group_by: str | None):
    if group_by is None:
        return None, None
    if group_by not in trials.metadata.columns:
        raise ValueError(f"The trials have no column {group_by!r} to keep in one fold; their columns are "
                         f"{', '.join(map(str, trials.metadata.columns)) or 'none'}.")
    ids = trials.metadata[group_by].to_numpy()
    return ids[: trials.tar.size], ids[trials.tar.size: trials.tar.size + trials.non.size]


def validate_lr_method(
    trials: Trials,
    *,
    calibrate: str | None = "affine",
    calibrate_on: Trials | None = None,
    criteria: ValidationCriteria | None = None,
    by: str | Sequence[str] | None = None,
    folds: int = 5,
    group_by: str | None = None,
    seed: int = 0,
    rule: BetaRule | None = None,
    plo: float = 0.0,
    elub_step: float | None = 0.01,
    name: str | None = None,
) -> LRValidation:
    """Validate an LR method on validation trials: the guideline's matrix, before and after calibration.

    Parameters
    ----------
    trials : Trials
        The validation trials' natural-log LLRs (``lc.from_log10`` for log10 LRs): same source = target (H1),
        different source = non-target (H2). For the cartridge-case data of lir, one log10 LR per line in two files::

            trials = lc.Trials(lc.from_log10(np.loadtxt("LLR_KM.csv")), lc.from_log10(np.loadtxt("LLR_KNM.csv")))

    calibrate : {"affine", "pav", "cmlg"} or None
        Affine logistic regression (``fit_affine`` with `rule`, default logarithmic, at prior log-odds `plo`), PAV
        (``fit_pav``), CMLG; None judges the LLRs as given only.
    calibrate_on : Trials, optional
        A development set to train the calibration (and its ELUB bounds) on. Without it, `folds`-fold
        cross-validation on `trials` (:class:`~llrcore.calibration.folds.Folds` with `seed`; whole `group_by` groups, e.g.
        speakers, in one fold).
    criteria : ValidationCriteria, optional
        The validation criteria. **The defaults are examples that the laboratory is expected to set** (the
        guideline makes them its decision).
    by : str or list of str, optional
        Metadata column(s) for the robustness row: the largest Cllr of any condition
        (:func:`~llrcore.evaluate_by_condition`).
    elub_step : float or None
        The ELUB grid (lir's 0.01 log10) or None for grid-free bounds (:func:`~llrcore.forensic.elub_bounds`).
    name : str, optional
        The method's name (default the Trials' name).

    Returns
    -------
    LRValidation

    Raises
    ------
    ValueError
        With a sentence, for a calibration that cannot be trained on these trials, a bad method, or a column that
        is not there.
    """
    if not isinstance(trials, Trials):
        raise TypeError("validate_lr_method takes one Trials (lc.Trials(same_source_llrs, different_source_llrs)).")
    criteria = criteria or ValidationCriteria()
    by = () if by is None else (by,) if isinstance(by, str) else tuple(by)
    missing = [column for column in by if column not in trials.metadata.columns]
    if missing:
        raise ValueError(f"The trials have no column {missing[0]!r} to break down by; their columns are "
                         f"{', '.join(map(str, trials.metadata.columns)) or 'none'}.")
    name = trials.name if name is None else name
    before = stage(AS_GIVEN, trials, by)
    after = unbounded = None
    fold_bounds: tuple[ElubBounds, ...] = ()
    n_folds, development = None, ""
    if calibrate is not None:
        fit, options = method_fitter(check_method(calibrate), rule, plo, 0.5)
        bound = {"step": elub_step}
        if calibrate_on is None:
            tar_groups, non_groups = _groups(trials, group_by)
            split = Folds.split(trials.tar.size, trials.non.size, folds, tar_groups=tar_groups,
                                non_groups=non_groups, seed=seed)
            calibrators = [fit(tar, non, **options) for tar, non in split.training_sets(trials.tar, trials.non)]
            failure = _collapsed(calibrators, n_folds=int(folds))
            bounded = [elub_bounded(c, tar, non, **bound) for c, (tar, non)
                       in zip(calibrators, split.training_sets(trials.tar, trials.non))]
            raw_llrs = split.apply(trials.tar, trials.non, calibrators)
            bounded_llrs = split.apply(trials.tar, trials.non, bounded)
            n_folds = int(folds)
        else:
            calibrator = fit(calibrate_on.tar, calibrate_on.non, **options)
            failure = _collapsed([calibrator])
            bounded = [elub_bounded(calibrator, calibrate_on.tar, calibrate_on.non, **bound)]
            raw_llrs = calibrator(trials.tar), calibrator(trials.non)
            bounded_llrs = bounded[0](trials.tar), bounded[0](trials.non)
            development = (f"{calibrate_on.name or 'the development set'} ({calibrate_on.tar.size:,} same-source and "
                           f"{calibrate_on.non.size:,} different-source trials)")
        fold_bounds = () if failure else tuple(b.bounds for b in bounded)
    if calibrate is not None and not failure:
        unbounded = dataclasses.replace(trials, tar=raw_llrs[0], non=raw_llrs[1], spoof=np.empty(0),
                                        metadata=_without_spoof(trials), name=f"{name} (calibrated)")
        after = stage(CALIBRATED, dataclasses.replace(unbounded, tar=bounded_llrs[0], non=bounded_llrs[1]), by)
    return LRValidation(
        name=name, before=before, after=after, unbounded=unbounded, method=None if calibrate is None else calibrate,
        folds=n_folds, development=development, fold_bounds=fold_bounds, bounds=elub_bounds(trials, step=elub_step),
        criteria=criteria, by=by, rows=validation_rows(before, after, criteria, by), seed=seed,
        calibration_failure=failure if calibrate is not None else "",
    )


def _collapsed(calibrators, n_folds: int | None = None) -> str:
    """Why the calibration failed (:attr:`~llrcore.Affine.failure` of a collapsed fit, in any fold); "" if not."""
    folds = collapsed_folds(calibrators)
    if not folds:
        return ""
    where = f"in cross-validation {collapsed_folds_words(folds, n_folds)} " if n_folds else ""
    return f"the calibration collapsed {where}— {calibrators[folds[0] - 1].failure}"


def _without_spoof(trials: Trials) -> pd.DataFrame:
    """The metadata rows of the target and non-target trials (spoof trials are not part of a forensic validation)."""
    return trials.metadata.iloc[: trials.tar.size + trials.non.size].reset_index(drop=True)
