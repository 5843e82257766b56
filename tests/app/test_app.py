"""The Streamlit app's flow under AppTest: pages render on the demo data, uploads, state across pages, controls.

Figures are tested as plain functions in the plots tests; here only that they appear without an error. Trial counts
of uploaded files come from how the test wrote them (Kaldi/BOSARIS files: models x tests, the key's share known).
"""
from __future__ import annotations

import re

import numpy as np
import pytest

from streamlit.testing.v1 import AppTest

import llrcore as lc
from paths import ROOT

APP = str(ROOT / "app.py")
PAGES = ["app_pages/home.py", "app_pages/data.py", "app_pages/evaluate.py"]
DEMO_NAMES = ["ASVspoof19 LA ASV (dev)", "ASVspoof19 LA ASV (eval)", "FVC-AUS DCA-PLDA"]
BAD = ROOT / "tests" / "data" / "bad"
BAD_MANIFEST = [line.split("\t") for line in (BAD / "MANIFEST.tsv").read_text().splitlines()[1:]]


def two_column_file(seed: int = 0, n_tar: int = 200, n_non: int = 2000) -> bytes:
    """A small 'score label' file of calibrated Gaussian LLRs (means +-mu, variance 2 mu)."""
    rng = np.random.default_rng(seed)
    mu = 4.0
    tar = rng.normal(mu, np.sqrt(2 * mu), n_tar)
    non = rng.normal(-mu, np.sqrt(2 * mu), n_non)
    lines = [f"{s:.6f} target" for s in tar] + [f"{s:.6f} nontarget" for s in non]
    return ("\n".join(lines) + "\n").encode()


def errors(at: AppTest) -> list[str]:
    return [e.value for e in at.error]


def exceptions(at: AppTest) -> list[str]:
    return [e.value for e in at.exception]


@pytest.fixture
def at() -> AppTest:
    app = AppTest.from_file(APP, default_timeout=60)
    app.run()
    assert not exceptions(app)
    return app


def test_demo_data_is_loaded_on_first_visit(at):
    assert list(at.session_state["systems"]) == DEMO_NAMES
    roles = {name: record.role for name, record in at.session_state["systems"].items()}
    assert roles == {DEMO_NAMES[0]: "development", DEMO_NAMES[1]: "evaluation", DEMO_NAMES[2]: "evaluation"}
    fvc = at.session_state["systems"]["FVC-AUS DCA-PLDA"].trials
    assert (fvc.tar.size, fvc.non.size) == (1964, 112108)
    asv = at.session_state["systems"]["ASVspoof19 LA ASV (eval)"].trials
    assert (asv.tar.size, asv.non.size, asv.spoof.size) == (5370, 33327, 63882)


@pytest.mark.parametrize("page", PAGES)
def test_every_page_renders_on_demo_data(at, page):
    at.switch_page(page).run()
    assert not exceptions(at)
    assert not errors(at)
    assert at.title[0].value


def test_home_links_every_page_and_lists_systems(at):
    links = {link.proto.page for link in at.get("page_link")}
    assert {"app_pages/data.py", "app_pages/evaluate.py"} <= {str(p) for p in links} or len(links) >= 2
    table = at.dataframe[0].value
    assert list(table["system"]) == DEMO_NAMES


def test_data_table_says_whether_scores_look_like_llrs(at):
    at.switch_page("app_pages/data.py").run()
    table = at.dataframe[0].value.set_index("system")
    fvc = at.session_state["systems"]["FVC-AUS DCA-PLDA"].trials
    assert table.loc["FVC-AUS DCA-PLDA", "as LLRs"] == lc.llr_verdict(lc.cllr(fvc), lc.min_cllr(fvc)).verdict
    assert table.loc["FVC-AUS DCA-PLDA", "as LLRs"] == "needs recalibration"  # 98 % of its Cllr is calibration loss
    assert table.loc["ASVspoof19 LA ASV (eval)", "spoof"] == 63882


def test_scores_far_from_llrs_are_called_so(at):
    at.switch_page("app_pages/data.py").run()
    shifted = "\n".join(f"{float(s.split()[0]) + 40:.5f} {s.split()[1]}" for s in two_column_file().decode().split("\n")
                        if s)
    at.file_uploader(key="score_uploads").set_value(("shifted.txt", shifted.encode(), "text/plain")).run()
    table = at.dataframe[0].value.set_index("system")
    assert table.loc["shifted", "as LLRs"] == "not usable as likelihood ratios"
    assert table.loc["FVC-AUS DCA-PLDA", "as LLRs"] == "needs recalibration"


