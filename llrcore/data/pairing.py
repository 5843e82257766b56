"""Pairing the trials of two systems scored on the same trials: by their ids when they have unique ones, else by line
order. One place for :func:`~llrcore.align_systems` (fusion) and :func:`~llrcore.compare_systems` (paired bootstrap),
so that both pair the same trials the same way.

How trials are paired
---------------------
By **ids** when both systems carry the same id columns in their :attr:`~llrcore.Trials.metadata`: the first group of
:data:`ID_COLUMNS` that both have (``model`` and ``test`` of BOSARIS/Kaldi files, the pair; ``utt`` of ASVspoof
countermeasure files; ``trial``). The order of the lines does not matter; every trial of one system must be in the
other, with the same label. Ids identify a trial only when none repeats: when some repeat in either system (a list
with the same (model, test) pair twice), the ids cannot pair, and the trials are paired by line order if both lists
hold the same ids in the same order, row by row; otherwise the systems are refused with a sentence saying so.

By **line order** when the systems have no id group in common (a lone ``model`` or ``test`` column does not identify
a trial): the i-th target trial of each system is one trial, and so on for the non-targets (and spoof trials), which
needs as many trials of each class in both.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .trials import Trials

__all__ = ["ID_COLUMNS", "Pairing", "class_blocks", "pair_trials", "shared_id_columns"]

#: Trial ids that pair trials across systems, in order of preference: the first group every system has is used.
ID_COLUMNS = (("model", "test"), ("utt",), ("trial",))
_CLASSES = ("target", "non-target", "spoof")


@dataclass(frozen=True, eq=False)
class Pairing:
    """Which trial of the other system each trial of the reference system is.

    Attributes
    ----------
    positions : ndarray or None
        For each row of the reference (its targets, non-targets, then spoof trials), the row of the other system
        in the same order of classes; None when paired by line order (row i is row i).
    id_columns : tuple of str
        The columns the trials were paired by; empty when paired by line order.
    repeated : tuple of str
        The id columns that repeat in a system, so that line order paired the trials instead (empty otherwise).
    """

    positions: np.ndarray | None
    id_columns: tuple[str, ...] = ()
    repeated: tuple[str, ...] = ()

    def describe(self) -> str:
        """How, in words: ``"utt"``, ``"model and test"``, ``"line order"`` or ``"line order (the model and test
        ids repeat, in the same order in both)"``."""
        if self.id_columns:
            return " and ".join(self.id_columns)
        if self.repeated:
            return f"line order (the {' and '.join(self.repeated)} ids repeat, in the same order in both)"
        return "line order"


def shared_id_columns(systems) -> tuple[str, ...]:
    """The first group of :data:`ID_COLUMNS` that every one of `systems` (Trials) has; empty when none."""
    for columns in ID_COLUMNS:
        if all(all(c in t.metadata.columns for c in columns) for t in systems):
            return columns
    return ()


def class_blocks(trials: Trials) -> list[np.ndarray]:
    """The scores of each class in the order the rows of a pairing run: targets, non-targets, spoof trials."""
    return [trials.tar, trials.non, trials.spoof]


def _sizes(trials: Trials) -> list[int]:
    return [b.size for b in class_blocks(trials)]


def _class_codes(trials: Trials) -> np.ndarray:
    return np.repeat(np.arange(3), _sizes(trials))


def _ids(trials: Trials, columns: tuple[str, ...]) -> pd.Index:
    frame = trials.metadata[list(columns)].astype(str)
    return pd.MultiIndex.from_frame(frame) if len(columns) > 1 else pd.Index(frame[columns[0]])


def _example(columns: tuple[str, ...], key) -> str:
    values = key if isinstance(key, tuple) else (key,)
    return ", ".join(f"{c} {v}" for c, v in zip(columns, values))


def _counts(trials: Trials) -> str:
    if not trials.spoof.size:
        return f"{trials.tar.size:,} target and {trials.non.size:,} non-target"
    return f"{trials.tar.size:,} target, {trials.non.size:,} non-target and {trials.spoof.size:,} spoof"


