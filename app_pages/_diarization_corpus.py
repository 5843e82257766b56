"""The Diarization page's "Several recordings" tab: a corpus of similarity matrices with their RTTMs (uploaded, or the
six demo recordings of ``assets/diarization_corpus``), clustered by one method and scored per recording, in total and by number of reference speakers, in md-eval's or
pyannote.metrics' convention (``lc.cluster_recordings``, ``lc.diarization.score_system``, with the bootstrap
interval's rule of ``lc.diarization.bootstrap_diarization``); the Bayesian method with the score model of each recording, a
preset, or the one learnt from the other recordings (leave one out).

The corpus in use and the tables already computed live in the session under keys of their own
(``diar_corpus`` and ``diar_corpus_results``), so they survive a switch of tab or page.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

import llrcore as lc
from app_pages import _state
from app_pages._diarization import WHOSE_DER, by_speakers_table
from app_pages._uploads import read_user_file

DEMO_FOLDER = Path(__file__).resolve().parents[1] / "assets" / "diarization_corpus"
DEMO_NAME = "The demo corpus (6 synthetic conversations, 1 to 6 speakers)"
PERCENT = ("DER %", "missed %", "false alarm %", "confusion %", "JER %", "purity %", "coverage %")
SECONDS = ("speech (s)", "missed (s)", "false alarm (s)", "confusion (s)")
#: The score model choice that learns it for each recording from the references of all the others.
OTHERS = "others"


@_state.cached()
def demo_corpus() -> tuple:
    return lc.read_corpus(DEMO_FOLDER)


@_state.cached(entries=4)
def parse_uploads(ids: tuple, _uploads: list):
    """(matrices, None) or (None, a sentence naming the file), cached by the uploads' file ids."""
    for upload in _uploads:
        upload.seek(0)
    return read_user_file("the uploaded files", lambda: lc.read_corpus(_uploads))


@_state.cached(entries=4)
def _learnt(data_key, _matrices: tuple, description: str = ""):
    """(BlockModelPrior, None) learnt from the corpus's references (``lc.fit_diarization_prior`` without its
    leave-one-out report), or (None, the sentence saying why not)."""
    try:
        return lc.fit_diarization_prior(_matrices, data=description or None, leave_one_out=False), None
    except ValueError as err:
        return None, str(err)


def loaded_corpus_model():
    """The score model learnt from the corpus loaded on this tab and what that corpus is; (None, why not) when there
    is no corpus or it cannot teach one (no recording of two speakers or more)."""
    loaded = _state.DIAR_CORPUS.peek()
    if loaded is None:
        return None, "no corpus is loaded in Several recordings"
    data_key, description, matrices = loaded
    prior, error = _learnt(data_key, tuple(matrices), description)
    return (None, error) if prior is None else (prior, description)


def learn_section(data_key, description: str, matrices) -> None:
    """Learn a prior from the loaded labelled recordings (``lc.fit_diarization_prior``, with its leave-one-out
    report: each recording clustered with the prior learnt on the others), show the report, download it as JSON."""
    learnt = _state.DIAR_LEARNT_PRIORS.get()
    with st.container(border=True):
        text_column, button_column = st.columns([4, 1], vertical_alignment="center")
        text_column.markdown("**Learn a prior** from these labelled recordings (one embedder): what same-speaker and "
                             "different-speaker scores look like, for the Bayesian method on new recordings. Each "
                             "recording is also clustered with the prior learnt on the others (leave one out).")
        if button_column.button("Learn a prior", icon=":material/school:", key="diar_learn", width="stretch"):
            bar = st.progress(0.0, text="Learning…")
            try:
                learnt[data_key] = lc.fit_diarization_prior(
                    matrices, data=description, progress=lambda done, total, uri: bar.progress(
                        done / total, text=f"Leave one out: {done} of {total} recordings clustered ({uri})"))
            except ValueError as err:
                st.error(str(err), icon=":material/error:")
            finally:
                bar.empty()
        prior = learnt.get(data_key)
        if prior is None:
            return
        report = prior.report
        if report is not None:
            st.markdown(report.sentence())
            st.dataframe(report.to_frame().reset_index(), hide_index=True, width="content", column_config={
                "DER %": st.column_config.NumberColumn(format="%.2f")})
        st.download_button("Prior as JSON", prior.to_json().encode(), file_name="prior.json",
                           mime="application/json", icon=":material/download:", key="diar_prior_json",
                           on_click="ignore", help="Upload it on One recording (Prior file) or give it to "
                           "`llrcore diarize --prior prior.json` or `BlockModelPrior.from_json`.")