def test_data_evaluate_and_report_give_one_verdict_at_thirty_percent_calibration_loss(at):
    """The user's case: at 30 % calibration loss the Data page said "yes" and the Report "needs recalibration"."""
    rng = np.random.default_rng(3)
    tar, non = 2.5 * rng.normal(2, 2, 3000), 2.5 * rng.normal(-2, 2, 30000)  # overconfident Gaussian LLRs
    assert 20 < lc.evaluate(tar, non).calibration_loss_percent < 40
    text = "".join(f"{s:.6f} target\n" for s in tar) + "".join(f"{s:.6f} nontarget\n" for s in non)
    at.switch_page("app_pages/data.py").run()
    at.file_uploader(key="score_uploads").set_value(("thirty.txt", text.encode(), "text/plain")).run()
    trials = at.session_state["systems"]["thirty"].trials
    expected = lc.llr_verdict(lc.cllr(trials), lc.min_cllr(trials)).verdict
    assert expected == "needs recalibration"
    assert at.dataframe[0].value.set_index("system").loc["thirty", "as LLRs"] == expected
    at.switch_page("app_pages/evaluate.py").run()
    at.multiselect(key="eval_systems").set_value(["thirty"]).run()
    assert at.dataframe[0].value.set_index("system").loc["thirty", "as LLRs"] == expected
    at.switch_page("app_pages/report.py").run()
    at.multiselect(key="report_systems").set_value(["thirty"]).run()
    badges = [m.value for m in at.markdown if "-badge[" in m.value]
    assert len(badges) == 1 and badges[0].endswith(f" {expected.capitalize()}]")


def test_upload_of_a_good_file_adds_a_system(at):
    at.switch_page("app_pages/data.py").run()
    at.file_uploader(key="score_uploads").set_value(("my system.txt", two_column_file(), "text/plain")).run()
    assert not exceptions(at) and not errors(at)
    systems = at.session_state["systems"]
    assert list(systems) == [*DEMO_NAMES, "my system"]
    assert systems["my system"].role == "evaluation"
    assert (systems["my system"].trials.tar.size, systems["my system"].trials.non.size) == (200, 2000)
    assert any("my system" in s.value for s in at.success)
    assert "my system" in list(at.dataframe[0].value["system"])
    # a rerun does not add it twice
    at.run()
    assert list(at.session_state["systems"]) == [*DEMO_NAMES, "my system"]


def test_upload_as_development_set(at):
    at.switch_page("app_pages/data.py").run()
    at.segmented_control(key="upload_role").set_value("development").run()
    at.file_uploader(key="score_uploads").set_value(("dev.txt", two_column_file(1), "text/plain")).run()
    assert at.session_state["systems"]["dev"].role == "development"


def test_upload_of_a_bad_file_shows_the_reason_and_keeps_the_data(at):
    at.switch_page("app_pages/data.py").run()
    bad = b"0.5 target\n1.2 nontarget\nnot-a-number target\n"
    at.file_uploader(key="score_uploads").set_value(("broken scores.txt", bad, "text/plain")).run()
    assert not exceptions(at)
    assert errors(at), "a bad file must give an st.error"
    assert "broken scores.txt" in errors(at)[0]
    assert list(at.session_state["systems"]) == DEMO_NAMES
    assert list(at.dataframe[0].value["system"]) == DEMO_NAMES


def kaldi_files(prefix: str, scored_models: int, keyed_models: int, n_tests: int = 20, seed: int = 0):
    """A Kaldi/BOSARIS score file of `scored_models` models x `n_tests` tests and a key of the first `keyed_models`
    models; model i's targets are the tests j with j % 10 == i % 10 (so n_tests / 10 targets per model)."""
    rng = np.random.default_rng(seed)
    pairs = [(i, j) for i in range(scored_models) for j in range(n_tests)]
    scores = "".join(f"{prefix}{i} u{j} {rng.normal(3 if i % 10 == j % 10 else -3):.4f}\n" for i, j in pairs)
    key = "".join(f"{prefix}{i} u{j} {'target' if i % 10 == j % 10 else 'nontarget'}\n" for i, j in pairs
                  if i < keyed_models)
    return scores.encode(), key.encode()


