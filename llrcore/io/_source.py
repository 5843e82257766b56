"""Reading the bytes of an input (a path or an uploaded file-like), and the error and warning every reader raises.

Shared by the readers of every format: :class:`LoadError` names the file, the line and the problem in a sentence;
:class:`LoadWarning` says which part of a readable file was left out; :class:`_Source` holds the bytes of one input
(gzip undone) and the name to use in messages; :func:`_text_bytes` turns text in the encodings people save (UTF-8
with or without BOM, UTF-16 with BOM, Windows line ends) into clean UTF-8 bytes, refusing binary data with the line
where it starts.
"""
from __future__ import annotations

import gzip
import io
import mmap
import os
import zlib
from pathlib import Path
from typing import IO

import numpy as np

from ..memory import available_memory

__all__ = ["LoadError", "LoadWarning", "has_skippable_lines"]

FileBytes = bytes | mmap.mmap  # an input's bytes, or its file mapped into memory (:func:`_mapped`)
#: What a reader reads: a path, or a file-like object open in binary or text mode (an upload).
Source = str | os.PathLike | IO[bytes] | IO[str]
#: Where a writer writes: a path, or a binary file-like object.
Destination = str | os.PathLike | IO[bytes]


class LoadError(ValueError):
    """A file could not be read; the message says which file, which line and what is wrong.

    Attributes
    ----------
    path : str or None
        The file's path (or the ``.name`` of the file-like object), None when unknown.
    line : int or None
        The 1-based line number in the file (a row number for Parquet), None when no line applies.
    reason : str
        The problem, as a sentence. It never says how to give a file in one front end (a Python keyword, a command
        line option, a box on a page): each front end adds its own instruction, guided by the attributes below.
    needs_key : bool
        True when the file is a Kaldi/BOSARIS score file ``model test score`` that can only be read with its key
        (trials) file: ``key=`` in :func:`~llrcore.read_trials`, ``--key`` on the command line, the key box in the app.
    """

    def __init__(self, reason: str, path: str | None = None, line: int | None = None, unit: str = "line", *,
                 needs_key: bool = False):
        self.reason = reason
        self.path = path
        self.line = line
        self.unit = unit
        self.needs_key = needs_key
        super().__init__(f"{_display_name(path)}{f', {unit} {line}' if line is not None else ''}: {reason}")

    def __reduce__(self):
        return (_rebuild, (type(self), self.reason, self.path, self.line, self.unit, self.needs_key))


def _rebuild(cls, reason, path, line, unit, needs_key):
    return cls(reason, path, line, unit, needs_key=needs_key)


class LoadWarning(UserWarning):
    """A file was read, but part of it was left out; the message says which file, how much and why.

    For example a Kaldi/BOSARIS score file read with a key that covers only some of its trials (the usual
    per-condition key): the trials in both files are kept, and one warning counts the scored trials left out,
    another the trials of the key that have no score.

    Attributes
    ----------
    path : str or None
        The file the warning is about (or the ``.name`` of the file-like object), None when unknown.
    reason : str
        What was left out, as a sentence.
    """

    def __init__(self, reason: str, path: str | None = None):
        self.reason = reason
        self.path = path
        super().__init__(f"{_display_name(path)}: {reason}")

    def __reduce__(self):
        return (type(self), (self.reason, self.path))


def _mapped(path: str) -> FileBytes:
    """A file's bytes mapped into memory (read-only): its pages are the operating system's cached copy, used as they
    are read, where reading them into ``bytes`` allocates as much fresh memory, which the kernel zeroes before the
    copy (for 0.4 GB of score files, a tenth of the reading's time). The bytes themselves where a file cannot be
    mapped (an empty file, a pipe, a special file)."""
    with open(path, "rb") as file:
        try:
            if os.fstat(file.fileno()).st_size > 0:
                return mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError):
            pass
        return file.read()


def _display_name(path: str | None) -> str:
    """The file's name as messages show it (no folders)."""
    return Path(path).name if path else "the input"


