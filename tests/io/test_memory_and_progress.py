"""Big files: a sentence before a file that would not fit in memory is parsed, and the reader's steps as it reads.

Independent references: the size of the file on disk (``os.path.getsize``) against the memory limit the test sets
(``LLRCORE_MEMORY_LIMIT``, the server's cap); the reader's steps as its documentation lists them (one for a file, three
for a score file and its key); the trials read without a limit (nothing changes when the file fits).
"""
from __future__ import annotations

import os

import pytest
from paths import ROOT

import llrcore as lc
from llrcore import memory

ASV_DEV = ROOT / "assets/asvspoof2019_la/ASVspoof2019.LA.asv.dev.gi.trl.scores.txt"


@pytest.mark.parametrize("limit, bytes_", [("500KB", 500 * 2**10), ("1.5 MB", int(1.5 * 2**20)), ("2GiB", 2 * 2**30),
                                           ("123456", 123456)])
def test_the_memory_limit_caps_the_free_memory(monkeypatch, limit, bytes_):
    monkeypatch.setenv(memory.MEMORY_VARIABLE, limit)
    assert memory.available_memory() == min(bytes_, memory._system_free_memory())


def test_a_memory_limit_that_is_not_a_size_is_said(monkeypatch):
    monkeypatch.setenv(memory.MEMORY_VARIABLE, "lots")
    with pytest.raises(ValueError, match="LLRCORE_MEMORY_LIMIT is a size such as 8GB"):
        memory.available_memory()


def test_a_file_too_large_for_the_memory_is_refused_in_a_sentence_before_parsing(monkeypatch):
    size = os.path.getsize(ASV_DEV)
    monkeypatch.setenv(memory.MEMORY_VARIABLE, str(2 * size))  # 2.5 times the text would be needed
    with pytest.raises(lc.LoadError) as refused:
        lc.read_trials(ASV_DEV)
    message = str(refused.value)
    assert message.startswith(ASV_DEV.name + ": the file is 633 kB of text")
    assert "more memory" in message and "the README's section 'Large files'" in message
    assert "read_counts" not in message  # a reason names no front end's way (LoadError): the README says them all
    monkeypatch.delenv(memory.MEMORY_VARIABLE)
    unlimited = lc.read_trials(ASV_DEV)
    monkeypatch.setenv(memory.MEMORY_VARIABLE, str(3 * size))  # room for it: read as without a limit
    limited = lc.read_trials(ASV_DEV)
    assert (limited.tar == unlimited.tar).all() and (limited.non == unlimited.non).all()


def test_the_key_file_is_checked_too(monkeypatch, tmp_path):
    scores, key = tmp_path / "s.txt", tmp_path / "k.txt"
    scores.write_text("m1 t1 0.5\nm1 t2 -0.5\n")
    key.write_text("m1 t1 target\nm1 t2 nontarget\n" + "m9 t9 nontarget\n" * 20_000)
    monkeypatch.setenv(memory.MEMORY_VARIABLE, str(2 * key.stat().st_size))
    with pytest.raises(lc.LoadError, match=r"^k\.txt: the file is"):
        lc.read_trials(scores, key=key)


def test_the_reader_reports_its_steps(tmp_path):
    calls = []
    lc.read_trials(ASV_DEV, progress=lambda done, n: calls.append((done, n)))
    assert calls == [(1, 1)]
    scores, key = tmp_path / "s.txt", tmp_path / "k.txt"
    scores.write_text("m1 t1 0.5\nm1 t2 -0.5\n")
    key.write_text("m1 t2 nontarget\nm1 t1 target\n")
    calls.clear()
    lc.read_trials(scores, key=key, progress=lambda done, n: calls.append((done, n)))
    assert calls == [(1, 3), (2, 3), (3, 3)]