def key_box(at: AppTest, file_name: str):
    """The key uploader shown for one score file."""
    (box,) = [u for u in at.file_uploader if u.label == f"Key file for {file_name}"]
    return box


def test_kaldi_score_file_asks_for_its_own_key_and_uses_it(at):
    at.switch_page("app_pages/data.py").run()
    scores, key = kaldi_files("m", scored_models=20, keyed_models=20)
    at.file_uploader(key="score_uploads").set_value(("plda.scores", scores, "text/plain")).run()
    (error,) = errors(at)
    assert error.startswith("plda.scores") and "needs its key" in error and "Add its key file in the box below" in error
    assert "plda" not in at.session_state["systems"]
    key_box(at, "plda.scores").set_value(("trials.key", key, "text/plain")).run()
    assert not errors(at) and not exceptions(at) and not at.warning  # the key covers every scored trial
    trials = at.session_state["systems"]["plda"].trials
    assert (trials.tar.size, trials.non.size) == (20 * 2, 20 * 18)
    assert at.session_state["systems"]["plda"].source == "upload: plda.scores with key trials.key"
    # loaded, the file needs no key box any more; a plain two-column file never had one
    at.file_uploader(key="score_uploads").set_value(("plain.txt", two_column_file(4), "text/plain")).run()
    assert not errors(at) and "plain" in at.session_state["systems"]
    assert [u.label for u in at.file_uploader if u.label.startswith("Key file")] == []


def test_a_dev_and_an_eval_score_file_load_with_their_own_keys(at):
    at.switch_page("app_pages/data.py").run()
    dev_scores, dev_key = kaldi_files("d", scored_models=10, keyed_models=10, seed=1)
    eval_scores, eval_key = kaldi_files("e", scored_models=15, keyed_models=12, seed=2)  # 3 x 20 trials not keyed
    at.file_uploader(key="score_uploads").set_value([("dev.scores", dev_scores, "text/plain"),
                                                     ("eval.scores", eval_scores, "text/plain")]).run()
    assert len(errors(at)) == 2
    key_box(at, "dev.scores").set_value(("dev.key", dev_key, "text/plain")).run()
    key_box(at, "eval.scores").set_value(("eval.key", eval_key, "text/plain")).run()
    assert not exceptions(at) and not errors(at)
    systems = at.session_state["systems"]
    assert list(systems) == [*DEMO_NAMES, "dev", "eval"]
    assert (systems["dev"].trials.tar.size, systems["dev"].trials.non.size) == (10 * 2, 10 * 18)
    assert (systems["eval"].trials.tar.size, systems["eval"].trials.non.size) == (12 * 2, 12 * 18)
    assert any("Added eval from eval.scores" in s.value for s in at.success)
    (warning,) = [w.value for w in at.warning]
    assert warning.startswith("eval.scores: 60 of 300 scored trials are not in the key eval.key and were left out; "
                              f"the first is 'e12 u0' on line {12 * 20 + 1}.")


def test_a_bad_key_is_reported_under_its_score_file_and_nothing_is_lost(at):
    at.switch_page("app_pages/data.py").run()
    scores, _ = kaldi_files("m", scored_models=5, keyed_models=5)
    at.file_uploader(key="score_uploads").set_value(("plda.scores", scores, "text/plain")).run()
    key_box(at, "plda.scores").set_value(("wrong.key", b"x1 y1 target\nx1 y2 nontarget\n", "text/plain")).run()
    assert not exceptions(at)
    (error,) = errors(at)
    assert error.startswith("plda.scores: none of its 100 scored trials is in the key wrong.key")
    assert list(at.session_state["systems"]) == DEMO_NAMES
    assert key_box(at, "plda.scores")  # still there, for the right key


def test_a_server_score_file_is_read_with_the_key_chosen_for_it(monkeypatch, tmp_path):
    scores, key = kaldi_files("s", scored_models=10, keyed_models=8)
    (tmp_path / "sre.scores").write_bytes(scores)
    (tmp_path / "sre.key").write_bytes(key)
    monkeypatch.setenv("LLRCORE_DATA_DIR", str(tmp_path))
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.switch_page("app_pages/data.py").run()
    at.selectbox(key="server_file").set_value(tmp_path / "sre.scores").run()
    at.button(key="load_server_file").click().run()
    (error,) = errors(at)
    assert "needs its key" in error and "Choose its key file in the box above" in error
    at.selectbox(key="server_key_file").set_value(tmp_path / "sre.key").run()
    at.button(key="load_server_file").click().run()
    assert not errors(at) and not exceptions(at)
    trials = at.session_state["systems"]["sre"].trials
    assert (trials.tar.size, trials.non.size) == (8 * 2, 8 * 18)
    assert [w.value.split(";")[0] for w in at.warning] == ["sre.scores: 40 of 200 scored trials are not in the key "
                                                           "sre.key and were left out"]


