"""The Diarization page's "One recording" tab, what lies behind the screen: reading an uploaded matrix, the settings
of a clustering, the store of results shared by the server's sessions and the run that fills it (with the Bayesian
model's progress), and the table of the methods side by side.

``app_pages/diarization.py`` lays the screen out with these; the "Several recordings" tab is
``app_pages/_diarization_corpus.py``. Every number comes from llrcore (``lc.read_similarity``,
``lc.cluster_similarity``, ``lc.compare_methods``). Clustering runs when the page's button is pressed; its results
are kept per (data key, method, options) in the store, so going back to earlier settings or another session on the
same data is instant.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import streamlit as st

import llrcore as lc
from app_pages import _state
from app_pages._loaded import MATRICES
from app_pages._registry import LoadedMatrix
from app_pages._uploads import read_user_file

VBX_PUBLISHED_DER = 7.06  # VBx README, "Run the example": ES2005a, dscore --collar 0.25 --ignore_overlaps
METHOD_NAMES = {"bayes": "Bayesian block model", "ahc": "AHC (average linkage)", "spectral": "Spectral",
                "nme-sc": "NME-SC (auto-tuned spectral)"}
#: The Cluster button's method; the others (:data:`OTHER_METHODS`) run when the comparison is asked for: on the demo
#: the Bayesian model takes 2.7 s, the three others 8 s together (NME-SC 6.7 s), issue 45.
DEFAULT_METHOD = "bayes"
OTHER_METHODS = tuple(m for m in lc.diarization.METHODS if m != DEFAULT_METHOD)
DEFAULT_COLLAR = 0.25  # seconds per side: md-eval's and dscore's convention
PRESET_LABELS = {"resemblyzer-1.5s-espeak": "Learnt: Resemblyzer, 1.5 s windows, synthetic voices",
                 "simulated-plda-1.5s": "Learnt: simulated PLDA, 1.5 s windows"}
#: The score models of the Bayesian method, both tabs: the library's default (by the kind of scores), the recording's
#: own two-Gaussian fit, then every preset of the library.
PRIOR_NAMES = {None: "By the kind of scores (default)", "recording": "From this recording",
               **{name: PRESET_LABELS.get(name, f"Learnt: {name}") for name in lc.diarization.PRESETS}}
MATRIX_HELP = ("NumPy `.npy` (one square array) or `.npz` (several matrices allowed; arrays `start`/`end` give the "
               "segment times); or CSV/TSV/text with N rows of N numbers (header and name column optional).")


# ----- an uploaded matrix --------------------------------------------------------------------------------------------


@_state.cached(entries=8)
def parse_upload(ids: tuple, key: str | None, _matrix, _segments, _reference):
    """(SimilarityMatrix, None) or (None, a sentence), cached by the uploads' file ids and the chosen key."""
    name = getattr(_matrix, "name", "the file")
    for upload in (_matrix, _segments, _reference):
        if upload is not None:
            upload.seek(0)
    return read_user_file(name, lambda: lc.read_similarity(
        _matrix, key=key, segments=_segments, reference=_reference, name=Path(name).stem))


def upload_box() -> None:
    """Uploaders for a matrix, its segment times and a reference; a good set is added and chosen, a bad one
    reported (what was loaded stays)."""
    with st.expander("Upload a similarity matrix", icon=":material/upload_file:",
                     expanded=_state.DIAR_UPLOAD.peek() is not None):
        matrix_column, segments_column, reference_column = st.columns(3)
        upload = matrix_column.file_uploader("Similarity matrix", type=["npy", "npz", "csv", "tsv", "txt", "gz"],
                                             key=_state.DIAR_UPLOAD.name, help=MATRIX_HELP)
        segments = segments_column.file_uploader(
            "Segment times (optional)", key="diar_segments",
            help="Kaldi `segments` file (`<segment> <recording> <start> <end>`) or two columns `start end`, one "
                 "line per row of the matrix. Needed for turns, the DER and the RTTM.")
        reference = reference_column.file_uploader(
            "Reference (optional)", key="diar_reference",
            help="An RTTM (each segment's speaker by majority overlap; needs times) or one speaker label per line.")
        key = None
        if upload is not None:
            keys = _matrix_keys(upload.file_id, upload)
            if len(keys) > 1:
                key = st.selectbox("Matrix in the archive", keys, key="diar_key")
    if upload is None:
        return
    ids = tuple(None if f is None else f.file_id for f in (upload, segments, reference))
    data_key = f"upload:{ids}:{key}"
    label = f"{Path(upload.name).stem}{f' ({key})' if key else ''} (upload)"
    if getattr(MATRICES.sets().get(label), "id", None) == data_key:
        return
    with st.spinner(f"Reading {upload.name}…"):
        matrix, error = parse_upload(ids, key, upload, segments, reference)
    if error:
        st.error(error, icon=":material/error:")
        return
    for note in matrix.notes:
        st.warning(note, icon=":material/warning:")
    MATRICES.put(label, LoadedMatrix(matrix, f"upload: {upload.name}", data_key))
    _state.DIAR_SET.set(label)
    st.success(f"Loaded {upload.name}: {matrix.n_segments:,} segments.", icon=":material/check_circle:")


