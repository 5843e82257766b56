"""Calibrators saved as JSON (``to_json()``, schema ``llrcore.calibrator/1``) and read back by ``lc.load_calibrator``.

Independent references:

- the fitted calibrator's own output before it was saved: the calibrator read back must give the same LLRs bit for bit
  (``np.array_equal``), on real data — the ASVspoof 2019 LA ASV scores (tests/data/asvspoof2019_la), the four
  ASVspoof 2019 LA countermeasures fused and calibrated per attack (assets/asvspoof2019_la_cm), NIST BSSR1 face
  scores with the other matcher as a quality measure (assets/nist_bssr1), CIFAR-10 ResNet-20 logits
  (tests/data/multiclass/cifar10_resnet-20);
- the numpy-only loader of docs/calibration.md, run here exactly as the page prints it: an implementation of the
  schema that shares no code with llrcore (json + numpy), whose LLRs must equal the library's bit for bit;
- IEEE 754 itself: floats compared by their 64 bits (``view(np.int64)``), subnormals, -0.0 and the largest double
  included; the standard ``json`` module reading the text (the fields of the documented schema).
"""
from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from paths import ASSETS, DATA, ROOT
from scipy.special import expit, logit

import llrcore as lc

ASV = DATA / "asvspoof2019_la"
CM = ASSETS / "asvspoof2019_la_cm"
CIFAR = DATA / "multiclass" / "cifar10_resnet-20"
FIELDS = {"schema", "kind", "output", "features", "coefficients", "rule", "p_target", "training", "llrcore_version"}


@pytest.fixture(scope="module")
def asv():
    return (lc.read_trials(ASV / "ASVspoof2019.LA.asv.dev.gi.trl.scores.txt"),
            lc.read_trials(ASV / "ASVspoof2019.LA.asv.eval.gi.trl.scores.txt"))


@pytest.fixture(scope="module")
def cm():
    return (lc.read_trials(CM / "ASVspoof2019.LA.cm.dev.scores.tsv.gz"),
            lc.read_trials(CM / "ASVspoof2019.LA.cm.eval.scores.tsv.gz"))


@pytest.fixture(scope="module")
def bssr1() -> lc.Trials:
    table = pd.read_csv(ASSETS / "nist_bssr1" / "bssr1_face.tsv.gz", sep="\t")
    table = table[table["face-C"] > -1]  # -1 is the matcher's failure sentinel (SOURCE.txt)
    return lc.Trials.from_labels(table["face-C"].to_numpy(), (table["label"] == "genuine").to_numpy(),
                                 metadata=table[["face-G"]].reset_index(drop=True))


@pytest.fixture(scope="module")
def cifar():
    return np.load(CIFAR / "scores.npy").astype(np.float64), np.load(CIFAR / "targets.npy")


@pytest.fixture(scope="module")
def load_numpy():
    """The numpy-only loader of docs/calibration.md, the block as the page prints it."""
    page = (ROOT / "docs" / "calibration.md").read_text(encoding="utf-8")
    block, = [code for code in re.findall(r"^```python\n(.*?)^```", page, flags=re.DOTALL | re.MULTILINE)
              if "def load_numpy" in code]
    namespace: dict = {}
    exec(block.split("\n\n\nllrs = ")[0], namespace)  # the function; its last line uses the page's earlier examples
    return namespace["load_numpy"]


def round_trip(calibrator, tmp_path, **options):
    """The calibrator saved to a file and read back, and the document as the json module reads it."""
    text = calibrator.to_json(**options)
    path = tmp_path / "cal.json"
    path.write_text(text, encoding="utf-8")
    loaded = lc.load_calibrator(path)
    assert type(loaded) is type(calibrator)
    return loaded, json.loads(text), path


# ----- every kind, read back bit for bit, by the library and by the numpy-only loader ---------------------------------


