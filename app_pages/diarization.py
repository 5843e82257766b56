"""Diarization: who spoke when, from nothing but the matrix of pairwise scores between speech segments.

The page keeps its own data, apart from the binary systems: the registry ``MATRICES`` (app_pages/_loaded.py) of
``LoadedMatrix`` (the demo recordings on the first visit, then uploads); a set's ``id`` identifies its data for the
clustering cache. Clustering runs when a button is pressed: Cluster runs the Bayesian block model alone, "Compare
with the other methods" the three others (then the methods table and the advice of which to trust appear); results
are kept per (data key, method, options) in a server-wide store, so going back to earlier settings or another session
on the same data is instant.

Three tabs: "Score an RTTM" (any system's RTTM against a reference, ``scoring_section`` in
``app_pages/_diarization.py``), "One recording" (this module; the upload, the store, the run and the methods table are
in ``app_pages/_diarization.py``) and "Several recordings" (``app_pages/_diarization_corpus.py``: a corpus of matrices
with their RTTMs clustered by one method, scored per recording and in total).
"""
from __future__ import annotations

import pandas as pd
import streamlit as st

import llrcore as lc
from app_pages._diarization import (
    DEFAULT_COLLAR,
    DEFAULT_METHOD,
    FILE_PRIOR,
    METHOD_NAMES,
    OTHER_METHODS,
    PRIOR_NAMES,
    VBX_PUBLISHED_DER,
    Settings,
    cached_results,
    comparison,
    comparison_key,
    prior_file,
    run_clustering,
    scoring_section,
    show_comparison,
    upload_box,
)
from app_pages._diarization_corpus import corpus_section, loaded_corpus_model
from app_pages import _state
from app_pages._figures import show_figure
from app_pages._loaded import MATRICES
from app_pages._registry import LoadedMatrix

EVIDENCE_STEPS = [5, 10, 15, 20, 25, 30, 35, 37.5, 40, 45, 50, 60, 75, 100, 150, 200, 300]
#: The score model choice learnt from the labelled corpus loaded in the Several recordings tab.
CORPUS_PRIOR = "corpus"
# ----- settings ------------------------------------------------------------------------------------------------------


