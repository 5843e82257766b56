"""Kaldi / BOSARIS trial lists: a score file ``model test score`` joined with its key ``model test target|nontarget``
on the (model, test) pair, trials in only one of the two files counted in a LoadWarning (as BOSARIS's
``Scores.align_with_ndx`` counts them).

:func:`join_with_key` joins any two :class:`TrialList` (text files here, BOSARIS HDF5 files in
:mod:`~llrcore.io.bosaris_h5`)."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..data.trials import Trials
from ._source import LoadWarning, _scan_lines, _Source, _text_bytes
from .fast import compact_categories
from .labels import BONAFIDE, LABELS, NONTARGET, SPOOF, TARGET, label_key, text_labels, trials_from_codes
from .metadata import MetadataTable, attach
from .text import TextFile, is_number

__all__ = ["TrialList", "join_with_key", "read_trial_list", "refuse_duplicates"]


@dataclass(frozen=True, eq=False)
class TrialList:
    """The (model, test) pairs of a score file or of a key, each with its score or label code, in file order.

    `lines` numbers each pair in the file's `unit` (its line in a text file) for messages; `places`, when given,
    says where pair ``i`` is in words (``at row 2, column 3 of the dataset 'scores'``), else ``on line <n>``.
    """

    src: _Source
    models: pd.Series  # categorical
    tests: pd.Series  # categorical
    values: np.ndarray  # scores, or label codes
    lines: np.ndarray
    unit: str = "line"
    places: Callable[[int], str] | None = None

    def place(self, row: int) -> str:
        return self.places(row) if self.places is not None else f"on line {int(self.lines[row])}"


def read_trial_list(src: _Source, is_key: bool) -> TrialList:
    """The pairs of a text score file ``model test score`` or key ``model test target|nontarget``."""
    data = _text_bytes(src)
    text = TextFile(src, data, skippable=_scan_lines(src, data, len(data) + 1, "a trial list"))
    rows, sample = text.rows, text.sample
    kind = "key file 'model test target|nontarget'" if is_key else "Kaldi/BOSARIS score file 'model test score'"
    if is_key:
        has_header = len(rows[0]) == 3 and label_key(rows[0][2]) not in LABELS
    else:
        has_header = len(rows[0]) == 3 and not is_number(rows[0][2], text.decimal)
    first = 1 if has_header else 0
    if first >= len(rows):
        raise src.error("the file has a header line but no trials after it.", sample[0][0])
    reference = sample[first][0]
    for (lineno, *_), row in zip(sample, rows):
        if len(row) != 3:
            raise src.error(f"a {kind} needs 3 columns, but this line has {len(row)}.", lineno)
    frame, lines = text.read(first, 3, [0, 1] + ([2] if is_key else []), reference, numbers=[] if is_key else [2])
    values = text_labels(text, frame[2], lines, 3, reference) if is_key else text.scores(frame[2], lines, 3, reference)
    refuse_duplicates(src, frame[0], frame[1], lines, "key entry" if is_key else "trial")
    return TrialList(src, frame[0], frame[1], values, lines)


def join_with_key(score_list: TrialList, key_list: TrialList, name: str, table: MetadataTable | None = None) \
        -> tuple[Trials, list[LoadWarning]]:
    """The trials of a score file that are in its key, and a LoadWarning for each file's trials the other lacks;
    their metadata are the columns ``model`` and ``test`` (and those of `table`, joined on them or row by row with
    the trials of the score file).

    BOSARIS evaluates the trials of the key that have a score and counts the others ("3 of 100 targets missing",
    ``Scores.align_with_ndx``); scores of trials outside the key are not used. Here both are counted, with the
    first such trial and its line, so that a key of one condition reads a score file of several. Trials in one file
    only are no error unless nothing, or only one class, is left.
    """
    src, models, tests, scores, lines = (score_list.src, score_list.models, score_list.tests, score_list.values,
                                         score_list.lines)
    key_src, key_models, key_tests, labels = key_list.src, key_list.models, key_list.tests, key_list.values
    model_ids, key_model_ids = _shared_codes(models, key_models)
    test_ids, key_test_ids = _shared_codes(tests, key_tests)
    width = int(max(test_ids.max(initial=0), key_test_ids.max(initial=0))) + 1
    # a hash join on one integer per pair (the key's pairs are distinct: refuse_duplicates saw to it)
    where = pd.Index(key_model_ids * width + key_test_ids).get_indexer(model_ids * width + test_ids)
    in_key = where >= 0
    scored = np.zeros(len(key_models), bool)
    scored[where[in_key]] = True
    key_name = key_src.name if key_src.path else "file"  # "the key trials.txt", or "the key file"
    row, key_row = int(np.argmin(in_key)), int(np.argmin(scored))  # the first trial missing from the other file
    trial = f"'{models.iloc[row]} {tests.iloc[row]}' {score_list.place(row)}"
    key_trial = f"'{key_models.iloc[key_row]} {key_tests.iloc[key_row]}' {key_list.place(key_row)}"
    if not in_key.any():
        raise src.error(f"none of its {_count(len(in_key), 'scored trial')} is in the key {key_name}: no (model, test) "
                        f"pair is in both files. Is it the key of this score file? The first scored trial is {trial}; "
                        f"the key's first is {key_trial}.")
    kept = labels[where[in_key]]
    _refuse_a_missing_class(src, key_name, labels, kept, len(in_key))
    notes = []
    if not in_key.all():
        out = int((~in_key).sum())
        notes.append(src.warning(
            f"{out:,} of {len(in_key):,} scored trials {'is' if out == 1 else 'are'} not in the key {key_name} and "
            f"{'was' if out == 1 else 'were'} left out{_first(out, trial)}"))
    if not scored.all():
        unscored = int((~scored).sum())
        by_class = ", ".join(f"{word}: {int(((labels == code) & ~scored).sum()):,} of {int((labels == code).sum()):,}"
                             for code, word in ((TARGET, "targets"), (NONTARGET, "non-targets"), (SPOOF, "spoof"),
                                                (BONAFIDE, "bona fide"))
                             if (labels == code).any())
        notes.append(key_src.warning(
            f"{unscored:,} of the {len(scored):,} trials of the key {'has' if unscored == 1 else 'have'} no score in "
            f"{src.name if src.path else 'the score file'} ({by_class}){_first(unscored, key_trial)}"))
    keep = None if in_key.all() else in_key
    metadata = attach(table, pd.DataFrame({"model": models, "test": tests}), src, lines, score_list.unit, keep=keep)
    if keep is not None:  # the ids of the trials left out are no longer categories
        for column in ("model", "test"):
            metadata[column] = compact_categories(metadata[column])
    return trials_from_codes(src, scores[in_key], kept, name, metadata=metadata, lines=_kept(lines, in_key),
                             unit=score_list.unit), notes


def _kept(lines, keep: np.ndarray):
    return lines if keep.all() else np.asarray(lines)[keep]


def _count(n: int, noun: str) -> str:
    """``1 trial``, ``2 trials``, ``4,200 trials``."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def _first(count: int, trial: str) -> str:
    """The end of a sentence that counted `count` trials: the one, or the first one, with its line."""
    return f": {trial}." if count == 1 else f"; the first is {trial}."


