"""Tests of llrcore.io.bosaris_h5: BOSARIS Scores, Key and Ndx ``.h5`` files read, written and joined into Trials.

Independent references:

- files written here with plain h5py calls the way each toolkit's save function writes them (read from their
  sources, see the module documentation): PyBOSARIS ``pybosaris/io/hdf5_io.py`` (``model_names``, ``test_names`` as
  ``np.array(..., dtype='S')``, ``score_mat``, no mask, ``tar_mask``/``non_mask`` bool, attributes ``type`` and
  ``version``, gzip); SIDEKIT ``Scores.write`` / ``Key.write`` (``modelset``, ``segset`` as ``astype('S')``,
  ``score_mask`` int8, ``scores``, ``trial_mask`` int8 = tar - non, gzip + fletcher32, ``maxshape``); the BOSARIS
  toolkit's ``save_hdf5.m`` (``ID/row_ids``, ``ID/column_ids`` as variable-length strings, ``scores``, ``score_mask``
  uint8, ``trial_mask`` int8 with ``file_format`` "2.0", the older ``target_mask``/``nontarget_mask``). The expected
  trials are written out by hand from the matrices the test stores, never by the reader;
- the steps of PyBOSARIS's ``load_scores_hdf5``/``load_key_hdf5``/``load_ndx_hdf5`` (its ``type`` attribute, ids
  decoded as UTF-8, the matrices and their dtypes), done with h5py on the files llrcore writes in its layout;
- the Kaldi/BOSARIS text files ``tests/data/formats/kaldi_scores.txt`` + ``kaldi_key.txt``, read by the text reader:
  the same scores as ``.h5`` files give identical Trials, with identical ``model``/``test`` metadata;
- the command line on the text version of the same files.

Order semantics under test: a file's trials are read in row-major order (model by model in the order of the model
ids, each model's test segments in the order of the test ids); the writers sort the ids, so written-and-read trials of
each class come sorted by (model, test), and a Trials read from a file with sorted ids round-trips unchanged.
"""
from __future__ import annotations

import io
import json
import shutil
import warnings
from pathlib import Path

import h5py
import numpy as np
import pandas as pd
import pytest

import llrcore as lc
from llrcore.cli import main
from llrcore.io import LoadError, LoadWarning, read_trials, write_trials
from llrcore.io.bosaris_h5 import LAYOUTS
from paths import DATA, ROOT

FORMATS = DATA / "formats"
TEXT_SCORES, TEXT_KEY = FORMATS / "kaldi_scores.txt", FORMATS / "kaldi_key.txt"
# kaldi_scores.txt as a matrix: models spk001, spk002 (rows) x tests utt_0001..utt_0003 (columns); its key's targets
MODELS, TESTS = ["spk001", "spk002"], ["utt_0001", "utt_0002", "utt_0003"]
SCORES = np.array([[4.21, -1.25, -2.50], [-0.75, 3.10, -4.00]])
TARGETS = np.array([[True, False, False], [False, True, False]])


def ids(values) -> np.ndarray:
    return np.array([v.encode() for v in values], dtype="S")


def ids_of(trials: lc.Trials) -> list[tuple[str, str]]:
    return list(zip(trials.metadata["model"].astype(str), trials.metadata["test"].astype(str)))


def assert_same_trials(a: lc.Trials, b: lc.Trials) -> None:
    """Same scores in the same order, and the same (model, test) ids trial by trial."""
    np.testing.assert_array_equal(a.tar, b.tar)
    np.testing.assert_array_equal(a.non, b.non)
    assert ids_of(a) == ids_of(b)


def vlen_strings(f: h5py.File, name: str, values) -> None:
    """Variable-length strings, as MATLAB's hdf5write writes a cell array of strings."""
    f.create_dataset(name, data=np.array([v.encode() for v in values], dtype=object), dtype=h5py.string_dtype())