def settings(matrix) -> Settings:
    """The settings panel: how many speakers, the Bayesian model's evidence and score model, how the DER is scored."""
    with st.container(border=True):
        st.markdown("**Clustering**")
        count_column, evidence_column = st.columns([3, 2])
        with count_column:
            mode = st.segmented_control(
                "Number of speakers", ["estimate", "exactly", "between"], default="estimate",
                key="diar_count_mode", persist_state="session",
                help="Estimated, the model learns what scores between different speakers look like from the speakers "
                     "present: with one or two speakers whose voices drift over the recording it can find too many. "
                     "Give the number, or bounds, when you know them.") or "estimate"
            n = matrix.n_segments
            n_clusters, low, high = None, 1, None
            if mode == "exactly":
                n_clusters = int(st.number_input("Speakers", 1, n, min(4, n), key="diar_exact",
                                                 persist_state="session"))
            elif mode == "between":
                low_column, high_column = st.columns(2)
                low = int(low_column.number_input("At least", 1, n, 1, key="diar_min", persist_state="session"))
                high = int(high_column.number_input("At most", 1, n, min(10, n), key="diar_max",
                                                    persist_state="session"))
        evidence = evidence_column.select_slider(
            "Evidence per independent segment (Bayes)", EVIDENCE_STEPS, value=lc.diarization.EFFECTIVE_SCORES,
            key="diar_evidence", persist_state="session",
            help="How many independent scores one segment's row of scores is worth: the score likelihood is "
                 "tempered by this × share / (N − 1), like VBx's Fa. Overlapping windows share it (share = shift / "
                 "length; without times 1/6, as x-vector windows of 1.5 s every 0.25 s). Default "
                 f"{lc.diarization.EFFECTIVE_SCORES:g}; raise it (×6) for a matrix of independent scores without "
                 "times.")
        learnt, corpus = loaded_corpus_model()
        from_file, file_name = prior_file(evidence_column)
        names = {**PRIOR_NAMES, **({CORPUS_PRIOR: "Learnt: the loaded corpus"} if learnt is not None else {}),
                 **({FILE_PRIOR: f"From the file {file_name}"} if from_file is not None else {})}
        prior = evidence_column.selectbox(  # back to the default when the corpus it was learnt from is gone
            "Score model (Bayes)", list(names), format_func=names.get, **_state.DIAR_PRIOR.widget(None, options=names),
            help="What same-speaker and different-speaker scores look like. By default, by the kind of scores: "
                 "cosines (all in [-1, 1]) start from the synthetic voices' model, LLRs from the simulated PLDA's, "
                 "held loosely so that this recording's own scores still move them; or from this recording's own "
                 "scores alone (a two-Gaussian fit); or a learnt model held firmly. A learnt model fixes the scale, "
                 "and on scores made the same way it finds the number of speakers more often; on others it misleads: "
                 "the synthetic voices' model finds 1 speaker on pyannote's real sample of 2 (docs/diarization.md). "
                 "Load your labelled recordings in Several recordings to learn one from them here, or upload a "
                 "prior file learnt there (Learn a prior → Prior as JSON) or by `llrcore diarize --learn`; that tab "
                 "also shows what a model learnt from the others does on each of them.")
        if prior == CORPUS_PRIOR:
            evidence_column.caption(f"From the references of Several recordings: {corpus}.")
            prior = learnt
        elif prior == FILE_PRIOR:
            source = from_file.learnt_on
            evidence_column.caption(f"Learnt on {source.recordings} recordings"
                                    + (f" ({source.embedder})" if source.embedder else "") + "." if source else
                                    "A prior file.")
            prior = from_file
        st.markdown("**Scoring** (needs segment times and a reference RTTM)")
        collar_column, overlap_column = st.columns(2)
        collar = collar_column.select_slider("Collar per side (s)", [0.0, 0.1, 0.25, 0.5],
                                             **_state.DIAR_COLLAR.widget(DEFAULT_COLLAR),
                                             help="md-eval/dscore convention: 0.25 s on each side of every "
                                                  "reference boundary is not scored (pyannote's collar 0.5).")
        skip = overlap_column.toggle("Ignore overlapped speech", **_state.DIAR_SKIP_OVERLAP.widget(True),
                                     help="md-eval -1, dscore --ignore_overlaps.")
    if high is not None and low > high:
        st.warning(f"At least {low} but at most {high} speakers is impossible; the bounds are swapped.")
        low, high = high, low
    return Settings(n_clusters, low, high, float(evidence), float(collar), bool(skip), prior)


# ----- results -------------------------------------------------------------------------------------------------------


def headline(record: LoadedMatrix, result, row: dict) -> None:
    matrix = record.matrix
    columns = st.columns(4)
    reference = matrix.n_reference_speakers
    posterior = result.n_clusters_posterior
    probability = float(posterior.get(result.n_clusters, 1.0)) if posterior is not None else None
    floor = result.options.get("eigengap_floor")
    columns[0].metric("Speakers found", f"{result.n_clusters}", border=True,
                      delta=(f"reference {reference}" if reference is not None else None),
                      delta_color="off", delta_arrow="off",
                      help="The number of speakers of the partition with the best evidence bound." + (
                          "" if floor is None else f" On cosines the Bayesian model keeps at least NME-SC's count, "
                          f"here {floor}: alone it merges the voices scored closest (docs/diarization.md, 'Where it fails')."))
    shown = "—" if probability is None else ("> 0.999" if probability > 0.999 else f"{probability:.3f}")
    columns[1].metric("Posterior of that number", shown,
                      border=True, help="p(K | scores) from the evidence bounds of all the runs (the figure below).")
    if pd.notna(row["DER"]):
        columns[2].metric("DER", f"{100 * row['DER']:.2f} %", border=True,
                          delta=(f"{100 * row['DER'] - VBX_PUBLISHED_DER:+.2f} vs VBx {VBX_PUBLISHED_DER} %"
                                 if record.system is not None else None),
                          delta_color="inverse", help="Diarization error rate: missed + false alarm + confusion.")
    else:
        columns[2].metric("DER", "—", border=True, help="Needs segment times and a reference RTTM.")
    if pd.notna(row["segment error"]):
        columns[3].metric("Segment error", f"{100 * row['segment error']:.1f} %", border=True,
                          delta=f"purity {100 * row['purity']:.1f} %, coverage {100 * row['coverage']:.1f} %",
                          delta_color="off", delta_arrow="off")
    else:
        columns[3].metric("Segments", f"{matrix.n_segments:,}", border=True)
    if "count_sure" in result.options:  # the Bayesian model with the number of speakers inferred
        (st.caption if result.options["count_sure"] else st.warning)(result.sentence())