def pair_trials(reference: str, ref: Trials, name: str, other: Trials, columns: tuple[str, ...] | None = None, *,
                remedy: str = "Give files of the same trials.") -> Pairing:
    """Pair the trials of `other` (named `name`) with those of `ref` (named `reference`), as the module docstring says.

    Parameters
    ----------
    columns : tuple of str, optional
        The id columns to pair by (default: :func:`shared_id_columns` of the two); empty pairs by line order.
    remedy : str
        The sentence that ends the error when the ids show that the systems were not scored on the same trials.

    Raises
    ------
    ValueError
        With a sentence naming the two systems and what differs: trials of one missing from the other (how many, and
        an example id), the same trial labelled differently, ids that repeat in a different order, or, by line order,
        different numbers of trials of a class.
    """
    columns = shared_id_columns((ref, other)) if columns is None else tuple(columns)
    if not columns:
        return _by_order(reference, ref, name, other)
    ref_ids, ids = _ids(ref, columns), _ids(other, columns)
    repeats = [(who, index[index.duplicated()]) for who, index in ((reference, ref_ids), (name, ids))]
    repeats = [(who, repeated) for who, repeated in repeats if len(repeated)]
    if not repeats:
        return Pairing(_positions_by_ids(reference, ref, ref_ids, name, other, ids, columns, remedy), columns)
    # Ids that repeat identify no trial; lists that agree id by id, row by row, are still the same trials in order.
    if _sizes(ref) == _sizes(other) and ref_ids.equals(ids):
        return Pairing(None, (), columns)
    who, repeated = repeats[0]
    how = " and ".join(columns)
    raise ValueError(f"{who} has {len(repeated):,} trials with the same {how} as another (e.g. "
                     f"{_example(columns, repeated[0])}), so its trials cannot be paired by their ids, and the two "
                     "lists are not in the same order to pair them line by line: give every trial an id of its own "
                     "(a trial column) or list the trials in the same order in both files.")


def _by_order(reference: str, ref: Trials, name: str, other: Trials) -> Pairing:
    if _sizes(other) != _sizes(ref):
        without = [n for n, t in ((reference, ref), (name, other))
                   if not any(c in t.metadata.columns for group in ID_COLUMNS for c in group)]
        why = (f"{' and '.join(without)} {'has' if len(without) == 1 else 'have'} no trial ids"
               if without else "they have no trial ids in common")
        raise ValueError(
            f"{reference} and {name} cannot be paired trial by trial: {why}, so their trials are paired by line "
            f"order, which needs as many trials of each class, but {reference} has {_counts(ref)} trials and "
            f"{name} has {_counts(other)}.")
    return Pairing(None)


def _positions_by_ids(reference: str, ref: Trials, ref_ids: pd.Index, name: str, other: Trials, ids: pd.Index,
                      columns: tuple[str, ...], remedy: str) -> np.ndarray:
    """Row of `other` (over its targets, non-targets, spoof trials) for each row of `ref`, or a ValueError."""
    positions = ids.get_indexer(ref_ids)
    missing = positions < 0
    extra = np.ones(len(ids), bool)
    extra[positions[~missing]] = False
    if missing.any() or extra.any():
        parts = []
        for count, total, owner, lacking, example in (
            (int(missing.sum()), len(ref_ids), reference, name,
             ref_ids[int(np.argmax(missing))] if missing.any() else None),
            (int(extra.sum()), len(ids), name, reference, ids[int(np.argmax(extra))] if extra.any() else None),
        ):
            if count:
                parts.append(f"{count:,} of the {total:,} trials of {owner} are missing from {lacking} "
                             f"(e.g. {_example(columns, example)})")
        raise ValueError(f"{reference} and {name} were not scored on the same trials: {' and '.join(parts)}. "
                         f"{remedy}")
    ref_class, other_class = _class_codes(ref), _class_codes(other)[positions]
    differ = ref_class != other_class
    if differ.any():
        i = int(np.argmax(differ))
        raise ValueError(
            f"{reference} and {name} label {int(differ.sum()):,} of the same trials differently (e.g. "
            f"{_example(columns, ref_ids[i])} is a {_CLASSES[ref_class[i]]} trial in {reference} and a "
            f"{_CLASSES[other_class[i]]} trial in {name}): the systems must be scored against the same key.")
    return positions
