"""A session kept across a reload of the tab (``app_pages/_session.py``), without a browser: the files on disk, their
expiry, ids refused, damaged folders said in a sentence; and a whole round trip through the app under AppTest.

Independent references: the SHA-256 of ``b"abc"`` is FIPS 180-2's published test vector (ba7816bf…15ad); the
expiry follows from the times the test gives the folders (25 hours against a 24-hour limit, 23 hours within it); the
restored trials are compared with the values the test wrote in its files (3 targets 2.5, 1.5, 0.5 and 4 non-targets,
a key covering half of a score file's trials), the settings with the ones the test set; the limit of a session's files
from the sizes the test writes (two files of 50,000 lines of 12 bytes: 600,000 bytes fit in 1 MB = 1,048,576 bytes, two
do not).
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import llrcore as lc
from app_pages import _session
from app_pages._session import SessionError
from paths import ROOT

DEMO_NAMES = ["ASVspoof19 LA ASV (dev)", "ASVspoof19 LA ASV (eval)", "FVC-AUS DCA-PLDA"]
ABC_SHA256 = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"  # FIPS 180-2, appendix B.1
LABELLED = b"2.5 target\n1.5 target\n0.5 target\n-1 nontarget\n-2 nontarget\n-3 nontarget\n-4 nontarget\n"
# A Kaldi score file of 2 models x 2 tests and its key of model m1 only: the key covers half of the trials.
KALDI_SCORES = b"m1 t1 3.0\nm1 t2 -1.0\nm2 t1 -2.0\nm2 t2 4.0\n"
KALDI_KEY = b"m1 t1 target\nm1 t2 nontarget\n"


# ----- on disk -------------------------------------------------------------------------------------------------------


def test_bytes_are_kept_once_under_their_sha256_and_read_back_checked(tmp_path):
    assert _session.keep_bytes(tmp_path, b"abc", cap=100) == ABC_SHA256
    assert _session.keep_bytes(tmp_path, b"abc", cap=3) == ABC_SHA256  # already kept: nothing more to write
    assert [path.name for path in tmp_path.iterdir()] == [ABC_SHA256]
    assert _session.kept_bytes(tmp_path, ABC_SHA256) == b"abc"
    (tmp_path / ABC_SHA256).write_bytes(b"abd")
    with pytest.raises(SessionError, match="^its kept file is damaged$"):
        _session.kept_bytes(tmp_path, ABC_SHA256)
    with pytest.raises(SessionError, match="names a kept file wrongly"):
        _session.kept_bytes(tmp_path, "../" + ABC_SHA256[3:])


def test_a_session_keeps_no_more_than_its_cap(tmp_path):
    _session.keep_bytes(tmp_path, b"abc", cap=2**20)
    with pytest.raises(SessionError, match="would pass 1 MB"):
        _session.keep_bytes(tmp_path, bytes(2**20 - 2), cap=2**20)  # 3 + 1,048,574 bytes > 1 MB
    assert _session.used_bytes(tmp_path) == 3


@pytest.mark.parametrize("sid", ["../../etc/passwd", "a/b", "..", "short", "x" * 23, "abc.def" + "x" * 15, None, 7])
def test_an_id_this_server_does_not_make_is_refused(tmp_path, sid):
    with pytest.raises(SessionError, match="^The session id in the address is not one this server makes.$"):
        _session.session_folder(tmp_path, sid)


def test_a_made_id_names_a_folder_inside_the_root(tmp_path):
    sid = _session.new_sid()
    assert _session.session_folder(tmp_path, sid) == tmp_path / sid and len(sid) == 22


def test_sessions_unused_for_more_than_24_hours_are_swept(tmp_path):
    now = time.time()
    old, recent, empty_old = (_session.new_sid() for _ in range(3))
    for sid, hours in ((old, 25), (recent, 23)):
        _session.write_manifest(tmp_path / sid, {"version": 1, "systems": []})
        os.utime(tmp_path / sid / "session.json", (now - hours * 3600,) * 2)
    (tmp_path / empty_old).mkdir()  # an upload kept before the first manifest: the folder's own time counts
    os.utime(tmp_path / empty_old, (now - 25 * 3600,) * 2)
    (tmp_path / "not-a-session").mkdir()
    os.utime(tmp_path / "not-a-session", (now - 99 * 3600,) * 2)
    assert sorted(_session.sweep(tmp_path, now=now)) == sorted([old, empty_old])
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted([recent, "not-a-session"])


def test_a_missing_or_damaged_manifest_is_said_in_a_sentence(tmp_path):
    with pytest.raises(SessionError, match="^Nothing is kept for this link any more \\(sessions are kept 24 hours"):
        _session.read_manifest(tmp_path)
    (tmp_path / "session.json").write_text("{not json")
    with pytest.raises(SessionError, match="^The session kept for this link cannot be read \\(Expecting property"):
        _session.read_manifest(tmp_path)
    (tmp_path / "session.json").write_text(json.dumps({"version": 99}))
    with pytest.raises(SessionError, match="not one this version of the app can read"):
        _session.read_manifest(tmp_path)


def test_a_root_that_is_a_link_is_not_used(tmp_path):
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "root").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(SessionError, match="is not this server's own"):
        _session.usable_root(tmp_path / "root")


# ----- a round trip through the app ---------------------------------------------------------------------------------


@pytest.fixture
def sessions(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("LLRCORE_SESSION_DIR", str(tmp_path / "sessions"))
    return tmp_path / "sessions"


def opened(sid: str | None = None, page: str | None = None) -> AppTest:
    """The app in a new session (a new tab, or a reloaded one when `sid` is given), on `page` if given."""
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    if sid is not None:
        app.query_params["sid"] = sid
    app.run()
    if page is not None:
        app.switch_page(page).run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def sid_of(app: AppTest) -> str:
    sid = app.query_params["sid"]
    return sid[-1] if isinstance(sid, list) else sid


@pytest.fixture
def uploaded(sessions) -> AppTest:
    """A session that uploaded a labelled file (as log10 LRs), a Kaldi score file with its key, same-source and
    different-source LRs in two files, renamed and re-roled systems, removed
    a demo set and changed the operating point, the units and Evaluate's choice of systems."""
    app = opened(page="app_pages/data.py")
    app.checkbox(key="upload_log10").check().run()
    app.file_uploader(key="score_uploads").set_value(("labelled.txt", LABELLED, "text/plain")).run()
    app.checkbox(key="upload_log10").uncheck().run()
    app.file_uploader(key="score_uploads").set_value(("kaldi.scores", KALDI_SCORES, "text/plain")).run()
    key_box = next(box for box in app.file_uploader if (box.key or "").startswith("key_for_"))
    key_box.set_value(("kaldi.key", KALDI_KEY, "text/plain")).run()
    app.file_uploader(key="same_source_upload").set_value(("same.txt", b"1.0\n2.0\n", "text/plain"))
    app.file_uploader(key="different_source_upload").set_value(("different.txt", b"-1.0\n", "text/plain")).run()
    systems = app.session_state["systems"]
    assert list(systems) == [*DEMO_NAMES, "labelled", "kaldi", "same"]
    app.text_input(key=f"name_{systems['labelled'].id}").input("forensic").run()
    app.button(key=f"remove_{systems['FVC-AUS DCA-PLDA'].id}").click().run()
    app.session_state["operating_point"] = lc.OperatingPoint(0.2, 3, 1)
    app.session_state["eval_systems_kept"] = [systems["kaldi"].id]
    app.sidebar.segmented_control(key="llr_units_choice").set_value("log10").run()
    assert not app.exception and not app.error
    return app


