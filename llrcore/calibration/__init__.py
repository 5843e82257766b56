"""Calibration: scores -> LLRs, trained on development trials with a proper scoring rule.

- :mod:`.rules` — the Beta family of proper scoring rules, prior weighting, the effective threshold weighting.
- :mod:`.weighting` — that weighting over LLR thresholds as a result (the scoring-rule paper's figure 1).
- :mod:`.newton` — the solver of every fit: exact-Hessian trust region, then Newton steps.
- :mod:`.fit` — ``fit_affine`` (any rule, quality measures) and ``fit_fusion``; their objective in :mod:`.fit_objective`.
- :mod:`.cmlg`, :mod:`.pav` — ``fit_cmlg`` (closed-form Gaussian) and ``fit_pav`` (monotone, non-parametric).
- :mod:`.warm` — many affine fits on one set, each started from a nearby one (the sweeps).
- :mod:`.calibrators` — what the fits return: affine, linear fusion and PAV calibrators.
- :mod:`.saved` — every calibrator saved as JSON (``to_json()``, schema ``llrcore.calibrator/1``) and read back.
- :mod:`.checks` — far scores set aside, fits that collapse said as failed.
- :mod:`.fusion` — several systems on the same trials fused and compared with each alone.
- :mod:`.quality` — quality measures (duration, SNR, ...) from the trials' metadata as features of the fit (QMF).
- :mod:`.folds` — k-fold cross-validated calibration.
- :mod:`.conditional`, :mod:`.conditions` — one calibration per condition, and whether it beats one pooled.
- :mod:`.analysis` — a calibration judged honestly: train on development trials, evaluate elsewhere.
- :mod:`.problems` — why a trained calibration is degenerate, in sentences.
- :mod:`.sweep` — the prior-weighting sweep over scoring rules (fig. 2 of Brümmer & Doddington 2013).

Stands on :mod:`llrcore.binary`. Score normalisation is a package of its own, :mod:`llrcore.normalization` (its old
path here answers for one release). The old module ``llrcore.calibration`` is :mod:`.fit` (with :mod:`.cmlg`,
:mod:`.pav` and :mod:`.warm`) now; its names still answer here for one release, with a DeprecationWarning.
"""
from .._moved import forwarding

__getattr__ = forwarding("calibration")
