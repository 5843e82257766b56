"""Data: upload score files or pick demo sets, name them, give each a role, see what is loaded."""
from __future__ import annotations

import os
from pathlib import Path

import streamlit as st

from app_pages import _state as state

FORMATS_HELP = (
    "Accepted: two columns `score label` (label target/nontarget, 1/0, true/false); ASVspoof ASV files "
    "(`source target|nontarget|spoof score`, spoof trials kept apart); BOSARIS/Kaldi score files with a key file; "
    "Parquet; NumPy `.npz` with arrays `tar` and `non`."
)


def _record_by_id(system_id: str):
    for name, record in state.systems().items():
        if record["id"] == system_id:
            return name, record
    return None, None


def _on_rename(system_id: str) -> None:
    old, _ = _record_by_id(system_id)
    if old is None:
        return
    new = st.session_state[f"name_{system_id}"]
    problem = state.rename_system(old, new)
    if problem:
        st.session_state[f"name_{system_id}"] = old
        state.flash(problem, "warning")


def _on_role(system_id: str) -> None:
    name, record = _record_by_id(system_id)
    role = st.session_state[f"role_{system_id}"]
    if name is None:
        return
    if role is None:  # segmented control clicked off: keep the role it had
        st.session_state[f"role_{system_id}"] = record["role"]
        return
    state.set_role(name, role)


def _on_remove(system_id: str) -> None:
    name, _ = _record_by_id(system_id)
    if name is not None:
        state.remove_system(name)
        state.flash(f"Removed {name}.", "info")


def _on_add_demo(index: int) -> None:
    demo = state.DEMO_SETS[index]
    with st.spinner(f"Loading {demo.name}…"):
        name = state.add_demo(demo)
    state.flash(f"Added demo set {name}.")


def _add_parsed(parsed, source: str, file_name: str, role: str, hint: str = "") -> bool:
    """Add the systems of a parsed file, or show its error; True when something was added."""
    if parsed.error:
        st.error(parsed.error + hint, icon=":material/error:")
        return False
    added = [state.add_system(name, trials, role, source) for name, trials in parsed.systems.items()]
    st.success(f"Added {', '.join(added)} from {file_name} as {role}.", icon=":material/check_circle:")
    return True


def _server_folder() -> Path | None:
    """The folder named by LLRCORE_DATA_DIR, if the person who started the app set one; else no server files."""
    folder = os.environ.get(SERVER_FOLDER_VARIABLE)
    return Path(folder).resolve() if folder and Path(folder).is_dir() else None


def _server_files(folder: Path) -> list[Path]:
    """Files in the folder and its sub-folders (not hidden, not links leading outside it), at most 2000."""
    files = []
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not any(part.startswith(".") for part in path.relative_to(folder).parts):
            if path.resolve().is_relative_to(folder):
                files.append(path)
        if len(files) == 2000:
            break
    return files


def _server_file_loader(folder: Path, role: str) -> None:
    """Load a file that sits in the server's data folder: for files beyond the upload limit, read in place."""
    with st.expander(f"Files on the server, in {folder}", icon=":material/dns:"):
        files = _server_files(folder)
        if not files:
            st.caption("The folder holds no files.")
            return
        choice = st.selectbox("File", files, format_func=lambda path: str(path.relative_to(folder)),
                              key="server_file")
        if st.button("Load this file", key="load_server_file", icon=":material/upload_file:"):
            status = choice.stat()
            with open(choice, "rb") as handle, st.spinner(f"Reading {choice.name}…"):
                parsed = state.parse_upload(f"server:{choice}:{status.st_mtime_ns}:{status.st_size}", None, handle,
                                            None)
            _add_parsed(parsed, f"server: {choice.relative_to(folder)}", choice.name, role)


SERVER_FOLDER_VARIABLE = "LLRCORE_DATA_DIR"
SERVER_FOLDER = _server_folder()

st.title("Data")
st.caption("Score files in, systems out: every other page works on the systems listed below.")
state.show_flashes()

upload_column, demo_column = st.columns([3, 2], gap="large")

