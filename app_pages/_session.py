"""A session kept across a reload of the browser tab: its id in the address, its uploads and settings on the server.

A session's first run makes a random id (``secrets.token_urlsafe``) and puts it in the address (``?sid=...``, beside
the query parameters pages keep there); every run puts it back, since a page switch clears the address's parameters.
What the Data page loaded from uploads (their raw bytes, file names and the options they were read with), the demo sets,
the systems' names and roles, the pages' choices of systems, the operating point and the units of LR values are kept in
``<temp folder>/llrcore-sessions/<sid>/`` (``LLRCORE_SESSION_DIR`` overrides the folder): JSON and the files' bytes,
named by their SHA-256, never pickles; at most the server's upload limit (``server.maxUploadSize``) of files a session.
They are written when they change and kept :data:`KEPT_HOURS` hours after last use; a new session sweeps away older
ones. A new session whose address carries a kept id reads the files again through the same readers as an upload
(nothing is trusted that an upload would not be); an id the server did not make, or no longer keeps, starts a new
session (so nobody can make up a link that would receive another person's uploads). Files read from the server's
folder (``LLRCORE_DATA_DIR``) are read there again. Systems made on other pages (calibrated, normalised, split by
attack) and the files of the Multiclass, Classifier and Diarization pages are not kept. Anyone who has the link, on
this server, sees the same data; two tabs on one link share one folder, and the last change wins.
"""
from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import re
import secrets
import shutil
import tempfile
import time
from pathlib import Path

import streamlit as st

import llrcore as lc
from app_pages import _operating_point, _state, _units
from app_pages._demos import DEMO_SETS, system_demo
from app_pages._loaded import SYSTEMS
from app_pages._registry import ROLES, LoadedSystem
from app_pages._uploads import is_listed, parse_class_files, parse_server_file, parse_upload, server_folder

log = logging.getLogger(__name__)

KEPT_HOURS = 24
KEPT_FOR = KEPT_HOURS * 3600.0  # seconds after last use
TOUCH_EVERY = 600.0  # seconds between two marks of use of an unchanged session
PARAM = "sid"
SID = re.compile(r"[A-Za-z0-9_-]{22}")  # secrets.token_urlsafe(16): 128 random bits; no "/" or ".", so no way out
SHA = re.compile(r"[0-9a-f]{64}")
SYSTEM_ID = re.compile(r"[0-9a-f]{10}")
MANIFEST = "session.json"
VERSION = 1
SCALES = ("ln", "log10")
KEPT_NOTE = (f":material/history: Kept on this server for {KEPT_HOURS} h after last use, under this tab's link: your "
             "uploads, names, roles and settings. Anyone with the link sees the same data: do not share it if the data "
             "is confidential.")
NOT_KEPT_NOTE = (":material/history: This server keeps nothing across a reload of the tab: its folder for it cannot "
                 "be used.")


class SessionError(Exception):
    """A kept session, or a part of it, that cannot be used: the message is a sentence for the person."""


# ----- on disk: plain functions of the folder, for the tests -------------------------------------------------------


def new_sid() -> str:
    return secrets.token_urlsafe(16)


def default_root() -> Path:
    return Path(os.environ.get("LLRCORE_SESSION_DIR") or Path(tempfile.gettempdir()) / "llrcore-sessions")


def usable_root(root: Path) -> Path:
    """`root`, made if need be, readable by this server's user only; SessionError if it is not ours (the temporary
    folder is shared: another user's folder, or a link to one, must not receive the uploads)."""
    try:
        root.mkdir(mode=0o700, parents=True, exist_ok=True)
        status = root.lstat()
    except OSError as err:
        raise SessionError(f"The folder {root} cannot be used ({err.strerror}).") from None
    if root.is_symlink() or not root.is_dir() or (hasattr(os, "getuid") and status.st_uid != os.getuid()):
        raise SessionError(f"The folder {root} is not this server's own.")
    return root


def session_folder(root: Path, sid: str) -> Path:
    if not isinstance(sid, str) or not SID.fullmatch(sid):
        raise SessionError("The session id in the address is not one this server makes.")
    return root / sid


def sweep(root: Path, *, kept_for: float = KEPT_FOR, now: float | None = None) -> list[str]:
    """Remove the sessions of `root` unused for more than `kept_for` seconds (last use: the manifest's time); return
    their ids."""
    now = time.time() if now is None else now
    removed = []
    for folder in root.iterdir():
        if not SID.fullmatch(folder.name) or folder.is_symlink() or not folder.is_dir():
            continue
        marker = folder / MANIFEST
        try:
            used = (marker if marker.exists() else folder).stat().st_mtime
        except OSError:
            continue
        if now - used > kept_for:
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder.name)
    return removed


