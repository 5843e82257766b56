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

from ..parallel import map_tasks, sort, workers_for
from .fast import categorical, categorical_of, compact_categories, memory_pool
from .metadata import take_rows

__all__ = ["LazyIds", "exact_pair_codes", "id_strings", "pair_hash", "repeated_pairs", "same_pairs", "take_strings"]

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
    # (not min(initial=0), which is 0 whatever the lengths: every word then took the slow path of the longer ids)
    shortest, longest = (int(lengths.min()), int(lengths.max())) if n else (0, 0)
    spare = longest + 8  # every word read from any string's start stays inside
    padded = np.zeros(hi - lo + spare, np.uint8)
    padded[:hi - lo] = data[lo:hi]
    words = np.ndarray((hi - lo + spare - 7,), dtype="<u8", buffer=padded, strides=(1,))  # 8 bytes from each position
    h = lengths.astype(np.uint64)
    h *= _K1
    for w in range(0, longest, 8):
        if w < shortest and shortest == longest:  # ids of one length (zero-padded numbers, as often): the strings'
            # words are every `longest`-th 8 bytes from `w`, a strided view of the bytes (no gather)
            word = np.ndarray((n,), dtype="<u8", buffer=padded, offset=w, strides=(longest,))
            _round(h, word & _MASKS[longest - w] if w + 8 > longest else word)
        elif w < shortest:  # every string has bytes in this word
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
    return [(a, _one_chunk(models.slice(a, b - a)), _one_chunk(tests.slice(a, b - a)))
            for a, b in pairwise(sorted(bounds))]


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


#: A take of fewer rows than a column's length over this takes them chunk by chunk (see :func:`take_strings`).
_FEW = 16


def take_strings(strings: pa.ChunkedArray, rows: np.ndarray) -> pa.ChunkedArray:
    """Rows `rows` of an Arrow string column (chunked), in that order.

    Arrow's ``take`` of a column of many chunks first joins them into one array: the whole column copied into fresh
    memory (70 MB for the ids of 5M lines) even to take a few rows, as the checks of the few pairs whose numbers agree
    do. Few rows are taken chunk by chunk instead: sorted, each chunk's taken from it, then put back in their order.
    """
    rows = np.asarray(rows, dtype=np.int64)
    if strings.num_chunks <= 1 or rows.size * _FEW >= len(strings):
        return pc.take(strings, pa.array(rows), memory_pool=memory_pool())
    bounds = np.cumsum([0] + [len(chunk) for chunk in strings.chunks])
    order = np.argsort(rows, kind="stable")
    ordered = rows[order]
    cuts = np.searchsorted(ordered, bounds)  # where each chunk's rows begin among the sorted rows
    pieces = [strings.chunk(k).take(pa.array(ordered[a:b] - bounds[k]))
              for k, (a, b) in enumerate(pairwise(cuts[:-1].tolist() + [ordered.size])) if b > a]
    taken = pa.concat_arrays(pieces) if pieces else pa.array([], strings.type)
    back = np.empty_like(order)
    back[order] = np.arange(order.size)
    return pa.chunked_array([taken.take(pa.array(back))], type=strings.type)


#: Pairs compared at a time by :func:`same_pairs` when they are many.
_COMPARED = 1 << 18