def bosaris_toolkit_files(folder: Path, old_key: bool = False) -> tuple[Path, Path]:
    """The toolkit's layout (save_hdf5.m of Scores and Key)."""
    scores, key = folder / "toolkit_scores.h5", folder / "toolkit_key.h5"
    with h5py.File(scores, "w") as f:
        f.create_dataset("scores", data=SCORES)
        f.create_dataset("score_mask", data=np.ones(SCORES.shape, np.uint8))
        vlen_strings(f, "ID/row_ids", MODELS)
        vlen_strings(f, "ID/column_ids", TESTS)
    with h5py.File(key, "w") as f:
        if old_key:
            f.create_dataset("target_mask", data=TARGETS.astype(np.uint8))
            f.create_dataset("nontarget_mask", data=(~TARGETS).astype(np.uint8))
        else:
            f.create_dataset("trial_mask", data=TARGETS.astype(np.int8) - (~TARGETS).astype(np.int8))
            f.create_dataset("file_format", data=np.bytes_(b"2.0"))
        vlen_strings(f, "ID/row_ids", MODELS)
        vlen_strings(f, "ID/column_ids", TESTS)
    return scores, key


# ------------------------------------------------------------------------------------------------------------------
# files written the way each toolkit writes them


def test_a_pybosaris_scores_and_key_file_read_back_to_the_trials_written_by_hand(tmp_path):
    # PyBOSARIS save_scores_hdf5 / save_key_hdf5, models deliberately not sorted: the file's order is kept
    models, tests = ["m2", "m1"], ["t1", "t2"]
    score_mat = np.array([[0.5, -1.5], [2.5, -0.25]])
    tar_mask = np.array([[True, False], [False, False]])
    non_mask = np.array([[False, True], [True, True]])
    with h5py.File(tmp_path / "scores.h5", "w") as f:
        f.create_dataset("model_names", data=np.array(models, dtype="S"), compression="gzip")
        f.create_dataset("test_names", data=np.array(tests, dtype="S"), compression="gzip")
        f.create_dataset("score_mat", data=score_mat, compression="gzip")
        f.attrs["type"], f.attrs["version"] = "Scores", "1.0"
    with h5py.File(tmp_path / "key.h5", "w") as f:
        f.create_dataset("model_names", data=np.array(models, dtype="S"), compression="gzip")
        f.create_dataset("test_names", data=np.array(tests, dtype="S"), compression="gzip")
        f.create_dataset("tar_mask", data=tar_mask, compression="gzip")
        f.create_dataset("non_mask", data=non_mask, compression="gzip")
        f.attrs["type"], f.attrs["version"] = "Key", "1.0"
    trials = read_trials(tmp_path / "scores.h5", key=tmp_path / "key.h5")
    np.testing.assert_array_equal(trials.tar, [0.5])  # (m2, t1)
    np.testing.assert_array_equal(trials.non, [-1.5, 2.5, -0.25])  # (m2, t2), (m1, t1), (m1, t2): row-major
    assert ids_of(trials) == [("m2", "t1"), ("m2", "t2"), ("m1", "t1"), ("m1", "t2")]
    assert trials.name == "scores"
    frame = lc.read_bosaris_scores(tmp_path / "scores.h5")
    assert frame["score"].tolist() == [0.5, -1.5, 2.5, -0.25]  # no mask: every entry is a trial
    assert lc.read_bosaris_key(tmp_path / "key.h5")["target"].tolist() == [True, False, False, False]


def test_sidekit_files_with_a_partial_score_mask(tmp_path):
    # SIDEKIT Scores.write and Key.write: modelset/segset, score_mask int8, scores; trial_mask int8 = tar - non
    modelset, segset = np.array(["a", "b"], dtype=object), np.array(["x", "y", "z"], dtype=object)
    scoremat = np.array([[1.0, 99.0, -2.0], [np.nan, 3.0, -4.0]])  # 99 and NaN are outside the mask
    scoremask = np.array([[True, False, True], [False, True, True]])
    tar = np.array([[True, False, False], [False, True, False]])
    non = np.array([[False, True, True], [False, False, True]])
    options = dict(compression="gzip", fletcher32=True)
    with h5py.File(tmp_path / "sidekit_scores.h5", "w") as f:
        f.create_dataset("modelset", data=modelset.astype("S"), maxshape=(None,), **options)
        f.create_dataset("segset", data=segset.astype("S"), maxshape=(None,), **options)
        f.create_dataset("score_mask", data=scoremask.astype("int8"), maxshape=(None, None), **options)
        f.create_dataset("scores", data=scoremat, maxshape=(None, None), **options)
    with h5py.File(tmp_path / "sidekit_key.h5", "w") as f:
        f.create_dataset("modelset", data=modelset.astype("S"), maxshape=(None,), **options)
        f.create_dataset("segset", data=segset.astype("S"), maxshape=(None,), **options)
        f.create_dataset("trial_mask", data=tar.astype("int8") - non.astype("int8"), maxshape=(None, None), **options)
    notes = []
    trials = read_trials(tmp_path / "sidekit_scores.h5", key=tmp_path / "sidekit_key.h5", on_warning=notes.append)
    np.testing.assert_array_equal(trials.tar, [1.0, 3.0])
    np.testing.assert_array_equal(trials.non, [-2.0, -4.0])
    assert ids_of(trials) == [("a", "x"), ("b", "y"), ("a", "z"), ("b", "z")]
    # the key's (a, y) has no score (outside the score mask): counted, placed by row and column of the key's matrix
    (note,) = notes
    assert str(note).startswith("sidekit_key.h5: 1 of the 5 trials of the key has no score in sidekit_scores.h5 "
                                "(targets: 0 of 2, non-targets: 1 of 3): 'a y' at row 1, column 2 of the dataset "
                                "'trial_mask'.")


