"""Forensic validation of LR systems: Tippett plots, empirical cross-entropy, ELUB bounds, devPAV, the verbal scale.

Natural-log LLRs in, as everywhere in llrcore; ``log10 LR`` where forensic users read it (:func:`to_log10`,
:func:`from_log10`). Each analysis takes one :class:`~llrcore.Trials` or the same-source (target, H1) and
different-source (non-target, H2) LLRs as two arrays.

- :mod:`.tippett` — :func:`tippett`: proportions of LLRs at or above each value per class, rates of misleading
  evidence.
- :mod:`.ece` — :func:`ece` at a prior, :func:`ece_curve` (system, PAV-calibrated, neutral reference; ``ECE(0) =
  Cllr``).
- :mod:`.elub` — :func:`elub_bounds` (Vergeer et al. 2016; lir's grid by default, grid-free on request) and
  :func:`elub_bounded`, any fitted calibration limited to them.
- :mod:`.devpav` — :func:`devpav` (Vergeer et al. 2021) and :func:`cllr_cal`.
- :mod:`.verbal` — :func:`verbal_scale`, the ENFSI (2015) verbal equivalents.
- :mod:`.units` — natural log <-> log10.
- :mod:`.validation` — :func:`validate_lr_method`: the validation matrix of Meuwly, Ramos & Haraksim (2017) before and
  after a cross-validated, ELUB-bounded calibration, against :class:`ValidationCriteria` the laboratory sets; its
  results (:class:`LRValidation`, its rows and stages) in :mod:`.validation_results`, the criteria in :mod:`.criteria`.

The NFI's ``lir`` (1.3) is the reference of the tests: the ELUB bounds and devPAV agree with it on real data, and
each module says where and why a definition here departs from it.
"""
from .devpav import cllr_cal, devpav
from .ece import DEFAULT_PRIOR_LOG10_ODDS, ECECurve, ece, ece_curve
from .elub import ElubBounded, ElubBounds, elub_bounded, elub_bounds
from .tippett import Tippett, tippett
from .units import LN10, from_log10, to_log10
from .validation import LRValidation, ValidationCriteria, ValidationRow, ValidationStage, validate_lr_method
from .verbal import VERBAL_BANDS, verbal_scale, verbal_scale_table

__all__ = [
    "DEFAULT_PRIOR_LOG10_ODDS",
    "ECECurve",
    "ElubBounded",
    "ElubBounds",
    "LN10",
    "LRValidation",
    "Tippett",
    "VERBAL_BANDS",
    "ValidationCriteria",
    "ValidationRow",
    "ValidationStage",
    "cllr_cal",
    "devpav",
    "ece",
    "ece_curve",
    "elub_bounded",
    "elub_bounds",
    "from_log10",
    "tippett",
    "to_log10",
    "validate_lr_method",
    "verbal_scale",
    "verbal_scale_table",
]