FIGURE_TABS = ["Similarity matrix", "Scores and Gaussians", "Number of speakers", "Evidence bound", "Timeline"]


def figures(record: LoadedMatrix, result, method: str) -> None:
    matrix = record.matrix
    tabs = dict(zip(FIGURE_TABS, st.tabs(FIGURE_TABS, key="diar_tab", on_change="rerun")))
    if tabs["Similarity matrix"].open:
        with tabs["Similarity matrix"]:
            figure_column, table_column = st.columns([3, 2], gap="medium")
            with figure_column:
                reorder = st.toggle("Group the segments by cluster", value=True, key="diar_reorder")
                view = lc.diarization.similarity_view(matrix.scores, result.labels, reference=matrix.reference,
                                                      reorder=reorder)
                show_figure(lambda: lc.plots.similarity_heatmap_figure(view), f"diar_matrix_{method}",
                            "Each pixel is the score of a pair of segments. Grouped by cluster, a good clustering "
                            "shows bright blocks on the diagonal; the strips above give each column's cluster and, "
                            "if known, its reference speaker in the colour of the cluster it is mapped to.",
                            data=view.to_frame)
            with table_column:
                cluster_table(matrix, result)
    if tabs["Scores and Gaussians"].open:
        with tabs["Scores and Gaussians"]:
            show_figure(lambda: lc.plots.score_distribution_figure(matrix.scores, result),
                        f"diar_scores_{method}",
                        "The block model: within-speaker scores are one Gaussian (pooled over speakers), scores "
                        "between two speakers a Gaussian of their own (dotted, weighted by their number of pairs).")
    if tabs["Number of speakers"].open:
        with tabs["Number of speakers"]:
            if result.n_clusters_posterior is None:
                st.info(f"{METHOD_NAMES[method]} gives one answer, no posterior: choose the Bayesian block model.")
            else:
                show_figure(lambda: lc.plots.n_speakers_figure(
                    result, reference_count=matrix.n_reference_speakers), "diar_n_speakers",
                    "p(K) ∝ exp(best evidence bound with K speakers), over the numbers some start reached; the "
                    "prior of the partition (the sticky chain over time; without times, the Chinese-restaurant "
                    "process) is inside the bound.")
                runs = result.runs.rename(columns={"run": "start", "initial_clusters": "speakers at start",
                                                   "n_clusters": "speakers at end", "elbo": "evidence bound"})
                st.dataframe(runs, hide_index=True, width="stretch", column_config={
                    "evidence bound": st.column_config.NumberColumn(format="%.2f")})
    if tabs["Evidence bound"].open:
        with tabs["Evidence bound"]:
            if result.trace is None:
                st.info(f"{METHOD_NAMES[method]} has no evidence bound: choose the Bayesian block model.")
            else:
                show_figure(lambda: lc.plots.elbo_trace_figure(result), "diar_elbo",
                            "Mean-field variational inference from each start: the bound never decreases; a new "
                            "stage starts when a speaker empties or two are merged.")
    if tabs["Timeline"].open:
        with tabs["Timeline"]:
            if not matrix.has_times:
                st.info("Upload the segment times to see the speaker turns and download an RTTM.")
            else:
                turns = result.turns(matrix.start, matrix.end, matrix.uri)
                show_figure(lambda: lc.plots.timeline_figure(turns, matrix.reference_turns),
                            f"diar_timeline_{method}",
                            "Overlapping windows become turns by splitting each overlap at its midpoint. Each "
                            "cluster is drawn in the colour of the reference speaker it is mapped to.")
    downloads(matrix, result, method)


