"""Data: upload score files or pick demo sets, name them, give each a role, see what is loaded."""
from __future__ import annotations

from pathlib import Path

import streamlit as st

from app_pages import _session, _state
from app_pages._uploads import (parse_class_files, parse_server_file, parse_upload, progress_bar, server_files,
                                server_folder)
from app_pages._demos import DEMO_SETS, demo_source, system_demo
from app_pages._loaded import SYSTEMS
from app_pages._messages import flash, show_flashes
from app_pages._registry import ROLE_HELP, ROLES, LoadedSystem
from app_pages._tables import VERDICT_COLUMN, count_columns, summary_frame

FORMATS_HELP = (
    "Accepted: two columns `score label` (label target/nontarget, 1/0, true/false); ASVspoof ASV files "
    "(`source target|nontarget|spoof score`, spoof trials kept apart); BOSARIS/Kaldi score files `model test score` "
    "(a box for the file's key appears under it) or `model test score label`; BOSARIS Scores `.h5` files (BOSARIS "
    "toolkit, SIDEKIT, PyBOSARIS; with their key); Parquet; NumPy `.npz` with arrays `tar` and `non`."
)
KEY_HELP = (
    "The key (trials) file of this score file: lines `model test target|nontarget` (Kaldi: `enroll test "
    "target|nontarget`), a VoxCeleb trial list `1 enrol test` (1 target, 0 non-target), or a BOSARIS Key `.h5` file. It may cover only part of the score file, e.g. one condition: "
    "the trials in only one of the two files are left out, and counted."
)
LOG10_HELP = (
    "Forensic LR systems (and the NFI's lir) write log10 LRs: tick this before uploading, and the scores are read as "
    "log10 LRs (multiplied by ln 10 into natural-log LLRs, llrcore's own units). Leave it off for natural-log LLRs "
    "and for scores that are not LRs."
)
LOG10_NOTE = " (read as log10 LRs)"


def _on_rename(system_id: str) -> None:
    old, _ = SYSTEMS.by_id(system_id)
    if old is None:
        return
    new = _state.SYSTEM_NAME[system_id].get()
    problem = SYSTEMS.rename(old, new)
    if problem:
        _state.SYSTEM_NAME[system_id].set(old)
        flash(problem, "warning")


def _on_role(system_id: str) -> None:
    name, system = SYSTEMS.by_id(system_id)
    role = _state.SYSTEM_ROLE[system_id].get()
    if name is None:
        return
    if role is None:  # segmented control clicked off: keep the role it had
        _state.SYSTEM_ROLE[system_id].set(system.role)
        return
    system.role = role


def _on_remove(system_id: str) -> None:
    name, _ = SYSTEMS.by_id(system_id)
    if name is not None:
        SYSTEMS.remove(name)
        flash(f"Removed {name}.", "info")


def _on_add_demo(index: int) -> None:
    demo = DEMO_SETS[index]
    with st.spinner(f"Loading {demo.name}…"):
        name = SYSTEMS.add(demo.name, system_demo(demo))
    flash(f"Added demo set {name}.")


def _add_parsed(parsed, source: str, file_name: str, role: str, hint: str = "", where=st, *,
                uploads: dict | None = None, scale: str = "ln", server: dict | None = None) -> bool:
    """Add the systems of a parsed file and say so (with what was left out of it), or show its error; True when
    something was added. `where` is the container to write in. `uploads` are the uploaded files read with `scale`
    (``scores`` and ``key``, or ``same`` and ``different``), kept for a reload of the tab (``_session.py``); `server`
    names the server's files read instead (``server`` and ``key``, relative to its folder), read again on a reload."""
    if parsed.error:
        where.error(parsed.error + hint, icon=":material/error:")
        return False
    origin, not_kept = _session.keep_upload(scale, **uploads) if uploads else (server, None)
    added = [SYSTEMS.add(name, LoadedSystem(trials, source, role, origin=origin and {**origin, "system": name}))
             for name, trials in parsed.systems.items()]
    where.success(f"Added {', '.join(added)} from {file_name} as {role}.", icon=":material/check_circle:")
    for note in (*parsed.warnings, *([not_kept] if not_kept else [])):
        where.warning(note, icon=":material/warning:")
    return True


