"""The corpus of malformed and odd files in tests/data/bad/: each bad one gives a LoadError naming the file, the line
where one applies and the problem; each odd-but-valid one loads with the right counts (see its README)."""
import re
from pathlib import Path

import pytest

import llrcore as lc
from paths import DATA

BAD = DATA / "bad"


def _manifest(folder: Path) -> list[list[str]]:
    return [line.split("\t") for line in (folder / "MANIFEST.tsv").read_text().splitlines()[1:]]


MANIFEST = _manifest(BAD)
MULTICLASS = BAD / "multiclass"
DIARIZATION = BAD / "diarization"


def _expectations(kind):
    return [pytest.param(name, *expected.split("|")[1:], id=name) for name, expected in MANIFEST
            if expected.startswith(kind)]


def test_the_corpus_is_large_enough():
    assert len(MANIFEST) + len(_manifest(MULTICLASS)) + len(_manifest(DIARIZATION)) >= 40
    assert {path.name for path in BAD.iterdir()} >= {name for name, _ in MANIFEST}


@pytest.mark.parametrize("name, line, phrase", _expectations("error"))
def test_bad_file_gives_a_load_error_naming_file_line_and_problem(name, line, phrase):
    with pytest.raises(lc.LoadError) as caught:
        lc.read_trials(BAD / name)
    message = str(caught.value)
    assert message.startswith(name), message
    if line != "-":
        assert caught.value.line == int(line), message
        assert re.search(rf"\bline {line}\b", message), message
    assert phrase.lower() in message.lower(), message
    assert "Traceback" not in message and len(message) < 600


@pytest.mark.parametrize("name", [name for name, expected in MANIFEST if expected.startswith("error")])
def test_only_a_score_file_without_its_key_is_marked_as_needing_one(name):
    """Front ends turn ``needs_key`` into their own instruction (a key box, --key, key=); the sentence has none."""
    with pytest.raises(lc.LoadError) as caught:
        lc.read_trials(BAD / name)
    assert caught.value.needs_key == (name == "kaldi_scores_without_key.txt")


@pytest.mark.parametrize("name, n_tar, n_non", _expectations("ok"))
def test_odd_but_valid_file_loads(name, n_tar, n_non):
    trials = lc.read_trials(BAD / name)
    assert (trials.tar.size, trials.non.size) == (int(n_tar), int(n_non))


@pytest.mark.parametrize("name", [name for name, expected in MANIFEST if expected.startswith("error")])
def test_bad_upload_gives_the_same_error_as_the_file(name):
    """The app reads uploads as file-like objects with a name: the message must be the same sentence."""
    import io

    upload = io.BytesIO((BAD / name).read_bytes())
    upload.name = name
    with pytest.raises(lc.LoadError) as from_upload:
        lc.read_trials(upload)
    with pytest.raises(lc.LoadError) as from_path:
        lc.read_trials(BAD / name)
    assert str(from_upload.value) == str(from_path.value)


@pytest.mark.parametrize("name, expected", _manifest(MULTICLASS), ids=[name for name, _ in _manifest(MULTICLASS)])
def test_bad_multiclass_file_gives_a_load_error_naming_file_line_and_problem(name, expected):
    _, line, phrase = expected.split("|")
    options = {"score_type": "log-posterior"} if "logposteriors" in name else {}
    with pytest.raises(lc.LoadError) as caught:
        lc.read_multiclass(MULTICLASS / name, **options)
    message = str(caught.value)
    assert message.startswith(name), message
    if line != "-":
        assert caught.value.line == int(line) and re.search(rf"\bline {line}\b", message), message
    assert phrase.lower() in message.lower(), message


@pytest.mark.parametrize("name, expected", _manifest(DIARIZATION), ids=[name for name, _ in _manifest(DIARIZATION)])
def test_bad_similarity_and_rttm_files(name, expected):
    kind, line, phrase = expected.split("|")
    read = lc.read_rttm if name.endswith(".rttm") else lc.read_similarity
    if kind == "warning":
        with pytest.warns(UserWarning, match=phrase):
            read(DIARIZATION / name)
        return
    with pytest.raises(lc.LoadError) as caught:
        read(DIARIZATION / name)
    message = str(caught.value)
    assert message.startswith(name), message
    if line != "-":
        assert caught.value.line == int(line) and re.search(rf"\bline {line}\b", message), message
    assert phrase.lower() in message.lower(), message


# The words of the Python API (keywords, function names) never appear in a message: the app and the command line show
# the same sentences, and each adds its own instruction.
API_SPELLINGS = re.compile(r"\b(?:key|format|labels|classes|segments|reference|name|score_type)\s*=|read_trials|"
                           r"read_multiclass|read_similarity|LoadError")


def _message(read, path, **options) -> str:
    with pytest.raises(lc.LoadError) as caught:
        read(path, **options)
    return str(caught.value)


@pytest.mark.parametrize("folder, read", [(BAD, lc.read_trials), (MULTICLASS, lc.read_multiclass),
                                          (DIARIZATION, None)], ids=["trials", "multiclass", "diarization"])
def test_no_message_of_the_corpus_speaks_the_python_api(folder, read):
    for name, expected in _manifest(folder):
        if expected.startswith("error"):
            reader = read or (lc.read_rttm if name.endswith(".rttm") else lc.read_similarity)
            options = {"score_type": "log-posterior"} if "logposteriors" in name else {}
            message = _message(reader, folder / name, **options)
            assert not API_SPELLINGS.search(message), message


def test_messages_about_what_else_a_file_needs_name_no_keyword(tmp_path):
    import numpy as np

    matrix = np.eye(3)
    np.savez(tmp_path / "two.npz", a=matrix, b=matrix)
    np.save(tmp_path / "scores.npy", np.zeros((4, 3)))
    (tmp_path / "ref.rttm").write_text("SPEAKER rec 1 0.00 1.00 <NA> <NA> spk1 <NA> <NA>\n")
    np.save(tmp_path / "square.npy", matrix)
    messages = [
        _message(lc.read_similarity, tmp_path / "two.npz"),  # which matrix
        _message(lc.read_multiclass, tmp_path / "scores.npy"),  # where are the labels
        _message(lc.read_similarity, tmp_path / "square.npy", reference=tmp_path / "ref.rttm"),  # segment times
    ]
    for message in messages:
        assert not API_SPELLINGS.search(message), message
