"""``llrcore app`` and ``llrcore demo``: the workbench and its demo files as the installed package gives them.

Independent references: the repository's own files (``app.py``, ``.streamlit/config.toml``'s values written out here
by hand) and the trial counts of ``assets/asvspoof2019_la/SOURCE.txt`` (5370 targets, 33327 non-targets).
Starting the server from the installed wheel is checked by ``tools/check_wheel.py`` in CI (``.ci/run``).
"""
import json
import sys

import pytest

from llrcore.cli import app, demo, main
from paths import ASSETS, ROOT


@pytest.fixture
def started(monkeypatch):
    """The command `llrcore app` would run: os.execv is where Streamlit takes the process's place."""
    commands = []
    monkeypatch.setattr(app.os, "execv", lambda path, command: commands.append(command))
    return commands


def test_app_runs_streamlit_on_the_workbench_with_the_users_options_last(started):
    main(["app", "--server.port", "8600", "--server.headless=true"])
    (command,) = started
    assert command[:5] == [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py")]
    # after the workbench's settings, so that they win: click keeps an option's last value
    assert command[-3:] == ["--server.port", "8600", "--server.headless=true"]


def test_app_gives_the_settings_of_config_toml_as_options(started):
    main(["app"])
    (command,) = started
    settings = command[5:]
    for option in ("--server.maxUploadSize=2048", "--browser.gatherUsageStats=false", "--theme.base=light",
                   "--theme.primaryColor=#1f4e79", "--client.toolbarMode=minimal", "--runner.postScriptGC=false",
                   "--server.fileWatcherType=none"):
        assert option in settings


def test_other_commands_still_refuse_an_unknown_option(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["evaluate", str(ASSETS / "fvcaus_plda" / "fvcaus_plda.npz"), "--server.port", "8600"])
    assert exit_.value.code == 2
    assert "unrecognized arguments: --server.port 8600" in capsys.readouterr().err


def test_demo_lists_every_packaged_file_and_each_exists(capsys):
    assert main(["demo"]) == 0
    listing = capsys.readouterr().out
    for name, (path, _) in demo.DEMO_FILES.items():
        assert (ASSETS / path).is_file()
        assert f"{name}  " in listing and str(ASSETS / path) in listing


def test_evaluate_runs_on_the_path_demo_prints(capsys):
    assert main(["demo", "asv-eval"]) == 0
    path = capsys.readouterr().out.strip()
    assert main(["evaluate", path, "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out).values()
    assert (row["targets"], row["non-targets"]) == (5370, 33327)
