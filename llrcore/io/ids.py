"""The (model, test) ids of a Kaldi/BOSARIS trial list, matched without building a hash table of millions of strings.

A score file of millions of trials has about as many distinct test ids as lines. Dictionary-encoding them (one hash
table of millions of strings: Arrow's ``dictionary_encode``, pandas' categoricals) takes longer than parsing the
file, so the readers find repeated pairs and join a key to its scores on numbers computed from the ids' bytes:

- :func:`pair_hash` gives each pair a 64-bit number with numpy, eight bytes at a time (a multiply-xorshift chain,
  then splitmix64's finaliser), in one pass over the rows and no hash table;
- equal pairs have equal numbers. Repeated pairs are found by sorting the numbers and comparing the ids themselves
  wherever two numbers agree (:func:`repeated_pairs`): the answer is exact. A key is joined to its scores by sorting
  the numbers of both files together (:func:`~llrcore.io.kaldi.join_with_key`), and every match is checked on the
  ids themselves (:func:`same_pairs`): the join is exact too. Where the numbers behave badly (many different pairs
  with equal numbers), the exact, slower numbering (:func:`exact_pair_codes`) decides.

The ids stay as they were read (Arrow strings); the categoricals of ``Trials.metadata`` are built when someone first
looks at them (:class:`LazyIds`).

References: S. Vigna, *Further scramblings of Marsaglia's xorshift generators* (splitmix64's finaliser, 2017);
Apache Arrow columnar format (a string array is an offsets buffer and a data buffer).
"""
from __future__ import annotations

from itertools import pairwise

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..parallel import map_tasks, workers_for
from .fast import categorical, categorical_of, compact_categories
from .metadata import take_rows

__all__ = ["LazyIds", "exact_pair_codes", "id_strings", "pair_hash", "repeated_pairs", "same_pairs"]

_K1, _K2, _K3 = np.uint64(0x9E3779B97F4A7C15), np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)
#: MASKS[k] keeps the first k bytes of a little-endian 8-byte word (k = 0..8).
_MASKS = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [(1 << 64) - 1], dtype=np.uint64)


def id_strings(column, strip: bool = False) -> pa.ChunkedArray:
    """The ids of a column (Arrow strings, or a pandas categorical or string column) as Arrow strings, spaces at
    either end removed when `strip` (ids are compared as text, spaces stripped)."""
    if isinstance(column, pd.Series) and isinstance(column.dtype, pd.CategoricalDtype):
        categories = pa.array(np.asarray(column.cat.categories.astype(str), dtype=object), type=pa.string())
        strings = pa.chunked_array([categories.take(pa.array(column.cat.codes.to_numpy()))])
    else:
        strings = _arrow(column)
    if strings.type != pa.string():
        strings = strings.cast(pa.string())
    return pc.utf8_trim_whitespace(strings) if strip else strings


def _arrow(column) -> pa.ChunkedArray:
    """An Arrow array, or a pandas column over one (no copy), or any other column of text, as an Arrow chunked array."""
    if isinstance(column, pa.ChunkedArray):
        return column
    if isinstance(column, pa.Array):
        return pa.chunked_array([column])
    if isinstance(column, pd.Series) and isinstance(column.array, pd.arrays.ArrowExtensionArray):
        strings = column.array.__arrow_array__()
        return strings if isinstance(strings, pa.ChunkedArray) else pa.chunked_array([strings])
    return pa.chunked_array([pa.array(np.asarray(pd.Series(column).astype(str), dtype=object), type=pa.string())])