def _write_atomically(path: Path, chunks) -> None:
    """Write the byte chunks to `path` through a temporary file, so that a reader never sees half a file."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".writing-")
    try:
        with os.fdopen(handle, "wb") as out:
            for chunk in chunks:
                out.write(chunk)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_manifest(folder: Path, manifest: dict) -> None:
    folder.mkdir(mode=0o700, exist_ok=True)
    _write_atomically(folder / MANIFEST, [json.dumps(manifest, indent=1).encode()])


def read_manifest(folder: Path) -> dict:
    """The kept session's manifest; SessionError naming what is wrong (missing, unreadable, not a manifest)."""
    try:
        manifest = json.loads((folder / MANIFEST).read_text())
    except FileNotFoundError:
        raise SessionError(f"Nothing is kept for this link any more (sessions are kept {KEPT_HOURS} hours after last "
                           "use).") from None
    except (OSError, ValueError) as err:
        raise SessionError(f"The session kept for this link cannot be read ({err}).") from None
    if not isinstance(manifest, dict) or manifest.get("version") != VERSION:
        raise SessionError("The session kept for this link is not one this version of the app can read.")
    return manifest


def used_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.glob("*") if SHA.fullmatch(path.name))


def keep_bytes(folder: Path, data, *, cap: int) -> str:
    """Keep the bytes `data` in `folder` under their SHA-256 (once, whatever the number of uploads of them) and return
    it; SessionError when the session's files would pass `cap` bytes."""
    sha = hashlib.sha256(data).hexdigest()
    path = folder / sha
    if not path.exists():
        if used_bytes(folder) + len(data) > cap:
            raise SessionError(f"the files kept for this session would pass {cap / 2**20:,.0f} MB")
        _write_atomically(path, [data])
    return sha


def kept_bytes(folder: Path, sha: str) -> bytes:
    """The bytes kept under `sha`, checked against it (a damaged file is refused, not read short)."""
    if not isinstance(sha, str) or not SHA.fullmatch(sha):
        raise SessionError("it names a kept file wrongly")
    try:
        data = (folder / sha).read_bytes()
    except OSError:
        raise SessionError("its kept file is missing") from None
    if hashlib.sha256(data).hexdigest() != sha:
        raise SessionError("its kept file is damaged")
    return data


def drop_unused(folder: Path, manifest: dict) -> None:
    """Delete the kept files no system of `manifest` reads any more (uploads removed)."""
    used = {file["sha"] for entry in manifest["systems"] for file in _files_of(entry["origin"])}
    for path in folder.glob("*"):
        if SHA.fullmatch(path.name) and path.name not in used:
            path.unlink(missing_ok=True)


def _files_of(origin: dict) -> list[dict]:
    return [origin[part] for part in ("scores", "key", "same", "different") if isinstance(origin.get(part), dict)]


# ----- what a session keeps, and how it comes back ----------------------------------------------------------------


def manifest() -> dict:
    """This session's state as JSON: the systems that can be read again (uploads, demos), the choices and settings."""
    op = _operating_point.current()
    systems = [{"id": system.id, "name": name, "role": system.role, "source": system.source, "origin": system.origin}
               for name, system in SYSTEMS.sets().items() if system.origin is not None]
    ids = {entry["id"] for entry in systems}
    choices = {_state.CHOSEN[page].name: [i for i in value if i in ids] for page, value in _state.CHOSEN.present()
               if isinstance(value, list) and all(isinstance(i, str) for i in value)}
    return {"version": VERSION, "systems": systems, "choices": choices,
            "settings": {"operating_point": [op.p_target, op.c_miss, op.c_fa],
                         "primary_cost": _operating_point.primary(), "llr_units": _units.current()}}


def _text(value, what: str) -> str:
    if not isinstance(value, str) or not value or len(value) > 1000:
        raise SessionError(f"its {what} is not a text")
    return value


def _opened(folder: Path, file: dict | None):
    """A kept file as an upload: its bytes in a file-like object with the upload's name (format detection uses it)."""
    if file is None:
        return None
    if not isinstance(file, dict):
        raise SessionError("it names a kept file wrongly")
    opened = io.BytesIO(kept_bytes(folder, file.get("sha")))
    opened.name = _text(file.get("name"), "file name")
    return opened


