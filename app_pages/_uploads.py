"""Reading a user's file: never a traceback, always a sentence naming the file; parsed once per upload, with a
progress bar while it is parsed.

Parsed uploads are kept by their ``file_id`` in a small store shared by the server's sessions (not in a function
cached by Streamlit, which could not draw the progress bar); errors are returned, and so kept, rather than raised.
"""
from __future__ import annotations

import logging
import os
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

import llrcore as lc
from app_pages import _state
from app_pages._store import LRUStore

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Parsed:
    """The outcome of reading one uploaded file: systems (name -> Trials) or a sentence for the user.

    ``needs_key`` marks a Kaldi/BOSARIS score file ``model test score`` (or a BOSARIS Scores ``.h5`` file) read without
    its key: the page asks for that file's key. ``warnings`` are sentences about trials left out (a key covering part
    of the score file), to show beside the success.
    """

    systems: dict | None = None
    error: str | None = None
    needs_key: bool = False
    warnings: tuple[str, ...] = ()


def _user_message(name: str, err: Exception) -> str:
    """The sentence a user sees for an exception raised while reading the file `name` (call it in ``except``)."""
    if isinstance(err, lc.LoadError):  # already a sentence naming the file and the line
        return str(err)
    if isinstance(err, ValueError):  # a validation error (e.g. no target trials) may not name the file yet
        message = str(err)
        return message if name in message else f"{name}: {message}"
    log.exception("unexpected error reading %s", name)  # never a traceback for a user's file
    return f"{name} could not be read ({type(err).__name__}: {err})."


def read_user_file(name: str, read):
    """``(read(), None)``, or ``(None, a sentence naming the file)`` whatever goes wrong: never a traceback."""
    try:
        return read(), None
    except Exception as err:
        return None, _user_message(name, err)


#: ``progress(fraction, text)``: the share of the reading done, and what it does now.
Progress = Callable[[float, str], object]


def step_texts(name: str, key_name: str, n: int) -> list[str]:
    """What each step of reading `name` does, as the progress bar says it: the reader's `n` steps (one for a file,
    three for a score file and its key `key_name`: see ``progress`` in :func:`llrcore.read_trials`), then the sort of
    the scores that every page needs."""
    reading = ([f"Parsing {name}…", f"Parsing its key {key_name}…", f"Joining {name} with its key…"] if n == 3
               else [f"Parsing {name}…"] * n)
    return reading + [f"Sorting the scores of {name}…"]


def read_upload(upload, key_upload=None, scale: str = "ln", progress: Progress | None = None) -> Parsed:
    """Read a score file (with its key file, for a Kaldi/BOSARIS score file ``model test score`` or a BOSARIS Scores
    ``.h5`` file, whose key may be a text key or a Key ``.h5`` file) into systems.

    The LoadWarnings of the reader (trials in only one of the two files) are collected through ``on_warning``, not
    ``warnings.catch_warnings``: sessions run in threads, and the warnings filters are shared by all of them.
    ``scale="log10"`` reads scores that are log10 LRs (``lc.read_trials(..., scale="log10")``). `progress` is told
    each step as it starts (:func:`step_texts`): the reader's, then the sort.
    """
    name = getattr(upload, "name", "the file")
    key_name = getattr(key_upload, "name", "file")
    report = progress or (lambda fraction, text: None)

    def reader_step(done: int, n: int) -> None:  # the reader finished step `done` of `n`: the next one starts
        report(done / (n + 1), step_texts(name, key_name, n)[done])

    notes = []
    reader_step(0, 1)  # the first step starts
    try:
        loaded = lc.read_trials(upload, key=key_upload, on_warning=notes.append, scale=scale, progress=reader_step)
    except Exception as err:
        return Parsed(error=_user_message(name, err), needs_key=isinstance(err, lc.LoadError) and err.needs_key)
    stem = Path(name).stem
    if isinstance(loaded, dict):
        systems = {str(key) if len(loaded) > 1 else stem: trials for key, trials in loaded.items()}
    else:
        systems = {stem: loaded}
    for trials in systems.values():
        trials.sorted.pav  # noqa: B018 - sort and PAV now, under the progress bar
    return Parsed(systems=systems, warnings=tuple(str(note) for note in notes))