@pytest.mark.parametrize("old_key", [False, True], ids=["key format 2.0", "key before 2.0"])
def test_the_bosaris_toolkit_layout_with_variable_length_strings(tmp_path, old_key):
    scores, key = bosaris_toolkit_files(tmp_path, old_key)
    assert_same_trials(read_trials(scores, key=key), read_trials(TEXT_SCORES, key=TEXT_KEY))


def test_ids_stored_as_a_column_and_fortran_padded_strings(tmp_path):
    # a cell array saved as (n, 1); SIDEKIT's old MATLAB-compatible writer used space-padded Fortran strings
    path = tmp_path / "column.h5"
    scores, key = bosaris_toolkit_files(tmp_path)
    with h5py.File(scores, "r") as src, h5py.File(path, "w") as f:
        f.create_dataset("scores", data=src["scores"][()])
        f.create_dataset("score_mask", data=src["score_mask"][()])
        f.create_dataset("ID/row_ids", data=ids(f"{m}  " for m in MODELS).reshape(-1, 1))
        f.create_dataset("ID/column_ids", data=ids(TESTS).reshape(1, -1))
    assert_same_trials(read_trials(path, key=key), read_trials(TEXT_SCORES, key=TEXT_KEY))


# ------------------------------------------------------------------------------------------------------------------
# the same trials as text files


def test_h5_and_text_files_give_identical_trials_in_every_combination(tmp_path):
    h5_scores, h5_key = bosaris_toolkit_files(tmp_path)
    text = read_trials(TEXT_SCORES, key=TEXT_KEY)
    for scores, key in ((h5_scores, h5_key), (h5_scores, TEXT_KEY), (TEXT_SCORES, h5_key)):
        trials = read_trials(scores, key=key)
        assert_same_trials(trials, text)
        assert list(trials.metadata.columns) == ["model", "test"]


def test_a_key_covering_part_of_an_h5_score_file_leaves_the_rest_out_with_a_warning(tmp_path):
    scores, _ = bosaris_toolkit_files(tmp_path)
    partial = tmp_path / "partial.key"
    partial.write_text("spk001 utt_0001 target\nspk002 utt_0002 target\nspk002 utt_0003 nontarget\n")
    with pytest.warns(LoadWarning) as caught:
        trials = read_trials(scores, key=partial)
    np.testing.assert_array_equal(trials.tar, [4.21, 3.10])
    np.testing.assert_array_equal(trials.non, [-4.00])
    (warning,) = [w.message for w in caught]
    assert str(warning) == ("toolkit_scores.h5: 3 of 6 scored trials are not in the key partial.key and were left out; "
                            "the first is 'spk001 utt_0002' at row 1, column 2 of the dataset 'scores'.")


def test_upload_without_a_usable_name_is_recognised_by_the_hdf5_signature(tmp_path):
    scores, key = bosaris_toolkit_files(tmp_path)
    upload, key_upload = io.BytesIO(scores.read_bytes()), io.BytesIO(key.read_bytes())
    upload.name = "blob"  # no suffix: the signature tells
    assert_same_trials(read_trials(upload, key=key_upload), read_trials(TEXT_SCORES, key=TEXT_KEY))
    with pytest.raises(LoadError) as caught:
        read_trials(io.BytesIO(scores.read_bytes()))
    assert caught.value.needs_key


