"""Binary trials: the scores of target and non-target trials of one system, validated once.

Every binary analysis takes a :class:`Trials` (or two arrays validated the same way, :func:`~llrcore.data.checks.
as_scores`); :func:`as_systems` turns the ``systems`` argument of figures and reports into ``{name: Trials}``.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Protocol, overload

import numpy as np
import pandas as pd

from .._deprecation import holds_both_classes
from .checks import as_scores

__all__ = ["NO_VALUE", "Systems", "Trials", "as_systems", "condition_codes"]


class LazyTable(Protocol):
    """A table a reader builds on first use (:class:`~llrcore.io.ids.LazyIds`)."""

    def __len__(self) -> int: ...

    def materialize(self) -> pd.DataFrame: ...


class _Metadata:
    """The ``metadata`` field: a DataFrame, or a table a reader builds on first use (an object with ``len()`` and
    ``materialize()``, e.g. the ids of a file of millions of trials, whose categoricals cost more than reading it)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.slot = f"_{name}"

    @overload
    def __get__(self, trials: None, owner: type | None = None) -> None: ...

    @overload
    def __get__(self, trials: Trials, owner: type | None = None) -> pd.DataFrame: ...

    def __get__(self, trials: Trials | None, owner: type | None = None) -> pd.DataFrame | None:
        if trials is None:
            return None  # the field's default
        value = trials.__dict__[self.slot]
        if value is not None and not isinstance(value, pd.DataFrame) and hasattr(value, "materialize"):
            value = trials.__dict__[self.slot] = trials._checked_metadata(value.materialize())
        return value

    def __set__(self, trials: Trials, value: pd.DataFrame | LazyTable | None) -> None:
        trials.__dict__[self.slot] = value


