"""The Diarization page under AppTest: the demo on the first visit, clustering on demand (Cluster runs the Bayesian
block model alone; the other methods, the table and the advice come when the comparison is asked for), the figure tabs, settings that change the result, uploads (good and bad), state kept apart from the binary systems.

Figures are tested as plain functions in test_plots_diarization.py; here only that they appear without errors.
"""
from __future__ import annotations

import io

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import llrcore as lc
from paths import ROOT

APP = str(ROOT / "app.py")
PAGE = "app_pages/diarization.py"
DEMO = "AMI ES2005a (PLDA LLRs of 1,025 x-vector windows)"
SECOND_DEMO = "pyannote sample (cosines of 74 d-vector windows)"


def problems(at: AppTest) -> list[str]:
    return [e.value for e in at.exception] + [e.value for e in at.error]


def metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def _clustered() -> AppTest:
    """The page on the demo after one press of Cluster."""
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.switch_page(PAGE).run()
    at.button(key="diar_run").click().run()
    assert not problems(at)
    return at


@pytest.fixture(scope="module")
def clustered() -> AppTest:
    """The page after Cluster, shared by the tests that only read it (clustering the demo takes a few seconds)."""
    return _clustered()


@pytest.fixture(scope="module")
def compared() -> AppTest:
    """The page after Cluster and the comparison with the other methods: a session of its own, so that the tests of
    `clustered` see the page before the comparison whichever runs first (pytest-xdist's worksteal reorders them)."""
    at = _clustered()
    at.button(key="diar_compare").click().run()
    assert not problems(at)
    return at


def test_page_opens_on_the_demo_and_waits_for_the_button():
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.switch_page(PAGE).run()
    assert not problems(at)
    assert at.title[0].value == "Diarization"
    assert at.selectbox(key="diar_set").value == DEMO
    assert any("Press **Cluster**" in i.value for i in at.info)
    assert len(at.get("plotly_chart")) == 1  # the matrix in time order
    assert not at.metric
    # the binary systems are untouched: the diarization data lives under its own key
    assert "diar_sets" in at.session_state and len(at.session_state["systems"]) == 3


def test_cluster_finds_four_speakers_with_the_bayesian_model_alone(clustered):
    at = clustered
    assert metric(at, "Speakers found") == "4"
    assert "NME-SC" not in next(m for m in at.metric if m.label == "Speakers found").proto.help  # LLRs: no floor
    der = float(metric(at, "DER").rstrip(" %"))
    assert der < 7.06
    # only the default ran: no table of methods, no advice, the prompt to compare and one method to show
    assert not any("Which answer to trust here" in i.value for i in at.info)
    assert any(m.value.startswith("**Compare** with AHC (average linkage), Spectral and NME-SC") for m in at.markdown)
    assert at.button(key="diar_compare").label == "Compare with the other methods"
    assert at.segmented_control(key="diar_show").options == ["Bayesian block model"]
    assert all("method" not in frame.value.columns for frame in at.dataframe)


def test_the_comparison_adds_the_other_methods_and_the_advice(compared):
    at = compared
    der = float(metric(at, "DER").rstrip(" %"))
    table = at.dataframe[0].value.set_index("method")
    assert list(table.index) == ["Bayesian block model", "AHC (average linkage)", "Spectral",
                                 "NME-SC (auto-tuned spectral)", "VBx (full system, its RTTM)"]
    assert table.loc["Bayesian block model", "speakers"] == 4
    assert table.loc["VBx (full system, its RTTM)", "DER"] == pytest.approx(0.0706, abs=5e-5)
    assert table.loc["Bayesian block model", "DER"] == pytest.approx(der / 100, abs=5e-5)
    assert table["DER"].idxmin() == "Bayesian block model"
    assert any(i.value.startswith("**Which answer to trust here: Bayesian block model.**") for i in at.info)
    assert not any(m.value.startswith("**Compare**") for m in at.markdown)  # the prompt is gone


def test_another_sessions_comparison_is_shown_once_this_session_asks(compared):
    """The results are shared by the server's sessions (the store), what a page shows is what its session asked for:
    after another session compared the methods, a new one sees the Bayesian model alone after Cluster, and the
    comparison at once when it asks (the other methods are not run again: the same table, their times included)."""
    at = _clustered()
    assert not any("Which answer to trust here" in i.value for i in at.info)
    assert at.segmented_control(key="diar_show").options == ["Bayesian block model"]
    at.button(key="diar_compare").click().run()
    assert not problems(at)
    assert any(i.value.startswith("**Which answer to trust here: Bayesian block model.**") for i in at.info)
    assert at.dataframe[0].value.equals(compared.dataframe[0].value)