class _Source:
    """The bytes of one input and the name to use in messages."""

    def __init__(self, data: FileBytes, path: str | None):
        self.data = data
        self.path = path
        base = Path(path).name if path else ""
        if base.lower().endswith(".gz"):
            base = base[:-3]
        self.stem = Path(base).stem if base else ""
        self.suffix = Path(base).suffix.lower() if base else ""

    @classmethod
    def open(cls, source, mapped: bool = False) -> "_Source":
        """The input's bytes; with `mapped`, a file given by its path is mapped into memory instead of read (see
        :func:`_mapped`): its ``data`` is then an ``mmap`` that readers use as bytes (``find``, slices, buffer)."""
        if isinstance(source, (str, os.PathLike)):
            path = os.fspath(source)
            try:
                data = _mapped(path) if mapped else Path(path).read_bytes()
            except FileNotFoundError:
                raise LoadError("the file does not exist.", path) from None
            except IsADirectoryError:
                raise LoadError("this is a folder, not a file.", path) from None
            except OSError as exc:
                raise LoadError(f"the file cannot be opened ({exc.strerror or exc}).", path) from None
        elif hasattr(source, "read"):
            name = getattr(source, "name", None)
            path = name if isinstance(name, str) and name else None
            try:
                if getattr(source, "seekable", lambda: False)():
                    source.seek(0)
            except (OSError, ValueError):
                pass
            try:
                data = source.read()
            except UnicodeDecodeError:
                raise LoadError("the file is not readable text (it is not UTF-8); open it in binary mode or save "
                                "it as UTF-8.", path) from None
            except OSError as exc:
                raise LoadError(f"the file cannot be read ({exc}).", path) from None
            if isinstance(data, str):
                data = data.encode("utf-8", "surrogatepass")
            elif not isinstance(data, (bytes, bytearray, memoryview)):
                raise TypeError(f"read() of {source!r} returned {type(data).__name__}, not bytes or str.")
            data = bytes(data)
        else:
            raise TypeError(f"Expected a path or a file-like object, not {type(source).__name__}.")
        if data[:2] == b"\x1f\x8b":
            try:
                data = gzip.decompress(data)
            except (OSError, EOFError, zlib.error) as exc:
                raise LoadError(f"the file looks gzip-compressed but cannot be decompressed ({exc}).", path) \
                    from None
        return cls(data, path)

    def forget_bytes(self) -> None:  # (a mapped file is unmapped once nothing else holds its buffer)
        """Let go of the file's bytes once it is parsed (hundreds of MB for millions of trials): messages about it
        need only its name."""
        self.data = b""

    @property
    def name(self) -> str:
        """The file's name as messages show it."""
        return _display_name(self.path)

    def error(self, reason: str, line: int | None = None, unit: str = "line", *, needs_key: bool = False) \
            -> LoadError:
        return LoadError(reason, self.path, None if line is None else int(line), unit, needs_key=needs_key)

    def warning(self, reason: str) -> LoadWarning:
        return LoadWarning(reason, self.path)


#: Memory a text reader takes beyond the file's own bytes, per byte of text: bench/bench_io.py measured a peak of
#: 1.4 GB for 0.46 GB of files (a 5M-line Kaldi score file, its key and a 5M-line four-column file: the bytes, the
#: Arrow table, the pairs' numbers and the scores, then the sort), 1.2 GB since: the factor is kept as a margin.
READ_MEMORY_PER_BYTE = 2.5


