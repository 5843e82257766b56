"""Kaldi / BOSARIS trial lists: a score file ``model test score`` joined with its key ``model test target|nontarget``
on the (model, test) pair, trials in only one of the two files counted in a LoadWarning (as BOSARIS's
``Scores.align_with_ndx`` counts them).

:func:`join_with_key` joins any two :class:`TrialList` (text files here, BOSARIS HDF5 files in
:mod:`~llrcore.io.bosaris_h5`)."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd
import pyarrow as pa

from ..data.trials import Trials
from ..parallel import map_tasks, workers_for
from ._source import LoadWarning, _scan_lines, _Source, _text_bytes
from .challenge import find_layout, read_list
from .fast import compact_categories
from .ids import (
    LazyIds,
    equal_neighbours,
    exact_pair_codes,
    id_strings,
    pair_hash,
    repeated_pairs,
    same_pairs,
    sorted_with_rows,
    take_strings,
)
from .labels import BONAFIDE, LABELS, NONTARGET, SPOOF, TARGET, label_key, text_labels, trials_from_codes
from .metadata import MetadataTable, attach, take_rows
from .text import WHITESPACE, Lines, TextFile, is_number

__all__ = ["TrialList", "join_with_key", "read_trial_list", "refuse_duplicates"]


@dataclass(frozen=True, eq=False)
class TrialList:
    """The (model, test) pairs of a score file or of a key, each with its score or label code, in file order.

    `models` and `tests` are pandas columns (Arrow strings as the fast reader leaves them, or categoricals);
    `lines` numbers each pair in the file's `unit` (its line in a text file) for messages; `places`, when given,
    says where pair ``i`` is in words (``at row 2, column 3 of the dataset 'scores'``), else ``on line <n>``.
    `spaced` says whether an id may have spaces at either end (then ids are compared with them stripped).
    """

    src: _Source
    models: pd.Series
    tests: pd.Series
    values: np.ndarray  # scores, or label codes
    lines: Lines
    unit: str = "line"
    places: Callable[[int], str] | None = None
    spaced: bool = True
    names: tuple[str, ...] = ("model", "test")  # the ids' metadata columns; one name: joined on the test id alone
    extra: pd.DataFrame | None = None  # the file's other columns (an ASVspoof key's codec, attack, ...), by line

    def place(self, row: int) -> str:
        return self.places(row) if self.places is not None else f"on line {int(self.lines[row])}"

    def trial(self, row: int) -> str:
        """``'spk01 utt_3' on line 7`` (``'LA_E_9332881' on line 7`` for a file of one id)."""
        pair = self.tests.iloc[row] if len(self.names) == 1 else f"{self.models.iloc[row]} {self.tests.iloc[row]}"
        return f"'{pair}' {self.place(row)}"

    @cached_property
    def ids(self) -> tuple[pa.ChunkedArray, pa.ChunkedArray]:
        """The model and test ids as Arrow strings, compared as text."""
        return id_strings(self.models, self.spaced), id_strings(self.tests, self.spaced)

    def numbers(self, rows: np.ndarray | None = None) -> np.ndarray:
        """The 64-bit number of each pair (:func:`~llrcore.io.ids.pair_hash`), of rows `rows` only if given: computed
        afresh (only :attr:`sorted_numbers`, their high bits, are kept)."""
        models, tests = self.ids
        if rows is not None:
            models, tests = take_strings(models, rows), take_strings(tests, rows)
        return pair_hash(models, tests)

    @property
    def row_bits(self) -> int:
        """The low bits of :attr:`sorted_numbers` holding a row: the row number, then one free bit."""
        return len(self.models).bit_length() + 1

    @cached_property
    def sorted_numbers(self) -> np.ndarray:
        """The pairs' numbers' high bits, sorted, each with its row in its low :attr:`row_bits` bits
        (:func:`~llrcore.io.ids.sorted_with_rows`, on every core): the repeats of one file and its join
        with another use this one sort."""
        return sorted_with_rows(self.numbers(), self.row_bits)

    def forget_numbers(self) -> np.ndarray:
        """:attr:`sorted_numbers`, let go of (40 MB for 5M pairs) once the join has copied them."""
        numbers = self.sorted_numbers
        vars(self).pop("sorted_numbers")  # where cached_property keeps it
        return numbers

    def metadata(self) -> LazyIds:
        """The id columns of the trials' metadata (``model`` and ``test``), built on first use."""
        if len(self.names) == 1:
            return LazyIds({self.names[0]: self.tests})
        return LazyIds(dict(zip(self.names, (self.models, self.tests))))