def _mix(h: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser, in place: every input bit moves every output bit."""
    h ^= h >> np.uint64(30)
    h *= _K2
    h ^= h >> np.uint64(27)
    h *= _K3
    h ^= h >> np.uint64(31)
    return h


def _string_hash(chunk: pa.Array) -> np.ndarray:
    """One 64-bit state per string of an Arrow string array, from its length and its bytes eight at a time (an
    xor-multiply-xorshift chain: each step a bijection of the state for a given word)."""
    n = len(chunk)
    _, offset_buffer, data_buffer = chunk.buffers()
    offsets = np.frombuffer(offset_buffer, np.int32, n + 1, chunk.offset * 4)
    data = np.frombuffer(data_buffer, np.uint8) if data_buffer is not None else np.zeros(0, np.uint8)
    lo, hi = int(offsets[0]), int(offsets[-1])
    starts, lengths = offsets[:-1] - lo, np.diff(offsets)
    shortest, longest = int(lengths.min(initial=0)), int(lengths.max(initial=0))
    spare = longest + 8  # every word read from any string's start stays inside
    padded = np.zeros(hi - lo + spare, np.uint8)
    padded[:hi - lo] = data[lo:hi]
    words = np.ndarray((hi - lo + spare - 7,), dtype="<u8", buffer=padded, strides=(1,))  # 8 bytes from each position
    h = lengths.astype(np.uint64)
    h *= _K1
    for w in range(0, longest, 8):
        if w < shortest:  # every string has bytes in this word
            word = words[starts + w]
            if w + 8 > shortest:  # some end within it: keep their own bytes only
                word &= _MASKS[min(longest - w, 8)] if shortest == longest else _MASKS[np.minimum(lengths - w, 8)]
            _round(h, word)
        else:  # only the strings with bytes in this word take a round: a string's number never depends on the others
            rows = np.flatnonzero(lengths > w)
            h_rows = h[rows]
            _round(h_rows, words[starts[rows] + w] & _MASKS[np.minimum(lengths[rows] - w, 8)])
            h[rows] = h_rows
    return h  # mixed once per pair, in pair_hash


def _round(h: np.ndarray, word: np.ndarray) -> None:
    """One word into the state, in place."""
    h ^= word
    h *= _K2
    h ^= h >> np.uint64(29)


#: Rows hashed at a time (at most): a piece's temporaries stay in the CPU's cache and are reused.
_PIECE = 1 << 16


def _pieces(models: pa.ChunkedArray, tests: pa.ChunkedArray) -> list[tuple[int, pa.Array, pa.Array]]:
    """``(first row, models, tests)`` of pieces of at most :data:`_PIECE` rows, each within one chunk of both columns
    (no copy: slices of the chunks)."""
    bounds = {0, len(models)} | set(range(0, len(models), _PIECE))
    for column in (models, tests):
        bounds |= set(np.cumsum([len(chunk) for chunk in column.chunks]).tolist())
    bounds = sorted(bounds)
    return [(a, _one_chunk(models.slice(a, b - a)), _one_chunk(tests.slice(a, b - a))) for a, b in pairwise(bounds)]


def _one_chunk(strings: pa.ChunkedArray) -> pa.Array:
    """The one chunk holding rows (a slice within one chunk: no copy)."""
    chunks = [chunk for chunk in strings.chunks if len(chunk)]
    return chunks[0] if len(chunks) == 1 else pa.concat_arrays(chunks)


def pair_hash(models: pa.ChunkedArray, tests: pa.ChunkedArray) -> np.ndarray:
    """A 64-bit number per (model, test) pair (uint64): equal pairs, equal numbers; two different pairs agree with
    odds of about 2**-64. The model's state, multiplied, xor the test's, then splitmix64's finaliser. Piece by piece
    (each in the CPU's cache), on :func:`~llrcore.thread_count` threads (numpy lets go of the GIL), the same numbers
    whatever their number and whatever the chunks."""
    numbers = np.empty(len(models), np.uint64)

    def piece(task) -> None:
        start, model, test = task
        mixed = numbers[start:start + len(model)]
        np.multiply(_string_hash(model), _K1, out=mixed)
        mixed ^= _string_hash(test)
        _mix(mixed)

    map_tasks(piece, _pieces(models, tests), workers_for(len(models)))
    return numbers


def _take(strings: pa.ChunkedArray, rows: np.ndarray) -> pa.ChunkedArray:
    return strings.take(pa.array(np.asarray(rows, dtype=np.int64)))


def same_pairs(models_a, tests_a, rows_a: np.ndarray | None, models_b, tests_b, rows_b: np.ndarray) -> np.ndarray:
    """Whether pair ``rows_a[i]`` of the first list equals pair ``rows_b[i]`` of the second, compared as text
    (`rows_a` None: every row of the first list, in order, which is then not copied). The two columns on two threads
    (pyarrow's ``take`` and ``equal`` let go of the GIL)."""
    if len(rows_b) == 0:
        return np.zeros(0, bool)

    def equal(columns) -> pa.ChunkedArray:
        a, b = columns
        return pc.equal(a if rows_a is None else _take(a, rows_a), _take(b, rows_b))

    models, tests = map_tasks(equal, [(models_a, models_b), (tests_a, tests_b)], workers_for(len(rows_b)))
    return pc.and_(models, tests).to_numpy(zero_copy_only=False).astype(bool)


#: Elements of the big arrays below handled at a time: a block's temporaries are reused (and stay in the CPU's
#: cache) instead of tens of MB allocated afresh for each step.
_BLOCK = 1 << 18


def sorted_with_rows(numbers: np.ndarray, bits: int) -> np.ndarray:
    """The high bits of `numbers` (all but the low `bits`), each with its row number shifted left by one (the free
    lowest bit marks a file in a join) in the low bits, sorted: an argsort's answer from numpy's plain, vectorised
    sort of integers. In place: `numbers` becomes the answer (no memory allocated afresh, which the kernel would
    zero). ``bits >= len(numbers).bit_length() + 1``."""
    packed = numbers
    packed &= ~np.uint64((1 << bits) - 1)
    for start in range(0, len(packed), _BLOCK):
        block = packed[start:start + _BLOCK]
        block |= np.arange(2 * start, 2 * (start + len(block)), 2, dtype=np.uint64)
    packed.sort()
    return packed


def equal_neighbours(packed: np.ndarray, bits: int) -> np.ndarray:
    """Where ``packed[i]`` and ``packed[i + 1]`` have the same high bits (all but the low `bits`): a bool array one
    shorter than `packed`, made block by block."""
    same = np.empty(max(len(packed) - 1, 0), bool)
    low = np.uint64((1 << bits) - 1)
    for start in range(0, len(same), _BLOCK):
        stop = min(start + _BLOCK, len(same))
        np.less_equal(packed[start + 1:stop + 1] ^ packed[start:stop], low, out=same[start:stop])
    return same


def repeated_pairs(models, tests, hashes: np.ndarray) -> np.ndarray | None:
    """The rows whose pair is on an earlier row too (ascending), or None when two different pairs share a number (then
    :func:`exact_pair_codes` must decide)."""
    order = np.argsort(hashes, kind="stable")
    ordered = hashes[order]
    same = np.flatnonzero(ordered[1:] == ordered[:-1])
    if same.size == 0:
        return np.zeros(0, np.int64)
    earlier, later = order[same], order[same + 1]  # stable: in each run of equal numbers, rows in file order
    if not same_pairs(models, tests, earlier, models, tests, later).all():
        return None
    return np.sort(later)


def exact_pair_codes(models: pa.ChunkedArray, tests: pa.ChunkedArray, other_models=None, other_tests=None) \
        -> tuple[np.ndarray, np.ndarray | None]:
    """One int64 per pair, equal exactly when the pairs are equal as text, for one list or for two in one numbering
    (Arrow's dictionary encoding of every id: slower than :func:`pair_hash`, never wrong)."""
    codes = []
    for a, b in ((models, other_models), (tests, other_tests)):
        chunks = list(a.chunks) + ([] if b is None else list(b.chunks))
        encoded = pc.dictionary_encode(pa.chunked_array(chunks, type=pa.string())).combine_chunks()
        codes.append((encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64), len(encoded.dictionary)))
    (model_codes, _), (test_codes, width) = codes
    pairs = model_codes * max(width, 1) + test_codes
    n = len(models)
    return pairs[:n], (None if other_models is None else pairs[n:])


class LazyIds:
    """The ``model`` and ``test`` columns of ``Trials.metadata``, built on first use: the ids as read (Arrow strings,
    or categoricals from the careful path) and which of their rows the trials keep, in the trials' order.

    Dictionary-encoding millions of ids into categoricals costs more than reading the file; a reader that only needs
    EER, minDCF or Cllr never pays it.
    """

    def __init__(self, columns: dict, rows: np.ndarray | None = None, n_rows: int | None = None):
        self.columns = columns  # name -> Arrow strings (ChunkedArray) or a categorical Series, one row per line
        self.rows = rows  # which rows, in which order (None: all, in file order)
        self.n_rows = len(next(iter(columns.values()))) if n_rows is None else n_rows

    def __len__(self) -> int:
        return self.n_rows if self.rows is None else len(self.rows)

    def take(self, rows: np.ndarray) -> LazyIds:
        """The rows `rows` of this table (positions in it), still unbuilt."""
        rows = np.asarray(rows, dtype=np.int64)
        return LazyIds(self.columns, rows if self.rows is None else self.rows[rows], self.n_rows)

    def materialize(self) -> pd.DataFrame:
        """The table: each id column a categorical of the ids its rows use (in the order the file first gives them),
        one row per kept row."""
        columns = {}
        for name, values in self.columns.items():
            if not isinstance(getattr(values, "dtype", None), pd.CategoricalDtype):
                values = pd.Series(categorical_of(_arrow(values)), copy=False)
            if self.rows is not None and len(self.rows) != self.n_rows:  # the ids of rows left out are no categories
                codes = values.cat.codes.to_numpy().copy()
                unused = np.ones(self.n_rows, bool)
                unused[self.rows] = False
                codes[unused] = -1
                values = compact_categories(pd.Series(categorical(codes, values.cat.categories), copy=False))
            columns[name] = values
        frame = pd.DataFrame(columns, index=pd.RangeIndex(self.n_rows), copy=False)
        return frame if self.rows is None else take_rows(frame, self.rows)