def _parsed_uploads() -> LRUStore:
    """The parsed uploads of the server's sessions: at most 16, each for at most an hour (the bound on the memory they
    hold, whatever the number of sessions; the app's one policy, ``_state.store``). Shared rather than one store per
    session because a session's own uploads are held by its loaded systems anyway; what the store adds is bounded once
    for the whole server. Each upload has its own ``file_id`` (a server file: its path, time and size), so a session
    only finds its own uploads and the server's files."""
    return _state.store("parsed uploads", 16)


def parse_upload(file_id: str, key_id: str | None, upload, key_upload, scale: str = "ln",
                 progress: Progress | None = None) -> Parsed:
    """:func:`read_upload` once per uploaded score file and key file, kept by their ``file_id``.

    Errors are returned (and so kept) rather than raised: a bad file is reported without being parsed again on every
    rerun. `progress` is only told anything when the file is parsed, not when it was parsed before.
    """
    store, key = _parsed_uploads(), (file_id, key_id, scale)
    parsed = store.get(key)
    if parsed is None:
        parsed = read_upload(upload, key_upload, scale, progress)
        store.put(key, parsed)
    return parsed


@contextmanager
def progress_bar(where=st):
    """A :data:`Progress` callback drawing a progress bar in the container `where` (at the point this is entered): the
    bar shows from its first call (none when nothing is parsed) until the block ends."""
    slot = where.empty()
    yield lambda fraction, text: slot.progress(fraction, text=text)
    slot.empty()


@_state.cached()
def parse_class_files(same_id: str, different_id: str, _same, _different, scale: str = "ln") -> Parsed:
    """Same-source and different-source LRs in two uploaded files (``lc.read_class_files``), one system named after
    the same-source file, cached by the two ``file_id``s like :func:`parse_upload`."""
    name = getattr(_same, "name", "the files")
    try:
        trials = lc.read_class_files(_same, _different, scale=scale)
    except Exception as err:
        return Parsed(error=_user_message(name, err))
    trials.sorted.pav  # noqa: B018 - sort and PAV now, under the spinner
    return Parsed(systems={trials.name or "LRs": trials})


# ----- files on the server ------------------------------------------------------------------------------------------

SERVER_FOLDER_VARIABLE = "LLRCORE_DATA_DIR"


def server_folder() -> Path | None:
    """The folder named by LLRCORE_DATA_DIR, if the person who started the app set one; else no server files."""
    folder = os.environ.get(SERVER_FOLDER_VARIABLE)
    return Path(folder).resolve() if folder and Path(folder).is_dir() else None


def is_listed(folder: Path, path: Path) -> bool:
    """Whether the Data page lists `path`: a file in `folder` or its sub-folders, not hidden, not a link leading out."""
    return (path.is_relative_to(folder) and path.is_file()
            and not any(part.startswith(".") for part in path.relative_to(folder).parts)
            and path.resolve().is_relative_to(folder))


def server_files(folder: Path) -> list[Path]:
    """The files of the folder the Data page lists (:func:`is_listed`), at most 2000."""
    files = []
    for path in sorted(folder.rglob("*")):
        if is_listed(folder, path):
            files.append(path)
        if len(files) == 2000:
            break
    return files


def _server_file_id(path: Path) -> str:
    """Identifies a server file's content for the cache: path, modification time and size."""
    status = path.stat()
    return f"server:{path}:{status.st_mtime_ns}:{status.st_size}"


def parse_server_file(path: Path, key_path: Path | None = None, progress: Progress | None = None) -> Parsed:
    """:func:`parse_upload` of a file in the server folder, and of its key file if given."""
    with open(path, "rb") as handle:
        if key_path is None:
            return parse_upload(_server_file_id(path), None, handle, None, progress=progress)
        with open(key_path, "rb") as key_handle:
            return parse_upload(_server_file_id(path), _server_file_id(key_path), handle, key_handle,
                                progress=progress)