def same_pairs(models_a, tests_a, rows_a: np.ndarray | None, models_b, tests_b, rows_b: np.ndarray) -> np.ndarray:
    """Whether pair ``rows_a[i]`` of the first list equals pair ``rows_b[i]`` of the second, compared as text
    (`rows_a` None: every row of the first list, in order, which is then not copied).

    Few pairs: both columns taken at once (:func:`take_strings`), on two threads. Many (a join checks every match),
    column by column on :func:`~llrcore.thread_count` threads: ids all of one length, the first list in order, 8 bytes
    at a time where they lie (:func:`_same_width_equal`, no id copied); else each list's column joined into one array
    once and the pairs compared piece by piece (pyarrow's ``take`` and ``equal`` let go of the GIL), a piece's ids
    taken into memory that the next piece reuses, where taking them all at once held a second copy of the ids.
    """
    n = len(rows_b)
    if n == 0:
        return np.zeros(0, bool)
    pool = memory_pool()
    if n * _FEW < len(models_b):
        def equal(columns) -> pa.ChunkedArray:
            a, b = columns
            return pc.equal(a if rows_a is None else take_strings(a, rows_a), take_strings(b, rows_b),
                            memory_pool=pool)

        models, tests = map_tasks(equal, [(models_a, models_b), (tests_a, tests_b)], workers_for(n))
        return pc.and_(models, tests, memory_pool=pool).to_numpy(zero_copy_only=False).astype(bool)
    same = np.ones(n, bool)
    for a, b in ((models_a, models_b), (tests_a, tests_b)):
        if rows_a is None and _same_width_equal(a, b, rows_b, same):
            continue
        a, b = a if rows_a is None else _one_array(a), _one_array(b)

        def piece(start: int, a=a, b=b) -> None:
            stop = min(start + _COMPARED, n)
            rows = pa.array(np.asarray(rows_b[start:stop], dtype=np.int64))
            left = a.slice(start, stop - start) if rows_a is None else \
                pc.take(a, pa.array(np.asarray(rows_a[start:stop], dtype=np.int64)), memory_pool=pool)
            same[start:stop] &= pc.equal(left, pc.take(b, rows, memory_pool=pool),
                                         memory_pool=pool).to_numpy(zero_copy_only=False)

        map_tasks(piece, range(0, n, _COMPARED), workers_for(n))
    return same


def _fixed_width(strings: pa.Array) -> tuple[np.ndarray, int] | None:
    """The bytes of a string array from its first string to the end of its buffer, and the one length of all its
    strings; None when they have several lengths (or none: an empty array, empty strings, missing values)."""
    m = len(strings)
    _, offset_buffer, data_buffer = strings.buffers()
    if m == 0 or strings.null_count or data_buffer is None:
        return None
    offsets = np.frombuffer(offset_buffer, np.int32, m + 1, strings.offset * 4)
    lo, hi = int(offsets[0]), int(offsets[-1])
    width, rest = divmod(hi - lo, m)
    if rest or width == 0 or (m > 1 and not (np.diff(offsets) == width).all()):
        return None
    return np.frombuffer(data_buffer, np.uint8)[lo:], width


def _same_width_equal(a: pa.ChunkedArray, b: pa.ChunkedArray, rows: np.ndarray, same: np.ndarray) -> bool:
    """``same[i] &= a[i] == b[rows[i]]`` for ids all of one length in both columns, `a` taken in order: 8 bytes at a
    time (a strided view of `a`'s bytes, a gather from `b`'s words), no id copied. False, doing nothing, when the
    lengths vary (then Arrow compares them).

    Two strings of one length are equal when their bytes are at every position: words at 0, 8, ... and, for a length
    that is no multiple of 8, the last 8 bytes (overlapping the word before); ids shorter than 8 bytes are masked to
    their own bytes. A word that would run past the end of a chunk's bytes (the last ids of a chunk, for ids shorter
    than 8 bytes) is read one by one, zeros past the end."""
    mine, other = _fixed_chunks(a), _fixed_chunks(b)
    if mine is None or other is None or mine[1] != other[1]:
        return False
    chunks, width = mine
    words = list(range(0, width - 7, 8)) + ([width - 8] if width % 8 and width > 8 else []) if width >= 8 else [0]
    theirs_all = _words_of(other[0], len(b), width, words)

    def compare(task) -> None:
        first, a_bytes, m = task
        ok, mine_rows = same[first:first + m], rows[first:first + m]
        for w, theirs in zip(words, theirs_all):
            differ = theirs[mine_rows]
            _put_words(differ, a_bytes, width, w, xor=True)
            if width < 8:
                differ &= _MASKS[width]
            ok &= differ == 0

    map_tasks(compare, chunks, workers_for(len(rows)))
    return True