# ------------------------------------------------------------------------------------------------------------------
# writing


def text_trials() -> lc.Trials:
    return read_trials(TEXT_SCORES, key=TEXT_KEY)


def shuffled_trials(seed: int = 3) -> lc.Trials:
    """40 models x 30 tests, about 70 % scored, ids in no order, scores with every digit and +-inf."""
    rng = np.random.default_rng(seed)
    models, tests = [f"spk{i:03d}" for i in rng.permutation(40)], [f"seg_{j}é" for j in rng.permutation(30)]
    pairs = [(m, t) for m in models for t in tests if rng.random() < 0.7]
    target = rng.random(len(pairs)) < 0.2
    scores = rng.normal(0, 3, len(pairs))
    scores[:2] = [np.inf, -np.inf]
    order = np.concatenate([np.flatnonzero(target), np.flatnonzero(~target)])
    meta = pd.DataFrame(pairs, columns=["model", "test"]).iloc[order].reset_index(drop=True)
    return lc.Trials(scores[target], scores[~target], name="sys", metadata=meta)


def by_class_and_ids(trials: lc.Trials) -> list[tuple]:
    labels = ["target"] * trials.tar.size + ["nontarget"] * trials.non.size
    return sorted(zip(labels, *zip(*ids_of(trials)), np.concatenate([trials.tar, trials.non]).tolist()))


@pytest.mark.parametrize("layout", ["bosaris", "sidekit"])
def test_round_trip_keeps_every_trial_and_sorts_each_class_by_ids(tmp_path, layout):
    trials = shuffled_trials()
    lc.write_bosaris_scores(tmp_path / "s.h5", trials, layout=layout)
    lc.write_bosaris_key(tmp_path / "k.h5", trials, layout=layout)
    back = read_trials(tmp_path / "s.h5", key=tmp_path / "k.h5")
    assert by_class_and_ids(back) == by_class_and_ids(trials)  # the same trials, every digit
    tar_ids, non_ids = ids_of(back)[:back.tar.size], ids_of(back)[back.tar.size:]
    assert tar_ids == sorted(tar_ids) and non_ids == sorted(non_ids)  # row-major over sorted ids
    # read from a file with sorted ids, written and read again: unchanged, order included
    lc.write_bosaris_scores(tmp_path / "s2.h5", back, layout=layout)
    lc.write_bosaris_key(tmp_path / "k2.h5", back, layout=layout)
    assert_same_trials(read_trials(tmp_path / "s2.h5", key=tmp_path / "k2.h5"), back)
    lc.write_bosaris_ndx(tmp_path / "n.h5", trials, layout=layout)
    ndx = lc.read_bosaris_ndx(tmp_path / "n.h5")
    assert sorted(zip(ndx["model"].astype(str), ndx["test"].astype(str))) == sorted(ids_of(trials))


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_each_layout_is_written_with_the_toolkits_dataset_names(tmp_path, layout):
    trials = text_trials()  # every model has a score for every test: the PyBOSARIS layout can hold it
    lc.write_bosaris_scores(tmp_path / "s.h5", trials, layout=layout)
    lc.write_bosaris_key(tmp_path / "k.h5", trials, layout=layout)
    lc.write_bosaris_ndx(tmp_path / "n.h5", trials, layout=layout)
    expected = {
        "bosaris": ({"ID/row_ids", "ID/column_ids", "scores", "score_mask"},
                    {"ID/row_ids", "ID/column_ids", "trial_mask", "file_format"}),
        "sidekit": ({"modelset", "segset", "scores", "score_mask"}, {"modelset", "segset", "trial_mask"}),
        "pybosaris": ({"model_names", "test_names", "score_mat"},
                      {"model_names", "test_names", "tar_mask", "non_mask"}),
    }[layout]
    for path, names in zip(("s.h5", "k.h5"), expected):
        with h5py.File(tmp_path / path, "r") as f:
            found = []
            f.visititems(lambda name, obj, found=found: found.append(name) if isinstance(obj, h5py.Dataset) else None)
            assert set(found) == names
            ids_dataset = f[LAYOUTS[layout].models]
            assert ids_dataset.dtype.kind == "S" and ids_dataset[()].tolist() == [m.encode() for m in MODELS]
    assert_same_trials(read_trials(tmp_path / "s.h5", key=tmp_path / "k.h5"), trials)
    with h5py.File(tmp_path / "k.h5", "r") as f:
        if layout != "pybosaris":
            np.testing.assert_array_equal(f["trial_mask"][()], np.where(TARGETS, 1, -1))
            assert f["trial_mask"].dtype == np.int8
    ndx = lc.read_bosaris_ndx(tmp_path / "n.h5")
    assert list(zip(ndx["model"].astype(str), ndx["test"].astype(str))) == [(m, t) for m in MODELS for t in TESTS]