def _load_upload(upload, role: str, scale: str = "ln") -> bool:
    """Read an uploaded score file and add its systems; True when added. A score file that needs its key gets its own
    key box, under the sentence saying so, and is read with that key once it is given. `scale` "log10" reads the
    scores as log10 LRs, and the source says so. A progress bar says each step while a file is parsed."""
    note = LOG10_NOTE if scale == "log10" else ""
    with progress_bar() as progress:
        parsed = parse_upload(upload.file_id, None, upload, None, scale, progress)
    if not parsed.needs_key:
        return _add_parsed(parsed, f"upload: {upload.name}{note}", upload.name, role, uploads={"scores": upload},
                           scale=scale)
    with st.container(border=True):
        outcome = st.container()  # above the key box: the key is asked for, or what reading with it gave
        key_upload = st.file_uploader(f"Key file for {upload.name}", key=f"key_for_{upload.file_id}", help=KEY_HELP)
    if key_upload is None:
        outcome.error(parsed.error + "  \nAdd its key file in the box below.", icon=":material/key:")
        return False
    with progress_bar(outcome) as progress:  # in place of the request for the key, above the key box
        parsed = parse_upload(upload.file_id, key_upload.file_id, upload, key_upload, scale, progress)
    return _add_parsed(parsed, f"upload: {upload.name} with key {key_upload.name}{note}", upload.name, role,
                       where=outcome, uploads={"scores": upload, "key": key_upload}, scale=scale)


def _class_files_loader(role: str, handled: set) -> None:
    """The forensic form: same-source LRs in one file and different-source LRs in another, one value per line."""
    # Keyed and tracked, so that the reruns of an upload never fold it while the person is filling it in.
    with st.expander("Same-source and different-source LRs in two files", icon=":material/balance:",
                     key="class_files_expander", on_change="rerun"):
        st.caption("One value per line and no labels, as forensic LR systems write them (e.g. lir's `LLR_KM.csv` "
                   "and `LLR_KNM.csv`): the file says which comparisons its LRs are from.")
        same_column, different_column = st.columns(2)
        same = same_column.file_uploader("Same-source LRs (H1 true)", key="same_source_upload")
        different = different_column.file_uploader("Different-source LRs (H2 true)", key="different_source_upload")
        log10 = st.checkbox("The values are log10 LRs", key="class_files_log10", persist_state="session",
                            help=LOG10_HELP)
        if same is None or different is None:
            return
        scale = "log10" if log10 else "ln"
        pair = f"{same.file_id}|{different.file_id}|{scale}"
        if pair in handled:
            return
        with st.spinner(f"Reading {same.name} and {different.name}…"):
            parsed = parse_class_files(same.file_id, different.file_id, same, different, scale)
        source = (f"upload: {same.name} (same source) and {different.name} (different source)"
                  + (LOG10_NOTE if log10 else ""))
        if _add_parsed(parsed, source, f"{same.name} and {different.name}", role,
                       uploads={"same": same, "different": different}, scale=scale):
            handled.add(pair)


def _server_file_loader(folder: Path, role: str) -> None:
    """Load a file that sits in the server's data folder: for files beyond the upload limit, read in place."""
    with st.expander(f"Files on the server, in {folder}", icon=":material/dns:"):
        files = server_files(folder)
        if not files:
            st.caption("The folder holds no files.")
            return

        def relative(path: Path | None) -> str:
            return "none" if path is None else str(path.relative_to(folder))

        choice = st.selectbox("File", files, format_func=relative, key="server_file")
        key_choice = st.selectbox("Its key file, if it is a BOSARIS/Kaldi score file `model test score`",
                                  [None, *files], format_func=relative, key="server_key_file", help=KEY_HELP)
        if st.button("Load this file", key="load_server_file", icon=":material/upload_file:"):
            with progress_bar() as progress:
                parsed = parse_server_file(choice, progress=progress)
                keyed = parsed.needs_key and key_choice is not None
                if keyed:
                    parsed = parse_server_file(choice, key_choice, progress)
            hint = "  \nChoose its key file in the box above and load it again." if parsed.needs_key else ""
            source = f"server: {relative(choice)}" + (f" with key {relative(key_choice)}" if keyed else "")
            _add_parsed(parsed, source, choice.name, role, hint,
                        server={"server": relative(choice), "key": relative(key_choice) if keyed else None})


