"""Reading a user's file: never a traceback, always a sentence naming the file; parsed once per upload.

Uploads are cached by their ``file_id`` (the payload is ``_underscored`` so that Streamlit does not hash megabytes of
bytes); errors are returned, and so cached, rather than raised.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

import llrcore as lc

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


def read_upload(upload, key_upload=None, scale: str = "ln") -> Parsed:
    """Read a score file (with its key file, for a Kaldi/BOSARIS score file ``model test score`` or a BOSARIS Scores
    ``.h5`` file, whose key may be a text key or a Key ``.h5`` file) into systems.

    The LoadWarnings of the reader (trials in only one of the two files) are collected through ``on_warning``, not
    ``warnings.catch_warnings``: sessions run in threads, and the warnings filters are shared by all of them.
    ``scale="log10"`` reads scores that are log10 LRs (``lc.read_trials(..., scale="log10")``).
    """
    name = getattr(upload, "name", "the file")
    notes = []
    try:
        loaded = lc.read_trials(upload, key=key_upload, on_warning=notes.append, scale=scale)
    except Exception as err:
        return Parsed(error=_user_message(name, err), needs_key=isinstance(err, lc.LoadError) and err.needs_key)
    stem = Path(name).stem
    if isinstance(loaded, dict):
        systems = {str(key) if len(loaded) > 1 else stem: trials for key, trials in loaded.items()}
    else:
        systems = {stem: loaded}
    for trials in systems.values():
        trials.sorted.pav  # noqa: B018 - sort and PAV now, under the upload spinner
    return Parsed(systems=systems, warnings=tuple(str(note) for note in notes))


@st.cache_resource(show_spinner=False, max_entries=16, ttl="1h")
def parse_upload(file_id: str, key_id: str | None, _upload, _key_upload, scale: str = "ln") -> Parsed:
    """:func:`read_upload` once per uploaded score file and key file, cached by their ``file_id``.

    The payloads are ``_underscored`` so Streamlit does not hash megabytes of bytes; the file ids identify them.
    Errors are returned (and so cached) rather than raised: a bad file is reported without being parsed again on
    every rerun.
    """
    return read_upload(_upload, _key_upload, scale)


@st.cache_resource(show_spinner=False, max_entries=16, ttl="1h")
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