def test_the_pybosaris_layout_is_what_pybosaris_loads(tmp_path):
    """The steps of PyBOSARIS's ``load_scores_hdf5``, ``load_key_hdf5`` and ``load_ndx_hdf5`` (pybosaris/io/hdf5_io.py)
    on the files written with ``layout="pybosaris"``: the ``type`` attribute it checks (it warns without it), the
    ids decoded as UTF-8, ``score_mat`` as stored, boolean ``tar_mask``/``non_mask`` and ``trial_mask``."""
    trials = text_trials()
    paths = {kind: tmp_path / f"{kind}.h5" for kind in ("Scores", "Key", "Ndx")}
    lc.write_bosaris_scores(paths["Scores"], trials, layout="pybosaris")
    lc.write_bosaris_key(paths["Key"], trials, layout="pybosaris")
    lc.write_bosaris_ndx(paths["Ndx"], trials, layout="pybosaris")
    for kind, path in paths.items():
        with h5py.File(path, "r") as f:
            assert f.attrs.get("type") == kind and f.attrs.get("version") == "1.0"
            assert [name.decode("utf-8") for name in f["model_names"][:]] == MODELS
            assert [name.decode("utf-8") for name in f["test_names"][:]] == TESTS
            if kind == "Scores":
                np.testing.assert_array_equal(f["score_mat"][:], SCORES)
            elif kind == "Key":
                assert f["tar_mask"].dtype == f["non_mask"].dtype == np.bool_
                np.testing.assert_array_equal(f["tar_mask"][:], TARGETS)
                np.testing.assert_array_equal(f["non_mask"][:], ~TARGETS)
            else:
                assert f["trial_mask"].dtype == np.bool_ and f["trial_mask"][:].all()


def test_write_trials_in_bosaris_h5_writes_scores_and_key(tmp_path):
    trials = text_trials()
    write_trials(tmp_path / "out.h5", trials, format="bosaris-h5", key=tmp_path / "out_key.h5")
    assert_same_trials(read_trials(tmp_path / "out.h5", key=tmp_path / "out_key.h5"), trials)
    with pytest.raises(ValueError, match="key="):
        write_trials(tmp_path / "x.h5", trials, format="bosaris-h5")


def test_writers_refuse_trials_they_cannot_store(tmp_path):
    with pytest.raises(ValueError, match="'model' and 'test'"):
        lc.write_bosaris_scores(tmp_path / "a.h5", lc.Trials([1.0], [0.0]))
    meta = pd.DataFrame({"model": ["m", "m", "m"], "test": ["t", "u", "t"]})
    with pytest.raises(ValueError, match="model 'm' and test 't' appears twice"):
        lc.write_bosaris_key(tmp_path / "a.h5", lc.Trials([1.0], [0.0, 2.0], metadata=meta))
    with pytest.raises(ValueError, match="spoof"):
        lc.write_bosaris_scores(tmp_path / "a.h5", lc.Trials([1.0], [0.0], spoof=[3.0]))
    with pytest.raises(ValueError, match="PyBOSARIS layout has no score mask"):
        lc.write_bosaris_scores(tmp_path / "a.h5", shuffled_trials(), layout="pybosaris")
    with pytest.raises(ValueError, match="Unknown BOSARIS layout"):
        lc.write_bosaris_scores(tmp_path / "a.h5", text_trials(), layout="matlab")


# ------------------------------------------------------------------------------------------------------------------
# bad files: a sentence naming the file and the dataset


def sidekit_file(path: Path, **datasets) -> Path:
    """A SIDEKIT-layout Scores file with models a, b and tests x, y, z; `datasets` replace (None: drop) its parts."""
    parts = {"modelset": ids(["a", "b"]), "segset": ids(["x", "y", "z"]),
             "scores": np.arange(6.0).reshape(2, 3), "score_mask": np.ones((2, 3), np.int8)}
    parts.update(datasets)
    with h5py.File(path, "w") as f:
        for name, data in parts.items():
            if data is not None:
                f.create_dataset(name, data=data)
    return path


