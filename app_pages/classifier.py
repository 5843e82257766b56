"""Classifier calibration: can a classifier's probabilities be trusted? CORP reliability without bins (Dimitriadis,
Gneiting & Jordan, PNAS 2021), the smooth ECE (Błasiok & Nakkiran, ICLR 2024), the binned ECE, ACE, MCE and RMS-CE
the ML papers report, selective prediction's AURC (Geifman et al., ICLR 2019), and temperature scaling (Guo et al.,
ICML 2017).

Everything shown comes from ``lc.classifier_calibration`` and the figures of ``llrcore.plots.reliability`` and
``llrcore.plots.selective``; the page reads the demo outputs (assets/multiclass, two of them a large language model's)
as logits, and uploads as logits or probabilities.
"""
from __future__ import annotations

from pathlib import Path

import streamlit as st

import llrcore as lc
from app_pages._demos import CLASSIFIER_DEMOS, MULTICLASS_DIR
from app_pages import _state
from app_pages._figures import show_figure
from app_pages._uploads import read_user_file

KINDS = {"logits (or log-probabilities)": "logit", "probabilities (softmax outputs)": "probability"}
SCORES = {"Brier": "brier", "log (bits)": "log"}
STRATEGIES = {"equal width": "uniform", "equal mass": "quantile"}
UPLOAD_HELP = ("CSV/TSV or Parquet: one column per class (header = class names) and a label column (named `label`, "
               "or the last one). NumPy `.npz` with a matrix `scores` (or `logits`, `probabilities`) and `labels` "
               "(or `targets`).")
BAND_REPLICATES = 200
#: Calibration errors and AURC in percent with the cards' two decimals: one unit for a quantity on the whole page.
PERCENT_COLUMNS = {column: st.column_config.NumberColumn(format="%.2f")
                   for column in ("ECE %", "MCE %", "smECE %", "AURC %", "E-AURC %", "raw %", "scaled %")}
ECE_TITLE = "Why does my ECE differ from other tools?"


# ----- data ----------------------------------------------------------------------------------------------------------


@_state.cached()
def load_demo(index: int) -> lc.MulticlassScores:
    """A demo classifier's raw outputs as logits (no training prior removed: the classifier's own probabilities)."""
    demo = CLASSIFIER_DEMOS[index]
    folder = MULTICLASS_DIR / demo.folder
    return lc.read_multiclass(folder / "scores.npy", labels=folder / "targets.npy", score_type="logit",
                              classes=demo.classes, name=demo.name)


@_state.cached(entries=8)
def parse_upload(file_id: str, kind: str, _upload):
    """(MulticlassScores, None) or (None, a sentence for the user), cached by the upload's file id and kind."""
    name = getattr(_upload, "name", "the file")
    _upload.seek(0)
    return read_user_file(name, lambda: lc.read_multiclass(_upload, score_type=kind, name=Path(name).stem))


@_state.cached()
def analyse(key: str, score: str, target, bins: int, strategy: str, _scores: lc.MulticlassScores):
    """The calibration before and after temperature scaling, once per data key and options."""
    try:
        return lc.classifier_calibration(_scores.llrs, _scores.labels, score=score, target=target, bins=bins,
                                         strategy=strategy, n=BAND_REPLICATES), None
    except ValueError as err:
        return None, str(err)


def chosen_data() -> tuple[str, lc.MulticlassScores] | None:
    """(data key, outputs): a demo, or a good upload (a bad one is reported and the demo stays)."""
    choose_column, upload_column = st.columns([2, 3], gap="medium")
    with upload_column.expander("Upload classifier outputs", icon=":material/upload_file:"):
        upload = st.file_uploader("Output file", type=["csv", "tsv", "txt", "gz", "npz", "parquet"],
                                  key=_state.CC_UPLOAD.name, help=UPLOAD_HELP)
        kind = KINDS[st.radio("The columns are", list(KINDS), key="cc_kind", persist_state="session")]
    names = [demo.name for demo in CLASSIFIER_DEMOS]
    index = names.index(choose_column.selectbox("Demo classifier", names, index=1, key="cc_demo",
                                                persist_state="session"))
    if upload is not None:
        scores, error = parse_upload(upload.file_id, kind, upload)
        if error:
            st.error(error, icon=":material/error:")
        else:
            choose_column.caption(f"Upload {upload.name}: {len(scores):,} trials of {scores.n_classes} classes "
                                  "(remove it to go back to the demo).")
            return f"upload:{upload.file_id}:{kind}", scores
    scores, demo = load_demo(index), CLASSIFIER_DEMOS[index]
    choose_column.caption(f"{len(scores):,} trials of {scores.n_classes} classes. {demo.about}")
    return f"demo:{demo.folder}", scores