SERVER_FOLDER = server_folder()

st.title("Data")
st.caption("Score files in, systems out: every other page works on the systems listed below.")
st.caption(_session.note())
show_flashes()

upload_column, demo_column = st.columns([3, 2], gap="large")

with upload_column:
    st.subheader("Upload score files")
    uploads = st.file_uploader(
        "Score files (one system per file, or a multi-system file)",
        accept_multiple_files=True,
        key="score_uploads",
        help=FORMATS_HELP,
    )
    upload_log10 = st.checkbox("The scores are log10 LRs", key="upload_log10", persist_state="session",
                               help=LOG10_HELP)
    new_role = st.segmented_control(
        "Role of uploaded files",
        ROLES,
        default="evaluation",
        key="upload_role",
        persist_state="session",
        help=ROLE_HELP,
    ) or "evaluation"

    handled = _state.HANDLED_UPLOADS.get()
    for upload in uploads or []:
        if upload.file_id not in handled and _load_upload(upload, new_role, "log10" if upload_log10 else "ln"):
            handled.add(upload.file_id)
    _class_files_loader(new_role, handled)

    if SERVER_FOLDER is not None:
        _server_file_loader(SERVER_FOLDER, new_role)

with demo_column:
    st.subheader("Demo sets")
    loaded_sources = {system.source for system in SYSTEMS.sets().values()}
    for index, demo in enumerate(DEMO_SETS):
        with st.container(border=True):
            text, button = st.columns([4, 1], vertical_alignment="center")
            text.markdown(f"**{demo.name}** · {demo.role}")
            text.caption(demo.about)
            is_loaded = demo_source(demo) in loaded_sources
            button.button(
                "Loaded" if is_loaded else "Add",
                key=f"demo_{index}",
                disabled=is_loaded,
                on_click=_on_add_demo,
                args=(index,),
                width="stretch",
            )

st.subheader("Loaded systems")
loaded = SYSTEMS.sets()
if not loaded:
    st.info("Nothing is loaded: upload a score file or add a demo set.")
else:
    st.dataframe(
        summary_frame().drop(columns="source"),  # each system's source is under its name below
        hide_index=True,
        width="stretch",
        column_config={
            **count_columns("targets", "non-targets", "spoof"),
            "min score": st.column_config.NumberColumn(format="%.3g"),
            "max score": st.column_config.NumberColumn(format="%.3g"),
            "Cllr": st.column_config.NumberColumn("Cllr (bits)", format="%.3f",
                                                  help="The scores taken as natural-log LLRs."),
            "minCllr": st.column_config.NumberColumn("minCllr (bits)", format="%.3f",
                                                     help="After the best monotone calibration (PAV)."),
            "as LLRs": VERDICT_COLUMN,
        },
    )

    st.markdown("**Rename, change the role or remove**")
    for name, system in loaded.items():
        system_id = system.id
        name_column, role_column, count_column, remove_column = st.columns([4, 3, 4, 1], vertical_alignment="center")
        # Widget values are seeded through session state (not value=/default=), so callbacks may reset them.
        _state.SYSTEM_NAME[system_id].seed(name)
        _state.SYSTEM_ROLE[system_id].seed(system.role)
        name_column.text_input(
            "System name", key=_state.SYSTEM_NAME[system_id].name, label_visibility="collapsed",
            on_change=_on_rename, args=(system_id,),
        )
        role_column.segmented_control(
            "Role", ROLES, key=_state.SYSTEM_ROLE[system_id].name, label_visibility="collapsed",
            on_change=_on_role, args=(system_id,),
        )
        summary = system.summary
        count_column.caption(
            f"{summary['targets']:,} target · {summary['non-targets']:,} non-target"
            + (f" · {summary['spoof']:,} spoof" if summary["spoof"] else "")
            + f"  \n{system.source}"
        )
        remove_column.button(
            ":material/delete:", key=f"remove_{system_id}", help=f"Remove {name}",
            on_click=_on_remove, args=(system_id,),
        )