def test_a_reloaded_tab_gets_its_uploads_and_settings_back(uploaded, sessions):
    sid = sid_of(uploaded)
    before = uploaded.session_state["systems"]
    app = opened(sid)
    assert [info.value for info in app.info] == [
        "Restored 5 uploaded files and your settings from this link (kept on this server for 24 hours after last "
        "use)."]
    assert sid_of(app) == sid
    systems = app.session_state["systems"]
    assert list(systems) == ["ASVspoof19 LA ASV (dev)", "ASVspoof19 LA ASV (eval)", "forensic", "kaldi", "same"]
    assert [s.role for s in systems.values()] == [s.role for s in before.values()]
    assert [s.id for s in systems.values()] == [s.id for s in before.values()]
    forensic = systems["forensic"].trials  # uploaded as log10 LRs: read again as such (times ln 10)
    assert sorted(forensic.tar) == pytest.approx([x * 2.302585092994046 for x in (0.5, 1.5, 2.5)], rel=1e-15)
    assert sorted(forensic.non) == pytest.approx([x * 2.302585092994046 for x in (-4, -3, -2, -1)], rel=1e-15)
    kaldi = systems["kaldi"].trials  # with its key: m1's two trials only
    assert (kaldi.tar.tolist(), kaldi.non.tolist()) == ([3.0], [-1.0])
    assert systems["kaldi"].source == "upload: kaldi.scores with key kaldi.key"
    same = systems["same"].trials  # same-source and different-source LRs in two files
    assert (same.tar.tolist(), same.non.tolist()) == ([1.0, 2.0], [-1.0])
    assert app.session_state["operating_point"] == lc.OperatingPoint(0.2, 3, 1)
    assert app.session_state["llr_units"] == "log10"
    assert app.session_state["eval_systems_kept"] == [systems["kaldi"].id]