def load_error(path, key=TEXT_KEY) -> str:
    with pytest.raises(LoadError) as caught:
        read_trials(path, key=key)
    assert "Traceback" not in str(caught.value)
    return str(caught.value)


@pytest.mark.parametrize("datasets, expected", [
    (dict(score_mask=None), ["the dataset 'score_mask' is missing", "'scores' and 'score_mask'"]),
    (dict(segset=None), ["the dataset 'segset' is missing", "test segment ids"]),
    (dict(modelset=None, segset=None), ["the model and test ids are missing", "'ID/row_ids' and 'ID/column_ids'",
                                        "'modelset' and 'segset' (SIDEKIT)", "'model_names' and 'test_names'"]),
    (dict(score_mask=np.ones((2, 4), np.int8)),
     [("the dataset 'score_mask' has 2 rows and 4 columns, but 'modelset' lists 2 models and 'segset' 3 test "
       "segments: it needs 2 rows (one per model) and 3 columns (one per test segment).")]),
    (dict(scores=np.zeros((3, 2))), ["the dataset 'scores' has 3 rows and 2 columns", "It is transposed"]),
    (dict(scores=np.zeros(6)), ["the dataset 'scores' has 1 dimension (6,)"]),
    (dict(modelset=np.array([1, 2])), [("the dataset 'modelset' holds int64 values, not text: the model ids must "
                                        "be strings.")]),
    (dict(modelset=ids(["a", "a"])), ["the model id 'a' appears twice in the dataset 'modelset' (rows 1 and 2)"]),
    (dict(segset=ids(["x", "", "z"])), ["the test segment id in row 2 of the dataset 'segset' is empty."]),
    (dict(scores=np.array([[0.0, np.nan, 1.0], [2.0, 3.0, 4.0]])),
     [("the score at row 1, column 2 of the dataset 'scores' (model 'a', test 'y') is NaN (not a number), yet "
       "'score_mask' marks it as a trial; 1 trial has no number.")]),
    (dict(score_mask=np.array([[1, 2, 1], [1, 1, 1]], np.int8)),
     ["the dataset 'score_mask' holds 2 at row 1, column 2; a mask holds 0 (no trial) or 1 (a trial)."]),
    (dict(score_mask=np.zeros((2, 3), np.int8)),
     ["there are no trials: every entry of the dataset 'score_mask' is 0."]),
    (dict(modelset=ids([]), scores=np.zeros((0, 3)), score_mask=np.zeros((0, 3), np.int8)),
     ["there are no trials: 'modelset' lists 0 models and 'segset' 3 test segments."]),
    (dict(scores=np.array([[b"a", b"b", b"c"], [b"d", b"e", b"f"]])),
     ["the dataset 'scores' holds |S1 values, not numbers."]),
], ids=["no mask", "no test ids", "no ids", "mask shape", "transposed", "1-d scores", "numeric ids", "id twice",
        "empty id", "NaN in the mask", "mask value", "empty mask", "no models", "text scores"])
def test_each_bad_scores_file_gets_its_sentence(tmp_path, datasets, expected):
    message = load_error(sidekit_file(tmp_path / "bad_scores.h5", **datasets))
    assert message.startswith("bad_scores.h5: ")
    for part in expected:
        assert part in message, message


def test_nan_outside_the_mask_is_no_trial(tmp_path):
    scores = np.array([[4.21, -1.25, -2.5], [-0.75, 3.1, np.nan]])
    mask = np.array([[1, 1, 1], [1, 1, 0]], np.int8)
    path = tmp_path / "s.h5"
    with h5py.File(path, "w") as f:
        f["modelset"], f["segset"], f["scores"], f["score_mask"] = ids(MODELS), ids(TESTS), scores, mask
    with pytest.warns(LoadWarning, match="1 of the 6 trials of the key has no score"):
        trials = read_trials(path, key=TEXT_KEY)
    np.testing.assert_array_equal(trials.non, [-1.25, -2.5, -0.75])


