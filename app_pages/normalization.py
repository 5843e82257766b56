"""Score normalisation: Z-, T-, S- or adaptive S-norm of a trial list against cohort scores, the metrics and DET
before and after, and a paired bootstrap of the difference.

Everything shown comes from :func:`llrcore.normalize_scores`, :func:`llrcore.evaluate`, :func:`llrcore.det_curves`
and :func:`llrcore.compare_systems`; the operating point is the app's. The demo is the synthetic sample of
``assets/normalization_demo`` (``tools/make_cohort_files.py``).
"""
from __future__ import annotations

import warnings
from pathlib import Path

import streamlit as st

import llrcore as lc
from app_pages import _state
from app_pages._figures import show_figure
from app_pages._loaded import SYSTEMS
from app_pages._operating_point import operating_point
from app_pages._registry import LoadedSystem
from app_pages._tables import show_metrics
from app_pages._uncertainty import show_comparison

DEMO = Path(__file__).resolve().parents[1] / "assets" / "normalization_demo"
DEMO_SOURCE = "Demo: synthetic cosine scores with cohort files"
UPLOAD_SOURCE = "Upload score, key and cohort files"
METHOD_WORDS = {
    "as-norm": "AS-norm — adaptive S-norm: both sides, top N cohort scores",
    "s-norm": "S-norm — both sides, the whole cohort",
    "z-norm": "Z-norm — the model's cohort scores only",
    "t-norm": "T-norm — the test segment's cohort scores only",
}
DDOF_WORDS = {0: "ddof 0 (numpy, WeSpeaker)", 1: "ddof 1 (torch, SpeechBrain)"}
REPLICATES = 1000


# ----- data and computation (cached) ----------------------------------------------------------------------------------


@_state.cached()
def load_demo() -> tuple[lc.Trials, lc.CohortScores, lc.CohortScores]:
    """The demo's trials and cohorts, read once per server and hour (shared, read-only)."""
    trials = lc.read_trials(DEMO / "scores.txt", key=DEMO / "key.txt", name="synthetic cosine")
    return trials, lc.read_cohort_scores(DEMO / "enrol_cohort.txt"), lc.read_cohort_scores(DEMO / "test_cohort.txt")


@_state.cached(entries=8)
def load_trials(scores_id: str, key_id: str, _scores, _key) -> lc.Trials:
    """An uploaded score file with its key, keyed by the uploads' ``file_id`` (their bytes are never hashed)."""
    return lc.read_trials(_scores, key=_key, name=Path(_scores.name).stem)


@_state.cached(entries=8)
def load_cohort(file_id: str, _upload) -> lc.CohortScores:
    return lc.read_cohort_scores(_upload)


@_state.cached()
def normalised(data_key: tuple, method: str, top_n: int | None, ddof: int, _trials, _enrol, _test) \
        -> tuple[lc.Trials, tuple[str, ...]]:
    """:func:`llrcore.normalize_scores` and the warnings it gave (cohort leakage, one-sided norms), as sentences."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        after = lc.normalize_scores(_trials, _enrol, _test, method, top_n, ddof=ddof)
    return after, tuple(str(w.message) for w in caught)


@_state.cached()
def comparison(data_key: tuple, op: lc.OperatingPoint, _before, _after) -> lc.SystemComparison:
    """The paired bootstrap of before against after (same trials, resampled together)."""
    return lc.compare_systems(_before, _after, n=REPLICATES, p_target=op)


# ----- controls -------------------------------------------------------------------------------------------------------


def _uploaded_data():
    """The uploaded trials and cohorts with a cache key, or None (with a message on the page) until all are read."""
    columns = st.columns(4)
    scores = columns[0].file_uploader("Scores: model test score", key="norm_scores")
    key = columns[1].file_uploader("Key: model test target|nontarget", key="norm_key")
    enrol = columns[2].file_uploader("Enrolment cohort: model cohort score", key="norm_enrol")
    test = columns[3].file_uploader("Test cohort: test cohort score", key="norm_test")
    if scores is None or key is None or (enrol is None and test is None):
        st.info("Upload the scores, their key and at least one cohort file (both for S-norm and AS-norm).")
        return None
    try:
        trials = load_trials(scores.file_id, key.file_id, scores, key)
        enrol_cohort = load_cohort(enrol.file_id, enrol) if enrol else None
        test_cohort = load_cohort(test.file_id, test) if test else None
    except (lc.LoadError, ValueError) as err:
        st.error(str(err))
        return None
    ids = (scores.file_id, key.file_id, enrol.file_id if enrol else None, test.file_id if test else None)
    return ids, trials, enrol_cohort, test_cohort


def choose_data():
    """The trials and cohorts the page normalises: the demo, or the user's four files."""
    source = st.radio("Data", [DEMO_SOURCE, UPLOAD_SOURCE], horizontal=True, key="norm_source",
                      label_visibility="collapsed")
    if source == DEMO_SOURCE:
        trials, enrol, test = load_demo()
        st.caption(f"{trials.tar.size:,} target and {trials.non.size:,} non-target trials, {enrol.scores.shape[0]} "
                   f"models and {test.scores.shape[0]} test segments scored against a cohort of {enrol.size} "
                   "recordings; made by tools/make_cohort_files.py (no real speech; assets/normalization_demo).")
        return ("demo",), trials, enrol, test
    return _uploaded_data()