def _size(n: float) -> str:
    """``3.2 GB``, ``640 MB``, ``12 kB``: a size as people say it (powers of 1,000)."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{int(n)} bytes"


def check_fits_in_memory(src: _Source) -> None:
    """A LoadError with a sentence, before parsing, when reading the text of `src` would need more memory than
    :func:`llrcore.memory.available_memory` (the machine's free memory, or a server's ``LLRCORE_MEMORY_LIMIT``):
    better said than a process killed for want of memory, with everything else it held."""
    needed, free = READ_MEMORY_PER_BYTE * len(src.data), available_memory()
    if needed > free:
        raise src.error(f"the file is {_size(len(src.data))} of text; reading it needs about {_size(needed)} more "
                        f"memory and {_size(free)} is free here. Read it on a machine with more memory, or out of core "
                        "(the README's section 'Large files').")


def _text_bytes(src: _Source) -> FileBytes:
    """UTF-8 bytes with ``\\n`` line ends, no byte-order mark; LoadError for binary or undecodable data. A mapped
    file (:func:`_mapped`) that is already so is returned as it is, else as the bytes these changes make."""
    data = src.data
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        try:
            data = bytes(data).decode("utf-16").encode("utf-8")
        except UnicodeError:
            raise src.error("the file starts like UTF-16 text but cannot be decoded; save it as UTF-8 text.") \
                from None
    elif data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    zero = data.find(b"\x00")
    if zero >= 0:
        raise src.error("the file holds binary data (a zero byte), not text; a score file must be plain text, "
                        "Parquet or .npz.", data[:zero].count(b"\n") + 1)
    if not _is_ascii(data):
        data = bytes(data)
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise src.error(f"the byte 0x{data[exc.start]:02x} is not UTF-8 text; this is a binary file or text in "
                            "another encoding: save it as UTF-8 plain text.",
                            data.count(b"\n", 0, exc.start) + 1) from None
    if data.find(b"\r") >= 0:
        data = bytes(data).replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return data


def _text(src: _Source) -> str:
    """The input's text, for readers that take it whole (:func:`_text_bytes`, decoded; ``bytes`` of bytes is no
    copy)."""
    return bytes(_text_bytes(src)).decode("utf-8")


def _is_ascii(data: FileBytes) -> bool:
    """Whether every byte is below 128 (``bytes.isascii``, which a mapped file lacks: numpy's maximum, no copy)."""
    if isinstance(data, bytes):
        return data.isascii()
    return len(data) == 0 or int(np.frombuffer(data, np.uint8).max()) < 128


_CHUNK = 1 << 24  # bytes scanned at a time (bounded temporary memory)


def _scan_lines(src: _Source, data: FileBytes, limit: int, what: str) -> None:
    """Refuse a line longer than `limit` characters (LoadError naming it: such a file is not what the reader
    expects). Returns None: whether some lines are blank, comments or indented is left to
    :attr:`~llrcore.io.text.TextFile.skippable`, asked only when the fast parser does not take the file as it is.

    With ``bytes.find`` (C's memchr speed): a line end in every stretch of ``limit // 2`` bytes, which no line of more
    than `limit` characters allows (a longer line holds a whole stretch). Only when a stretch has none are the lines
    measured one by one, with numpy.
    """
    if len(data) > limit:
        stretch = max(limit // 2, 1)
        for start in range(0, len(data) - stretch + 1, stretch):
            if data.find(b"\n", start, start + stretch) < 0:
                _measure_lines(src, data, limit, what)
                break


def has_skippable_lines(data: FileBytes) -> bool:
    """Whether some line after the first is blank, a comment (``#``) or indented (a space or a tab): then the data
    lines must be picked out one by one; otherwise every line is a row."""
    view = np.frombuffer(data, dtype=np.uint8)
    for chunk_start in range(0, view.size, _CHUNK):
        newlines = np.flatnonzero(view[chunk_start:chunk_start + _CHUNK] == 10) + chunk_start
        following = view[newlines[newlines + 1 < view.size] + 1]
        if ((following == 10) | (following == 35) | (following == 32) | (following == 9)).any():
            return True
    return False


def _measure_lines(src: _Source, data: FileBytes, limit: int, what: str) -> None:
    """LoadError naming the first line longer than `limit` characters, if any (chunk by chunk with numpy)."""
    view = np.frombuffer(data, dtype=np.uint8)
    line_start, lines_before = 0, 0
    for chunk_start in range(0, view.size, _CHUNK):
        newlines = np.flatnonzero(view[chunk_start:chunk_start + _CHUNK] == 10) + chunk_start
        lengths = np.diff(newlines, prepend=line_start - 1) - 1
        too_long = np.flatnonzero(lengths > limit)
        if too_long.size:
            _too_long(src, int(lengths[too_long[0]]), lines_before + int(too_long[0]) + 1, limit, what)
        if newlines.size:
            line_start, lines_before = int(newlines[-1]) + 1, lines_before + newlines.size
    if view.size - line_start > limit:
        _too_long(src, view.size - line_start, lines_before + 1, limit, what)


def _too_long(src: _Source, length: int, line: int, limit: int, what: str):
    raise src.error(f"this line is {length:,} characters long; {what} has lines of at most {limit:,} characters. "
                    "Is this the right file?", line)


def _is_pickle_refusal(exc: ValueError) -> bool:
    return "pickle" in str(exc).lower() or "object" in str(exc).lower()


def _load_numpy(src: _Source, what: str = "NumPy file"):
    """``np.load`` of the input's bytes, never unpickling: an ``NpzFile`` or an array, or a LoadError saying why not."""
    try:
        return np.load(io.BytesIO(src.data), allow_pickle=False)
    except ValueError as exc:
        if _is_pickle_refusal(exc):
            raise src.error("the array holds Python objects (pickled data), which are never loaded for safety; "
                            "save plain numbers.") from None
        raise src.error(f"the file is not a readable {what} ({exc}).") from None
    except Exception as exc:  # zipfile, zlib and numpy raise many kinds for damaged files
        raise src.error(f"the file is not a readable {what} ({type(exc).__name__}: {exc}).") from None


def _npz_array(src: _Source, archive, key: str, hint: str = "") -> np.ndarray:
    """Array `key` of an open ``.npz`` archive; a LoadError, never an unpickling, for object arrays or damage."""
    try:
        return archive[key]
    except ValueError as exc:
        if _is_pickle_refusal(exc):
            raise src.error(f"the array {key!r} holds Python objects (pickled data), which are never loaded for "
                            f"safety; save plain numbers{hint}.") from None
        raise src.error(f"the array {key!r} cannot be read ({exc}).") from None
    except Exception as exc:
        raise src.error(f"the array {key!r} cannot be read ({type(exc).__name__}: {exc}).") from None