def test_every_figure_tab_of_every_method_draws(compared):
    at = compared
    for method in ("Bayesian block model", "AHC (average linkage)", "Spectral", "NME-SC (auto-tuned spectral)"):
        at.segmented_control(key="diar_show").set_value(method).run()
        for tab in ("Similarity matrix", "Scores and Gaussians", "Number of speakers", "Evidence bound", "Timeline"):
            at.session_state["diar_tab"] = tab
            at.run()
            assert not problems(at), (method, tab, problems(at))
            charts = len(at.get("plotly_chart"))
            if method != "Bayesian block model" and tab in ("Number of speakers", "Evidence bound"):
                assert charts == 0 and at.info, (method, tab)
            else:
                assert charts == 1, (method, tab)
    at.segmented_control(key="diar_show").set_value("Bayesian block model").run()
    at.session_state["diar_tab"] = "Similarity matrix"
    at.run()


def test_results_are_kept_per_settings_and_an_exact_count_is_obeyed(compared):
    at = compared
    at.segmented_control(key="diar_count_mode").set_value("exactly").run()
    at.number_input(key="diar_exact").set_value(3).run()
    assert any("Press **Cluster**" in i.value for i in at.info)  # new settings: nothing computed yet
    at.button(key="diar_run").click().run()
    assert not problems(at)
    assert metric(at, "Speakers found") == "3"
    assert at.segmented_control(key="diar_show").options == ["Bayesian block model"]  # the others: on demand
    at.segmented_control(key="diar_count_mode").set_value("estimate").run()
    assert metric(at, "Speakers found") == "4"  # back to the earlier settings: from the store, no button needed
    assert len(at.dataframe[0].value) == 5  # the comparison too


def test_changing_the_collar_rescores_without_reclustering(clustered):
    at = clustered
    before = float(metric(at, "DER").rstrip(" %"))
    at.select_slider(key="diar_collar").set_value(0.0).run()
    assert not problems(at)
    after = float(metric(at, "DER").rstrip(" %"))
    assert after > before
    at.select_slider(key="diar_collar").set_value(0.25).run()


def _three_speakers_csv() -> bytes:
    rng = np.random.default_rng(3)
    labels = np.repeat([0, 1, 2], [40, 30, 20])
    scores = np.where(labels[:, None] == labels[None, :], 10.0, -20.0) + rng.normal(0, 4, (90, 90))
    buffer = io.StringIO()
    np.savetxt(buffer, np.round((scores + scores.T) / 2, 3), delimiter=",", fmt="%.3f")
    return buffer.getvalue().encode()


def test_second_demo_is_a_two_speaker_recording_scored_with_cosines():
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.switch_page(PAGE).run()
    at.selectbox(key="diar_set").select(SECOND_DEMO).run()
    at.button(key="diar_run").click().run()
    assert not problems(at)
    assert metric(at, "Speakers found") == "2"
    found = next(m for m in at.metric if m.label == "Speakers found")
    cosines = lc.read_similarity(ROOT / "assets" / "pyannote_sample" / "sample_similarity.npz")
    floor = lc.cluster_similarity(cosines, "nme-sc").n_clusters  # the floor is NME-SC's count, here 2
    assert f"keeps at least NME-SC's count, here {floor}:" in found.proto.help  # cosines: the floor is said
    assert float(metric(at, "DER").rstrip(" %")) < 5.0
    at.button(key="diar_compare").click().run()
    assert not problems(at)
    methods = list(at.dataframe[0].value["method"])
    assert len(methods) == 4
    assert not any(m.startswith("VBx") for m in methods)  # VBx's output belongs to the other recording


def test_upload_good_then_bad_keeps_what_was_loaded():
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.switch_page(PAGE).run()
    at.file_uploader(key="diar_upload").set_value(("three speakers.csv", _three_speakers_csv(), "text/csv")).run()
    assert not problems(at)
    assert at.selectbox(key="diar_set").value == "three speakers (upload)"
    at.button(key="diar_run").click().run()
    assert metric(at, "Speakers found") == "3"
    assert metric(at, "DER") == "—"  # no times, no reference
    at.file_uploader(key="diar_upload").set_value(("broken.csv", b"1,2\n3\n", "text/csv")).run()
    assert any("broken.csv" in e.value for e in at.error)
    assert not at.exception
    assert at.selectbox(key="diar_set").value == "three speakers (upload)"
    assert set(at.session_state["diar_sets"]) == {DEMO, SECOND_DEMO, "three speakers (upload)"}


@pytest.mark.filterwarnings("ignore:The similarity matrix is not symmetric")  # raised in the app's thread
def test_asymmetric_upload_is_symmetrised_with_a_warning():
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.switch_page(PAGE).run()
    skewed = b"0,1,2\n0,0,5\n2,5,0\n"
    at.file_uploader(key="diar_upload").set_value(("skewed.csv", skewed, "text/csv")).run()
    assert not at.exception
    assert any("not symmetric" in w.value for w in at.warning)
    assert at.selectbox(key="diar_set").value == "skewed (upload)"