# Spellings of the Python API that mean nothing to someone using the app (the app says "add its key file", the
# command line "--key").
API_SPELLINGS = re.compile(r"\b(?:key|format|labels|name|score_type|on_warning)\s*=|read_trials|read_multiclass|"
                           r"write_trials|LoadError|Traceback|llrcore")


def test_every_bad_file_is_reported_in_the_apps_words(at):
    at.switch_page("app_pages/data.py").run()
    bad = [name for name, expected in BAD_MANIFEST if expected.startswith("error")]
    at.file_uploader(key="score_uploads").set_value(
        [(name, (BAD / name).read_bytes(), "application/octet-stream") for name in bad]).run()
    assert not exceptions(at)
    shown = errors(at)
    assert sorted(message.split(":")[0].split(",")[0] for message in shown) == sorted(bad)
    for message in shown:
        assert not API_SPELLINGS.search(message), message
    assert list(at.session_state["systems"]) == DEMO_NAMES


def test_good_and_bad_files_uploaded_together(at):
    at.switch_page("app_pages/data.py").run()
    at.file_uploader(key="score_uploads").set_value(
        [("good.txt", two_column_file(2), "text/plain"), ("empty.txt", b"", "text/plain")]
    ).run()
    assert not exceptions(at)
    assert "good" in at.session_state["systems"]
    assert any("empty.txt" in message for message in errors(at))


def test_uploaded_system_survives_page_switches(at):
    at.switch_page("app_pages/data.py").run()
    at.file_uploader(key="score_uploads").set_value(("kept.txt", two_column_file(3), "text/plain")).run()
    at.switch_page("app_pages/evaluate.py").run()
    assert not exceptions(at)
    at.switch_page("app_pages/home.py").run()
    assert "kept" in list(at.dataframe[0].value["system"])
    assert "kept" in at.session_state["systems"]


def test_rename_change_role_and_remove(at):
    at.switch_page("app_pages/data.py").run()
    fvc_id = at.session_state["systems"]["FVC-AUS DCA-PLDA"].id
    at.text_input(key=f"name_{fvc_id}").set_value("DCA-PLDA").run()
    assert "DCA-PLDA" in at.session_state["systems"] and "FVC-AUS DCA-PLDA" not in at.session_state["systems"]
    assert list(at.session_state["systems"])[2] == "DCA-PLDA"  # order kept
    # a name already taken is refused with a warning
    at.text_input(key=f"name_{fvc_id}").set_value(DEMO_NAMES[0]).run()
    assert "DCA-PLDA" in at.session_state["systems"]
    assert at.warning and "already" in at.warning[0].value
    at.segmented_control(key=f"role_{fvc_id}").set_value("development").run()
    assert at.session_state["systems"]["DCA-PLDA"].role == "development"
    at.button(key=f"remove_{fvc_id}").click().run()
    assert list(at.session_state["systems"]) == DEMO_NAMES[:2]
    assert not exceptions(at)
    # and the demo set can be added back
    at.button(key="demo_2").click().run()
    assert list(at.session_state["systems"]) == [*DEMO_NAMES[:2], "FVC-AUS DCA-PLDA"]


def metrics(at: AppTest):
    return at.dataframe[0].value.set_index("system")


def test_evaluate_defaults_to_evaluation_sets(at):
    at.switch_page("app_pages/evaluate.py").run()
    assert at.multiselect(key="eval_systems").value == DEMO_NAMES[1:]
    assert list(metrics(at).index) == DEMO_NAMES[1:]


def test_changing_p_target_changes_the_metrics_table(at):
    at.switch_page("app_pages/evaluate.py").run()
    before = metrics(at)
    at.number_input(key="op_p_target").set_value(0.2).run()
    assert not exceptions(at)
    after = metrics(at)
    assert at.selectbox(key="op_preset").value == "Custom"
    assert not np.allclose(before["actDCF"], after["actDCF"])
    assert not np.allclose(before["minDCF"], after["minDCF"])
    np.testing.assert_allclose(before["Cllr"], after["Cllr"])  # does not depend on the operating point
    np.testing.assert_allclose(before["EER %"], after["EER %"])


