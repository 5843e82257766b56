"""Parsed uploads: kept in a bounded store (the least recently used let go first, an hour at most), parsed once, with a
progress bar told each step of the reading; a file too large for the server is said in a sentence on the Data page.

Independent references: the store's bound and order as the test writes them (17 keys into a store of 16, a clock the
test moves); the reader's steps as ``llrcore.read_trials`` documents them (one for a file; three for a score file and
its key: the scores parsed, the key parsed, the two joined), followed by the sort; the number of times a file is read,
counted by the file itself; the trial counts from how the test writes its files; the file's size as written (exactly
10,000,000 bytes) and the memory limit the test sets (20,000,000 bytes) in the sentence of a file too large.
"""
from __future__ import annotations

import io

import numpy as np
import pytest
from streamlit.delta_generator import DeltaGenerator
from streamlit.testing.v1 import AppTest

from app_pages._store import LRUStore
from app_pages._uploads import parse_upload
from paths import ROOT

DEMO_NAMES = ["ASVspoof19 LA ASV (dev)", "ASVspoof19 LA ASV (eval)", "FVC-AUS DCA-PLDA"]


class CountingFile(io.BytesIO):
    """An uploaded file that counts how often it is read."""

    def __init__(self, data: bytes, name: str):
        super().__init__(data)
        self.name, self.reads = name, 0

    def read(self, *args):
        self.reads += 1
        return super().read(*args)


def sixteen_byte_lines(n: int, seed: int = 0) -> bytes:
    """`n` lines ``score label`` of exactly 16 bytes each (``+0.1234567890 1``); the first tenth are targets."""
    scores = np.clip(np.random.default_rng(seed).normal(0, 2, n), -9.9, 9.9)
    labels = np.arange(n) < n // 10
    return "".join(f"{s:+.10f} {int(t)}\n" for s, t in zip(scores, labels)).encode()


def test_the_store_keeps_the_most_recently_used_results():
    store = LRUStore(size=16)
    for key in range(16):
        store.put(key, f"parsed {key}")
    assert store.get(0) == "parsed 0"  # now the most recently used: key 1 is the oldest
    store.put(16, "parsed 16")
    assert store.get(1) is None
    assert [store.get(key) for key in (0, *range(2, 17))] == ["parsed 0", *(f"parsed {k}" for k in range(2, 17))]


def test_the_store_lets_go_of_a_result_after_its_time():
    now = [100.0]
    store = LRUStore(size=16, ttl=3600.0, clock=lambda: now[0])
    store.put("a", 1)
    now[0] += 3600.0
    assert store.get("a") == 1
    now[0] += 0.5
    assert store.get("a") is None and "a" not in store.items


def test_a_file_is_parsed_once_and_the_bar_told_only_then():
    upload = CountingFile(b"1.5 target\n-0.5 nontarget\n-2 nontarget\n", "once.txt")
    calls = []
    first = parse_upload("once-id", None, upload, None, progress=lambda *call: calls.append(call))
    assert (first.systems["once"].tar.tolist(), first.systems["once"].non.tolist()) == ([1.5], [-0.5, -2.0])
    assert upload.reads == 1 and calls
    calls.clear()
    again = parse_upload("once-id", None, upload, None, progress=lambda *call: calls.append(call))
    assert again is first and upload.reads == 1 and calls == []


def test_a_bad_file_is_said_once_with_its_line_and_kept():
    upload = CountingFile(b"1.5 target\n-0.5 nontarget\nnot-a-number target\n", "bad scores.txt")
    first = parse_upload("bad-id", None, upload, None)
    assert first.systems is None and first.error.startswith("bad scores.txt, line 3")
    assert parse_upload("bad-id", None, upload, None) is first and upload.reads == 1


def test_the_bar_says_the_steps_of_a_file_then_the_sort():
    calls = []
    parse_upload("steps-id", None, io.BytesIO(sixteen_byte_lines(100)), None, progress=lambda *call: calls.append(call))
    assert calls == [(0.0, "Parsing the file…"), (0.5, "Sorting the scores of the file…")]


def test_the_bar_says_the_steps_of_a_score_file_with_its_key():
    scores = CountingFile(b"m1 t1 2.5\nm1 t2 -1.5\nm2 t1 -0.5\n", "trials.scores")
    key = CountingFile(b"m2 t1 nontarget\nm1 t2 nontarget\nm1 t1 target\n", "trials.key")
    calls = []
    parsed = parse_upload("scores-id", "key-id", scores, key, progress=lambda *call: calls.append(call))
    trials = parsed.systems["trials"]
    assert (trials.tar.tolist(), sorted(trials.non.tolist())) == ([2.5], [-1.5, -0.5])
    assert calls == [(0.0, "Parsing trials.scores…"), (0.25, "Parsing its key trials.key…"),
                     (0.5, "Joining trials.scores with its key…"), (0.75, "Sorting the scores of trials.scores…")]


@pytest.fixture
def data_page() -> AppTest:
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    app.run()
    app.switch_page("app_pages/data.py").run()
    assert not app.exception
    return app


def test_an_upload_shows_a_bar_of_its_steps_and_none_after(data_page, monkeypatch):
    drawn = []
    draw = DeltaGenerator.progress

    def recording(self, value, text=None, **options):
        drawn.append((value, text))
        return draw(self, value, text=text, **options)

    monkeypatch.setattr(DeltaGenerator, "progress", recording)
    data = sixteen_byte_lines(2000, seed=1)
    data_page.file_uploader(key="score_uploads").set_value(("barred.txt", data, "text/plain")).run()
    assert not data_page.exception and not data_page.error
    assert drawn == [(0.0, "Parsing barred.txt…"), (0.5, "Sorting the scores of barred.txt…")]
    assert not data_page.get("progress")  # the bar is gone once the file is read
    summary = data_page.session_state["systems"]["barred"].summary
    assert (summary["targets"], summary["non-targets"]) == (200, 1800)


def test_a_file_too_large_for_the_server_is_said_and_the_data_kept(data_page, monkeypatch):
    monkeypatch.setenv("LLRCORE_MEMORY_LIMIT", "20000000")
    data = sixteen_byte_lines(625_000)
    assert len(data) == 10_000_000
    data_page.file_uploader(key="score_uploads").set_value(("huge scores.txt", data, "text/plain")).run()
    assert not data_page.exception
    [error] = [element.value for element in data_page.error]
    assert error.startswith("huge scores.txt: the file is 10 MB of text; reading it needs about ")
    assert "more memory and 20 MB is free here." in error
    assert list(data_page.session_state["systems"]) == DEMO_NAMES