@pytest.mark.parametrize("fit", [lc.fit_affine, lc.fit_cmlg, lc.fit_pav], ids=["affine", "cmlg", "pav"])
def test_a_binary_calibrator_gives_the_same_llrs_bit_for_bit(fit, asv, tmp_path, load_numpy):
    dev, evaluation = asv
    calibrator = fit(dev.tar, dev.non)
    loaded, document, path = round_trip(calibrator, tmp_path)
    scores = np.concatenate([evaluation.tar, evaluation.non, [-1e6, 1e6]])  # unseen, far beyond the training scores
    assert np.array_equal(loaded(scores), calibrator(scores))
    assert np.array_equal(load_numpy(path)(scores), calibrator(scores))
    assert document["kind"] == calibrator.KIND and document["output"] == "llr" and document["features"] == ["score"]


def test_the_affine_recipe_is_recorded(asv, tmp_path):
    dev, _ = asv
    plo = logit(0.01)
    calibrator = lc.fit_affine(dev.tar, dev.non, lc.BetaRule.brier(), plo=plo)
    loaded, document, _ = round_trip(calibrator, tmp_path, rule=lc.BetaRule.brier(), plo=plo)
    assert set(document) == FIELDS
    assert document["schema"] == "llrcore.calibrator/1" and document["llrcore_version"] == lc.__version__
    assert document["rule"] == {"name": "Brier", "alpha": 2.0, "beta": 2.0}
    assert document["p_target"] == pytest.approx(0.01, rel=1e-12) and document["training"]["plo"] == plo
    assert document["coefficients"] == {"scale": calibrator.scale, "offset": calibrator.offset}
    assert loaded == calibrator and loaded.converged


def test_the_calibrate_result_saves_its_calibrator_with_its_recipe(asv):
    dev, evaluation = asv
    result = lc.calibrate_and_evaluate(dev, evaluation, "affine", lc.BetaRule.logarithmic(), plo=-2.0)
    document = json.loads(result.calibrator_json())
    assert document["rule"]["name"] == "logarithmic" and document["training"]["plo"] == -2.0
    assert document["p_target"] == pytest.approx(expit(-2.0), rel=1e-15)
    assert lc.load_calibrator(result.calibrator_json()) == result.calibrator


def test_a_fusion_of_the_four_countermeasures_gives_the_same_llrs(cm, tmp_path, load_numpy):
    dev, evaluation = cm
    result = lc.fuse(dev, evaluation, plo=0.0, regularisation=1e-3)
    path = tmp_path / "fusion.json"
    path.write_text(result.calibrator_json(), encoding="utf-8")
    document = json.loads(path.read_text())
    loaded = lc.load_calibrator(path)
    scores = np.concatenate([result.evaluation.tar, result.evaluation.non])
    assert np.array_equal(loaded(scores), result.fusion(scores))
    assert np.array_equal(load_numpy(path)(scores), result.fusion(scores))
    assert np.array_equal(loaded(result.evaluation.tar), result.fused_eval.tar)
    assert document["features"] == list(result.names) == ["LFCC-GMM", "RawNet2-a", "RawNet2-b", "RawNet2-c"]
    assert document["training"]["regularisation"] == 1e-3


def test_a_quality_calibration_gives_the_same_llrs(bssr1, tmp_path, load_numpy):
    calibration = lc.fit_quality_affine(bssr1, ["face-G"], bilinear=[("face-G", "face-G")], plo=logit(0.01))
    loaded, document, path = round_trip(calibration, tmp_path)
    assert np.array_equal(loaded(bssr1).tar, calibration(bssr1).tar)
    assert np.array_equal(loaded(bssr1).non, calibration(bssr1).non)
    assert document["features"] == ["score", "face-G", "face-G × face-G"]
    g = bssr1.metadata["face-G"].to_numpy()
    scores = np.concatenate([bssr1.tar, bssr1.non])
    columns = np.column_stack([scores, g, g * g])  # the features, in the order the document names them
    assert np.array_equal(load_numpy(path)(columns), np.concatenate([calibration(bssr1).tar, calibration(bssr1).non]))
    assert loaded.rule == calibration.rule and loaded.plo == calibration.plo
    assert np.array_equal(loaded.spreads, calibration.spreads)
    assert loaded.weights_frame().equals(calibration.weights_frame())


