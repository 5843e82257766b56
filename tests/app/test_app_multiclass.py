"""The Multiclass page under AppTest: demo data on the first visit, tabs, second demo, uploads, decisions prior."""
from __future__ import annotations


import numpy as np
import pytest
from scipy.special import log_softmax

from streamlit.testing.v1 import AppTest

import llrcore as lc
import paths
from paths import ROOT

APP = str(ROOT / "app.py")
PAGE = "app_pages/multiclass.py"
IEMOCAP = "IEMOCAP speech emotion (4 classes)"
CIFAR = "CIFAR-10 images (10 classes)"
DATA = paths.DATA / "multiclass"


def errors(at: AppTest) -> list[str]:
    return [e.value for e in at.error]


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def flat_cllr(folder: str, training_prior_empirical: bool) -> float:
    """Multiclass Cllr (flat prior) of a demo set, computed here with scipy from the copied data."""
    scores = np.load(DATA / folder / "scores.npy").astype(np.float64)
    labels = np.load(DATA / folder / "targets.npy")
    if training_prior_empirical:
        scores = scores - np.log(np.bincount(labels) / labels.size)
    log_post = log_softmax(scores, axis=1)
    n = scores.shape[1]
    return -np.mean([log_post[labels == i, i].mean() for i in range(n)]) / np.log(2)


@pytest.fixture
def at() -> AppTest:
    app = AppTest.from_file(APP, default_timeout=60)
    app.run()
    app.switch_page(PAGE).run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def csv_upload(seed: int = 0, n: int = 600) -> bytes:
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 3, n)
    llrs = 2.0 * np.eye(3)[labels] + rng.normal(0, 1, (n, 3))
    names = ["eng", "hin", "man"]
    lines = ["eng,hin,man,label"] + [f"{a:.5f},{b:.5f},{c:.5f},{names[k]}" for (a, b, c), k in zip(llrs, labels)]
    return ("\n".join(lines) + "\n").encode()


def test_opens_on_the_iemocap_demo_apart_from_the_binary_systems(at):
    assert not errors(at)
    assert at.title[0].value == "Multiclass calibration"
    assert list(at.session_state["mc_sets"]) == [IEMOCAP, CIFAR]
    assert at.selectbox(key="mc_set").value == IEMOCAP
    assert metrics(at)["Multiclass Cllr"] == f"{flat_cllr('iemocap_wav2vec_pt', True):.3f} bits"
    assert metrics(at)["Useless system"] == f"{2.0:.3f} bits"
    assert len(at.session_state["systems"]) == 3  # the binary demo systems are untouched
    assert len(at.get("plotly_chart")) == 1  # the pair-wise bar matrix


@pytest.mark.parametrize("tab, charts", [("Detection", 2), ("Decisions", 1)])
def test_every_tab_draws(at, tab, charts):
    at.session_state["mc_tab"] = tab
    at.run()
    assert not at.exception and not errors(at)
    assert len(at.get("plotly_chart")) == charts


def test_second_demo_and_the_choice_survives_a_page_switch(at):
    at.selectbox(key="mc_set").set_value(CIFAR).run()
    assert metrics(at)["Multiclass Cllr"] == f"{flat_cllr('cifar10_resnet-20', False):.3f} bits"
    assert metrics(at)["Useless system"] == f"{np.log2(10):.3f} bits"
    at.switch_page("app_pages/evaluate.py").run()
    at.switch_page(PAGE).run()
    assert at.selectbox(key="mc_set").value == CIFAR


def test_decision_prior_changes_the_error_rate(at):
    at.session_state["mc_tab"] = "Decisions"
    at.run()
    flat = metrics(at)["Error rate (MAP identification)"]
    at.segmented_control(key="mc_prior_kind").set_value("class frequencies").run()
    assert not errors(at)
    assert metrics(at)["Error rate (MAP identification)"] == "34.86 %"  # published 1 - accuracy: 0.349
    assert metrics(at)["Error rate (MAP identification)"] != flat
    assert metrics(at)["Normalised"] == "0.504"  # published normalised 0-1 cost


def test_good_upload_is_added_and_chosen_and_a_bad_one_changes_nothing(at):
    at.file_uploader(key="mc_upload").set_value(("my lre.csv", csv_upload(), "text/csv")).run()
    assert not at.exception and not errors(at)
    assert at.selectbox(key="mc_set").value == "my lre (upload)"
    scores = at.session_state["mc_sets"]["my lre (upload)"].scores
    assert scores.classes == ("eng", "hin", "man") and len(scores) == 600
    assert metrics(at)["Useless system"] == f"{np.log2(3):.3f} bits"

    bad = b"eng,hin,man,label\n0.1,0.2,0.3,eng\n0.2,x,0.1,hin\n"
    at.file_uploader(key="mc_upload").set_value(("broken.csv", bad, "text/csv")).run()
    assert not at.exception
    assert errors(at) and errors(at)[0].startswith("broken.csv, line 3")
    assert at.selectbox(key="mc_set").value == "my lre (upload)"
    assert "broken (upload)" not in at.session_state["mc_sets"]


def test_score_type_of_an_upload_is_checked_and_can_be_changed(at):
    at.radio(key="mc_score_type").set_value("log-posteriors").run()
    at.file_uploader(key="mc_upload").set_value(("lang.csv", csv_upload(1), "text/csv")).run()
    assert errors(at) and "not log-posteriors" in errors(at)[0]
    assert at.selectbox(key="mc_set").value == IEMOCAP
    at.radio(key="mc_score_type").set_value("logits").run()
    assert not errors(at)
    assert at.selectbox(key="mc_set").value == "lang (upload)"


def demo_scores(folder: str, score_type: str, training_prior: str) -> lc.MulticlassScores:
    path = ROOT / "assets" / "multiclass" / folder
    return lc.read_multiclass(path / "scores.npy", labels=path / "targets.npy", score_type=score_type,
                              training_prior=training_prior)


@pytest.mark.parametrize("label, folder, score_type, training_prior", [
    (IEMOCAP, "iemocap_wav2vec_pt", "log-posterior", "empirical"),
    (CIFAR, "cifar10_resnet-20", "logit", "flat"),
])
def test_the_lre_costs_shown_are_the_librarys(at, label, folder, score_type, training_prior):
    if label != IEMOCAP:
        at.selectbox(key="mc_set").set_value(label).run()
    assert not at.exception and not errors(at)
    scores = demo_scores(folder, score_type, training_prior)
    calibrated = lc.fit_multiclass_affine(scores)(scores.llrs)
    table = at.table[0].value
    assert list(table.index) == ["raw LLRs", "after calibration"]
    assert list(table.columns) == ["Cavg (P_target 0.5)", "minCavg (0.5)", "LRE Cprimary", "min Cprimary"]
    for row, llrs in (("raw LLRs", scores.llrs), ("after calibration", calibrated)):
        shown = table.loc[row]
        assert shown.iloc[0] == f"{lc.cavg(llrs, p_target=0.5, labels=scores.labels):.4f}"
        assert shown.iloc[1] == f"{lc.cavg(llrs, p_target=0.5, labels=scores.labels, minimum=True):.4f}"
        assert shown.iloc[2] == f"{lc.lre_cprimary(llrs, labels=scores.labels):.4f}"
        assert shown.iloc[3] == f"{lc.lre_cprimary(llrs, labels=scores.labels, minimum=True):.4f}"