def test_a_removed_upload_leaves_the_folder(uploaded, sessions):
    folder = sessions / sid_of(uploaded)
    assert len([path for path in folder.iterdir() if path.name != "session.json"]) == 5
    uploaded.switch_page("app_pages/data.py").run()
    for name in ("kaldi", "same"):
        uploaded.button(key=f"remove_{uploaded.session_state['systems'][name].id}").click().run()
    assert [path.name for path in folder.iterdir() if path.name != "session.json"] == [
        _session.keep_bytes(folder, LABELLED, cap=2**20)]


def test_a_damaged_file_loses_its_system_only_and_says_so(uploaded, sessions):
    folder = sessions / sid_of(uploaded)
    for entry in json.loads((folder / "session.json").read_text())["systems"]:
        if entry["name"] == "forensic":
            (folder / entry["origin"]["scores"]["sha"]).write_bytes(LABELLED[:-5])
    app = opened(sid_of(uploaded))
    assert [w.value for w in app.warning] == [
        "The kept system forensic could not be restored: its kept file is damaged."]
    assert list(app.session_state["systems"]) == ["ASVspoof19 LA ASV (dev)", "ASVspoof19 LA ASV (eval)", "kaldi",
                                                  "same"]


@pytest.mark.parametrize("damage", [
    "{not json", json.dumps([1, 2]),
    json.dumps({"version": 1, "systems": [7, {"name": "x", "origin": {"demo": "no"}}], "choices": [],
                "settings": {"operating_point": [2, 1, 1]}}),
    json.dumps({"version": 1, "systems": [[], {"name": "x", "origin": {"demo": ["no"]}}],  # lists where texts go
                "choices": {"eval_systems_kept": [["a"]], 7: 7},
                "settings": {"operating_point": {"p": 1}, "primary_cost": ["SRE12"], "llr_units": {"ln": 1}}})])
def test_a_damaged_manifest_is_said_and_the_app_starts(uploaded, sessions, damage):
    sid = sid_of(uploaded)
    (sessions / sid / "session.json").write_text(damage)
    app = opened(sid)
    assert not app.exception
    if damage.startswith('{"version": 1'):  # readable: each system it cannot use is said, the rest default
        assert [w.value for w in app.warning] == [
            "The kept system without a name could not be restored: it is not described as a system.",
            "The kept system x could not be restored: it is no demo set of this app."]
        assert app.session_state["operating_point"] == lc.OperatingPoint(0.01)
        assert app.session_state["llr_units"] == "ln" and app.session_state["primary_cost"] == "SRE12"
    else:
        [warning] = [w.value for w in app.warning]
        assert warning.endswith("Starting afresh, with the demo data.")
        assert list(app.session_state["systems"]) == DEMO_NAMES and sid_of(app) != sid