def options(scores: lc.MulticlassScores) -> tuple[str, object, int, str]:
    score_column, target_column, bins_column, strategy_column = st.columns([2, 2, 3, 2])
    score = SCORES[score_column.segmented_control("Score", list(SCORES), default="Brier", key="cc_score",
                                                  persist_state="session") or "Brier"]
    targets = ["top label", *scores.classes]
    target = target_column.selectbox("Forecast", targets, key=f"cc_target_{scores.n_classes}",
                                     help="The top label: the confidence of the predicted class against whether it "
                                          "is right. A class: its probability against the rest.")
    bins = bins_column.slider("Bins of the ECE", 5, 50, 15, key="cc_bins", persist_state="session")
    strategy = STRATEGIES[strategy_column.segmented_control("Bins", list(STRATEGIES), default="equal width",
                                                            key="cc_strategy", persist_state="session")
                          or "equal width"]
    return score, "top-label" if target == "top label" else targets.index(target) - 1, bins, strategy


# ----- results -------------------------------------------------------------------------------------------------------


def summary(result: lc.ClassifierCalibration) -> None:
    accuracy_column, t_column, ece_column, mcb_column, nll_column = st.columns(5)
    accuracy_column.metric("Accuracy", f"{100 * result.accuracy:.2f} %", border=True,
                           help="Share of trials whose most probable class is right; temperature scaling keeps it.")
    if result.temperature is None:
        t_column.metric("Temperature", "—", border=True)
        st.warning(result.temperature_problem, icon=":material/warning:")
        return
    t = result.temperature.temperature
    t_column.metric("Temperature T", f"{t:.3f}", border=True, delta="over-confident" if t > 1 else "under-confident",
                    delta_color="off", delta_arrow="off", help="softmax(logits / T) with T minimising the NLL.")
    raw, scaled = result.binned["raw"], result.binned["scaled"]
    ece_column.metric("ECE raw → scaled", f"{100 * raw.ece:.2f} → {100 * scaled.ece:.2f} %", border=True,
                      help=f"{raw.bins} {raw.strategy} bins, percent.")
    mcb_column.metric("CORP MCB raw → scaled", f"{result.corp['raw'].mcb:.4f} → {result.corp['scaled'].mcb:.4f}",
                      border=True, help="Miscalibration: the score lost to calibration, with no bins to choose.")
    nll_column.metric("NLL raw → scaled (nats)", f"{result.nll['raw']:.4f} → {result.nll['scaled']:.4f}",
                      border=True, help="Mean negative log-likelihood of the true class (cross-entropy).")


def raw_to_scaled(values: dict) -> str:
    """``raw → scaled %`` (or the raw value alone when no temperature was fitted), with two decimals."""
    return " → ".join(f"{100 * value:.2f}" for value in values.values()) + " %"


def more_cards(result: lc.ClassifierCalibration) -> None:
    smooth_column, aurc_column, excess_column = st.columns(3)
    smooth = result.smooth["raw"]
    smooth_column.metric("Smooth ECE raw → scaled", raw_to_scaled({v: r.smece for v, r in result.smooth.items()}),
                         border=True, help=f"Kernel-smoothed ECE (relplot's smECE): no bins; the kernel's width "
                                           f"{smooth.sigma:.3f} is where the smooth ECE equals it.")
    aurc_column.metric("AURC raw → scaled", raw_to_scaled({v: r.aurc for v, r in result.selective.items()}),
                       border=True, help="Area under the risk-coverage curve: the share of wrong predictions among "
                                         "those accepted, averaged over every coverage, most confident first.")
    excess_column.metric("E-AURC raw → scaled", raw_to_scaled({v: r.e_aurc for v, r in result.selective.items()}),
                         border=True, help="AURC minus that of the ideal ranking (every right prediction first): "
                                           "what the confidences lose by ranking badly, whatever the accuracy.")