def read_trial_list(src: _Source, is_key: bool, like: TrialList | None = None) -> TrialList:
    """The pairs of a text score file ``model test score`` or key ``model test target|nontarget``, or of a file as
    a challenge ships it (:mod:`~llrcore.io.challenge`); a key is read knowing its score file `like`."""
    data = _text_bytes(src)
    _scan_lines(src, data, len(data) + 1, "a trial list")
    text = TextFile(src, data, skippable=None)  # skippable lines looked for when needed
    layout = find_layout(text, is_key, like)
    if layout is not None:
        trial_list = read_list(text, layout, is_key, like, trial_list=TrialList)
        _refuse_repeats(trial_list, "key entry" if is_key else "trial")
        return trial_list
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
    frame, lines = text.read(first, 3, [2] if is_key else [], reference, numbers=[] if is_key else [2],
                             strings=[0, 1], labels=[2] if is_key else [])
    values = text_labels(text, frame[2], lines, 3, reference) if is_key else text.scores(frame[2], lines, 3, reference)
    trial_list = TrialList(src, frame[0], frame[1], values, lines, spaced=text.sep != WHITESPACE)
    del data
    text.forget_bytes()
    _refuse_repeats(trial_list, "key entry" if is_key else "trial")
    return trial_list


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
    src, scores, lines = score_list.src, score_list.values, score_list.lines
    key_src, labels = key_list.src, key_list.values
    where = _key_rows(score_list, key_list)
    in_key = where >= 0
    matched = _kept(where, in_key)  # the key row of each scored trial in the key (no copy when all are)
    scored = np.zeros(len(labels), bool)
    scored[matched] = True
    key_name = key_src.name if key_src.path else "file"  # "the key trials.txt", or "the key file"
    row, key_row = int(np.argmin(in_key)), int(np.argmin(scored))  # the first trial missing from the other file
    trial, key_trial = score_list.trial(row), key_list.trial(key_row)
    if not in_key.any():
        raise src.error(f"none of its {_count(len(in_key), 'scored trial')} is in the key {key_name}, and none of the "
                        f"key's {_count(len(scored), 'trial')} is scored here: no (model, test) pair is in both files, "
                        f"so this key may belong to another score file (the first scored trial is {trial}, the key's "
                        f"first is {key_trial}).")
    kept = labels[matched]
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
    metadata: pd.DataFrame | LazyIds
    if score_list.extra is not None or key_list.extra is not None or score_list.names != key_list.names:
        metadata = _with_extra(score_list, key_list, where, in_key)
        metadata = attach(table, metadata, src, _kept(lines, in_key), score_list.unit)
    elif table is None:  # the ids' categoricals are built when first looked at
        ids = score_list.metadata()
        metadata = ids if keep is None else ids.take(np.flatnonzero(keep))
    else:
        metadata = attach(table, score_list.metadata().materialize(), src, lines, score_list.unit, keep=keep)
        if keep is not None:  # the ids of the trials left out are no longer categories
            for column in ("model", "test"):
                metadata[column] = compact_categories(metadata[column])
    return trials_from_codes(src, _kept(scores, in_key), kept, name, metadata=metadata, lines=_kept(lines, in_key),
                             unit=score_list.unit), notes


def _with_extra(score_list: TrialList, key_list: TrialList, where: np.ndarray, in_key: np.ndarray) -> pd.DataFrame:
    """The metadata of the trials in the key: their ids (named by the score file's header, else by the key), then
    the other columns of the score file and of the key (the key's columns win a name both have, e.g. ``side``)."""
    kept = np.flatnonzero(in_key)
    frame = score_list.metadata().take(kept).materialize()
    if len(key_list.names) == frame.shape[1] and score_list.names in (("model", "test"), ("utt",)):
        frame.columns = list(key_list.names)  # the score file's ids have no names of their own: the key's
    for extra, rows in ((score_list.extra, kept), (key_list.extra, where[kept])):
        if extra is not None:
            for column, values in take_rows(extra, rows).items():
                categorical = isinstance(values.dtype, pd.CategoricalDtype)
                frame[column] = compact_categories(values) if categorical else values.to_numpy()
    return frame