def _put_words(out: np.ndarray, data: np.ndarray, width: int, w: int, *, xor: bool = False) -> None:
    """Into `out`, for each of its ``len(out)`` ids of `width` bytes lying one after the other in `data`, the
    little-endian 8-byte word from the id's byte `w` (XOR-ed into `out` with `xor`): a strided view of the bytes for
    the ids with 8 bytes from there, one by one for the last ids of `data` (zeros past its end)."""
    m = len(out)
    full = min(m, max((m * width - w - 8) // width + 1, 0))
    view = np.ndarray((full,), "<u8", data, offset=w, strides=(width,))
    last = np.array([_word(data, i * width + w) for i in range(full, m)], np.uint64)
    for part, words in ((out[:full], view), (out[full:], last)):
        if xor:
            part ^= words
        else:
            part[:] = words


def _word(data: np.ndarray, at: int) -> np.uint64:
    """The little-endian 8-byte word of `data` from `at`, zeros past its end."""
    return np.uint64(int.from_bytes(data[at:at + 8].tobytes().ljust(8, b"\0"), "little"))


def _fixed_chunks(strings: pa.ChunkedArray) -> tuple[list[tuple[int, np.ndarray, int]], int] | None:
    """``(first row, bytes, rows)`` of each non-empty chunk of a column whose ids are all of one length, and that
    length; None when they have several lengths or there are none (:func:`_fixed_width`, chunk by chunk)."""
    chunks, start, width = [], 0, None
    for chunk in strings.chunks:
        if len(chunk):
            fixed = _fixed_width(chunk)
            if fixed is None or fixed[1] != (width or fixed[1]):
                return None
            width = fixed[1]
            chunks.append((start, fixed[0][:len(chunk) * width], len(chunk)))
        start += len(chunk)
    return None if width is None else (chunks, width)


def _words_of(chunks: list[tuple[int, np.ndarray, int]], n: int, width: int, words: list[int]) -> list[np.ndarray]:
    """For the `n` ids of `width` bytes in `chunks` (:func:`_fixed_chunks`), each id's 8-byte word from each offset
    in `words`, one array per offset in row order (zeros past a chunk's end)."""
    out = [np.empty(n, np.uint64) for _ in words]
    for start, data, m in chunks:
        for w, words_w in zip(words, out):
            _put_words(words_w[start:start + m], data, width, w)
    return out


def _one_array(strings: pa.ChunkedArray) -> pa.Array:
    """An Arrow string column (chunked) as one array: its chunks joined, once.

    Joined by numpy into numpy's memory (the system's ordinary pages within :func:`~llrcore.memory.small_pages`):
    Arrow asks for 2 MiB pages for a buffer this large, whose first touch cost up to 0.3 s of system time on a busy
    2-CPU virtual machine for the 125 MB of a 5M-line key's ids. Arrow's own join past 2 GiB of text (its offsets'
    limit) or for a column with missing values."""
    if strings.num_chunks == 1:
        return strings.chunk(0)
    n = len(strings)
    offsets = np.empty(n + 1, np.int32)
    pieces, row, size = [], 0, 0
    for chunk in strings.chunks:
        _, offset_buffer, data_buffer = chunk.buffers()
        own = np.frombuffer(offset_buffer, np.int32, len(chunk) + 1, chunk.offset * 4) if len(chunk) else None
        if own is None:
            continue
        lo, hi = int(own[0]), int(own[-1])
        if size + hi - lo >= 2**31 or chunk.null_count:
            return strings.combine_chunks(memory_pool=memory_pool())
        np.add(own[:-1], size - lo, out=offsets[row:row + len(chunk)])
        if hi > lo:
            pieces.append(np.frombuffer(data_buffer, np.uint8)[lo:hi])
        row, size = row + len(chunk), size + hi - lo
    offsets[n] = size
    data = np.concatenate(pieces) if pieces else np.zeros(0, np.uint8)
    return pa.Array.from_buffers(pa.string(), n, [None, pa.py_buffer(offsets), pa.py_buffer(data)])


#: Elements of the big arrays below handled at a time: a block's temporaries are reused (and stay in the CPU's
#: cache) instead of tens of MB allocated afresh for each step.
_BLOCK = 1 << 18


def sorted_with_rows(numbers: np.ndarray, bits: int) -> np.ndarray:
    """The high bits of `numbers` (all but the low `bits`), each with its row number shifted left by one (the free
    lowest bit marks a file in a join) in the low bits, sorted: an argsort's answer from numpy's plain sort of
    integers, on every core (:func:`~llrcore.parallel.sort`; `numbers` is overwritten on the way).
    ``bits >= len(numbers).bit_length() + 1``."""
    packed = numbers
    packed &= ~np.uint64((1 << bits) - 1)
    for start in range(0, len(packed), _BLOCK):
        block = packed[start:start + _BLOCK]
        block |= np.arange(2 * start, 2 * (start + len(block)), 2, dtype=np.uint64)
    return sort(packed)


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
