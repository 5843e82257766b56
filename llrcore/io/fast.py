"""The fast path of the text readers: a regular table parsed by pyarrow's CSV reader (multi-threaded C++) straight
into arrays, its words dictionary-encoded into pandas categoricals whose categories stay Arrow strings.

Nothing here raises a :class:`~llrcore.io.LoadError`: :func:`read_table` returns None as soon as a file is not
plainly regular (a parse or conversion error, a column count that differs, a NaN score, a layout pyarrow splits
otherwise than pandas would), and the careful path of :class:`~llrcore.io.text.TextFile` then reads the same bytes
with pandas and names the file, the line and the column of the problem. The two paths give the same table for every
file the fast one accepts: numbers are parsed correctly rounded (as Python's ``float`` does) and words are kept
verbatim.

Reference: Apache Arrow, *Reading CSV files* (``pyarrow.csv.read_csv``, ``pyarrow.compute.dictionary_encode``).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ._source import FileBytes

__all__ = ["categorical", "categorical_of", "compact_categories", "memory_pool", "read_table"]

_WHITESPACE = r"\s+"


def _arrow():
    """pyarrow's modules, or None where it is not installed (then the careful path reads every file)."""
    try:
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.csv as pcsv
    except ImportError:  # pragma: no cover - pyarrow is a dependency
        return None
    return pa, pc, pcsv


def memory_pool():
    """The Arrow memory the readers' tables and id comparisons take: the system's allocator (``malloc``), whose large
    blocks are the system's ordinary pages. pyarrow's default (mimalloc) backs them with 2 MiB pages, which cost more
    page faults than they save in memory made once and let go of soon (see :func:`llrcore.memory.small_pages`)."""
    import pyarrow as pa

    return pa.system_memory_pool()


def _delimiter(body: FileBytes, sep: str) -> str | None:
    """The one-character delimiter for pyarrow, or None when pandas must split the file.

    A file with quotation marks is left to pandas, which pairs them. pandas splits whitespace-separated files on runs
    of spaces and tabs and skips the indentation; one space (or one tab) as the delimiter splits alike when the file
    has no tab (no space) and no field comes out empty, which :func:`read_table` checks after parsing (a run of
    blanks, or one at either end of a line, makes an empty field).
    """
    if sep != _WHITESPACE:  # quoted fields (rare in score files) are left to pandas, which pairs the quotes
        return sep if body.find(b'"') < 0 else None
    if body.find(b"\t") < 0:
        return " "
    if body.find(b" ") < 0:
        return "\t"
    return None


def read_table(body: FileBytes, sep: str, decimal: str, ncols: int, categorical: Sequence[int],
               numbers: Sequence[int], strings: Sequence[int] = (), comments: bool = False,
               labels: Sequence[int] = ()) -> pd.DataFrame | None:
    """The rows of `body` (data lines only, one row per line) as a table with columns ``0 .. ncols-1``, or None.

    Columns `categorical` become categoricals (their words verbatim), columns `strings` Arrow strings as read (a
    pandas column over the Arrow array, no copy: ids that :mod:`~llrcore.io.ids` matches without dictionary-encoding
    them), columns `numbers` float64 (None when one is not a number or is NaN), the others what pyarrow infers
    (numbers, else words as categoricals). Columns `labels` (among `categorical`: a few words repeated on every line,
    such as labels) are dictionary-encoded by the reader as it parses them, without a column of millions of strings
    first. With `comments`, None also when a row's first word starts with ``#`` (a comment line the careful path must
    leave out).
    """
    modules = _arrow()
    delimiter = _delimiter(body, sep)
    if modules is None or delimiter is None or not body:
        return None
    pa, pc, pcsv = modules
    names = [f"f{j}" for j in range(ncols)]
    # words as strings, dictionary-encoded after in one hash pass (encoding them block by block in the reader, then
    # merging the blocks' dictionaries, costs twice as much for ids that are nearly all distinct)
    types = {**{names[j]: pa.string() for j in (*categorical, *strings)},
             **{names[j]: pa.float64() for j in numbers},
             **{names[j]: pa.dictionary(pa.int32(), pa.string()) for j in labels}}
    try:
        table = pcsv.read_csv(
            pa.py_buffer(body),
            read_options=pcsv.ReadOptions(column_names=names),
            parse_options=pcsv.ParseOptions(delimiter=delimiter, quote_char=False, ignore_empty_lines=False),
            convert_options=pcsv.ConvertOptions(column_types=types, null_values=[], strings_can_be_null=False,
                                                quoted_strings_can_be_null=False, decimal_point=decimal,
                                                true_values=[], false_values=[],
                                                check_utf8=False),  # the readers checked the bytes are UTF-8
            memory_pool=memory_pool())
    except (pa.ArrowException, ValueError, OSError):
        return None  # the careful path says what is wrong, and where
    if comments and pa.types.is_string(table.column(0).type):
        first = table.column(0) if sep == _WHITESPACE else pc.utf8_ltrim_whitespace(table.column(0))
        if pc.any(pc.starts_with(first, "#")).as_py():
            return None
    columns = {}
    for j, name in enumerate(names):
        column = table.column(name)
        if j in numbers:
            values = column.to_numpy()
            if np.isnan(values).any():
                return None
            columns[j] = values
        elif j in strings:
            if sep == _WHITESPACE and _has_empty(column):
                return None  # an empty field: a run of blanks, or one at either end of a line
            columns[j] = pd.Series(pd.arrays.ArrowExtensionArray(column), copy=False)
        elif pa.types.is_dictionary(column.type) or pa.types.is_string(column.type):
            values = categorical_of(column)
            if sep == _WHITESPACE and (values.categories.str.len() == 0).any():
                return None  # a run of blanks, or one at either end of a line: pandas splits otherwise
            columns[j] = values
        else:
            columns[j] = column.to_pandas()
    return pd.DataFrame(columns, index=pd.RangeIndex(table.num_rows), copy=False)