@holds_both_classes
@dataclass(frozen=True, eq=False)  # arrays inside: equality and hash are identity
class Trials:
    """Scores of binary trials: targets (H1, same source) and non-targets (H2, different sources).

    Parameters
    ----------
    tar, non : array_like
        Scores of the target and the non-target trials. NaN is refused; +-inf is allowed.
    name : str
        The system's name, shown in tables and legends.
    spoof : array_like, optional
        Scores of spoofing trials (ASVspoof files), kept apart from `non`; empty when the file has none.
    metadata : DataFrame, optional
        What the file says of each trial besides its score and label (model and test ids, gender, language,
        attack, ...): one row per trial, the targets first, then the non-targets, then the spoof trials, each in
        the order of `tar`, `non` and `spoof`. Conditions (:meth:`where`, :func:`~llrcore.evaluate_by_condition`)
        and grouped bootstrap resampling are read from its columns. A reader may give instead an object with
        ``len()`` and ``materialize()`` (the ids of millions of trials): the DataFrame is built when first read.
    file_labels : array_like of bool, optional
        How the file interleaves the two classes: the labels (True = target) of the target and non-target trials
        in the order of the file they were read from (`tar` and `non` are each in that order already). Readers
        and :meth:`from_labels` keep it; only scorers that walk the trials one by one (Kaldi's
        ``compute_min_dcf.py``) depend on it, where scores are tied across the classes. None when not known: such a
        walk then takes the targets first (:meth:`in_file_order`).
    """

    tar: np.ndarray
    non: np.ndarray
    name: str = ""
    spoof: np.ndarray = field(default_factory=lambda: np.empty(0))
    if TYPE_CHECKING:  # a checker reads the descriptor: None or a LazyTable in, always a DataFrame out
        metadata: _Metadata = _Metadata()
    else:
        metadata: pd.DataFrame | None = _Metadata()
    file_labels: np.ndarray | None = None

    def __post_init__(self):
        object.__setattr__(self, "tar", as_scores(self.tar, "target scores"))
        object.__setattr__(self, "non", as_scores(self.non, "non-target scores"))
        spoof = np.asarray(self.spoof, dtype=np.float64).reshape(-1)
        if spoof.size:
            spoof = as_scores(spoof, "spoof scores")
        object.__setattr__(self, "spoof", spoof)
        for array in (self.tar, self.non, self.spoof):
            array.flags.writeable = False
        object.__setattr__(self, "metadata", self._checked_metadata(self.__dict__["_metadata"]))
        if self.file_labels is not None:
            labels = np.asarray(self.file_labels, dtype=bool).reshape(-1)
            if labels.size != self.tar.size + self.non.size or np.count_nonzero(labels) != self.tar.size:
                raise ValueError(f"file_labels must hold one label per target and non-target trial ({self.tar.size:,} "
                                 f"True and {self.non.size:,} False), not {np.count_nonzero(labels):,} True of "
                                 f"{labels.size:,}.")
            labels.flags.writeable = False
            object.__setattr__(self, "file_labels", labels)

    def _checked_metadata(self, metadata: Any) -> Any:
        n = self.tar.size + self.non.size + self.spoof.size
        if hasattr(metadata, "materialize") and not isinstance(metadata, pd.DataFrame):
            if len(metadata) != n:
                raise ValueError(f"The metadata has {len(metadata):,} rows but there are {n:,} trials.")
            return metadata  # built when first read
        if metadata is None:
            return pd.DataFrame(index=pd.RangeIndex(n))
        if not isinstance(metadata, pd.DataFrame):
            raise TypeError(f"The metadata must be a pandas DataFrame, not a {type(metadata).__name__}.")
        if len(metadata) != n:
            raise ValueError(f"The metadata has {len(metadata):,} rows but there are {n:,} trials: give one row per "
                             "trial, the targets first, then the non-targets, then the spoof trials.")
        return metadata.reset_index(drop=True)

    @property
    def scores(self) -> np.ndarray:
        """All target then non-target scores in one array (spoof trials not included)."""
        return np.concatenate([self.tar, self.non])

    @property
    def labels(self) -> np.ndarray:
        """Boolean labels matching :attr:`scores`: True for targets."""
        return np.concatenate([np.ones(self.tar.size, bool), np.zeros(self.non.size, bool)])

    def in_file_order(self) -> tuple[np.ndarray, np.ndarray]:
        """``(scores, labels)`` of the target and non-target trials in the order of their file (:attr:`file_labels`),
        or, when that is not known, the targets first (:attr:`scores`, :attr:`labels`)."""
        if self.file_labels is None:
            return self.scores, self.labels
        scores = np.empty(self.file_labels.size)
        scores[self.file_labels] = self.tar
        scores[~self.file_labels] = self.non
        return scores, self.file_labels

    @classmethod
    def from_labels(cls, scores, labels, name: str = "", *, metadata: pd.DataFrame | None = None) -> "Trials":
        """Build from one array of scores and a boolean-like array of labels (True/1 = target).

        Labels may be booleans, the numbers 1 and 0, or the words ``1/0``, ``true/false``, ``target/nontarget``
        (also ``non-target``, ``tgt/non``, ``yes/no``, ``same/different``; any case). Anything else (an empty
        label, ``2``, NaN) is refused with a ValueError naming it.

        `metadata`, one row per score in the order given, is reordered with the scores (targets first).
        """
        scores = as_scores(scores, "scores")
        labels = _target_labels(labels)
        if labels.shape != scores.shape:
            raise ValueError(f"There are {scores.size} scores but {labels.size} labels.")
        if metadata is not None:
            if len(metadata) != scores.size:
                raise ValueError(f"There are {scores.size:,} scores but {len(metadata):,} rows of metadata.")
            metadata = metadata.iloc[np.concatenate([np.flatnonzero(labels), np.flatnonzero(~labels)])]
        return cls(scores[labels], scores[~labels], name=name, metadata=metadata, file_labels=labels)

    @property
    def conditions(self) -> list[str]:
        """The metadata columns: what :meth:`where` and :func:`~llrcore.evaluate_by_condition` can break the trials
        down by."""
        return [str(c) for c in self.metadata.columns]

    def subset(self, mask, name: str | None = None) -> "Trials":
        """The trials where `mask` is True, as new Trials with their metadata.

        Parameters
        ----------
        mask : array_like of bool
            One value per trial in the order of :attr:`metadata` (targets, non-targets, then spoof trials); the
            spoof values may be left out when the mask covers only :attr:`scores`.
        name : str, optional
            The new set's name; by default this one's.

        Raises
        ------
        ValueError
            When the mask has the wrong length, or keeps no target or no non-target trial.
        """
        mask = np.asarray(mask, dtype=bool).reshape(-1)
        n_scored, n_all = self.tar.size + self.non.size, len(self.metadata)
        if mask.size == n_scored and n_scored != n_all:
            mask = np.concatenate([mask, np.ones(self.spoof.size, bool)])
        if mask.size != n_all:
            raise ValueError(f"The mask has {mask.size:,} values but there are {n_all:,} trials.")
        cut = np.cumsum([self.tar.size, self.non.size])
        keep_tar, keep_non, keep_spoof = np.split(mask, cut)
        if not keep_tar.any() or not keep_non.any():
            missing = "target" if not keep_tar.any() else "non-target"
            raise ValueError(f"No {missing} trial of {self.name or 'these trials'} is left in this subset; a "
                             "subset needs both classes.")
        file_labels = None
        if self.file_labels is not None:  # the kept trials, in file order
            kept = np.empty(self.file_labels.size, bool)
            kept[self.file_labels], kept[~self.file_labels] = keep_tar, keep_non
            file_labels = self.file_labels[kept]
        return Trials(self.tar[keep_tar], self.non[keep_non], name=self.name if name is None else name,
                      spoof=self.spoof[keep_spoof], metadata=self.metadata[mask], file_labels=file_labels)

    def where(self, **conditions) -> "Trials":
        """The trials of one condition, e.g. ``trials.where(gender="f", language="en")``: those whose metadata has
        the given values, and those with no value in that column (as in :meth:`split`: the bona fide trials, having
        no attack, are in ``where(attack="A10")``).

        A value may be a list of accepted values. Values are compared as text, so ``where(duration=10)`` finds a
        column read as ``"10"`` as well as ``10``.

        Raises
        ------
        KeyError
            With a sentence naming the column when the metadata has no such column.
        """
        mask = np.ones(len(self.metadata), bool)
        for column, wanted in conditions.items():
            if column not in self.metadata.columns:
                raise KeyError(f"The trials have no column {column!r}; their columns are "
                               f"{', '.join(self.conditions) or 'none'}.")
            wanted = [wanted] if isinstance(wanted, (str, int, float)) or wanted is None else list(wanted)
            codes, values = condition_codes(self.metadata[column])
            accepted = np.flatnonzero(np.isin(np.asarray(values, dtype=str), [str(w) for w in wanted]))
            mask &= (codes < 0) | np.isin(codes, accepted)
        described = ", ".join(f"{k}={v}" for k, v in conditions.items())
        return self.subset(mask, name=f"{self.name} ({described})" if self.name else described)

    @cached_property
    def sorted(self):
        """The :class:`~llrcore.binary.rates.SortedScores` of these trials, built on first use and kept: one sort and
        one PAV serve every metric and figure of this system. It sorts on :func:`~llrcore.thread_count` threads
        (``with lc.thread_limit(n):`` or ``LLRCORE_THREADS`` caps them; no number depends on it)."""
        from ..binary.rates import (
            SortedScores,  # the analysis layer: imported when first needed, so data stays below it
        )

        return SortedScores(self.tar, self.non)

    def split(self, by: str | Sequence[str]) -> list[tuple[dict, "Trials | None"]]:
        """The trials broken down by the values of one or more metadata columns, one subset per condition.

        A trial with no value in a column (empty, NaN or ``"-"``, as the bona fide trials of an ASVspoof protocol
        have no attack) takes part in every condition of that column: per attack, the bona fide trials are scored
        against each attack's spoofs. Conditions are the values found among the scored (target and non-target)
        trials, sorted by value (numbers by value); a condition left without one of the classes is
        returned with ``None`` in place of its Trials.

        Parameters
        ----------
        by : str or list of str
            Column(s); with several, their values are crossed (only combinations that occur).

        Returns
        -------
        list of (dict, Trials or None)
            ``({column: value, ...}, subset)`` per condition.
        """
        conditions: list[tuple[dict, Trials | None]] = []
        for label, mask in self.partitions(by):
            name = ", ".join(f"{c}={v}" for c, v in label.items())
            try:
                conditions.append((label, self.subset(mask, name=f"{self.name} ({name})" if self.name else name)))
            except ValueError:  # a condition with one class only: said, not dropped
                conditions.append((label, None))
        return conditions

    def partitions(self, by: str | Sequence[str]) -> list[tuple[dict, np.ndarray]]:
        """The conditions of :meth:`split` as ``({column: value, ...}, mask)``, the mask over :attr:`metadata`'s
        rows."""
        columns = [by] if isinstance(by, str) else list(by)
        if not columns:
            raise ValueError("Name at least one column to break the trials down by.")
        missing = [c for c in columns if c not in self.metadata.columns]
        if missing:
            raise KeyError(f"The trials have no column {missing[0]!r}; their columns are "
                           f"{', '.join(self.conditions) or 'none'}.")
        codes, values = zip(*(condition_codes(self.metadata[c]) for c in columns))
        codes = np.column_stack(codes)
        scored = codes[:self.tar.size + self.non.size]  # spoof trials join conditions; they do not make them
        present = scored[(scored >= 0).all(axis=1)]
        if present.size == 0:
            raise ValueError(f"No trial has a value in {' and '.join(map(repr, columns))}.")
        found = np.unique(present, axis=0)
        labels = [{c: v[k] for c, v, k in zip(columns, values, combination)} for combination in found]
        order = sorted(range(len(found)), key=lambda i: [_natural(v) for v in labels[i].values()])
        return [(labels[i], ((codes == found[i]) | (codes < 0)).all(axis=1)) for i in order]

    def __len__(self) -> int:
        return self.tar.size + self.non.size

    def __repr__(self) -> str:
        spoof = f", spoof={self.spoof.size}" if self.spoof.size else ""
        return f"Trials(name={self.name!r}, tar={self.tar.size}, non={self.non.size}{spoof})"


