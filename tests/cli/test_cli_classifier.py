"""``llrcore classifier``: the table, the sentences and the HTML page of a classifier's calibration.

Independent references: the published ECE of the CIFAR-10 ResNet-20 outputs (3.9 % raw, 0.9 % after temperature
scaling, "calt": tests/data/multiclass/PUBLISHED.txt, Ferrer & Ramos, TMLR 2025, Table 2); the accuracy by numpy's
argmax; the temperature by a direct NLL minimisation (scipy.optimize.minimize_scalar); the page's self-containment
by its text (no address to fetch)."""
from __future__ import annotations

import json
import re
import shutil

import numpy as np
import pytest
from scipy.optimize import minimize_scalar
from scipy.special import log_softmax

from llrcore.cli import main
from paths import DATA

CIFAR = DATA / "multiclass/cifar10_resnet-20"


def test_the_table_has_the_published_ece_and_the_direct_temperature(capsys):
    assert main(["classifier", str(CIFAR / "scores.npy"), "--labels", str(CIFAR / "targets.npy"), "--json"]) == 0
    table = json.loads(capsys.readouterr().out)
    logits, labels = np.load(CIFAR / "scores.npy"), np.load(CIFAR / "targets.npy")
    assert round(100 * table["raw"]["ece"], 1) == 3.9 and round(100 * table["scaled"]["ece"], 1) == 0.8  # calt 0.9
    direct = minimize_scalar(lambda t: -np.mean(log_softmax(logits / t, axis=1)[np.arange(labels.size), labels]),
                             bounds=(0.1, 10), method="bounded", options={"xatol": 1e-10})
    assert table["scaled"]["temperature"] == pytest.approx(direct.x, rel=1e-5)
    assert table["scaled"]["nll"] == pytest.approx(direct.fun, rel=1e-9)
    for row in table.values():  # the decomposition holds in the table too
        assert row["mean_score"] == pytest.approx(row["MCB"] - row["DSC"] + row["UNC"], abs=1e-12)


def test_the_text_says_accuracy_and_decomposition(capsys):
    assert main(["classifier", str(CIFAR / "scores.npy"), "--labels", str(CIFAR / "targets.npy"),
                 "--score", "log"]) == 0
    out = capsys.readouterr().out
    logits, labels = np.load(CIFAR / "scores.npy"), np.load(CIFAR / "targets.npy")
    assert f"accuracy {100 * np.mean(logits.argmax(axis=1) == labels):.2f} %" in out
    assert re.search(r"raw: Mean log score [\d.]+ bits = miscalibration", out)
    assert "scaled: Mean log score" in out


def test_the_html_page_is_self_contained_and_escapes_the_name(tmp_path, capsys):
    scores = tmp_path / "a<b>.npy"
    shutil.copy(CIFAR / "scores.npy", scores)
    page = tmp_path / "page.html"
    assert main(["classifier", str(scores), "--labels", str(CIFAR / "targets.npy"), "--html", str(page)]) == 0
    html = page.read_text(encoding="utf-8")
    assert "<title>Calibration of a&lt;b&gt;.npy</title>" in html and "a<b>.npy" not in html
    assert html.count('class="figure"') == 5 and "3.90%" in html  # the five figures; the table's raw ECE
    assert "Smooth ECE 5.30 %" in html and "RMS-CE" in html and "E-AURC" in html  # the words and the errors table
    assert not re.search(r"""<(script|link|img)[^>]*(src|href)=["']https?://""", html)  # plotly.js is inlined
    assert 'http-equiv="Content-Security-Policy"' in html  # and the page may fetch nothing


def test_a_missing_file_is_one_sentence(tmp_path, capsys):
    assert main(["classifier", str(tmp_path / "nothing.npy")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("llrcore classifier: ") and "nothing.npy" in err and len(err.splitlines()) == 1