def _has_empty(strings) -> bool:
    """Whether an Arrow string column (chunked) holds an empty string: two equal offsets, chunk by chunk (no array of
    millions of lengths allocated, as ``pyarrow.compute.binary_length`` would)."""
    for chunk in strings.chunks:
        if len(chunk) == 0:
            continue
        offsets = np.frombuffer(chunk.buffers()[1], np.int32, len(chunk) + 1, chunk.offset * 4)
        if (offsets[1:] == offsets[:-1]).any():
            return True
    return False


def categorical_of(array) -> pd.Categorical:
    """A pandas categorical of an Arrow string array (chunked or not): one hash pass over the rows (Arrow's
    dictionary encoding; the chunks of a chunked array share one dictionary), the categories kept as Arrow strings
    (no Python string per distinct value). A column the reader dictionary-encoded is renumbered chunk by chunk
    (:func:`_one_numbering`)."""
    pa, pc, _ = _arrow()
    if isinstance(array, pa.ChunkedArray) and pa.types.is_dictionary(array.type):
        return _one_numbering(array)
    if isinstance(array, pa.ChunkedArray):
        array = array if array.num_chunks else pa.chunked_array([pa.array([], pa.string())])
        encoded = pc.dictionary_encode(array, memory_pool=memory_pool())
        if len({len(c.dictionary) for c in encoded.chunks}) > 1:  # an Arrow whose chunks keep their own
            encoded = pc.dictionary_encode(array.combine_chunks(), memory_pool=memory_pool())
        else:
            encoded = encoded.combine_chunks()
    else:
        encoded = pc.dictionary_encode(array, memory_pool=memory_pool())
    return categorical(encoded.indices.to_numpy(zero_copy_only=False), pd.Index(encoded.dictionary.to_pandas()))


def _one_numbering(array) -> pd.Categorical:
    """A pandas categorical of a chunked Arrow dictionary array whose chunks have dictionaries of their own (as the
    CSV reader makes them: a few words each): each chunk's codes mapped into one numbering of the words, in the order
    the column first gives them (as Arrow's dictionary encoding of the whole column numbers them)."""
    pa, _, _ = _arrow()
    words: dict[str, int] = {}
    codes = np.empty(len(array), np.int32)
    at = 0
    for chunk in array.chunks:
        renumber = np.array([words.setdefault(word, len(words)) for word in chunk.dictionary.to_pylist()], np.int32)
        codes[at:at + len(chunk)] = renumber[chunk.indices.to_numpy(zero_copy_only=False)]
        at += len(chunk)
    return categorical(codes, pd.Index(pa.array(list(words), pa.string()).to_pandas()))


def categorical(codes: np.ndarray, categories: pd.Index) -> pd.Categorical:
    """``pd.Categorical.from_codes`` for categories known to be distinct: pandas would hash millions of ids again
    to check that."""
    try:
        dtype = pd.CategoricalDtype._from_fastpath(categories, False)  # type: ignore[attr-defined]
    except (AttributeError, TypeError):  # pragma: no cover - another pandas: the public, checking constructor
        dtype = pd.CategoricalDtype(categories, ordered=False)
    return pd.Categorical.from_codes(codes, dtype=dtype, validate=False)


def compact_categories(column: pd.Series) -> pd.Series:
    """A categorical column without the categories no row uses (``cat.remove_unused_categories``, without pandas'
    checks of millions of categories), categories in their order."""
    codes = column.cat.codes.to_numpy()
    categories = column.cat.categories
    used = np.bincount(codes[codes >= 0], minlength=len(categories)) > 0
    if used.all():
        return column
    renumber = np.cumsum(used) - 1
    new_codes = np.where(codes >= 0, renumber[np.maximum(codes, 0)], -1)
    return pd.Series(categorical(new_codes, categories[used]), index=column.index, name=column.name)