@pytest.mark.parametrize("method", ["affine", "pav"])
def test_a_calibration_per_attack_gives_the_same_llrs(cm, method, tmp_path):
    dev = cm[0]["RawNet2-a"]
    calibration = lc.calibrate_by_condition(dev, None, "attack", method).calibration
    loaded, document, _ = round_trip(calibration, tmp_path)
    for part in ("tar", "non"):
        assert np.array_equal(getattr(loaded(dev), part), getattr(calibration(dev), part))
    assert loaded.to_frame().equals(calibration.to_frame())
    assert document["coefficients"]["by"] == ["attack"]
    assert {tuple(c["values"]) for c in document["coefficients"]["conditions"]} == set(calibration.counts)


def test_the_calibration_by_condition_result_saves_its_calibrations_with_their_recipe(cm):
    dev = cm[0]["RawNet2-a"]
    result = lc.calibrate_by_condition(dev, None, "attack", "affine", lc.BetaRule.brier(), plo=-2.0)
    document = json.loads(result.calibrator_json())
    assert document["rule"]["name"] == "Brier" and document["training"]["plo"] == -2.0
    assert document["p_target"] == pytest.approx(expit(-2.0), rel=1e-15)
    loaded = lc.load_calibrator(result.calibrator_json())
    assert np.array_equal(loaded(dev).tar, result.calibration(dev).tar)
    assert np.array_equal(loaded(dev).non, result.calibration(dev).non)


def test_a_multiclass_affine_calibration_of_cifar10_logits_gives_the_same_llrs(cifar, tmp_path, load_numpy):
    logits, labels = cifar
    calibrator = lc.fit_multiclass_affine(logits, labels)
    loaded, document, path = round_trip(calibrator, tmp_path, classes=[f"class {i}" for i in range(10)])
    assert np.array_equal(loaded(logits), calibrator(logits))
    assert np.array_equal(load_numpy(path)(logits), calibrator(logits))
    assert document["output"] == "llrs" and len(document["coefficients"]["offsets"]) == 10


def test_a_temperature_of_cifar10_logits_gives_the_same_probabilities(cifar, tmp_path, load_numpy):
    logits, labels = cifar
    temperature = lc.fit_temperature(logits, labels)
    loaded, document, path = round_trip(temperature, tmp_path)
    assert loaded == temperature
    assert np.array_equal(loaded(logits), temperature(logits))
    assert np.array_equal(load_numpy(path)(logits), temperature(logits))
    assert document["output"] == "probabilities" and document["training"]["nll_after"] == temperature.nll_after


# ----- floats: every bit survives; what JSON cannot hold is refused ---------------------------------------------------


def test_every_bit_of_every_coefficient_survives(tmp_path):
    tiny, big = np.nextafter(0.0, 1.0), np.finfo(np.float64).max  # the smallest subnormal, the largest double
    weights = np.array([tiny, -0.0, big, 1 / 3, np.pi * 1e-300, -2.0**-1074 * 7, 0.1 + 0.2])
    loaded, _, _ = round_trip(lc.Fusion(weights=weights, offset=-0.0), tmp_path)
    assert np.array_equal(loaded.weights.view(np.int64), weights.view(np.int64))
    assert np.signbit(loaded.offset)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_a_coefficient_that_is_not_finite_is_not_saved(bad):
    with pytest.raises(ValueError, match=r"^This calibrator cannot be saved: its coefficients.offset is -?(nan|inf) "):
        lc.Affine(scale=1.0, offset=bad).to_json()


def test_a_collapsed_calibration_is_not_saved():
    with pytest.raises(ValueError, match=r"^This calibration collapsed \(far scores\), so it is not saved"):
        lc.Affine(scale=1e-9, offset=0.0, failure="far scores").to_json()


def test_a_calibrator_read_without_its_training_facts_is_saved_again(bssr1):
    """``training`` is optional (a reader takes NaN for a fact it lacks): what was read must be saved again, with the
    unknown facts left out, and read back the same (it was refused: "its training.nll_before is nan")."""
    temperature = lc.load_calibrator(saved_affine(kind="temperature", coefficients={"temperature": 2.0},
                                                  training=None))
    assert np.isnan(temperature.nll_before)
    again = json.loads(temperature.to_json())
    assert again["training"] == {} and lc.load_calibrator(json.dumps(again)).temperature == 2.0
    quality = lc.fit_quality_affine(bssr1, ["face-G"])
    document = json.loads(quality.to_json())
    del document["training"]["spreads"]
    loaded = lc.load_calibrator(json.dumps(document))
    assert "spreads" not in json.loads(loaded.to_json())["training"]
    assert np.array_equal(loaded(bssr1).tar, quality(bssr1).tar)