def _key_rows(score_list: TrialList, key_list: TrialList) -> np.ndarray:
    """For each scored pair, the row of the key holding the same pair, or -1.

    The numbers of both files (:func:`~llrcore.io.ids.pair_hash`), each file's already sorted with its rows
    (:attr:`TrialList.sorted_numbers`), merged into one sorted array (``kind="stable"``: timsort merges two sorted
    runs in one pass), the lowest bit saying which file: equal pairs have equal numbers, so a scored pair and its
    key entry end up side by side. Neighbours from the two files whose high bits agree are the candidate matches,
    and every one is checked on the ids themselves (:func:`~llrcore.io.ids.same_pairs`): two different pairs are
    never joined. The rare runs of more than two equal high bits (different pairs sharing them by chance) have
    every pair of their run tried; many of them send the join to the exact numbering
    (:func:`~llrcore.io.ids.exact_pair_codes`).
    """
    n, n_key = len(score_list.models), len(key_list.models)
    where = np.full(n, -1, np.int64)
    if n == 0 or n_key == 0:
        return where
    if not _candidates(score_list, key_list, where):
        return _exact_key_rows(score_list, key_list)  # a degenerate hash: the exact numbering
    # the numbers only say which pairs may be the same; the ids say whether they are, so the join is exact whatever
    # the hash does (equal pairs always have equal numbers: no match can be missed)
    if (where >= 0).all():  # every scored pair has a candidate: compared in order, their key rows as they are
        where[~same_pairs(*score_list.ids, None, *key_list.ids, where)] = -1
        return where
    matched = np.flatnonzero(where >= 0)
    wrong = ~same_pairs(*score_list.ids, matched, *key_list.ids, where[matched])
    where[matched[wrong]] = -1
    return where


#: Elements of the merged numbers handled at a time in :func:`_key_rows`.
_BLOCK = 1 << 18
#: Pairs in runs of three or more equal high bits tried one by one (beyond a tenth of the rows) before the exact
#: numbering decides: a run of k has up to k**2 / 4 pairs to try.
_MAX_TRIED = 1000


def _candidates(score_list: TrialList, key_list: TrialList, where: np.ndarray) -> bool:
    """Into `where`, the key row that may hold each scored pair (its neighbour in the merged numbers, or one tried
    in a run of three or more); False for a degenerate hash (see :func:`_try_runs`)."""
    n, n_key = len(where), len(key_list.models)
    bits = max(score_list.row_bits, key_list.row_bits)
    low = np.uint64((1 << bits) - 1)
    merged = np.empty(n + n_key, np.uint64)
    for part, trial_list, side in ((merged[:n], score_list, 0), (merged[n:], key_list, 1)):
        part[:] = trial_list.forget_numbers()
        if trial_list.row_bits < bits:  # the smaller file's row moves down to the larger one's bits (still sorted
            # by the high bits; timsort puts the rare equal ones in order)
            own = np.uint64((1 << trial_list.row_bits) - 1)
            np.bitwise_or(part & ~low, part & own, out=part)
        part |= np.uint64(side)
    merged.sort(kind="stable")
    same = equal_neighbours(merged, bits)
    longer = np.flatnonzero(same[1:] & same[:-1])  # three or more in a row: few, each of their pairs tried below
    if longer.size and not _try_runs(score_list, key_list, merged, same, longer, low, where):
        return False

    def pairs(start: int) -> None:  # the pairs of neighbours starting in one block (each scored row in one pair)
        at = np.flatnonzero(same[start:start + _BLOCK]) + start
        first, second = merged[at] & low, merged[at + 1] & low
        across = ((first ^ second) & np.uint64(1)).astype(bool)  # one from each file (else two of one file)
        first, second = first[across], second[across]
        from_key = (first & np.uint64(1)).astype(bool)  # sorted by row, then file: either may come first
        where[(np.where(from_key, second, first) >> np.uint64(1)).view(np.int64)] = \
            (np.where(from_key, first, second) >> np.uint64(1)).view(np.int64)

    map_tasks(pairs, range(0, len(same), _BLOCK), workers_for(len(same)))
    return True