def test_bad_key_files_get_their_sentence(tmp_path):
    scores = sidekit_file(tmp_path / "scores.h5")
    both = tmp_path / "both.h5"
    with h5py.File(both, "w") as f:
        f["model_names"], f["test_names"] = ids(["a", "b"]), ids(["x", "y", "z"])
        f["tar_mask"] = np.array([[1, 0, 0], [0, 1, 0]], bool)
        f["non_mask"] = np.array([[0, 1, 1], [1, 1, 0]], bool)
    assert load_error(scores, both) == ("both.h5: row 2, column 2 is marked both in 'tar_mask' and in 'non_mask': a "
                                        "trial is either a target or a non-target trial.")
    ndx = tmp_path / "ndx.h5"
    with h5py.File(ndx, "w") as f:
        f["modelset"], f["segset"], f["trial_mask"] = ids(["a", "b"]), ids(["x", "y", "z"]), np.ones((2, 3), np.int8)
    assert "ndx.h5: the dataset 'trial_mask' holds no -1 (non-target trial): this is an Ndx" in load_error(scores, ndx)
    half = tmp_path / "half.h5"
    with h5py.File(half, "w") as f:
        f["modelset"], f["segset"], f["tar_mask"] = ids(["a", "b"]), ids(["x", "y", "z"]), np.ones((2, 3), bool)
    assert "half.h5: the dataset 'non_mask' is missing" in load_error(scores, half)
    wrong = tmp_path / "wrong.h5"
    with h5py.File(wrong, "w") as f:
        f["modelset"], f["segset"], f["trial_mask"] = ids(["a", "b"]), ids(["x", "y", "z"]), np.full((2, 3), 3)
    assert "wrong.h5: the dataset 'trial_mask' holds 3 at row 1, column 1; a mask holds 1 (target), -1 (non-target) " \
           "or 0 (no trial)." in load_error(scores, wrong)


def test_not_hdf5_and_damaged_files(tmp_path):
    text = tmp_path / "scores.h5"
    text.write_text("spk001 utt_0001 4.21\n")
    assert load_error(text).startswith("scores.h5: this is not an HDF5 file")
    _, key = bosaris_toolkit_files(tmp_path)
    truncated = tmp_path / "truncated.h5"
    truncated.write_bytes(key.read_bytes()[:600])
    assert load_error(TEXT_SCORES, truncated).startswith("truncated.h5: the HDF5 file cannot be read (")
    with pytest.raises(LoadError, match="kaldi_scores.txt: this is not an HDF5 file"):
        read_trials(TEXT_SCORES, format="bosaris-h5", key=TEXT_KEY)


def test_files_given_without_their_key_or_in_the_wrong_place(tmp_path):
    scores, key = bosaris_toolkit_files(tmp_path)
    with pytest.raises(LoadError) as caught:
        read_trials(scores)
    assert caught.value.needs_key and str(caught.value).startswith("toolkit_scores.h5: a BOSARIS Scores file holds")
    assert "needs its key" in str(caught.value) and "=" not in caught.value.reason
    with pytest.raises(LoadError, match="toolkit_key.h5: this is a BOSARIS Key file") as caught:
        read_trials(key)
    assert not caught.value.needs_key
    lc.write_bosaris_ndx(tmp_path / "n.h5", text_trials())
    with pytest.raises(LoadError, match="n.h5: this is a BOSARIS Ndx file"):
        read_trials(tmp_path / "n.h5")
    assert "toolkit_key.h5: the dataset 'scores' is missing" in load_error(key, scores)  # swapped
    assert load_error(scores, scores).startswith("toolkit_scores.h5: the dataset 'trial_mask' is missing")


def test_read_bosaris_ndx_of_a_key_gives_its_trials(tmp_path):
    _, key = bosaris_toolkit_files(tmp_path, old_key=True)
    frame = lc.read_bosaris_ndx(key)
    assert list(frame.columns) == ["model", "test"] and len(frame) == 6


# ------------------------------------------------------------------------------------------------------------------
# the command line and the app


def test_cli_evaluate_on_h5_files_matches_the_text_files(tmp_path, capsys):
    h5_scores, h5_key = bosaris_toolkit_files(tmp_path)
    shutil.copy(h5_scores, tmp_path / "plda.h5")
    shutil.copy(TEXT_SCORES, tmp_path / "plda.txt")
    assert main(["evaluate", str(tmp_path / "plda.h5"), "--key", str(h5_key), "--json"]) == 0
    from_h5 = json.loads(capsys.readouterr().out)
    assert main(["evaluate", str(tmp_path / "plda.txt"), "--key", str(TEXT_KEY), "--json"]) == 0
    assert from_h5 == json.loads(capsys.readouterr().out)
    assert main(["evaluate", str(tmp_path / "plda.h5")]) == 2
    err = capsys.readouterr().err
    assert "plda.h5: a BOSARIS Scores file" in err and "--key" in err and "Traceback" not in err