def test_changing_the_operating_point_does_not_sort_or_pav_again(at):
    at.switch_page("app_pages/evaluate.py").run()
    trials = at.session_state["systems"]["FVC-AUS DCA-PLDA"].trials
    table = trials.sorted
    assert "pav" in table.__dict__  # computed once, when the system was loaded
    pav = table.pav
    at.number_input(key="op_p_target").set_value(0.3).run()
    at.number_input(key="op_c_miss").set_value(5.0).run()
    assert at.session_state["systems"]["FVC-AUS DCA-PLDA"].trials is trials
    assert trials.sorted is table and table.pav is pav


def test_preset_sets_the_operating_point_and_it_survives_page_switches(at):
    at.switch_page("app_pages/evaluate.py").run()
    at.selectbox(key="op_preset").set_value("NIST SRE'08 (P = 0.01, Cmiss = 10, Cfa = 1)").run()
    assert (at.number_input(key="op_p_target").value, at.number_input(key="op_c_miss").value) == (0.01, 10.0)
    assert "-2.293" in " ".join(c.value for c in at.caption)  # logit(0.01) + log(10)
    at.switch_page("app_pages/data.py").run()
    at.switch_page("app_pages/evaluate.py").run()
    assert at.number_input(key="op_c_miss").value == 10.0
    assert at.selectbox(key="op_preset").value.startswith("NIST SRE'08")


def test_system_selection_survives_page_switches(at):
    at.switch_page("app_pages/evaluate.py").run()
    at.multiselect(key="eval_systems").set_value([DEMO_NAMES[0]]).run()
    assert list(metrics(at).index) == [DEMO_NAMES[0]]
    at.switch_page("app_pages/home.py").run()
    at.switch_page("app_pages/evaluate.py").run()
    assert at.multiselect(key="eval_systems").value == [DEMO_NAMES[0]]


def test_every_figure_tab_draws_without_error(at):
    at.switch_page("app_pages/evaluate.py").run()
    tab_labels = ["DET", "APE", "Normalised Bayes error", "Bayes error vs trapezium", "Score distributions"]
    for label in tab_labels:
        at.session_state["eval_tab"] = label
        at.run()
        assert not exceptions(at), label
        assert not errors(at), (label, errors(at))
        assert len(at.get("plotly_chart")) >= 1, label


@pytest.mark.parametrize("axis, expected_type", [("zoom", "linear"), ("full", "linear"), ("log", "log")])
def test_ape_error_axis_is_chosen_on_the_page(at, axis, expected_type):
    import json

    at.switch_page("app_pages/evaluate.py").run()
    at.session_state["eval_tab"] = "APE"
    at.run()
    at.segmented_control(key="ape_axis").set_value(axis).run()
    assert not exceptions(at) and not errors(at)
    layout = json.loads(at.get("plotly_chart")[0].proto.spec)["layout"]
    assert layout["yaxis"].get("type", "linear") == expected_type
    top = layout["yaxis"]["range"][1]
    if axis == "zoom":  # the demo systems' curves stay under 10 %, far below no system's 50 %
        assert top < 0.2
    if axis == "full":
        assert top >= 0.5


def test_metrics_match_the_library(at):
    import llrcore as lc

    at.switch_page("app_pages/evaluate.py").run()
    table = metrics(at)
    trials = at.session_state["systems"]["FVC-AUS DCA-PLDA"].trials
    expected = lc.evaluate(trials.tar, trials.non, p_target=0.01)
    assert table.loc["FVC-AUS DCA-PLDA", "Cllr"] == pytest.approx(expected.cllr)
    assert table.loc["FVC-AUS DCA-PLDA", "EER %"] == pytest.approx(100 * expected.eer)
    assert table.loc["FVC-AUS DCA-PLDA", "actDCF"] == pytest.approx(expected.act_dcf)


def test_a_bad_thread_setting_is_said_once_in_words(monkeypatch):
    monkeypatch.setenv(lc.parallel.ENVIRONMENT_VARIABLE, "many")
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not exceptions(at)
    assert errors(at) == ["The environment variable LLRCORE_THREADS must be a whole number of at least 1 (1 for one "
                          f"thread, {lc.parallel.available_cpus()} for every CPU here), not 'many'."]