def _try_runs(score_list: TrialList, key_list: TrialList, merged: np.ndarray, same: np.ndarray, longer: np.ndarray,
              low: np.uint64, where: np.ndarray) -> bool:
    """The runs of three or more sorted numbers with equal high bits (`longer`: positions ``i`` where ``i``, ``i + 1``
    and ``i + 2`` agree; a pair and a third number sharing its high bits by chance, about ``n**2 / 2**(64 - bits)``
    runs for n rows): every scored pair of a run tried against every key entry of it on the ids, all runs at once;
    their positions then cleared from `same`. False, trying none, when that makes more than :data:`_MAX_TRIED`
    (plus a tenth of the rows) pairs to try: a degenerate hash."""
    member = np.zeros(len(merged), bool)
    for step in range(3):
        member[longer + step] = True
    at = np.flatnonzero(member)
    run = np.cumsum(np.concatenate([[True], ~same[at[1:] - 1]])) - 1  # each member's run: a new one after a break
    values = (merged[at] & low).astype(np.int64)
    rows, from_key = values >> 1, (values & 1).astype(bool)
    score_run, score_rows = run[~from_key], rows[~from_key]
    key_run, key_rows = run[from_key], rows[from_key]  # in run order, as the members are
    first = np.searchsorted(key_run, score_run, "left")
    counts = np.searchsorted(key_run, score_run, "right") - first  # key entries in each scored pair's run
    tried = int(counts.sum())
    if tried > _MAX_TRIED + len(merged) // 10:
        return False
    start = np.cumsum(counts) - counts
    key_rows = key_rows[np.repeat(first - start, counts) + np.arange(tried)]
    score_rows = np.repeat(score_rows, counts)
    if tried:
        found = same_pairs(*score_list.ids, score_rows, *key_list.ids, key_rows)
        where[score_rows[found]] = key_rows[found]
    same[at[at < len(same)]] = False  # their neighbours are no pairs of their own
    return True


def _exact_key_rows(score_list: TrialList, key_list: TrialList) -> np.ndarray:
    """:func:`_key_rows` by the exact numbering of every pair (slower, for a hash that puts many pairs together)."""
    codes, key_codes = exact_pair_codes(*score_list.ids, *key_list.ids)
    assert key_codes is not None  # (given a second list, its codes)
    return pd.Index(key_codes).get_indexer(pd.Index(codes))


def _kept(values, keep: np.ndarray):
    """The values (an array, or a range of line numbers) where `keep` is True: themselves when it always is."""
    return values if keep.all() else np.asarray(values)[keep]


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


def refuse_duplicates(src: _Source, models: pd.Series, tests: pd.Series, lines: Lines, what: str = "trial",
                      spaced: bool = True) -> None:
    """A LoadError naming both lines of the first repeat when a (model, test) pair appears twice (which score would
    count is unknown), counting the pairs that repeat and the lines that repeat them."""
    _refuse_repeats(TrialList(src, models, tests, np.empty(0), lines, spaced=spaced), what)


def _refuse_repeats(trial_list: TrialList, what: str) -> None:
    packed = trial_list.sorted_numbers
    # most files repeat nothing: the sort says so, but for the few neighbours whose high bits agree by chance
    at = np.flatnonzero(equal_neighbours(packed, trial_list.row_bits))
    low = np.uint64((1 << trial_list.row_bits) - 1)
    rows = np.unique(np.concatenate([packed[at], packed[at + 1]]) & low) >> np.uint64(1)
    if rows.size == len(np.unique(trial_list.numbers(rows))):
        return
    hashes = trial_list.numbers()  # some pairs share a whole number: the exact search among all of them
    later = repeated_pairs(*trial_list.ids, hashes)
    if later is None:  # two different pairs share a number: number them exactly
        hashes, _ = exact_pair_codes(*trial_list.ids)
        later = np.flatnonzero(pd.Index(hashes).duplicated())
    if later.size == 0:
        return
    row = int(later[0])
    first = int(np.argmax(hashes == hashes[row]))
    pairs, lines = len(np.unique(hashes[later])), trial_list.lines
    raise trial_list.src.error(
        f"the {what} {trial_list.trial(row).rsplit(' on ', 1)[0]} appears a second time (first on "
        f"line {int(lines[first])}); each (model, test) pair may appear only once, and here {_count(pairs, 'pair')} "
        f"{'appears' if pairs == 1 else 'appear'} more than once ({_count(later.size, 'line')} of {len(hashes):,} "
        f"{'repeats' if later.size == 1 else 'repeat'} a pair of an earlier line).", int(lines[row]))