@_state.cached(entries=8)
def _matrix_keys(file_id: str, _upload) -> list[str]:
    try:
        _upload.seek(0)
        return lc.similarity_keys(_upload)
    except ValueError:
        return []


# ----- settings ------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Settings:
    """What the page's settings panel chose: the number of speakers (exact, or bounds), the Bayesian model's evidence
    per segment and score model, and how the DER is scored."""

    n_clusters: int | None
    min_clusters: int
    max_clusters: int | None
    effective_scores: float
    collar: float
    skip_overlap: bool
    prior: str | lc.diarization.BlockModelPrior | None = None

    def options(self, method: str) -> dict:
        """The options of `cluster_similarity` that matter for `method` (the cache key)."""
        options = {"n_clusters": self.n_clusters, "min_clusters": self.min_clusters,
                   "max_clusters": self.max_clusters}
        if method == "bayes":
            options["effective_scores"] = self.effective_scores
            if self.prior is not None:
                options["prior"] = self.prior
        return options


# ----- clustering, on demand, with progress --------------------------------------------------------------------------


def _store():
    """Clustering results by (data key, method, options), shared by the server's sessions. Not cached by
    :func:`~app_pages._state.cached`: the Bayesian model reports its progress to the page while it runs."""
    return _state.store("clusterings", 24)


def _result_key(loaded: LoadedMatrix, method: str, settings_: Settings) -> tuple:
    return loaded.id, method, tuple(sorted(settings_.options(method).items()))


def comparison_key(record: LoadedMatrix, settings_: Settings) -> tuple:
    """The other methods' results for these settings as the store keys them: what a session asks to compare."""
    return tuple(_result_key(record, m, settings_) for m in OTHER_METHODS)


def cached_results(record: LoadedMatrix, settings_: Settings) -> dict:
    """method -> ClusteringResult of the methods already clustered with these settings."""
    store = _store()
    results = {m: store.get(_result_key(record, m, settings_)) for m in lc.diarization.METHODS}
    return {m: r for m, r in results.items() if r is not None}


def run_clustering(record: LoadedMatrix, settings_: Settings, methods=(DEFAULT_METHOD,)) -> None:
    """Cluster with each of `methods` not yet in the store (the Cluster button: the Bayesian model alone; the
    comparison: the others); the Bayesian model shows its runs and bound as it goes."""
    matrix = record.matrix
    store = _store()
    bar = st.progress(0.0, text="Clustering…")
    try:
        for method in methods:
            key = _result_key(record, method, settings_)
            if store.get(key) is not None:
                continue
            bar.progress(0.02, text=f"{METHOD_NAMES[method]}…")

            def progress(event, bar=bar):
                if event.iteration % 3 == 0:
                    bar.progress(event.fraction, text=f"Bayesian block model — start {event.run_index + 1} of "
                                 f"{event.n_runs} ({event.run}): iteration {event.iteration}, {event.n_clusters} "
                                 f"speakers, evidence bound {event.elbo:,.1f}")

            try:
                result = lc.cluster_similarity(matrix, method, **settings_.options(method),
                                               progress=progress if method == "bayes" else None)
            except ValueError as err:
                st.error(f"{METHOD_NAMES[method]}: {err}", icon=":material/error:")
                continue
            store.put(key, result)
    finally:
        bar.empty()


# ----- the methods side by side --------------------------------------------------------------------------------------


def comparison(record: LoadedMatrix, results: dict, settings_: Settings) -> lc.diarization.MethodComparison:
    """The methods side by side (lc.compare_methods), with the published full system's RTTM where there is one."""
    outputs = {METHOD_NAMES[method]: result for method, result in results.items()}
    if record.system is not None:  # the demo: VBx's own output on the same recording
        outputs["VBx (full system, its RTTM)"] = record.system
    return lc.compare_methods(record.matrix, outputs, collar=settings_.collar, skip_overlap=settings_.skip_overlap)


