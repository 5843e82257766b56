"""Loading files that sit on the server (LLRCORE_DATA_DIR), for files beyond the upload limit."""
from __future__ import annotations


import pytest
from streamlit.testing.v1 import AppTest
from paths import ROOT

APP = str(ROOT / "app.py")


def data_page(monkeypatch, folder) -> AppTest:
    if folder is None:
        monkeypatch.delenv("LLRCORE_DATA_DIR", raising=False)
    else:
        monkeypatch.setenv("LLRCORE_DATA_DIR", str(folder))
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.switch_page("app_pages/data.py").run()
    assert not at.exception
    return at


@pytest.fixture
def server_folder(tmp_path):
    folder = tmp_path / "server data"
    (folder / "site A").mkdir(parents=True)
    (folder / "site A" / "big system.txt").write_text("score label\n2.5 target\n1.0 target\n-1 nontarget\n0.5 nontarget\n")
    (folder / "broken.txt").write_text("score label\n2.5 target\nabc nontarget\n")
    (folder / ".hidden.txt").write_text("1 target\n0 nontarget\n")
    outside = tmp_path / "secret.txt"
    outside.write_text("1 target\n0 nontarget\n")
    (folder / "link to outside.txt").symlink_to(outside)
    return folder


def test_no_server_files_unless_the_folder_is_set(monkeypatch):
    at = data_page(monkeypatch, None)
    assert not [box for box in at.selectbox if box.key == "server_file"]


def test_a_server_file_loads_as_a_system(monkeypatch, server_folder):
    at = data_page(monkeypatch, server_folder)
    listed = at.selectbox(key="server_file").options  # as shown: paths relative to the folder
    assert sorted(listed) == ["broken.txt", "site A/big system.txt"]  # no hidden file, no link leading outside
    at.selectbox(key="server_file").set_value(server_folder / "site A" / "big system.txt").run()
    at.button(key="load_server_file").click().run()
    assert not at.exception and not at.error
    trials = at.session_state["systems"]["big system"].trials
    assert (trials.tar.size, trials.non.size) == (2, 2)
    assert at.session_state["systems"]["big system"].source == "server: site A/big system.txt"


def test_a_bad_server_file_gives_the_readers_sentence_and_keeps_the_data(monkeypatch, server_folder):
    at = data_page(monkeypatch, server_folder)
    before = list(at.session_state["systems"])
    at.selectbox(key="server_file").set_value(server_folder / "broken.txt").run()
    at.button(key="load_server_file").click().run()
    assert [error.value for error in at.error] == ["broken.txt, line 3: the score 'abc' is not a number."]
    assert list(at.session_state["systems"]) == before
