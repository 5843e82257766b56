"""Report: a one-file HTML report for non-specialists, and the figures as PNG, SVG or PDF.

Pick the systems and the operating point, choose how calibration is judged, break the systems down by a condition
and ask for confidence intervals if wanted, read the plain-language summary, then download the report (it opens
offline in any browser) or the figures. The report comes from ``llrcore.build_report``; it is cached per choice, so
changing nothing on a rerun costs nothing. A report with intervals is kept per session and shows its progress while
the bootstrap replicates run (:mod:`app_pages._uncertainty`).
"""
from __future__ import annotations

import logging

import streamlit as st

import llrcore as lc
from app_pages import _state
from app_pages import _uncertainty
from app_pages._loaded import SYSTEMS, chosen_systems
from app_pages._operating_point import operating_point

log = logging.getLogger(__name__)

CROSS_VALIDATION = "Cross-validation on the evaluation trials"
DEVELOPMENT = "Train on a development set"
NO_CALIBRATION = "No calibration"
METHODS = {"affine": "Affine (logistic regression)", "pav": "PAV (monotone)", "cmlg": "CMLG (Gaussian)"}
VERDICT_BADGES = dict(zip(lc.report.VERDICTS, ((":material/check_circle:", "green"), (":material/tune:", "orange"),
                                     (":material/block:", "red"))))
FIGURE_FORMATS = {"png": "PNG (slides)", "svg": "SVG (vector)", "pdf": "PDF (print)"}


# ----- choices ------------------------------------------------------------------------------------------------------


def choose_systems() -> list[str]:
    """The evaluation sets by default; the choice survives page switches and new evaluation sets join it."""
    return chosen_systems("report_systems", "Systems in the report", placeholder="Choose the systems to report on")


def calibration_choice() -> tuple[str, str | None, str]:
    """How calibration is judged: (mode, development set name or None, method)."""
    development = [name for name, system in SYSTEMS.sets().items() if system.role == "development"]
    modes = [CROSS_VALIDATION, DEVELOPMENT, NO_CALIBRATION] if development else [CROSS_VALIDATION, NO_CALIBRATION]
    mode = st.radio("What calibration changes", modes, key="report_calibration", horizontal=True,
                    help="Cross-validation calibrates each trial with a transform trained on the other folds.")
    dev = None
    if mode == DEVELOPMENT:
        dev = st.selectbox("Development set", development, key="report_dev")
    method = st.selectbox("Method", list(METHODS), format_func=METHODS.get, key="report_method",
                          disabled=mode == NO_CALIBRATION,
                          help="Affine calibration is weighted for the effective prior of your operating point.")
    return mode, dev, method


# ----- the report ---------------------------------------------------------------------------------------------------


@_state.cached(entries=8)
def cached_report(key: tuple, _systems: dict, _dev, options: dict) -> lc.Report:
    """The report for one choice, shared by sessions that report on the same data (the demo sets).

    `key` holds each system's name and ``id()`` of its Trials: the cached report refers to those Trials, so they
    stay alive and their ids cannot be reused while the entry exists. The payload is underscored (not hashed).
    """
    return lc.build_report(_systems, calibrate_on=_dev, **options)


def make_report(selected: list[str], op: lc.OperatingPoint, mode, dev_name, method, title, classes,
                settings: _uncertainty.Settings) -> lc.Report:
    loaded = SYSTEMS.sets()
    systems = {name: loaded[name].trials for name in selected}
    dev = loaded[dev_name].trials if mode == DEVELOPMENT and dev_name in loaded else None
    if dev is not None:  # the report names the development set as the user named it
        dev = lc.Trials(dev.tar, dev.non, name=dev_name, spoof=dev.spoof)
    options = dict(p_target=op, calibrate=mode != NO_CALIBRATION, method=method,
                   sources={name: loaded[name].source for name in selected}, title=title or None,
                   class_names=classes, by=settings.by or None, ci=settings.level if settings.intervals else None,
                   bootstrap=settings.replicates, group_by=settings.group_by)
    key = (tuple((name, id(trials)) for name, trials in systems.items()), dev_name if dev is not None else None,
           id(loaded[dev_name].trials) if dev is not None else None)
    frozen = tuple(sorted((k, repr(v)) for k, v in options.items()))
    if settings.intervals:  # kept per session, with a progress bar while the replicates run
        return _uncertainty.run_once(("report", *key, *frozen), "Bootstrap for the report", lambda progress: (
            lc.build_report(systems, calibrate_on=dev, progress=progress, **options)))
    return cached_report(key + frozen, systems, dev, options)