PERCENT_COLUMNS = ("DER", "missed", "false alarm", "confusion", "segment error", "purity", "coverage")
NOT_MEASURED = "—"  # shown for a value that does not apply (NaN in the library's table; Streamlit would write None)


def not_measured_note(table: pd.DataFrame) -> str | None:
    """Why some cells read "—": the library leaves NaN what cannot be measured for an output."""
    if not table[list(PERCENT_COLUMNS) + ["seconds"]].isna().to_numpy().any():
        return None
    return (f"{NOT_MEASURED}: not measured for this output. A full system's RTTM has speaker turns but no segment "
            "labels (no segment error, purity or coverage) and was not timed here; without segment times and a "
            "reference RTTM there is no DER.")


def show_comparison(table: pd.DataFrame, matrix) -> None:
    percent = {c: st.column_config.NumberColumn(c, format="percent") for c in PERCENT_COLUMNS}
    st.dataframe(table, hide_index=True, width="stretch", placeholder=NOT_MEASURED, column_config={
        **percent, "seconds": st.column_config.NumberColumn("time (s)", format="%.2f"),
        "speakers": st.column_config.NumberColumn(
            "speakers", format="%d",
            help=f"Reference: {matrix.n_reference_speakers}" if matrix.n_reference_speakers else None),
    })
    notes = [note for note in (not_measured_note(table),) if note]
    if table["DER"].notna().any():
        notes.append(f"DER with a collar of {_state.DIAR_COLLAR.get(DEFAULT_COLLAR):g} s per side"
                     + (", overlapped speech ignored" if _state.DIAR_SKIP_OVERLAP.get(True) else "")
                     + " (md-eval's DER: a speaker's own overlapping turns merged, as md-eval and dscore do).")
    if any(table["method"].str.startswith("VBx")):
        notes.append(f"VBx's published DER on ES2005a is {VBX_PUBLISHED_DER:.2f} % (collar 0.25 s, overlap "
                     "ignored); it clusters the x-vectors themselves with a PLDA model and an HMM.")
    if table["segment error"].notna().any():
        notes.append("Segment error: share of windows not on their reference speaker after the best one-to-one "
                     "mapping of clusters to speakers.")
    st.caption(" ".join(notes))


# ----- scoring any system's RTTM against a reference ----------------------------------------------------------------

ES2005A = Path(__file__).resolve().parent.parent / "assets" / "ami_ES2005a"
CONVENTION_LABELS = {"md-eval": "md-eval / dscore (each side)", "pyannote": "pyannote.metrics (total width)",
                     "both": "reference and system", "reference": "reference only",
                     "pooled": "pooled over seconds", "mean": "mean of recordings"}


#: The DER conventions as the page names them (the collar's labels above say how the collar is read).
WHOSE_DER = {"md-eval": "md-eval / dscore", "pyannote": "pyannote.metrics"}


def by_speakers_table(scores) -> None:
    """The DER and JER pooled by number of reference speakers, with what the rows are."""
    st.table(scores.by_speakers().style.format({"speech (s)": "{:.1f}", "DER %": "{:.2f}", "JER %": "{:.2f}"}))
    st.caption("By number of reference speakers: each row pools its recordings (all errors over all their scored "
               "speech), as the total does.")


def _rttms(uploads, fallback: Path):
    """The turns of the uploaded RTTMs (one table), or of `fallback`; (turns, names, error sentence)."""
    if not uploads:
        return lc.read_rttm(fallback), fallback.name, None
    tables = []
    for upload in uploads:
        table, error = read_user_file(upload.name, lambda upload=upload: lc.read_rttm(upload))
        if error:
            return None, None, error
        tables.append(table)
    return pd.concat(tables, ignore_index=True), ", ".join(u.name for u in uploads), None