def load_box() -> None:
    """Uploads of matrices with their RTTMs, or the demo corpus; a good corpus replaces the one in use."""
    upload_column, demo_column = st.columns([3, 1], gap="medium", vertical_alignment="center")
    uploads = upload_column.file_uploader(
        "Similarity matrices with their RTTMs", type=["npz", "rttm"], accept_multiple_files=True,
        key="diar_corpus_upload", help="For each recording `<name>.npz` (the matrix, with arrays `start` and `end` "
        "in seconds) and `<name>.rttm` (its reference), paired by name.")
    if demo_column.button("The demo corpus", icon=":material/folder_open:", key="diar_corpus_demo",
                          width="stretch", help="Six recordings of the development corpus (assets/diarization_corpus)"):
        _state.DIAR_CORPUS.set(("demo", DEMO_NAME, demo_corpus()))
    if uploads:
        ids = tuple(sorted(u.file_id for u in uploads))
        if _state.DIAR_CORPUS.peek(("",))[0] != ids:
            with st.spinner(f"Reading {len(uploads)} files…"):
                matrices, error = parse_uploads(ids, list(uploads))
            if error:
                st.error(error, icon=":material/error:")
            else:
                plural = "s" if len(matrices) > 1 else ""
                _state.DIAR_CORPUS.set((ids, f"{len(matrices)} uploaded recording{plural}", matrices))


def run(key: tuple, matrices: tuple, method: str, collar: float, prior: str | None, convention: str) -> None:
    bar = st.progress(0.0, text=f"Clustering {len(matrices)} recordings…")

    def progress(done, total, uri):
        bar.progress(done / total, text=f"{done} of {total} recordings clustered ({uri})")

    options = {"prior_from_others": True} if prior == OTHERS else {} if prior is None else {"prior": prior}
    try:
        hypotheses = lc.cluster_recordings(matrices, method, progress=progress, **options)
        scores = lc.diarization.score_system(matrices, hypotheses, collar=collar, convention=convention)
    except ValueError as err:
        st.error(str(err), icon=":material/error:")
        return
    finally:
        bar.empty()
    _state.DIAR_CORPUS_RESULTS.get()[key] = (scores, hypotheses)