def cluster_table(matrix, result) -> None:
    st.markdown("**The clusters**")
    table = lc.diarization.cluster_summary(matrix.scores, result, reference=matrix.reference, start=matrix.start,
                                           end=matrix.end)
    shown = [c for c in ("cluster", "segments", "speech (s)", "reference speaker", "agreement") if c in table]
    st.dataframe(table[shown], hide_index=True, width="stretch", column_config={
        "speech (s)": st.column_config.NumberColumn(format="%.1f"),
        "reference speaker": st.column_config.TextColumn("reference", help="Optimal one-to-one mapping."),
        "agreement": st.column_config.NumberColumn(format="percent",
                                                   help="Share of the cluster's segments that are that speaker's."),
    })
    st.markdown("**Mean score of every block**")
    means = lc.diarization.block_mean_matrix(matrix.scores, result.labels)
    st.dataframe(means, width="stretch",
                 column_config={c: st.column_config.NumberColumn(format="%.3g") for c in means.columns})
    st.caption("Rows and columns are clusters; the diagonal holds the pairs inside a cluster. The block model fits "
               "one Gaussian to all diagonal blocks and one to all the others: two clusters whose block mean is "
               "close to the diagonal ones would rather be one speaker.")


def downloads(matrix, result, method: str) -> None:
    rttm_column, labels_column, _ = st.columns([1, 1, 3])
    if not matrix.has_times:
        labels_column = rttm_column
    else:
        rttm = lc.rttm_text(result.turns(matrix.start, matrix.end, matrix.uri))
        rttm_column.download_button("Turns as RTTM", rttm.encode(), file_name=f"{matrix.uri}_{method}.rttm",
                                    mime="text/plain", icon=":material/download:", key=f"diar_rttm_{method}",
                                    on_click="ignore")
    labels = result.to_frame(matrix.start, matrix.end)  # start and end only with times
    labels_column.download_button("Labels as CSV", labels.to_csv(index=False).encode(),
                                  file_name=f"{matrix.uri}_{method}_labels.csv", mime="text/csv",
                                  icon=":material/download:", key=f"diar_labels_{method}",
                                  on_click="ignore")


def preview(record: LoadedMatrix) -> None:
    """Before clustering: the matrix in time order, and what to look for in it."""
    matrix = record.matrix
    figure_column, text_column = st.columns([3, 2], gap="medium")
    with figure_column, st.spinner("Drawing…"):
        fig = lc.plots.similarity_heatmap_figure(
            matrix.scores, None, reference=matrix.reference,
            title=f"{matrix.name}: {matrix.n_segments:,} segments in time order")
        st.plotly_chart(fig, theme=None, width="stretch", key="diar_preview", config={"displaylogo": False})
    with text_column:
        st.markdown("**What to look for**")
        st.markdown(
            "Each pixel is the score of two segments, in time order. Segments of one speaker score high with each "
            "other wherever they are in the recording: bright squares on the diagonal and bright rectangles off it, "
            "at the same rows and columns. Clustering reorders the segments so that each speaker's become one "
            "square block." + (" The strip on top gives the reference speaker of each segment." if
                               matrix.reference is not None else ""))
        st.markdown(
            "The **Bayesian block model** explains the matrix as blocks of Gaussian scores: one Gaussian for all "
            "pairs of the same speaker, one for all pairs of different speakers, and a sticky Markov chain over the "
            "segments in time order (a speaker keeps the floor for about "
            f"{lc.diarization.MEAN_TURN:g} s, then the next is drawn), "
            "so the number of speakers is part of what is inferred.")