def figures(result: lc.ClassifierCalibration) -> None:
    corp_column, smooth_column, binned_column = st.columns(3, gap="medium")
    with corp_column:
        show_figure(lambda: lc.plots.corp_figure(result.corp), "corp_reliability",
                    f"CORP: the PAV-recalibrated probability against the forecast. Grey: where a calibrated "
                    f"forecaster's curve would fall ({BAND_REPLICATES} resamples of the raw forecasts, outcomes "
                    "drawn from them). Bars: how many forecasts there are.",
                    data=lambda: result.corp["raw"].curve)
    with smooth_column:
        smooth = result.smooth["raw"]
        show_figure(lambda: lc.plots.smooth_figure(result.smooth), "smooth_reliability",
                    f"Smooth reliability (Błasiok & Nakkiran): the outcomes averaged by a Gaussian kernel of width "
                    f"{smooth.sigma:.3f} around each forecast, no bins. Grey: {smooth.n} bootstrap resamples of the "
                    "raw forecasts. Bars: the forecasts' density.",
                    data=lambda: result.smooth["raw"].curve)
    with binned_column:
        show_figure(lambda: lc.plots.binned_figure(result.binned), "binned_reliability",
                    "The binned diagram of ML papers: each bin's mean outcome against its mean forecast (empty bins "
                    "are not drawn).", data=lambda: result.binned["raw"].table)
    decomposition_column, risk_column = st.columns(2, gap="medium")
    with decomposition_column:
        show_figure(lambda: lc.plots.decomposition_figure(result.corp), "corp_decomposition",
                    "Mean score = MCB − DSC + UNC exactly: temperature scaling should shrink MCB and leave DSC and "
                    "UNC (almost) as they were.")
    with risk_column:
        show_figure(lambda: lc.plots.risk_coverage_figure(result.selective), "risk_coverage",
                    "Selective prediction: accept the most confident predictions first (equal confidences together); "
                    "the risk is the share of the accepted that are wrong. AURC is the area under the curve.",
                    data=lambda: result.selective["raw"].curve)
    st.info(result.binned["raw"].why, icon=":material/info:")
    st.dataframe(result.to_frame(percent=True), hide_index=True, width="stretch", column_config=PERCENT_COLUMNS)
    errors = result.errors["raw"]
    st.subheader(f"Calibration errors over {errors.binning_name}", divider="gray")
    st.dataframe(result.errors_frame(percent=True), hide_index=True, width="stretch", column_config=PERCENT_COLUMNS)
    st.caption("The same bins for all four (the bin controls above choose them); an empty bin counts in none. "
               + result.selective["raw"].sentence())
    st.caption("The temperature is fitted on the trials it is judged on: the 'scaled' numbers are the best one "
               "temperature can do here. Fit it on development data (lc.fit_temperature) to judge it fairly.")


@_state.cached()
def ece_table(key: str, bins: int, _scores: lc.MulticlassScores):
    """The raw probabilities' ECE as each tool computes it (``softmax`` of the outputs: the cards' raw version)."""
    return lc.ece_conventions(_scores, bins=bins, percent=True)


def ece_conventions(key: str, scores: lc.MulticlassScores, bins: int) -> None:
    """The panel, folded; computed only while open (the expander reruns the page when it opens)."""
    with st.expander(ECE_TITLE, icon=":material/compare_arrows:", key="cc_conventions",
                     on_change="rerun") as panel:
        if not panel.open:
            return
        table = ece_table(key, bins, scores)
        st.caption(f"The raw probabilities in {bins} equal-width bins (the slider's), ECE in %, as each tool's "
                   "published code bins them. The first row is the ECE card's raw value when the forecast is the top "
                   "label and the bins equal width.")
        st.dataframe(table.drop(columns="why"), hide_index=True, width="stretch",
                     column_config={"ECE %": st.column_config.NumberColumn(format="%.4f")})
        st.markdown("\n".join(f"- **{lc.report.escape_markdown(name)}**: {lc.report.escape_markdown(why)}"
                               for name, why in zip(table["convention"], table["why"])))


def downloads(result: lc.ClassifierCalibration, scores: lc.MulticlassScores, name: str) -> None:
    """The report, and the fitted temperature as JSON (none when it could not be fitted)."""
    stem = Path(name).stem
    report_column, json_column, _ = st.columns([1, 1, 2])
    report_column.download_button("Report as HTML", data=lambda: lc.classifier_report_html(result, name),
                                  file_name=f"classifier_calibration_{stem}.html", mime="text/html",
                                  icon=":material/download:", on_click="ignore", width="stretch",
                                  help="One self-contained page: the numbers in words, the tables and the five "
                                       "figures, raw and temperature-scaled (also `llrcore classifier --html`).")
    if result.temperature is not None:
        temperature = result.temperature
        json_column.download_button(
            "Temperature as JSON", data=lambda: temperature.to_json(classes=scores.classes),
            file_name=f"temperature_{stem}.json", mime="application/json", icon=":material/data_object:",
            on_click="ignore", width="stretch",
            help="The fitted temperature, to apply elsewhere: `lc.load_calibrator(path)(logits)` gives "
                 "softmax(logits / T), the scaled probabilities of this page, bit for bit.")


# ----- the page ------------------------------------------------------------------------------------------------------

st.title("Classifier calibration")
st.caption("Can a classifier's probabilities be trusted? CORP reliability diagrams without bins (Dimitriadis, "
           "Gneiting & Jordan, PNAS 2021), the smooth ECE (Błasiok & Nakkiran, ICLR 2024), the binned ECE, ACE, MCE "
           "and RMS-CE of ML papers, selective prediction's AURC, and temperature scaling (Guo et al., ICML 2017). "
           "Two demos are a large language model's answers (GPT-2).")


def main() -> None:
    key, scores = chosen_data()
    score, target, bins, strategy = options(scores)
    with st.spinner("Fitting the temperature and resampling the bands…"):
        result, error = analyse(key, score, target, bins, strategy, scores)
    if error:
        st.error(error, icon=":material/error:")
        return
    summary(result)
    more_cards(result)
    figures(result)
    ece_conventions(key, scores, bins)
    name = key.split(":")[1] if key.startswith("demo:") else _state.CC_UPLOAD.get().name
    downloads(result, scores, name)


main()