def show(system: lc.diarization.SystemScores, hypotheses: pd.DataFrame, method: str) -> None:
    scores = system.corpus
    table = scores.to_frame()
    total = table.loc[lc.diarization.TOTAL]
    columns = st.columns(5)
    whose = WHOSE_DER[scores.convention]
    columns[0].metric("DER (total)", f"{total['DER %']:.2f} %",
                      help=f"All errors over all scored speech, as {whose} computes it")
    columns[1].metric("JER (total)", f"{total['JER %']:.2f} %",
                      help="Mean over every reference speaker, as "
                           + ("dscore" if scores.convention == "md-eval" else whose) + " computes it")
    columns[2].metric("Purity", f"{total['purity %']:.1f} %")
    columns[3].metric("Coverage", f"{total['coverage %']:.1f} %")
    columns[4].metric("Speaker count right", f"{scores.right_counts} of {len(scores.components)}",
                      f"{scores.count_error} speaker{'s' if scores.count_error != 1 else ''} off in all",
                      delta_color="off", delta_arrow="off",
                      help="Recordings in which as many speakers were found as the reference has; below, the sum "
                           "over the recordings of the number found minus the number in the reference, "
                           "without its sign (the column found against speakers).")
    st.dataframe(table.reset_index(), hide_index=True, width="stretch", column_config={
        **{c: st.column_config.NumberColumn(c, format="%.2f") for c in PERCENT},
        **{c: st.column_config.NumberColumn(c, format="%.1f") for c in SECONDS},
    })
    st.caption(f"One row per recording; TOTAL accumulates seconds and speakers over the recordings, as "
               f"pyannote.metrics' report does (not a mean of percentages). {system.conventions.convention_sentence()} "
               f"DER with a collar of {scores.collar:g} s per side, overlapped speech ignored; JER as DIHARD defines "
               "it (each reference speaker counts the same); purity and coverage time-weighted, on the whole turns "
               "(pyannote.metrics applies no collar to them).")
    boot = lc.diarization.bootstrap_diarization(system)
    st.markdown(boot.paragraph())
    by_speakers_table(system)
    csv_column, rttm_column, _ = st.columns([1, 1, 3])
    csv_column.download_button("Table as CSV", table.to_csv().encode(), file_name=f"diarization_{method}.csv",
                               mime="text/csv", icon=":material/download:", key="diar_corpus_csv", on_click="ignore")
    rttm_column.download_button("Turns as RTTM", lc.rttm_text(hypotheses).encode(),
                                file_name=f"diarization_{method}.rttm", mime="text/plain",
                                icon=":material/download:", key="diar_corpus_rttm", on_click="ignore")


def corpus_section(method_names: dict, prior_names: dict) -> None:
    """The tab: load, choose the method (and the Bayesian method's score model: `prior_names` as on the other tab,
    with :data:`OTHERS` beside them), run with a progress bar, the table with its total and the downloads."""
    st.caption("Several recordings at once: does a method hold on recordings it was not tuned on? Each recording "
               "is clustered alone; DER, JER, purity and coverage per recording and over the whole corpus.")
    load_box()
    loaded = _state.DIAR_CORPUS.peek()
    if loaded is None:
        st.info("Upload matrices with their RTTMs, or load **The demo corpus**.", icon=":material/info:")
        return
    data_key, description, matrices = loaded
    learn_section(data_key, description, matrices)
    names = {name: method for method, name in method_names.items()}
    method_column, model_column, collar_column, convention_column, run_column = st.columns(
        [2, 2, 1, 1.4, 1], vertical_alignment="bottom")
    method = names[method_column.selectbox("Method", list(names), key="diar_corpus_method")]
    models = {None: "By the kind of scores (default)", OTHERS: "Learnt from the other recordings",
              **{name: label for name, label in prior_names.items() if name is not None}}
    prior = model_column.selectbox(
        "Score model (Bayes)", list(models), format_func=models.get, key="diar_corpus_prior",
        disabled=method != "bayes",
        help="What same-speaker and different-speaker scores look like. Learnt from the other recordings: each "
             "recording is clustered with the model learnt from the references of all the others (leave one out), "
             "what a model learnt from your labelled recordings does on one it has not seen (docs/diarization.md).")
    prior = prior if method == "bayes" else None
    collar = collar_column.number_input("Collar (s per side)", 0.0, 2.0, 0.25, 0.05, key="diar_corpus_collar")
    convention = convention_column.selectbox(
        "DER as", list(WHOSE_DER), format_func=WHOSE_DER.get, key="diar_corpus_convention",
        help="md-eval and dscore merge a speaker's own overlapping turns first; pyannote.metrics counts each.")
    pressed = run_column.button("Run", type="primary", icon=":material/play_arrow:", key="diar_corpus_run",
                                width="stretch")
    speakers = sum(m.n_reference_speakers for m in matrices)
    st.caption(f"{description}: {', '.join(m.uri for m in matrices)} · {speakers} reference speakers")
    key = (data_key, method, float(collar), prior, convention)
    if pressed:
        run(key, matrices, method, float(collar), prior, convention)
    result = _state.DIAR_CORPUS_RESULTS.get().get(key)
    if result is None:
        st.info("Press **Run** to cluster every recording.", icon=":material/info:")
        return
    show(*result, method)
