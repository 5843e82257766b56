"""What a validation of an LR method returns: the validation matrix as results (:class:`LRValidation`, one
:class:`ValidationRow` per performance metric, one :class:`ValidationStage` per stage: as given and after
calibration), made by :func:`~llrcore.forensic.validation.validate_lr_method`.

Reference
---------
D. Meuwly, D. Ramos and R. Haraksim, "A guideline for the validation of likelihood ratio methods used for forensic
evidence evaluation", Forensic Science International 276 (2017) 142-153 (the validation matrix).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..binary.metrics import eer
from ..data.trials import Trials
from ..uncertainty.conditions import Condition, ConditionMetrics, evaluate_by_condition
from .criteria import METRICS, ValidationCriteria, ValidationMetric, check_units, format_value
from .devpav import devpav
from .ece import ECECurve, ece_curve
from .elub import ElubBounds
from .tippett import Tippett, tippett
from .units import LN10, from_log10
from .verbal import verbal_scale

__all__ = ["AS_GIVEN", "CALIBRATED", "LRValidation", "ValidationRow", "ValidationStage", "stage", "validation_rows"]

AS_GIVEN, CALIBRATED = "as given", "after calibration"


@dataclass(frozen=True)
class ValidationStage:
    """Every metric of one set of LLRs (as given, or after calibration), with its Tippett and ECE results.

    Attributes
    ----------
    label : str
        ``"as given"`` or ``"after calibration"``.
    trials : Trials
        The LLRs judged (natural log; metadata kept).
    cllr, min_cllr, cllr_cal : float
        Bits (``lc.cllr``, ``lc.min_cllr``, their difference).
    eer : float
        ROCCH-EER, a fraction.
    devpav : float
        log10 units (:func:`~llrcore.forensic.devpav`).
    tippett : Tippett
        Tippett curves and the rates of misleading evidence.
    ece : ECECurve
        The ECE plot's curves.
    conditions : ConditionMetrics or None
        Metrics per condition (with ``by=``).
    """

    label: str
    trials: Trials
    cllr: float
    min_cllr: float
    cllr_cal: float
    eer: float
    devpav: float
    tippett: Tippett
    ece: ECECurve
    conditions: ConditionMetrics | None = None

    @property
    def worst_condition(self) -> Condition | None:
        """The condition with the largest Cllr (None without a breakdown or when no condition has both classes)."""
        if self.conditions is None:
            return None
        scored = [(row, row.metrics) for row in self.conditions.conditions if row.metrics is not None]
        return max(scored, key=lambda scored_row: scored_row[1].cllr)[0] if scored else None

    def value(self, key: str) -> float:
        """The value of the metric `key` of :data:`METRICS` (NaN for robustness without conditions)."""
        if key == "misleading_same_source":
            return self.tippett.misleading_same_source
        if key == "misleading_different_source":
            return self.tippett.misleading_different_source
        if key == "condition_cllr":
            worst = self.worst_condition
            return np.nan if worst is None or worst.metrics is None else float(worst.metrics.cllr)
        return float(getattr(self, key))


def stage(label: str, trials: Trials, by: tuple[str, ...]) -> ValidationStage:
    table = trials.sorted
    cllr, min_cllr = float(table.cllr()), float(table.min_cllr())
    return ValidationStage(
        label=label, trials=trials, cllr=cllr, min_cllr=min_cllr, cllr_cal=cllr - min_cllr, eer=float(eer(trials)),
        devpav=float(devpav(trials)), tippett=tippett(trials, name=label), ece=ece_curve(trials, name=label),
        conditions=evaluate_by_condition(trials, by) if by else None,
    )


def _passes(value: float, criterion: float | None) -> bool | None:
    """True/False when judged (NaN never passes), None when the criterion is not set or there is no value."""
    if criterion is None:
        return None
    return bool(value < criterion)


@dataclass(frozen=True)
class ValidationRow:
    """One row of the validation matrix.

    Attributes
    ----------
    metric : ValidationMetric
    criterion : float or None
        The upper limit (None: not judged).
    before, after : float
        The value for the LLRs as given and after calibration (``after`` NaN without calibration).
    condition : str
        For robustness, the condition with the largest Cllr of the validated LLRs ("" otherwise).
    validated : str
        Which LLRs the decision is about: ``"after calibration"`` or ``"as given"``.
    """

    metric: ValidationMetric
    criterion: float | None
    before: float
    after: float
    condition: str = ""
    validated: str = CALIBRATED

    @property
    def value(self) -> float:
        """The value of the validated LLRs."""
        return self.after if self.validated == CALIBRATED else self.before

    @property
    def passes_before(self) -> bool | None:
        return _passes(self.before, self.criterion)

    @property
    def passes_after(self) -> bool | None:
        return None if self.validated == AS_GIVEN else _passes(self.after, self.criterion)

    @property
    def passes(self) -> bool | None:
        """The decision for the validated LLRs: True (pass), False (fail) or None (no criterion set)."""
        return _passes(self.value, self.criterion)

    @property
    def decision(self) -> str:
        """``"pass"``, ``"fail"`` or ``"not judged"``."""
        return {True: "pass", False: "fail", None: "not judged"}[self.passes]

    def criterion_text(self, units: str = "log10") -> str:
        """The criterion in words, e.g. ``"< 0.3 bits"``, ``"< 5 %"``; ``"not set"``."""
        if self.criterion is None:
            return "not set"
        unit, limit = self.metric.unit, self.criterion
        if unit == "%":
            return f"< {100 * limit:g} %"
        if unit == "log10":
            return f"< {limit:g} (log10)" if units == "log10" else f"< {from_log10(limit):.3g} (ln)"
        return f"< {limit:g} bits"


@dataclass(frozen=True)
class LRValidation:
    """The validation of one LR method: the LLRs before and after calibration, the ELUB bounds and the matrix.

    Build it with :func:`validate_lr_method`; judge it against other criteria with :meth:`with_criteria` (nothing is
    recomputed).

    Attributes
    ----------
    name : str
    before : ValidationStage
        The LLRs as given.
    after : ValidationStage or None
        The calibrated, ELUB-bounded LLRs (None without calibration).
    unbounded : Trials or None
        The calibrated LLRs before the ELUB bounds were applied (cross-validated: equal to
        :func:`~llrcore.cross_calibrate`'s with the same folds and seed).
    method : str or None
        ``"affine"`` (logistic regression), ``"pav"``, ``"cmlg"`` or None.
    folds : int or None
        Number of cross-validation folds; None when trained on a development set (or no calibration).
    development : str
        The development set's name and size in words ("" under cross-validation).
    fold_bounds : tuple of ElubBounds
        The ELUB bounds applied: one per fold (those of its training folds' calibrated LLRs), or one of the
        development set.
    bounds : ElubBounds
        The ELUB bounds of the LLRs as given.
    criteria : ValidationCriteria
    by : tuple of str
        The metadata columns of the robustness row.
    rows : tuple of ValidationRow
    calibration_failure : str
        Why the calibration failed (a collapsed fit, :attr:`~llrcore.Affine.failure`); then there is no `after`
        stage and the LLRs are judged as given. Empty when it did not.
    """

    name: str
    before: ValidationStage
    after: ValidationStage | None
    unbounded: Trials | None
    method: str | None
    folds: int | None
    development: str
    fold_bounds: tuple[ElubBounds, ...]
    bounds: ElubBounds
    criteria: ValidationCriteria
    by: tuple[str, ...]
    rows: tuple[ValidationRow, ...]
    seed: int = 0
    calibration_failure: str = ""

    @property
    def calibrated(self) -> bool:
        return self.after is not None

    @property
    def validated(self) -> ValidationStage:
        """The LLRs the decisions are about: after calibration when there is one, else as given."""
        return self.after if self.after is not None else self.before

    @property
    def passed(self) -> bool:
        """True when every judged row passes."""
        return all(row.passes is not False for row in self.rows)

    @property
    def failed(self) -> list[ValidationRow]:
        return [row for row in self.rows if row.passes is False]

    @property
    def judged(self) -> int:
        """How many criteria were set (rows with a decision)."""
        return sum(row.passes is not None for row in self.rows)

    @property
    def verdict(self) -> str:
        """The decision in words: ``"passes every criterion set"``, or ``"does not pass 1 of the 5 criteria set:
        Cllr (accuracy)"``."""
        if self.passed:
            return "passes every criterion set"
        failed = [f"{row.metric.name} ({row.metric.characteristic})" for row in self.failed]
        return f"does not pass {len(failed)} of the {self.judged} criteria set: {', '.join(failed)}"

    def sentence(self) -> str:
        """The decision and the LRs it is about, e.g. ``"With the LRs after calibration (logistic-regression (affine)
        calibration, ...), the method passes every criterion set."``"""
        which = CALIBRATED if self.calibrated else AS_GIVEN
        return f"With the LRs {which} ({self.calibration_words}), the method {self.verdict}."

    @property
    def calibration_words(self) -> str:
        """The calibration in words, e.g. ``"logistic-regression (affine) calibration, trained by 5-fold
        cross-validation on these same trials, limited to the ELUB bounds"``."""
        if self.method is None:
            return "no calibration: the LRs are judged as given"
        if self.calibration_failure:  # why, in full, is in calibration_failure; here its first clause
            return f"no calibration: {self.calibration_failure.split(' — ')[0]}; the LRs are judged as given"
        how = {"affine": "logistic-regression (affine)", "pav": "PAV (monotone)", "cmlg": "Gaussian (CMLG)"}
        trained = (f"trained by {self.folds}-fold cross-validation on these same trials" if self.folds
                   else f"trained on {self.development}")
        return f"{how[self.method]} calibration, {trained}, limited to the ELUB bounds of its training data"

    def with_criteria(self, criteria: ValidationCriteria) -> LRValidation:
        """The same validation judged against other criteria."""
        return dataclasses.replace(self, criteria=criteria,
                                   rows=validation_rows(self.before, self.after, criteria, self.by))

    def row(self, key: str) -> ValidationRow:
        return next(row for row in self.rows if row.metric.key == key)

    def to_frame(self, units: str = "log10") -> pd.DataFrame:
        """The validation matrix, one row per metric: ``characteristic``, ``metric``, ``figure``, ``criterion``
        (words), ``as given``, ``after calibration`` (values with units; devPAV in `units`), ``decision`` (pass,
        fail, not judged, for the validated LLRs), and the numbers ``value``, ``limit`` (devPAV in log10 units,
        rates and EER as fractions)."""
        check_units(units)
        records = []
        for row in self.rows:
            unit = row.metric.unit
            name = row.metric.name + (f" ({row.condition})" if row.condition else "")
            records.append({
                "characteristic": row.metric.characteristic, "metric": name, "figure": row.metric.figure,
                "criterion": row.criterion_text(units), AS_GIVEN: format_value(row.before, unit, units),
                CALIBRATED: format_value(row.after, unit, units), "decision": row.decision, "value": row.value,
                "limit": np.nan if row.criterion is None else row.criterion,
            })
        frame = pd.DataFrame.from_records(records)
        return frame if self.calibrated else frame.drop(columns=[CALIBRATED])

    def bounds_frame(self, units: str = "log10") -> pd.DataFrame:
        """The ELUB bounds: of the LLRs as given, then those the calibration applied (per fold or of the
        development set): ``bounds of``, ``lower``, ``upper`` (in `units`), ``lower LR``, ``upper LR``, and the
        verbal equivalent of the upper bound."""
        check_units(units)
        labelled = [(f"the LLRs {AS_GIVEN}", self.bounds)]
        if self.folds:
            labelled += [(f"calibration of fold {i + 1} (its training folds)", b) for i, b in
                         enumerate(self.fold_bounds)]
        elif self.fold_bounds:
            labelled += [("calibration (the development set)", self.fold_bounds[0])]
        rows = []
        for label, bounds in labelled:
            lower, upper = ((bounds.lower_log10, bounds.upper_log10) if units == "log10"
                            else (bounds.lower, bounds.upper))
            with np.errstate(over="ignore"):
                rows.append({"bounds of": label, "lower": lower, "upper": upper, "lower LR": 10.0 ** bounds.lower_log10,
                             "upper LR": 10.0 ** bounds.upper_log10,
                             "largest LR in words": verbal_scale(bounds.upper)})
        return pd.DataFrame(rows)

    def misleading_frame(self) -> pd.DataFrame:
        """The rates of misleading evidence, as given and after calibration: ``LLRs``, ``class``, ``misleading``
        (count), ``trials``, ``rate`` (a fraction)."""
        stages = [self.before] + ([self.after] if self.after is not None else [])
        return pd.concat([stage.tippett.misleading_frame().assign(LLRs=stage.label) for stage in stages],
                         ignore_index=True)[["LLRs", "class", "misleading", "trials", "rate"]]

    def metrics_frame(self, units: str = "log10") -> pd.DataFrame:
        """The numbers of both stages side by side: Cllr, Cllr_min, Cllr_cal (bits), EER (%), devPAV (in
        `units`), rates of misleading evidence (%)."""
        check_units(units)
        stages = [self.before] + ([self.after] if self.after is not None else [])
        scale = 1.0 if units == "log10" else LN10
        return pd.DataFrame({
            "LLRs": [s.label for s in stages], "Cllr (bits)": [s.cllr for s in stages],
            "Cllr_min (bits)": [s.min_cllr for s in stages], "Cllr_cal (bits)": [s.cllr_cal for s in stages],
            "EER %": [100 * s.eer for s in stages], f"devPAV ({units})": [scale * s.devpav for s in stages],
            "misleading same source %": [100 * s.tippett.misleading_same_source for s in stages],
            "misleading different source %": [100 * s.tippett.misleading_different_source for s in stages],
        })


def validation_rows(before: ValidationStage, after: ValidationStage | None, criteria: ValidationCriteria,
          by: tuple[str, ...]) -> tuple[ValidationRow, ...]:
    validated = after if after is not None else before
    rows = []
    for metric in METRICS:
        if metric.key == "condition_cllr" and not by:
            continue
        worst = validated.worst_condition if metric.key == "condition_cllr" else None
        rows.append(ValidationRow(metric, getattr(criteria, metric.key), before.value(metric.key),
                                  np.nan if after is None else after.value(metric.key),
                                  worst.label if worst is not None else "",
                                  CALIBRATED if after is not None else AS_GIVEN))
    return tuple(rows)