def _refuse_a_missing_class(src: _Source, key_name: str, labels: np.ndarray, kept: np.ndarray, n_scored: int):
    """LoadError when the key has target and non-target trials but those with a score are all of one class."""
    for code, word in ((TARGET, "target"), (NONTARGET, "non-target")):
        in_key = int((labels == code).sum())
        if in_key and not (kept == code).any():
            raise src.error(f"none of the {_count(in_key, word + ' trial')} of the key {key_name} has a score in this "
                            f"file ({kept.size:,} of its {_count(n_scored, 'scored trial')} "
                            f"{'is' if kept.size == 1 else 'are'} in the key); both target and non-target trials are "
                            "needed.")


def _shared_codes(a: pd.Series, b: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes of two categorical columns in one numbering of their ids compared as text, spaces stripped
    (equal ids, equal codes; an id of `b` that `a` lacks gets a code of its own, above those of `a`).

    One hash pass over each column's distinct ids (pyarrow's ``index_in``), not over every trial.
    """
    ids_a, ids_b = _id_text(a.cat.categories), _id_text(b.cat.categories)
    # the ids of `a` numbered 0..n-1 in order of first appearance among its (stripped) categories
    if stripped_equal(a.cat.categories, ids_a):  # distinct categories stay distinct: they number themselves
        lut_a, distinct = np.arange(len(ids_a), dtype=np.int64), ids_a
    else:
        encoded = pc.dictionary_encode(ids_a)
        lut_a, distinct = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64), encoded.dictionary
    lut_b = pc.index_in(ids_b, value_set=distinct).fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)
    missing = lut_b < 0
    lut_b[missing] = len(distinct) + np.arange(int(missing.sum()))
    return _take_codes(lut_a, a), _take_codes(lut_b, b)


def _id_text(categories: pd.Index):
    """The categories as an Arrow string array, spaces at either end stripped."""
    if categories.dtype == "str":  # Arrow strings already (pandas 3): no copy
        ids = pa.array(categories.array)
    else:
        ids = pa.array(np.asarray(categories.astype(str), dtype=object), type=pa.string())
    return pc.utf8_trim_whitespace(ids.cast(pa.string()))


def stripped_equal(categories: pd.Index, stripped) -> bool:
    """Whether no category had spaces at either end (`stripped` is the categories stripped, as Arrow strings)."""
    lengths = np.asarray(categories.str.len(), dtype=np.int64) if categories.dtype == "str" else None
    if lengths is None:
        return False
    return bool((pc.utf8_length(stripped).to_numpy(zero_copy_only=False) == lengths).all())


def _take_codes(lut: np.ndarray, column: pd.Series) -> np.ndarray:
    codes = column.cat.codes.to_numpy()
    return lut[codes]


def _pair_codes(models: pd.Series, tests: pd.Series) -> np.ndarray:
    """One int64 per (model, test) pair of two categorical columns: equal pairs, equal numbers."""
    width = max(len(tests.cat.categories), 1)
    return models.cat.codes.to_numpy().astype(np.int64) * width + tests.cat.codes.to_numpy()


def refuse_duplicates(src: _Source, models: pd.Series, tests: pd.Series, lines: np.ndarray,
                      what: str = "trial") -> None:
    """A LoadError naming both lines when a (model, test) pair appears twice: which score would count is unknown.

    The check sorts one integer per pair (fast on millions of trials); the message counts the pairs that repeat.
    """
    pairs = _pair_codes(models, tests)
    ordered = np.sort(pairs)
    if ordered.size < 2 or not (ordered[1:] == ordered[:-1]).any():
        return
    duplicated = pd.Index(pairs).duplicated()
    row = int(np.argmax(duplicated))
    first = int(np.argmax(pairs == pairs[row]))
    m, t = models.iloc[row], tests.iloc[row]
    repeats = int(duplicated.sum())
    raise src.error(f"the {what} '{m} {t}' appears a second time (first on line {int(lines[first])}); each "
                    f"(model, test) pair may appear only once ({_count(repeats, 'line')} of {len(pairs):,} "
                    f"{'repeats' if repeats == 1 else 'repeat'} a pair of an earlier line).", int(lines[row]))