def choose_method(cohort_size: int) -> tuple[str, int | None, int]:
    method_column, top_column, ddof_column = st.columns([3, 1.2, 1.8], vertical_alignment="bottom")
    method = method_column.selectbox("Method", lc.NORMALIZATION_METHODS[::-1], format_func=METHOD_WORDS.get,
                                     key="norm_method")
    adaptive = method == "as-norm"
    top_n = top_column.number_input(
        "Top N", min_value=2, value=lc.NORMALIZATION_TOP_N, step=50, key="norm_top_n", disabled=not adaptive,
        help="AS-norm keeps each side's N highest cohort scores (300 in WeSpeaker's VoxCeleb recipe).")
    ddof = ddof_column.radio("Standard deviation", list(DDOF_WORDS), format_func=DDOF_WORDS.get, horizontal=True,
                             key="norm_ddof", help="Divide by k (numpy's np.std, WeSpeaker) or by k - 1 (torch.std, "
                                                   "SpeechBrain) over the k cohort scores kept.")
    if adaptive and top_n >= cohort_size:
        st.caption(f"The cohort has {cohort_size} recordings: a top {top_n} keeps them all (AS-norm is S-norm here).")
    return method, int(top_n) if adaptive else None, int(ddof)


# ----- results --------------------------------------------------------------------------------------------------------


def show_results(before: lc.Trials, after: lc.Trials, op: lc.OperatingPoint, data_key: tuple) -> None:
    systems = {"before": before, f"after ({after.name.rsplit('(', 1)[-1].rstrip(')')})": after}
    results = [lc.evaluate(trials.sorted, p_target=op, name=name) for name, trials in systems.items()]
    st.subheader("Metrics before and after")
    for column, result in zip(st.columns(2), results):
        with column.container(border=True):
            st.markdown(f"**{result.name}**")
            eer, dcf, cllr = st.columns(3)
            eer.metric("EER", f"{100 * result.eer:.2f} %", help="ROCCH equal error rate.")
            dcf.metric("minDCF", f"{result.min_dcf:.4f}", help="Normalised minimum DCF at the operating point.")
            cllr.metric("minCllr", f"{result.min_cllr:.4f} bits", help="Cllr after the optimal (PAV) calibration.")
    show_metrics(lc.metrics_table(results, eer_percent=True, verdict=True).reset_index())
    st.caption("Normalised scores are not LLRs: judge them by the EER, minDCF and minCllr (discrimination); "
               "calibrate them afterwards (Calibrate page) for actual costs and Cllr.")
    st.subheader("Paired bootstrap: is the normalisation better?")
    with st.spinner(f"Resampling the trials {REPLICATES:,} times…"):
        result = comparison(data_key, op, before, after)
    show_comparison(result, ("eer", "min_dcf", "min_cllr"), "after better in")
    st.subheader("DET before and after")
    det = lc.det_curves(systems, p_target=op)
    show_figure(lambda: lc.plots.det_figure(det), "normalization_det", data=det.to_frame)
    if st.button("Add both to the loaded systems", icon=":material/add:", key="norm_add",
                 help="Evaluate, Calibrate and Report can then use the normalised scores."):
        for name, trials in systems.items():
            SYSTEMS.add(f"{before.name} {name}", LoadedSystem(trials=trials, source="Score normalisation page"))
        st.success("Added; they are on the Data page.")


# ----- the page -------------------------------------------------------------------------------------------------------

st.title("Score normalisation")
st.caption("Z-norm, T-norm, S-norm and adaptive S-norm against a cohort, as WeSpeaker and SpeechBrain compute them: "
           "each side's cohort scores give a mean and a standard deviation, and the raw score becomes "
           "(s − μ) / σ (S-norm: the mean of the two sides).")


def main() -> None:
    data = choose_data()
    if data is None:
        return
    data_key, trials, enrol, test = data
    with st.container(border=True):
        method, top_n, ddof = choose_method((enrol or test).size)
    op_column, _ = st.columns([3, 2])
    with op_column, st.container(border=True):
        op = operating_point()
    key = (*data_key, method, top_n, ddof)
    try:
        after, problems = normalised(key, method, top_n, ddof, trials, enrol, test)
    except ValueError as err:  # a missing cohort, ids without cohort scores: said, never a traceback
        st.error(str(err))
        return
    for problem in problems:
        st.warning(problem, icon=":material/warning:")
    show_results(trials, after, op, key)


main()