def compare_on_demand(record: LoadedMatrix, chosen: Settings, results: dict) -> dict:
    """Until this session has asked for the other methods on these settings: one line on what they would add and the
    button that runs them (at once when another session has). Returns the results to show: the Bayesian model's
    alone until asked."""
    asked, key = _state.DIAR_COMPARED.get(), comparison_key(record, chosen)
    missing = [m for m in OTHER_METHODS if m not in results]
    if key in asked and not missing:
        return results
    prompt = st.empty()
    with prompt.container():
        names = [METHOD_NAMES[m] for m in OTHER_METHODS]
        others = " and ".join([", ".join(names[:-1]), names[-1]])
        beside = " and VBx's full system" if record.system is not None else ""
        st.markdown(f"**Compare** with {others}: their speakers, DER and time beside the "
                    f"{METHOD_NAMES[DEFAULT_METHOD]}{beside}, and which answer to trust here (a few seconds more).")
        run = st.button("Compare with the other methods", icon=":material/compare_arrows:", key="diar_compare")
    if not run:
        return {DEFAULT_METHOD: results[DEFAULT_METHOD]}
    prompt.empty()
    asked.add(key)
    run_clustering(record, chosen, missing)
    return cached_results(record, chosen)


# ----- the page ------------------------------------------------------------------------------------------------------

st.title("Diarization")
st.caption("Who spoke when, from the matrix of scores between speech segments only: a Gaussian block model of the "
           "matrix with a sticky Markov chain over time (VBx's prior), fitted by variational Bayes (the number of "
           "speakers is inferred), against average-linkage AHC, spectral clustering and NME-SC (spectral clustering "
           "that tunes itself).")


def main() -> None:
    one, several, scoring = st.tabs(["One recording", "Several recordings", "Score an RTTM"], key="diar_page_tab",
                                    on_change="rerun")
    if scoring.open:
        with scoring:
            scoring_section()
    if one.open:
        with one:
            one_recording()
    if several.open:
        with several:
            corpus_section(METHOD_NAMES, PRIOR_NAMES)


def one_recording() -> None:
    sets = MATRICES.sets()
    upload_box()
    labels = list(sets)
    data_column, settings_column = st.columns([2, 3], gap="medium")
    with data_column:
        with st.container(border=True):
            st.markdown("**Data**")
            label = st.selectbox("Matrix", labels, **_state.DIAR_SET.widget(labels[0], options=labels),
                                 label_visibility="collapsed")
            record = sets[label]
            matrix = record.matrix
            facts = [f"{matrix.n_segments:,} segments", record.source]
            if matrix.has_times:
                facts.insert(1, f"{matrix.start.min():.0f}–{matrix.end.max():.0f} s")
            if matrix.n_reference_speakers:
                facts.insert(1, f"reference: {matrix.n_reference_speakers} speakers")
            st.caption(" · ".join(facts))
            run = st.button("Cluster", type="primary", icon=":material/play_arrow:", key="diar_run",
                            width="stretch", help=f"Run the {METHOD_NAMES[DEFAULT_METHOD]} (results are kept for "
                                                  "these settings); the other methods run when you ask for the "
                                                  "comparison below.")
    with settings_column:
        chosen = settings(matrix)
    if run:
        run_clustering(record, chosen)
    results = cached_results(record, chosen)
    if DEFAULT_METHOD not in results:
        st.info("Press **Cluster** to find the speakers (a few seconds for a thousand segments).",
                icon=":material/info:")
        preview(record)
        return

    top = st.container()  # the headline and the advice, drawn once the comparison asked for below has run
    st.subheader("Methods side by side")
    results = compare_on_demand(record, chosen, results)
    compared = comparison(record, results, chosen)
    table = compared.to_frame()
    rows = {method: row for method, row in zip(results, table.to_dict("records"))}
    with top:
        headline(record, results[DEFAULT_METHOD], rows[DEFAULT_METHOD])
        if len(results) > 1:  # the advice weighs the methods against each other: only once there are others
            advice = lc.diarization.method_to_trust(matrix.scores, compared, names=METHOD_NAMES)
            st.info(f"**Which answer to trust here: {advice.method}.** {advice.reason}", icon=":material/verified:")
    if len(results) > 1:
        show_comparison(table, matrix)

    st.subheader("Figures")
    names = {METHOD_NAMES[m]: m for m in results}
    shown = st.segmented_control("Method", list(names), default=METHOD_NAMES[DEFAULT_METHOD], key="diar_show",
                                 persist_state="session") or METHOD_NAMES[DEFAULT_METHOD]
    method = names.get(shown, DEFAULT_METHOD)
    figures(record, results[method], method)


main()
