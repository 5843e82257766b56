"""Why a trained calibration is degenerate, in sentences for the user: :func:`calibration_problems`.

A diverging scale (close to a step function), Cllr above 1 bit on the training or the evaluation trials, and the
thin-tailed rule that lets a fit make a few trials certain and wrong, each measured.

Reference
---------
N. Brümmer and G. Doddington, "Likelihood-ratio calibration using prior-weighted proper scoring rules",
Interspeech 2013 (thin tails, low priors).
"""
from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np

from ..binary.costs import cllr_bits
from ..data.trials import Trials
from .calibrators import Affine
from .cmlg import fit_cmlg
from .rules import BetaRule

__all__ = ["STEP_SCALE_RATIO", "calibration_problems"]

#: An affine calibration whose scale is this many times that of the closed-form Gaussian one is close to a step.
STEP_SCALE_RATIO = 10.0


def calibration_problems(calibrator: Callable[[np.ndarray], np.ndarray], train: Trials,
                         evaluation_cllr: float | None = None, *, rule: BetaRule | None = None) -> tuple[str, ...]:
    """Why a trained calibration is degenerate, in sentences for the user; empty when nothing is wrong.

    Three signs, each measured, and one cause:

    - a **diverging scale**: an affine calibration whose scale is more than :data:`STEP_SCALE_RATIO` times that of
      the closed-form Gaussian calibration of the same training trials (:func:`~llrcore.calibration.cmlg.fit_cmlg`) is
      close to a step function: it calls most trials certain. (Sensible fits of any rule stay within a factor of
      about 2 of it on the demo sets; the degenerate ones are hundreds of times steeper.)
    - **Cllr above 1 bit on the training trials**: the calibrated LLRs do worse than no system (LLR 0) on the very
      trials they were trained on;
    - **Cllr above 1 bit on the evaluation trials** (`evaluation_cllr`);
    - and, when any of these shows, a **thin-tailed rule**: with ``alpha > 1`` a target with an arbitrarily low LLR
      costs the objective at most ``(alpha + beta - 1) / (alpha - 1)`` (:attr:`~llrcore.BetaRule.max_target_cost`;
      symmetrically ``beta > 1`` for non-targets), so the fit can make a few trials certain and wrong.

    Brümmer & Doddington (2013) warn that rules with thin tails, weighted for low priors, look only at few training
    trials; these checks say when that happened.

    Parameters
    ----------
    calibrator : callable
        The trained calibration, scores to natural-log LLRs (the scale check applies to an :class:`~llrcore.Affine`).
    train : Trials
        The training trials it was fitted on.
    evaluation_cllr : float, optional
        Its Cllr in bits on the evaluation trials, when known.
    rule : BetaRule, optional
        The scoring rule it was trained with, to name a thin tail as the cause.

    Returns
    -------
    tuple of str
        One sentence per problem found, empty when nothing is wrong.
    """
    problems = []
    if isinstance(calibrator, Affine):
        try:
            with warnings.catch_warnings():  # a collapse of the reference is not the user's fit's: no warning
                warnings.simplefilter("ignore", RuntimeWarning)
                reference = fit_cmlg(train.tar, train.non)
            gaussian = np.nan if reference.collapsed else reference.scale
        except ValueError:  # no spread in a class: no Gaussian reference
            gaussian = np.nan
        if np.isfinite(gaussian) and gaussian != 0 and abs(calibrator.scale) > STEP_SCALE_RATIO * abs(gaussian):
            problems.append(
                f"The calibration is close to a step function: its scale {calibrator.scale:.3g} is "
                f"{abs(calibrator.scale / gaussian):.0f} times that of the Gaussian (CMLG) calibration of the same "
                "training trials, so it calls most trials certain."
            )
    train_cllr = cllr_bits(calibrator(train.tar), calibrator(train.non))
    if not train_cllr < 1.0:
        problems.append(f"On its own training trials the calibrated LLRs have Cllr {train_cllr:.3g} bits: worse than "
                        "no system at all (1 bit).")
    if evaluation_cllr is not None and not evaluation_cllr < 1.0:
        problems.append(f"On the evaluation trials Cllr is {evaluation_cllr:.3g} bits: worse than no system at all "
                        "(1 bit).")
    if problems and rule is not None:
        problems += _thin_tails(rule)
    return tuple(problems)


def _thin_tails(rule: BetaRule) -> list[str]:
    sentences = []
    for tail, value, bound, trials, side in (("α", rule.alpha, rule.max_target_cost, "target", "low"),
                                             ("β", rule.beta, rule.max_non_cost, "non-target", "high")):
        if np.isfinite(bound):
            sentences.append(
                f"The rule ({rule.alpha:g}, {rule.beta:g}) has a thin tail ({tail} = {value:g} > 1): a {trials} trial "
                f"given an extremely {side} LLR costs it at most {bound:.3g}, so the fit may make some trials certain "
                "and wrong. The logarithmic rule (1, 1) has no such limit."
            )
    return sentences