with upload_column:
    st.subheader("Upload score files")
    files_column, key_column = st.columns([3, 2])
    uploads = files_column.file_uploader(
        "Score files (one system per file, or a multi-system file)",
        accept_multiple_files=True,
        key="score_uploads",
        help=FORMATS_HELP,
    )
    key_upload = key_column.file_uploader(
        "Key file (BOSARIS/Kaldi trials), optional",
        key="key_upload",
        help="Only needed for score files without labels: lines `model test target|nontarget` (Kaldi: `enroll test "
        "target|nontarget`).",
    )
    new_role = st.segmented_control(
        "Role of uploaded files",
        state.ROLES,
        default="evaluation",
        key="upload_role",
        persist_state="session",
        help=state.ROLE_HELP,
    ) or "evaluation"

    handled = st.session_state.setdefault("handled_uploads", set())
    for upload in uploads or []:
        if upload.file_id in handled:
            continue
        key_id = key_upload.file_id if key_upload is not None else None
        with st.spinner(f"Reading {upload.name}…"):
            parsed = state.parse_upload(upload.file_id, key_id, upload, key_upload)
        hint = ""
        if key_upload is None and parsed.error and "key" in parsed.error.lower():
            hint = "  \nIf it is a BOSARIS/Kaldi score file, upload its key file in the *Key file* box."
        if _add_parsed(parsed, f"upload: {upload.name}", upload.name, new_role, hint):
            handled.add(upload.file_id)

    if SERVER_FOLDER is not None:
        _server_file_loader(SERVER_FOLDER, new_role)

with demo_column:
    st.subheader("Demo sets")
    loaded_sources = state.loaded_demo_paths()
    for index, demo in enumerate(state.DEMO_SETS):
        with st.container(border=True):
            text, button = st.columns([4, 1], vertical_alignment="center")
            text.markdown(f"**{demo.name}** · {demo.role}")
            text.caption(demo.about)
            is_loaded = state.demo_source(demo) in loaded_sources
            button.button(
                "Loaded" if is_loaded else "Add",
                key=f"demo_{index}",
                disabled=is_loaded,
                on_click=_on_add_demo,
                args=(index,),
                width="stretch",
            )

st.subheader("Loaded systems")
loaded = state.systems()
if not loaded:
    st.info("Nothing is loaded: upload a score file or add a demo set.")
else:
    st.dataframe(
        state.summary_frame(),
        hide_index=True,
        width="stretch",
        column_config={
            **state.count_columns("targets", "non-targets", "spoof"),
            "min score": st.column_config.NumberColumn(format="%.3g"),
            "max score": st.column_config.NumberColumn(format="%.3g"),
            "Cllr": st.column_config.NumberColumn("Cllr (bits)", format="%.3f",
                                                  help="The scores taken as natural-log LLRs."),
            "minCllr": st.column_config.NumberColumn("minCllr (bits)", format="%.3f",
                                                     help="After the best monotone calibration (PAV)."),
            "looks like LLRs?": st.column_config.TextColumn(
                width="large",
                help="A heuristic: LLRs put targets above 0 and non-targets below, and have Cllr < 1 bit.",
            ),
        },
    )

    st.markdown("**Rename, change the role or remove**")
    for name, record in loaded.items():
        system_id = record["id"]
        name_column, role_column, count_column, remove_column = st.columns([4, 3, 4, 1], vertical_alignment="center")
        # Widget values are seeded through session state (not value=/default=), so callbacks may reset them.
        st.session_state.setdefault(f"name_{system_id}", name)
        st.session_state.setdefault(f"role_{system_id}", record["role"])
        name_column.text_input(
            "System name", key=f"name_{system_id}", label_visibility="collapsed",
            on_change=_on_rename, args=(system_id,),
        )
        role_column.segmented_control(
            "Role", state.ROLES, key=f"role_{system_id}", label_visibility="collapsed",
            on_change=_on_role, args=(system_id,),
        )
        summary = record["summary"]
        count_column.caption(
            f"{summary['targets']:,} target · {summary['non-targets']:,} non-target"
            + (f" · {summary['spoof']:,} spoof" if summary["spoof"] else "")
            + f"  \n{record['source']}"
        )
        remove_column.button(
            ":material/delete:", key=f"remove_{system_id}", help=f"Remove {name}",
            on_click=_on_remove, args=(system_id,),
        )