def test_cli_calibrate_rewrites_the_scores_of_an_h5_file_in_place(tmp_path, capsys):
    """Every score marked as a trial becomes the fitted calibration of it; ids, mask and unmarked cells stay."""
    scores, key = bosaris_toolkit_files(tmp_path)
    dev_file = FORMATS.parent / "asvspoof2019_la" / "ASVspoof2019.LA.asv.eval.gi.trl.scores.txt"
    dev = read_trials(dev_file)
    output = tmp_path / "calibrated.h5"
    assert main(["calibrate", str(dev_file), "--apply-to", str(scores),
                 "-o", str(output)]) == 0
    capsys.readouterr()
    calibration = lc.fit_affine(dev)
    with h5py.File(scores) as before, h5py.File(output) as after:
        assert sorted(before) == sorted(after)
        mask = before["score_mask"][()].astype(bool)
        np.testing.assert_array_equal(after["score_mask"][()], before["score_mask"][()])
        np.testing.assert_array_equal(after["ID/row_ids"][()], before["ID/row_ids"][()])
        np.testing.assert_allclose(after["scores"][()][mask], calibration(before["scores"][()][mask]), rtol=1e-12)
        np.testing.assert_array_equal(after["scores"][()][~mask], before["scores"][()][~mask])
    assert main(["calibrate", str(dev_file), "--apply-to", str(scores),
                 "-o", str(tmp_path / "calibrated.txt")]) == 2
    assert "BOSARIS .h5" in capsys.readouterr().err
    assert main(["calibrate", str(dev_file), "--apply-to", str(key),
                 "-o", str(tmp_path / "k.h5")]) == 2
    assert "only a BOSARIS Scores file can be calibrated" in capsys.readouterr().err


def test_the_upload_reader_takes_an_h5_score_file_and_its_key(tmp_path):
    from app_pages._uploads import read_upload

    scores, key = bosaris_toolkit_files(tmp_path)
    upload, key_upload = io.BytesIO(scores.read_bytes()), io.BytesIO(key.read_bytes())
    upload.name, key_upload.name = "plda.h5", "plda_key.h5"
    alone = read_upload(upload)
    assert alone.needs_key and alone.error.startswith("plda.h5: a BOSARIS Scores file")
    parsed = read_upload(upload, key_upload)
    assert parsed.error is None and list(parsed.systems) == ["plda"]
    assert_same_trials(parsed.systems["plda"], read_trials(TEXT_SCORES, key=TEXT_KEY))


def test_the_data_page_loads_an_h5_score_file_with_its_h5_key(tmp_path):
    from streamlit.testing.v1 import AppTest

    scores, key = bosaris_toolkit_files(tmp_path)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    at.switch_page("app_pages/data.py").run()
    at.file_uploader(key="score_uploads").set_value(("plda.h5", scores.read_bytes(), "application/x-hdf5")).run()
    (error,) = [e.value for e in at.error]
    assert error.startswith("plda.h5: a BOSARIS Scores file") and "Add its key file in the box below" in error
    (box,) = [u for u in at.file_uploader if u.label == "Key file for plda.h5"]
    box.set_value(("key.h5", key.read_bytes(), "application/x-hdf5")).run()
    assert not at.error and not at.exception
    loaded = at.session_state["systems"]["plda"]
    assert loaded.source == "upload: plda.h5 with key key.h5"
    assert_same_trials(loaded.trials, read_trials(TEXT_SCORES, key=TEXT_KEY))


def test_format_names(tmp_path):
    assert "bosaris-h5" in lc.io.FORMATS
    scores, key = bosaris_toolkit_files(tmp_path)
    for name in ("bosaris-h5", "h5", "hdf5"):
        assert_same_trials(read_trials(scores, format=name, key=key), read_trials(TEXT_SCORES, key=TEXT_KEY))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the key covers the scores exactly: no warning
        read_trials(scores, key=key)