def test_an_upload_beyond_the_sessions_limit_is_loaded_and_said_not_kept(sessions, monkeypatch):
    monkeypatch.setattr(_session, "upload_limit", lambda: 2**20)  # 1 MB: one file of 600,000 bytes fits, not two
    files = [b"".join(b"%+.6f %d\n" % (s, i % 2) for i in range(50_000)) for s in (1.5, 2.5)]  # 12 bytes a line
    assert [len(file) for file in files] == [600_000, 600_000]
    app = opened(page="app_pages/data.py")
    app.file_uploader(key="score_uploads").set_value(("first.txt", files[0], "text/plain")).run()
    assert not app.warning
    app.file_uploader(key="score_uploads").set_value(("second.txt", files[1], "text/plain")).run()
    assert [w.value for w in app.warning] == [
        "This file is not kept across a reload of the tab: the files kept for this session would pass 1 MB."]
    assert list(app.session_state["systems"]) == [*DEMO_NAMES, "first", "second"]
    restored = opened(sid_of(app))
    assert list(restored.session_state["systems"]) == [*DEMO_NAMES, "first"]


def test_a_root_that_cannot_be_used_keeps_nothing_and_the_data_page_says_so(tmp_path, monkeypatch):
    (tmp_path / "a file").write_text("not a folder")
    monkeypatch.setenv("LLRCORE_SESSION_DIR", str(tmp_path / "a file" / "sessions"))
    app = opened(page="app_pages/data.py")
    assert "sid" not in app.query_params and not app.warning
    assert app.caption[1].value == _session.NOT_KEPT_NOTE
    app.file_uploader(key="score_uploads").set_value(("labelled.txt", LABELLED, "text/plain")).run()
    assert not app.exception and not app.warning and "labelled" in app.session_state["systems"]


def test_an_unknown_or_forged_id_starts_a_new_session(sessions):
    for sid in (_session.new_sid(), "../../etc"):
        app = opened(sid)
        [warning] = [w.value for w in app.warning]
        assert warning.endswith("Starting afresh, with the demo data.")
        assert list(app.session_state["systems"]) == DEMO_NAMES
        assert sid_of(app) != sid and (sessions / sid_of(app) / "session.json").is_file()


def test_a_server_file_is_read_there_again_and_only_if_the_data_page_lists_it(sessions, tmp_path, monkeypatch):
    folder = tmp_path / "server data"
    folder.mkdir()
    (folder / "sre.scores").write_bytes(KALDI_SCORES)
    (folder / "sre.key").write_bytes(KALDI_KEY)
    (tmp_path / "secret.txt").write_bytes(LABELLED)
    monkeypatch.setenv("LLRCORE_DATA_DIR", str(folder))
    app = opened(page="app_pages/data.py")
    app.selectbox(key="server_file").set_value(folder / "sre.scores")
    app.selectbox(key="server_key_file").set_value(folder / "sre.key").run()
    app.button(key="load_server_file").click().run()
    assert list(app.session_state["systems"]) == [*DEMO_NAMES, "sre"]
    sid = sid_of(app)
    restored = opened(sid).session_state["systems"]["sre"]
    assert (restored.trials.tar.tolist(), restored.trials.non.tolist()) == ([3.0], [-1.0])  # with its key, as loaded
    assert restored.source == "server: sre.scores with key sre.key"

    manifest = json.loads((sessions / sid / "session.json").read_text())
    for outside in ("../secret.txt", str(tmp_path / "secret.txt")):  # a folder tampered with: nothing outside is read
        manifest["systems"][-1]["origin"]["server"] = outside
        (sessions / sid / "session.json").write_text(json.dumps(manifest))
        app = opened(sid)
        assert [w.value for w in app.warning] == [
            f"The kept system sre could not be restored: {outside} is no longer in the server's data folder."]
        assert list(app.session_state["systems"]) == DEMO_NAMES