def _read_server_files(origin: dict):
    """The server's file (and key file) a system came from, read again if the Data page still lists them."""
    folder = server_folder()
    if folder is None:
        raise SessionError("the server's data folder is no longer set")
    paths = []
    for part in ("server", "key"):
        relative = origin.get(part)
        path = None if relative is None and part == "key" else folder / _text(relative, "server file")
        if path is not None and not is_listed(folder, path):
            raise SessionError(f"{relative} is no longer in the server's data folder")
        paths.append(path)
    return parse_server_file(*paths)


def _read_origin(folder: Path, origin: dict):
    """The parsed file(s) a system came from, read again as on upload (:mod:`app_pages._uploads`)."""
    if "server" in origin:
        return _read_server_files(origin)
    scale = origin.get("scale")
    if scale not in SCALES:
        raise SessionError("its scale is not ln or log10")
    parts = ("scores", "key") if "scores" in origin else ("same", "different")
    first, second = (_opened(folder, origin.get(part)) for part in parts)
    if first is None or (second is None and parts[1] == "different"):
        raise SessionError("it names no file it came from")
    ids = [opened and f"kept:{origin[part]['sha']}:{opened.name}" for part, opened in zip(parts, (first, second))]
    if parts[0] == "scores":
        return parse_upload(*ids, first, second, scale)
    return parse_class_files(*ids, first, second, scale)


def _restored_system(folder: Path, entry, parsed: dict) -> tuple[str, LoadedSystem]:
    """One system of the manifest, read again; `parsed` holds the files already read (a file of several systems)."""
    if not isinstance(entry, dict) or not isinstance(entry.get("origin"), dict):
        raise SessionError("it is not described as a system")
    name, origin = _text(entry.get("name"), "name"), entry["origin"]
    role = entry.get("role") if entry.get("role") in ROLES else "evaluation"
    system_id = entry.get("id") if isinstance(entry.get("id"), str) and SYSTEM_ID.fullmatch(entry["id"]) else None
    demos = {demo.name: demo for demo in DEMO_SETS}
    if "demo" in origin:
        if not isinstance(origin["demo"], str) or origin["demo"] not in demos:
            raise SessionError("it is no demo set of this app")
        trials = system_demo(demos[origin["demo"]]).trials
    else:
        files = json.dumps({part: value for part, value in origin.items() if part != "system"}, sort_keys=True)
        if files not in parsed:
            parsed[files] = _read_origin(folder, origin)
        if parsed[files].error:
            raise SessionError(parsed[files].error)
        trials = (parsed[files].systems or {}).get(_text(origin.get("system"), "system in its file"))
        if trials is None:
            raise SessionError("its file no longer holds it")
    loaded = LoadedSystem(trials, _text(entry.get("source"), "source"), role, origin=origin)
    if system_id:
        loaded.id = system_id
    return name, loaded


def _restore_settings(settings) -> None:
    """The operating point and the units of the kept session, each only if it is valid (else the default stays)."""
    settings = settings if isinstance(settings, dict) else {}
    try:
        p_target, c_miss, c_fa = settings.get("operating_point")
        _state.OPERATING_POINT.set(lc.OperatingPoint(p_target, c_miss, c_fa))
    except (TypeError, ValueError):
        pass
    primary, units = settings.get("primary_cost"), settings.get("llr_units")
    if isinstance(primary, str) and primary in {evaluation for _, evaluation in _operating_point.PRESETS.values()}:
        _state.PRIMARY_COST.set(primary)
    if isinstance(units, str) and units in _units.LABELS:
        _state.LLR_UNITS.set(units)


