"""``llrcore app``: the workbench of the installed package, on its packaged demo data, from any folder.

The wheel holds the workbench as the package ``llrcore_workbench``: the repository's ``app.py``, ``app_pages/`` and
``assets/`` side by side, as in the repository, so ``streamlit run`` of its ``app.py`` finds the pages and the demo
data as ``streamlit run app.py`` does at the repository's root. Streamlit reads ``.streamlit/config.toml`` from the
folder it is started in only: the packaged copy of the workbench's settings (the upload limit, the theme) is given as
command-line options instead, before the user's own, which win.
"""
from __future__ import annotations

import importlib.util
import os
import sys
import tomllib
from pathlib import Path

#: Not in config.toml, whose settings serve `streamlit run app.py` in a checkout too: installed files never change,
#: so the server need not watch them (site-packages is a big folder to poll).
INSTALLED_SETTINGS = ("--server.fileWatcherType=none",)


def add_command(commands) -> None:
    parser = commands.add_parser(
        "app", usage="llrcore app [-h] [STREAMLIT_OPTIONS ...]",
        help="start the workbench (the Streamlit app) on its demo data; Streamlit's options are passed on",
        description="Start the llrcore workbench of the installed package in the browser, on its packaged demo "
                    "data, from any folder. Every other option is Streamlit's and is passed on to `streamlit run`, "
                    "e.g. `llrcore app --server.port 8600 --server.headless true` (`streamlit run --help` lists "
                    "them); they override the workbench's settings (.streamlit/config.toml).",
    )
    parser.set_defaults(run=run, forwards_options=True)


def run(args) -> None:
    """Streamlit takes this process's place (it never returns): Ctrl-C and a service manager's SIGTERM reach the
    server itself, and its exit status is the command's."""
    command = streamlit_command(args.forwarded)
    os.execv(command[0], command)


def streamlit_command(forwarded: list[str]) -> list[str]:
    """``python -m streamlit run <workbench>/app.py``, the workbench's settings, then the user's options."""
    folder = workbench_folder()
    return [sys.executable, "-m", "streamlit", "run", str(folder / "app.py"), *settings_options(folder),
            *INSTALLED_SETTINGS, *forwarded]


def workbench_folder() -> Path:
    """The folder holding the workbench's ``app.py``, ``app_pages/`` and ``assets/``.

    Installed from the wheel, the package ``llrcore_workbench``; installed editable, the repository, which that
    package then maps to; from a checkout put on ``sys.path`` without installing, the folder holding ``llrcore``.
    """
    spec = importlib.util.find_spec("llrcore_workbench")
    candidates = [Path(folder) for folder in (spec.submodule_search_locations or [])] if spec else []
    candidates.append(Path(__file__).resolve().parents[2])
    for folder in candidates:
        if (folder / "app.py").is_file():
            return folder
    raise OSError("The workbench is not installed with llrcore (no llrcore_workbench package): install the "
                  "llrcore-workbench wheel, or run `streamlit run app.py` in the repository.")


def settings_options(folder: Path) -> list[str]:
    """``.streamlit/config.toml`` of the workbench as Streamlit options: ``[server] maxUploadSize = 2048`` gives
    ``--server.maxUploadSize=2048``."""
    settings = tomllib.loads((folder / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    return [f"--{section}.{name}={_option_value(value)}"
            for section, values in settings.items() for name, value in values.items()]


def _option_value(value) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)
