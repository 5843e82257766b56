"""One calibration per condition: each trial calibrated by the calibration trained on its condition's trials.

:func:`~llrcore.fit_affine_by_condition` makes a :class:`ConditionalCalibration` (any fit function can, through
:meth:`ConditionalCalibration.fit`); :func:`~llrcore.calibrate_by_condition` judges it against one pooled
calibration on evaluation trials.

References
----------
N. Brümmer and G. Doddington, "Likelihood-ratio calibration using prior-weighted proper scoring rules",
Interspeech 2013, sec. 5 (calibrations trained separately for male and female trials).
"""
from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..data.trials import Trials, condition_codes
from .calibrators import Affine, Fusion, PAVCalibrator
from .saved import Saved, dumps

__all__ = ["ConditionalCalibration"]

#: The calibrators a condition may have in a saved calibration, by kind.
_SAVED_KINDS = {cls.KIND: cls for cls in (Affine, Fusion, PAVCalibrator)}


@dataclass(frozen=True)
class ConditionalCalibration:
    """One calibration per condition, each trial calibrated by that of its condition; a pooled one for the rest.

    For a trial ``i`` with score ``s_i`` in condition ``c(i)`` (its values of the metadata columns :attr:`by`) the
    LLR is ``f_c(i)(s_i)``, where ``f_c`` was trained on the training trials of condition ``c`` alone (for an affine
    calibration ``f_c(s) = a_c s + b_c``, :func:`fit_affine`). A trial with no value in a column (empty, NaN or
    ``"-"``) or of a condition that had no calibration of its own in training gets the :attr:`pooled` calibration,
    trained on all the training trials. Make one with ``fit_affine_by_condition(trials, "gender")`` or :meth:`fit`; call it
    on Trials (:meth:`apply`).

    Attributes
    ----------
    by : tuple of str
        The metadata columns.
    calibrators : dict
        ``{(value, ...): calibrator}``, the values as text in the order of :attr:`by`, for every condition of
        the training trials that could be calibrated on its own.
    pooled : callable
        The calibration of all the training trials.
    untrained : dict
        ``{(value, ...): reason}`` for the training conditions without a calibration of their own (one class only,
        or a fit that failed, e.g. on separated classes): their trials get the pooled one.
    counts : dict
        ``{(value, ...): (targets, non-targets)}`` of each training condition, in the order of
        :meth:`~llrcore.Trials.split` (trials with no value count in every condition, as there).
    pooled_counts : tuple of int
        The targets and non-targets the pooled calibration was trained on.

    References
    ----------
    N. Brümmer and G. Doddington, "Likelihood-ratio calibration using prior-weighted proper scoring rules",
    Interspeech 2013, sec. 5 (calibrations trained separately for male and female trials).
    """

    by: tuple[str, ...]
    calibrators: dict
    pooled: Callable
    untrained: dict = dataclasses.field(default_factory=dict)
    counts: dict = dataclasses.field(default_factory=dict)
    pooled_counts: tuple[int, int] = (0, 0)

    @classmethod
    def fit(cls, trials: Trials, by: str | Sequence[str], fit: Callable, **options) -> ConditionalCalibration:
        """Train ``fit(tar, non, **options)`` (e.g. :func:`~llrcore.fit_affine`) on each condition of `trials` and on
        all of them pooled.

        Raises
        ------
        KeyError
            When the trials have no such column.
        ValueError
            When the pooled calibration cannot be trained (a condition that cannot is recorded in
            :attr:`untrained` instead).
        """
        by = _columns_of(by)
        pooled = fit(trials.tar, trials.non, **options)
        calibrators, untrained, counts = {}, {}, {}
        for values, subset in trials.split(by):
            key = tuple(values[column] for column in by)
            if subset is None:
                counts[key], untrained[key] = (0, 0), "only one class of trials in training"
                continue
            counts[key] = (subset.tar.size, subset.non.size)
            try:
                calibrators[key] = fit(subset.tar, subset.non, **options)
            except ValueError as err:
                untrained[key] = str(err)
        return cls(by=by, calibrators=calibrators, pooled=pooled, untrained=untrained, counts=counts,
                   pooled_counts=(trials.tar.size, trials.non.size))

    def key(self, values) -> tuple[str, ...]:
        """A condition as the key of :attr:`calibrators`: from ``{column: value}``, a tuple, or one value."""
        if isinstance(values, dict):
            values = tuple(values[column] for column in self.by)
        elif not isinstance(values, tuple):
            values = (values,)
        if len(values) != len(self.by):
            raise ValueError(f"A condition has a value for each of {', '.join(self.by)}; got {values!r}.")
        return tuple(str(value).strip() for value in values)

    def has_own(self, values) -> bool:
        """Whether condition `values` has a calibration of its own (else the pooled one serves it)."""
        return self.key(values) in self.calibrators

    def calibrator(self, values) -> Callable:
        """The calibration of condition `values` (``{column: value}``, a tuple, or one value): its own, or the
        pooled one."""
        return self.calibrators.get(self.key(values), self.pooled)

    def llrs(self, scores, metadata: pd.DataFrame) -> np.ndarray:
        """The LLRs of `scores`, each by the calibration of its condition in the same row of `metadata`."""
        scores = np.asarray(scores, dtype=np.float64)
        if len(metadata) != scores.size:
            raise ValueError(f"There are {scores.size:,} scores but {len(metadata):,} rows of metadata.")
        missing = [column for column in self.by if column not in metadata.columns]
        if missing:
            raise KeyError(f"The trials have no column {missing[0]!r}, which this calibration is by; their columns "
                           f"are {', '.join(map(str, metadata.columns)) or 'none'}.")
        codes, values = zip(*(condition_codes(metadata[column]) for column in self.by))
        codes = np.column_stack(codes)
        llr = np.asarray(self.pooled(scores), dtype=np.float64).copy()
        known = np.flatnonzero((codes >= 0).all(axis=1))
        if known.size == 0:
            return llr
        found, inverse = np.unique(codes[known], axis=0, return_inverse=True)
        for k, combination in enumerate(found):
            calibrator = self.calibrators.get(tuple(v[c] for v, c in zip(values, combination)))
            if calibrator is not None:
                rows = known[inverse.reshape(-1) == k]
                llr[rows] = calibrator(scores[rows])
        return llr

    def apply(self, trials: Trials, name: str | None = None) -> Trials:
        """`trials` calibrated, each trial (spoof trials too) by the calibration of its condition; metadata kept.

        Trials with no value in a column of :attr:`by`, or of a condition not calibrated in training, get the
        pooled calibration.
        """
        scores = np.concatenate([trials.tar, trials.non, trials.spoof])
        llr = self.llrs(scores, trials.metadata)
        cut = np.cumsum([trials.tar.size, trials.non.size])
        tar, non, spoof = np.split(llr, cut)
        return dataclasses.replace(trials, tar=tar, non=non, spoof=spoof, name=trials.name if name is None else name)

    __call__ = apply

    KIND = "conditional"

    def to_json(self, *, rule=None, plo: float | None = None) -> str:
        """The calibration as JSON text (schema ``llrcore.calibrator/1``, docs/calibration.md): coefficients ``by``,
        ``pooled`` (a calibrator's ``kind`` and ``coefficients``) and ``conditions``, one per training condition
        (``values`` in the order of ``by``, its ``calibrator`` or null, its counts and the ``note`` of why it has
        none); the recipe of the fits when known."""
        conditions = [{"values": list(key), "calibrator": _inner(self.calibrators.get(key), key),
                       "targets": self.counts.get(key, (0, 0))[0], "non_targets": self.counts.get(key, (0, 0))[1],
                       "note": self.untrained.get(key, "")}
                      for key in dict.fromkeys([*self.counts, *self.calibrators, *self.untrained])]
        coefficients = {"by": self.by, "pooled": _inner(self.pooled, ("pooled",)), "conditions": conditions}
        return dumps(self.KIND, "llr", coefficients, features=["score", *self.by], rule=rule, plo=plo,
                     training={"pooled_counts": self.pooled_counts})

    @classmethod
    def from_saved(cls, document: Saved) -> ConditionalCalibration:
        """The calibration of a saved document (:func:`llrcore.load_calibrator`)."""
        coefficients = document.part("coefficients")
        by = coefficients.names("by")
        conditions = coefficients.fields.get("conditions")
        if not isinstance(conditions, list) or not all(isinstance(c, dict) for c in conditions):
            raise ValueError(f"In {document.what}, 'coefficients.conditions' must be a list of JSON objects.")
        calibrators, untrained, counts = {}, {}, {}
        for i, fields in enumerate(conditions):
            condition = Saved(fields, document.what, f"coefficients.conditions[{i}].", document.kind)
            key = condition.names("values")
            if len(key) != len(by):
                raise ValueError(f"In {document.what}, condition {i + 1} has {len(key)} values for the {len(by)} "
                                 f"columns of 'by'.")
            counts[key] = (int(condition.number("targets", 0)), int(condition.number("non_targets", 0)))
            if fields.get("calibrator") is None:
                untrained[key] = str(fields.get("note", ""))
            else:
                calibrators[key] = _outer(condition.part("calibrator"))
        pooled_counts = document.training.vector("pooled_counts", size=2, default=np.zeros(2))
        return cls(by=by, calibrators=calibrators, pooled=_outer(coefficients.part("pooled")), untrained=untrained,
                   counts=counts, pooled_counts=(int(pooled_counts[0]), int(pooled_counts[1])))

    def to_frame(self) -> pd.DataFrame:
        """One row per training condition, then ``pooled``: the condition columns, ``targets``, ``non-targets``,
        ``own calibration`` (False: the pooled one serves it), ``scale`` and ``offset`` (affine calibrations) and
        ``note`` (why a condition has none of its own)."""
        affine = hasattr(self.pooled, "scale")  # an Affine: its scale and offset go in the table
        rows = [(dict(zip(self.by, key)), counts, self.calibrators.get(key), self.untrained.get(key, ""))
                for key, counts in self.counts.items()]
        records = []
        for values, (n_tar, n_non), calibrator, note in [*rows, ({}, self.pooled_counts, self.pooled, "")]:
            record = {**{column: values.get(column, "pooled") for column in self.by},
                      "targets": n_tar, "non-targets": n_non, "own calibration": calibrator is not None}
            if affine:
                used: Any = calibrator or self.pooled  # an Affine (hasattr above)
                record.update(scale=used.scale, offset=used.offset)
            records.append({**record, "note": note})
        return pd.DataFrame.from_records(records)


def _inner(calibrator, key: tuple) -> dict | None:
    """The ``kind`` and ``coefficients`` of one condition's calibrator in a saved calibration (None for none)."""
    if calibrator is None:
        return None
    if type(calibrator) not in _SAVED_KINDS.values():
        raise ValueError(f"This calibration cannot be saved: the calibrator of {', '.join(key)} is a "
                         f"{type(calibrator).__name__}, not an affine, fusion or PAV calibrator.")
    document = json.loads(calibrator.to_json())
    return {"kind": document["kind"], "coefficients": document["coefficients"]}


def _outer(part: Saved):
    """One condition's calibrator of a saved calibration, from its ``kind`` and ``coefficients``."""
    kind = part.fields.get("kind")
    if kind not in _SAVED_KINDS:
        raise ValueError(f"In {part.what}, '{part.prefix}kind' is {json.dumps(kind)}; a condition's calibrator is "
                         f"one of {', '.join(_SAVED_KINDS)}.")
    return _SAVED_KINDS[kind].from_saved(part)


def _columns_of(by: str | Sequence[str]) -> tuple[str, ...]:
    by = (by,) if isinstance(by, str) else tuple(by)
    if not by:
        raise ValueError("Name at least one column to calibrate by.")
    return by