NO_VALUE = ("", "-", "nan", "None", "<NA>")
"""Metadata values that mean "this trial has none" (see :meth:`Trials.split`)."""


def condition_codes(column: pd.Series) -> tuple[np.ndarray, list]:
    """Integer codes of a metadata column's values (-1 for no value) and the values, in order of appearance."""
    text = column.astype(str).str.strip()
    text = text.where(~column.isna() & ~text.isin(NO_VALUE))
    codes, uniques = pd.factorize(text)
    return codes, list(uniques)


def _natural(value: str) -> tuple:
    """Sort key of a condition value: numbers by value, before text ("8" before "10", "A07" before "A10")."""
    try:
        return (0, float(value), "")
    except ValueError:
        return (1, 0.0, value)


#: The ``systems`` of figures, tables and reports: one Trials, ``{name: Trials}``, or Trials in a sequence.
Systems = Trials | Mapping[str, Trials] | Sequence[Trials]


def as_systems(systems) -> dict[str, Trials]:
    """Normalise the `systems` argument of every figure function to an ordered ``{name: Trials}``.

    Accepts a mapping ``name -> Trials`` (or ``name -> (tar, non)``), a single :class:`~llrcore.data.Trials`
    (named by its ``.name``), or a sequence of ``Trials`` (named by their ``.name``, made unique).

    Raises
    ------
    ValueError
        When there is no system.
    TypeError
        When a value is not trials.
    """
    if isinstance(systems, Trials):
        items = [(systems.name, systems)]
    elif isinstance(systems, Mapping):
        items = list(systems.items())
    elif isinstance(systems, Sequence) and not isinstance(systems, (str, bytes)):
        items = [(getattr(t, "name", ""), t) for t in systems]
    else:
        raise TypeError("Give the systems as a Trials object or a mapping from system name to Trials.")
    if not items:
        raise ValueError("There is no system to plot: give at least one set of trials.")
    result: dict[str, Trials] = {}
    for position, (name, trials) in enumerate(items):
        if isinstance(trials, tuple) and len(trials) == 2:
            trials = Trials(trials[0], trials[1], name=str(name))
        if not isinstance(trials, Trials):
            raise TypeError(f"System {name!r} is a {type(trials).__name__}, not a Trials object.")
        name = str(name) if str(name) else (f"system {position + 1}" if len(items) > 1 else "system")
        unique, k = name, 2
        while unique in result:
            unique, k = f"{name} ({k})", k + 1
        result[unique] = trials
    return result