# ----- bad files: one sentence naming the file and what is wrong ------------------------------------------------------


def saved_affine(**changes) -> str:
    document = json.loads(lc.Affine(scale=2.0, offset=-1.0).to_json())
    return json.dumps({**document, **changes})


@pytest.mark.parametrize("text, sentence", [
    (saved_affine(schema="llrcore.calibrator/2"),
     (f"The calibrator was written by a newer llrcore (schema version 2; this llrcore {lc.__version__} reads "
      "version 1 and older): upgrade llrcore to load it.")),
    (saved_affine(kind="spline"),
     ('The calibrator is of kind "spline", which this llrcore does not know (it knows affine, fusion, pav, quality, '
      'conditional, multiclass-affine, temperature).')),
    (saved_affine(coefficients={"scale": 2.0}),
     "The calibrator lacks 'coefficients.offset', which a calibrator of kind \"affine\" needs."),
    (saved_affine(coefficients={"scale": "2", "offset": 1.0}),
     "In the calibrator, 'coefficients.scale' must be a number, not \"2\"."),
    (saved_affine(kind="fusion", coefficients={"weights": [], "offset": 1.0}),
     "In the calibrator, 'coefficients.weights' must be a non-empty list of numbers, not []."),
    (saved_affine(kind="pav", coefficients={"knots": [0.0, 2.0, 1.0], "llrs": [0.0, 1.0, 2.0]}),
     "In the calibrator, 'coefficients.knots' must not decrease."),
    (saved_affine(kind="pav", coefficients={"knots": [0.0, 1.0], "llrs": [0.0]}),
     "In the calibrator, 'coefficients.llrs' has 1 numbers where 2 are needed."),
    (saved_affine(kind="temperature", coefficients={"temperature": -1.0}),
     "In the calibrator, 'coefficients.temperature' must be above 0, not -1.0."),
    (saved_affine(kind="quality", rule=None),
     "The calibrator lacks 'coefficients.systems', which a calibrator of kind \"quality\" needs."),
    ('{"schema": "llrcore.calibrator/1", "kind": "affine", "coefficients": {"scale": NaN, "offset": 0}}',
     "The calibrator holds NaN, which is no number a calibrator may have."),
    ('{"schema": "llrcore.calibrator/1",\n "kind": "affine"\n "coefficients": {}}',
     "The calibrator is not JSON: Expecting ',' delimiter at line 3, column 2."),
    ('{"kind": "affine", "coefficients": {"scale": 1, "offset": 0}}',
     'The calibrator is not an llrcore calibrator (it has no "schema": "llrcore.calibrator/1").'),
    ('[{"schema": "llrcore.calibrator/1", "kind": "affine"}]',
     'The calibrator is not an llrcore calibrator (it has no "schema": "llrcore.calibrator/1").'),
    (saved_affine(schema="llrcore.calibrator/one"),
     "The calibrator names the schema version 'one', which is no version number."),
], ids=["newer", "kind", "missing", "text", "empty", "knots", "sizes", "temperature", "quality", "nan", "syntax",
        "schema", "list", "version"])
def test_a_bad_calibrator_is_one_sentence(text, sentence):
    with pytest.raises(ValueError) as error:
        lc.load_calibrator(text)
    assert str(error.value) == sentence


def test_a_bad_file_is_named(tmp_path):
    path = tmp_path / "cal.json"
    path.write_text(saved_affine(kind="spline"), encoding="utf-8")
    with pytest.raises(ValueError, match=r'^The calibrator file cal\.json is of kind "spline"'):
        lc.load_calibrator(path)
    with pytest.raises(ValueError, match=r"^There is no calibrator file .*missing\.json \(nor is that JSON text\)\.$"):
        lc.load_calibrator(tmp_path / "missing.json")
    binary = tmp_path / "scores.npy"
    np.save(binary, np.arange(3.0))
    with pytest.raises(ValueError, match=r"^The calibrator file scores\.npy is not JSON text: byte 1 is not UTF-8 "
                                         r"\(a binary file\?\)\.$"):
        lc.load_calibrator(binary)