def scoring_section() -> None:
    """Score a system's RTTM against a reference RTTM with the conventions chosen on screen (ES2005a's VBx output
    against its reference until files are uploaded)."""
    system_column, reference_column, uem_column = st.columns(3)
    systems = system_column.file_uploader("System RTTM", type=["rttm", "txt"], accept_multiple_files=True,
                                          key="diar_score_system", help="The output of any diarization system.")
    references = reference_column.file_uploader("Reference RTTM", type=["rttm", "txt"], accept_multiple_files=True,
                                                key="diar_score_reference")
    uem_upload = uem_column.file_uploader("UEM (optional)", type=["uem", "txt"], key="diar_score_uem",
                                          help="Scored regions `<file> <channel> <start> <end>`.")
    c0, c1, c2, c3, c4, c5 = st.columns([1.6, 1, 2, 1.3, 2, 1.8])
    collar = c1.number_input("Collar (s)", min_value=0.0, value=0.25, step=0.05, key="diar_score_collar")
    options = dict(
        convention=c0.radio("DER as", lc.diarization.CONVENTIONS, format_func=WHOSE_DER.get,
                            key="diar_score_der_convention",
                            help="md-eval and dscore merge a speaker's own overlapping turns first; pyannote.metrics "
                                 "counts each (the same speaker said twice at once is a false alarm)."),
        collar=collar,
        collar_convention=c2.radio("Collar is", lc.diarization.COLLAR_CONVENTIONS, format_func=CONVENTION_LABELS.get,
                                   key="diar_score_convention"),
        skip_overlap=not c3.checkbox("Score overlap", key="diar_score_overlap"),
        extent=c4.radio("Without a UEM, score from first to last turn of", lc.diarization.EXTENTS,
                        format_func=CONVENTION_LABELS.get, key="diar_score_extent"),
        average=c5.radio("Over recordings", lc.diarization.AVERAGES, format_func=CONVENTION_LABELS.get,
                         key="diar_score_average"))
    system, system_names, error = _rttms(systems, ES2005A / "ES2005a.vbx_output_reproduced_here.rttm")
    reference, reference_names, error2 = _rttms(references, ES2005A / "ES2005a.rttm")
    uem, error3 = (None, None) if uem_upload is None else read_user_file(uem_upload.name,
                                                                         lambda: lc.read_uem(uem_upload))
    scores, error4 = (None, None) if error or error2 or error3 else read_user_file(
        "the scoring", lambda: lc.diarization.score_system(reference, system, uem=uem, **options))
    if error or error2 or error3 or error4:
        st.error(error or error2 or error3 or error4, icon=":material/error:")
        return
    st.caption(f"System: {system_names} · reference: {reference_names}")
    summary = scores.summary()
    m1, m2, m3 = st.columns(3)
    whose = WHOSE_DER[scores.conventions.convention]
    m1.metric(f"DER ({whose})", f"{summary['DER %']:.2f} %")
    m2.metric(f"JER ({'dscore' if scores.conventions.convention == 'md-eval' else whose})",
              f"{summary['JER %']:.2f} %")
    m3.metric("Right speaker count", f"{summary['right speaker count %']:.0f} % of {int(summary['recordings'])}")
    boot = lc.diarization.bootstrap_diarization(scores)
    st.markdown(boot.paragraph())
    st.markdown("\n".join(f"- {sentence}" for sentence in scores.sentences))
    st.dataframe(scores.to_frame().round(2), key="diar_score_table")
    by_speakers_table(scores)


# ----- a prior file ------------------------------------------------------------------------------------------------
#: The score model choice read from an uploaded prior file.
FILE_PRIOR = "file"


@_state.cached(entries=4)
def parse_prior(file_id: str, _upload):
    """(BlockModelPrior, None) of an uploaded prior file, or (None, a sentence naming the file)."""
    _upload.seek(0)
    return read_user_file(_upload.name, lambda: lc.diarization.BlockModelPrior.from_json(
        _upload.read().decode("utf-8")))


def prior_file(column) -> tuple:
    """The uploader of a prior file (``prior.json``, from Several recordings or ``llrcore diarize --learn``): (the
    prior, its file name), or (None, None). A new file becomes the chosen score model."""
    upload = column.file_uploader("Prior file (Bayes)", type=["json"], key="diar_prior_upload",
                                  help="A prior learnt from labelled recordings of your embedder: Several recordings "
                                       "→ Learn a prior → Prior as JSON, or `llrcore diarize --learn ... -o "
                                       "prior.json`.")
    if upload is None:
        return None, None
    prior, error = parse_prior(upload.file_id, upload)
    if error:
        column.error(error, icon=":material/error:")
        return None, None
    if _state.DIAR_PRIOR_FILE.peek() != upload.file_id:
        _state.DIAR_PRIOR_FILE.set(upload.file_id)
        _state.DIAR_PRIOR.set(FILE_PRIOR)
    return prior, upload.name