_TARGET_WORDS = {"1": True, "true": True, "target": True, "tgt": True, "yes": True, "same": True, "1.0": True,
                 "0": False, "false": False, "nontarget": False, "non-target": False, "non": False, "imp": False,
                 "impostor": False, "no": False, "different": False, "0.0": False}


def _target_labels(labels) -> np.ndarray:
    """Boolean target labels from booleans, 0/1 numbers or the words of :data:`_TARGET_WORDS`; a sentence naming
    the first label that is none of these otherwise (``astype(bool)`` would take the text ``'0'`` as a target)."""
    values = np.asarray(labels).reshape(-1)
    if values.dtype == bool:
        return values
    if values.dtype.kind in "iuf":
        bad = ~np.isin(values, (0, 1))
        if bad.any():
            raise ValueError(f"A label must be 1 (target) or 0 (non-target), not {values[bad][0].item()!r}.")
        return values == 1
    words = np.char.lower(np.char.strip(values.astype(str)))
    known = np.isin(words, list(_TARGET_WORDS))
    if not known.all():
        raise ValueError(f"The label {str(values[~known][0])!r} (trial {int(np.flatnonzero(~known)[0]) + 1}) is "
                         "neither target nor non-target; use 1/0, true/false or target/nontarget.")
    return np.isin(words, [w for w, is_target in _TARGET_WORDS.items() if is_target])