def show_summary(report: lc.Report) -> None:
    """The plain-language summary, one card per system, as the report's first screen says it."""
    for summary in report.summaries:
        with st.container(border=True):
            head, numbers = st.columns([3, 2], vertical_alignment="center")
            head.markdown(summary.text("tested", "markdown"))
            icon, colour = VERDICT_BADGES[summary.verdict]
            head.badge(summary.verdict.capitalize(), icon=icon, color=colour)
            this, ideal, none = numbers.columns(3)
            this.metric("Errors per 100", lc.report.format_errors(summary.errors_per_100),
                        help="At your prior, using the scores as likelihood ratios.")
            ideal.metric("Perfectly calibrated", lc.report.format_errors(summary.min_errors_per_100))
            none.metric("No system", lc.report.format_errors(summary.default_errors_per_100))
            for topic in ("errors", "sure", "conditions", "trust", "calibration"):
                if summary.paragraphs.get(topic):  # the badge above says the verdict
                    st.markdown(summary.text(topic, "markdown", verdict=False))


def downloads(report: lc.Report) -> None:
    st.download_button(
        "Download the HTML report", data=report.to_html, file_name="llrcore_report.html", mime="text/html",
        icon=":material/download:", type="primary", on_click="ignore", key="download_report",
    )
    st.caption("One self-contained file (about 5 MB): opens offline in any browser, figures included.")


def figure_downloads(report: lc.Report) -> None:
    problem = lc.export_problem()
    if problem:
        st.info(f"Figures as images are not available here: {problem} The HTML report has every figure, and each "
                "can be saved as PNG from its camera button.", icon=":material/info:")
        return
    st.markdown("**Figures for slides and papers**")
    fmt = st.segmented_control("Format", list(FIGURE_FORMATS), format_func=FIGURE_FORMATS.get, default="png",
                               key="report_figure_format", label_visibility="collapsed") or "png"
    st.download_button(
        f"All figures ({fmt.upper()}, zip)",
        data=lambda: lc.figures_zip({key: item.figure for key, item in report.figures.items()}, fmt),
        file_name=f"llrcore_figures_{fmt}.zip", mime="application/zip", icon=":material/folder_zip:",
        on_click="ignore", key="download_figures",
    )
    mime = {"png": "image/png", "svg": "image/svg+xml", "pdf": "application/pdf"}[fmt]
    with st.container(horizontal=True):
        for key, item in report.figures.items():
            st.download_button(
                item.label, data=lambda fig=item.figure: lc.figure_to_image(fig, fmt), file_name=f"{key}.{fmt}",
                mime=mime, on_click="ignore", key=f"download_figure_{key}", help=item.title, icon=":material/image:",
            )


# ----- the page -----------------------------------------------------------------------------------------------------

st.title("Report")
st.caption("A report for people who are not specialists: how many errors, whether the scores can be trusted as "
           "likelihood ratios, what calibration changes; then the figures, every metric and the settings.")


def main() -> None:
    if not SYSTEMS.sets():
        st.info("Nothing is loaded yet.")
        st.page_link("app_pages/data.py", label="Load score files or demo sets on the Data page",
                     icon=":material/upload_file:")
        return
    left, right = st.columns([3, 2], gap="medium")
    with left.container(border=True):
        st.markdown("**Systems**")
        selected = choose_systems()
        op = operating_point()
    with right.container(border=True):
        st.markdown("**Calibration**")
        mode, dev_name, method = calibration_choice()
    with st.expander("Title and wording"):
        title = st.text_input("Title", key="report_title", placeholder="Evaluation report: <systems>")
        tar_column, non_column = st.columns(2)
        classes = (tar_column.text_input("Target trials are called", "target", key="report_tar_name") or "target",
                   non_column.text_input("Non-target trials are called", "non-target", key="report_non_name")
                   or "non-target")
    if not selected:
        st.info("Choose at least one system.")
        return
    settings = _uncertainty.controls({name: SYSTEMS.sets()[name].trials for name in selected})
    try:
        with st.spinner("Computing the report (calibration included)…"):
            report = make_report(selected, op, mode, dev_name, method, title, classes, settings)
    except ValueError as error:
        st.error(f"The report could not be made: {error}")
        return

    st.subheader("Summary")
    show_summary(report)
    st.subheader("Download")
    report_column, figures_column = st.columns([2, 3], gap="large")
    with report_column:
        downloads(report)
    with figures_column:
        figure_downloads(report)


main()