def restore(folder: Path, kept: dict) -> list[tuple[str, str]]:
    """Fill this session from the kept manifest; the messages (kind, sentence) to show."""
    systems, parsed, problems = {}, {}, []
    entries = kept.get("systems") if isinstance(kept.get("systems"), list) else []
    for entry in entries:
        try:
            name, loaded = _restored_system(folder, entry, parsed)
        except Exception as err:  # noqa: BLE001 - a damaged folder is said in a sentence, never a traceback
            if not isinstance(err, SessionError):
                log.exception("kept system not restored")
                err = f"{type(err).__name__}: {err}"
            label = entry.get("name") if isinstance(entry, dict) else None
            problems.append(("warning", f"The kept system {label or 'without a name'} could not be restored: {err}."))
            continue
        systems[name] = loaded
    SYSTEMS.key.set(systems)
    ids = {loaded.id for loaded in systems.values()}
    choices = kept.get("choices") if isinstance(kept.get("choices"), dict) else {}
    for key, value in choices.items():
        page = _state.CHOSEN.part(key) if isinstance(key, str) else None
        if page is not None and isinstance(value, list):
            _state.CHOSEN[page].set([i for i in value if isinstance(i, str) and i in ids])
    _restore_settings(kept.get("settings"))
    files = {(file["sha"], file["name"]) for loaded in systems.values() for file in _files_of(loaded.origin)}
    what = f"{len(files)} uploaded file{'' if len(files) == 1 else 's'} and your settings" if files else \
        "your systems and settings"
    return [("info", f"Restored {what} from this link (kept on this server for {KEPT_HOURS} hours after last use)."),
            *problems]


# ----- the session's runs ----------------------------------------------------------------------------------------


def _folder() -> Path | None:
    """This session's folder, or None when the server keeps nothing (its folder cannot be used)."""
    sid = _state.SESSION_ID.get()
    return None if sid is None else session_folder(default_root(), sid)


def note() -> str:
    """What the Data page says is kept across a reload, and for how long."""
    return KEPT_NOTE if _state.SESSION_ID.get() else NOT_KEPT_NOTE


def _start() -> list[tuple[str, str]]:
    """A session's first run: restore the session the address names, or start one with the demos."""
    try:
        root = usable_root(default_root())
        sweep(root)
    except (SessionError, OSError) as err:
        log.warning("sessions are not kept across a reload: %s", err)
        SYSTEMS.sets()
        return []
    messages = []
    sid = st.query_params.get(PARAM)
    if sid is not None:
        try:
            folder = session_folder(root, sid)
            messages = restore(folder, read_manifest(folder))  # save() then writes it anew: used now
        except SessionError as err:
            messages = [("warning", f"{err} Starting afresh, with the demo data.")]
            sid = None
    if sid is None:
        sid = new_sid()
        SYSTEMS.sets()
    _state.SESSION_ID.set(sid)
    return messages


def begin() -> list[tuple[str, str]]:
    """Every run, before the page: on a session's first run restore or start it (the messages to show); then put the
    session's id in the address, where a page switch removed it."""
    messages = []
    if not SYSTEMS.key.is_set():
        with st.spinner("Loading the data…"):
            messages = _start()
    sid = _state.SESSION_ID.get()
    if sid is not None and st.query_params.get(PARAM) != sid:
        st.query_params[PARAM] = sid
    return messages


def save() -> None:
    """Every run, after the page: write the session's state when it changed, else mark it used now and then."""
    folder = _folder()
    if folder is None:
        return
    state = manifest()
    try:
        if state != _state.SESSION_SAVED.get():
            write_manifest(folder, state)
            drop_unused(folder, state)
            _state.SESSION_SAVED.set(state)
        elif time.time() - (_state.SESSION_TOUCHED.get() or 0.0) > TOUCH_EVERY:
            os.utime(folder / MANIFEST)
        else:
            return
        _state.SESSION_TOUCHED.set(time.time())
    except OSError as err:  # a full disk, a folder swept meanwhile: the page still works, only a reload loses it
        log.warning("session %s not kept: %s", folder.name, err)


def upload_limit() -> int:
    """The bytes a session may keep: the server's upload limit (``server.maxUploadSize``, in MB), so that what one
    upload may bring, a session may keep, and no more."""
    return int(st.get_option("server.maxUploadSize")) * 2**20


def keep_upload(scale: str, **files) -> tuple[dict | None, str | None]:
    """Keep uploaded files (``scores`` and ``key``, or ``same`` and ``different``; UploadedFiles or None) for a reload:
    the origin to give their systems, or None and the sentence saying why they are not kept."""
    folder = _folder()
    if folder is None:
        return None, None
    origin = {"scale": scale}
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        cap = upload_limit()
        for part, upload in files.items():
            if upload is not None:
                with upload.getbuffer() as data:  # the upload's bytes, not a copy of them
                    origin[part] = {"sha": keep_bytes(folder, data, cap=cap), "name": upload.name}
    except (SessionError, OSError) as err:
        reason = err if isinstance(err, SessionError) else err.strerror
        return None, f"This file is not kept across a reload of the tab: {reason}."
    return origin, None
