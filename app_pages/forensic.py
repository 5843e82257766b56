"""Forensic validation: validate an LR method as Meuwly, Ramos & Haraksim (2017) propose, and download the report.

Choose a loaded system, or one of the two forensic demos (FVC-AUS voice comparison; lir's cartridge cases, log10 LRs
read with ``lc.read_class_files(km, knm, scale="log10")``), the calibration (cross-validated or trained on a development
set, always limited to its ELUB bounds) and the validation criteria (examples the laboratory is to set). The page shows
what ``lc.validate_lr_method`` returns — the validation matrix, Tippett and ECE plots before and after calibration, ELUB
bounds, devPAV, Cllr/Cllr_min/Cllr_cal, misleading evidence, the verbal scale — and
``llrcore.report.validation.build_validation_report`` makes the HTML file. LR values are in the app-wide units of the
sidebar's "LR values in" (``_units.py``): forensic users switch it to log10 once, for every page.
"""
from __future__ import annotations

import streamlit as st

import llrcore as lc
from app_pages._demos import ASSETS, DEMO_SETS, system_demo
from app_pages._figures import show_figure
from app_pages import _state
from app_pages._loaded import SYSTEMS
from app_pages._registry import LoadedSystem
from app_pages._tables import count_columns
from app_pages._units import current as llr_units

FVC = "FVC-AUS DCA-PLDA"
CARTRIDGE = "Cartridge cases (lir)"
CARTRIDGE_DIR = ASSETS / "lir_cartridge_case_llrs"
DEMOS = {"FVC-AUS voice comparison": FVC, "Cartridge cases (lir)": CARTRIDGE}
UNITS = {"log10": "log10", "ln": "natural log"}  # how the metrics name the app-wide units (sidebar)
METHODS = {"affine": "Affine (logistic)", "pav": "PAV", "none": "None"}
CROSS_VALIDATION = "Cross-validation on the same trials"
#: Criterion inputs: key -> (label, shown as % of the fraction, step)
CRITERIA = {
    "cllr": ("Cllr below (bits)", False, 0.05), "eer": ("EER below (%)", True, 0.5),
    "min_cllr": ("Cllr_min below (bits)", False, 0.05), "cllr_cal": ("Cllr_cal below (bits)", False, 0.01),
    "devpav": ("devPAV below (log10 units)", False, 0.1),
    "misleading_same_source": ("Misleading same source below (%)", True, 0.5),
    "misleading_different_source": ("Misleading different source below (%)", True, 0.5),
    "condition_cllr": ("Worst condition's Cllr below (bits)", False, 0.05),
}


# ----- the data -----------------------------------------------------------------------------------------------------


@_state.cached()
def cartridge_cases() -> lc.Trials:
    """lir's cartridge-case LRs: log10 LRs, one per line, same source (KM) and different source (KNM) apart."""
    return lc.read_class_files(CARTRIDGE_DIR / "LLR_KM.csv", CARTRIDGE_DIR / "LLR_KNM.csv", scale="log10",
                               name=CARTRIDGE)


def load_demo(name: str) -> None:
    """Button callback: load a forensic demo (if it is not loaded) and choose it."""
    sets = SYSTEMS.sets()
    if name not in sets:
        loaded = (LoadedSystem(cartridge_cases(), "demo: lir_cartridge_case_llrs (log10 LRs, LLR_KM.csv and "
                               "LLR_KNM.csv)") if name == CARTRIDGE
                  else system_demo(next(demo for demo in DEMO_SETS if demo.name == name)))
        SYSTEMS.add(name, loaded)
    _state.FORENSIC_SYSTEM.set(name)


def choose_system() -> str | None:
    loaded = SYSTEMS.sets()
    names = list(loaded)
    first = FVC if FVC in loaded else (names[0] if names else None)
    box, *buttons = st.columns([3, 1.3, 1.3], vertical_alignment="bottom")
    name = box.selectbox("LR method (a loaded system)", names, **_state.FORENSIC_SYSTEM.widget(first, options=names))
    for column, (label, demo) in zip(buttons, DEMOS.items()):
        column.button(label, on_click=load_demo, args=(demo,), width="stretch", key=f"forensic_demo_{demo}",
                      icon=":material/science:")
    return name


def choose_calibration(trials: lc.Trials) -> dict:
    development = [n for n, s in SYSTEMS.sets().items() if s.role == "development"]
    method_column, where_column, folds_column, by_column = st.columns([2.4, 2.2, 1, 1.6])
    method = method_column.segmented_control("Calibration", list(METHODS), format_func=METHODS.get,
                                             default="affine", key="forensic_method", persist_state="session",
                                             help="Affine: logistic regression (llr = a·score + b); PAV: the best "
                                             "monotone transform; None: judge the LRs as given.")
    method = method or "affine"
    where = where_column.selectbox("Trained on", [CROSS_VALIDATION, *development], key="forensic_dev",
                                   disabled=method == "none", persist_state="session",
                                   help="Cross-validation calibrates every trial by a calibration trained on the "
                                   "other folds; a development set trains it on other trials.")
    folds = folds_column.number_input("Folds", 2, 20, 5, key="forensic_folds", persist_state="session",
                                      disabled=method == "none" or where != CROSS_VALIDATION)
    columns = ["(none)", *map(str, trials.metadata.columns)]
    by = by_column.selectbox("Robustness: per", columns, key="forensic_by",
                             help="Break the trials down by a column: the worst condition's Cllr is judged.")
    st.caption("The calibrated LRs are limited to the ELUB bounds of the calibration's training data (Vergeer et "
               "al. 2016): an LR the data cannot support is reported as the bound.")
    return {"method": None if method == "none" else method, "dev": None if where == CROSS_VALIDATION else where,
            "folds": int(folds), "by": None if by == "(none)" else by}


def choose_criteria() -> lc.ValidationCriteria:
    defaults = lc.ValidationCriteria()
    with st.expander("Validation criteria", expanded=True, icon=":material/rule:"):
        st.caption("**These defaults are examples: set your own.** The guideline (Meuwly, Ramos & Haraksim 2017) "
                   "makes the criteria the laboratory's decision, fixed before the validation for the case type and "
                   "the data. A metric passes when it is below its criterion.")
        values = {}
        columns = st.columns(4)
        for position, (key, (label, in_percent, step)) in enumerate(CRITERIA.items()):
            default = getattr(defaults, key)
            shown = columns[position % 4].number_input(label, min_value=1e-6, value=100 * default if in_percent
                                                       else default, step=step, format="%g",
                                                       key=f"forensic_criterion_{key}", persist_state="session")
            values[key] = shown / 100 if in_percent else shown
    return lc.ValidationCriteria(**values)


@_state.cached()
def validated(system_id: str, dev_id: str | None, method: str | None, folds: int, by: str | None,
              _trials: lc.Trials, _dev: lc.Trials | None) -> lc.LRValidation:
    """The validation of one choice, keyed by the systems' ids (their Trials are never hashed); criteria are applied
    afterwards (``with_criteria``), so changing one recomputes nothing."""
    return lc.validate_lr_method(_trials, calibrate=method, calibrate_on=_dev, folds=folds, by=by)


# ----- the results --------------------------------------------------------------------------------------------------


def show_matrix(validation: lc.LRValidation, units: str) -> None:
    paragraphs = lc.report.validation_paragraphs(validation, units)
    (st.success if validation.passed else st.error)(lc.report.escape_markdown(paragraphs["conclusion"]),
                                                    icon=":material/gavel:")
    st.subheader("Validation matrix")
    frame = validation.to_frame(units).drop(columns=["value", "limit"])
    frame["decision"] = [lc.report.DECISION_WORDS[row.passes] for row in validation.rows]
    st.table(frame.set_index("characteristic"))


def show_numbers(validation: lc.LRValidation, units: str) -> None:
    table = validation.metrics_frame(units)
    for _, row in table.iterrows():
        st.markdown(f"**LRs {row['LLRs']}**")
        # one format for every number (words.number, words.percent), and boxes wide enough for the longest
        # (1.99e+305 bits): seven in a row overlapped at 1600 px
        cards = [("Cllr", f"{lc.report.number(row['Cllr (bits)'], 4)} bits"),
                 ("Cllr_min", f"{lc.report.number(row['Cllr_min (bits)'], 4)} bits"),
                 ("Cllr_cal", f"{lc.report.number(row['Cllr_cal (bits)'], 4)} bits"),
                 ("EER", lc.report.percent(row["EER %"] / 100)),
                 (f"devPAV ({UNITS[units]})", f"{row[f'devPAV ({units})']:.4g}"),  # 4 digits: never long
                 ("Same source, LR < 1", lc.report.percent(row["misleading same source %"] / 100)),
                 ("Different source, LR > 1", lc.report.percent(row["misleading different source %"] / 100))]
        for start in (0, 4):
            for cell, (label, value) in zip(st.columns(4), cards[start:start + 4]):
                cell.metric(label, value, border=True)


def show_figures(validation: lc.LRValidation, units: str) -> None:
    stages = {s.label: s for s in (validation.before, validation.after) if s is not None}
    left, right = st.columns(2, gap="medium")
    with left:
        show_figure(lambda: lc.plots.tippett_figure({label: s.tippett for label, s in stages.items()}, units=units),
                    "tippett",
                    "Solid: same source, dashed: different source; the rates of misleading evidence are in the legend.",
                    data=validation.before.tippett.to_frame)
    with right:
        odds = "log10-odds" if units == "log10" else "log-odds (ln)"
        show_figure(lambda: lc.plots.ece_figure({label: s.ece for label, s in stages.items()}, units=units), "ece",
                    f"At prior {odds} 0 the solid curve is Cllr and the dashed one Cllr_min.",
                    data=validation.before.ece.to_frame)


def show_tables(validation: lc.LRValidation, units: str) -> None:
    unit = "log10 LR" if units == "log10" else "ln LR"
    st.subheader("ELUB bounds")
    st.caption(f"The empirical lower and upper bounds (in {unit} and as LRs): LRs beyond them say more than the "
               "validation data can support.")
    bounds = validation.bounds_frame(units).rename(columns={"lower": f"lower ({unit})", "upper": f"upper ({unit})"})
    st.dataframe(bounds, hide_index=True, column_config={
        f"lower ({unit})": st.column_config.NumberColumn(format="%.3f"),
        f"upper ({unit})": st.column_config.NumberColumn(format="%.3f"),
        "lower LR": st.column_config.NumberColumn(format="%.4g"),
        "upper LR": st.column_config.NumberColumn(format="%.4g")})
    left, right = st.columns(2, gap="medium")
    with left:
        st.subheader("Misleading evidence")
        misleading = validation.misleading_frame()
        misleading["rate"] = [lc.report.percent(rate) for rate in misleading["rate"]]  # as the numbers above write it
        st.dataframe(misleading, hide_index=True, column_config={**count_columns("misleading", "trials"),
                                                                 "rate": st.column_config.TextColumn("rate")})
    with right:
        st.subheader("Verbal scale (ENFSI 2015)")
        st.caption("Bands of LR > 1 (support for the same-source proposition); the same bands of 1/LR support the "
                   "different-source one; LR = 1 supports neither.")
        st.dataframe(lc.verbal_scale_frame(units), hide_index=True, column_config={
            "LR from": st.column_config.NumberColumn(format="localized"),
            "LR to": st.column_config.NumberColumn(format="localized")})


def show_words(validation: lc.LRValidation, units: str) -> None:
    st.subheader("In plain words")
    paragraphs = lc.report.validation_paragraphs(validation, units)
    for characteristic in dict.fromkeys(metric.characteristic for metric in lc.VALIDATION_METRICS):
        st.markdown(f"**{characteristic.capitalize()}.** {lc.report.escape_markdown(paragraphs[characteristic])}")


def download(validation: lc.LRValidation, units: str, source: str) -> None:
    st.download_button(
        "Download validation report (HTML)", icon=":material/download:", type="primary", on_click="ignore",
        data=lambda: lc.report.build_validation_report(validation, source=source, units=units).to_html(),
        file_name="validation_report.html", mime="text/html", key="forensic_download",
    )
    st.caption("One self-contained file: the matrix, the figures, the bounds and the verbal scale, in words a "
               "lawyer can read; it opens offline in any browser.")


def main() -> None:
    st.title("Forensic validation")
    st.caption("Validate an LR method as the guideline of Meuwly, Ramos & Haraksim (2017) proposes: per performance "
               "characteristic a metric, a figure, a criterion and a decision, for the LRs as given and after "
               "calibration.")
    name = choose_system()
    if name is None:
        st.info("Nothing is loaded: load a forensic demo with a button above.")
        return
    system = SYSTEMS.sets()[name]
    units = llr_units()
    st.caption(f"LR values in **{UNITS[units]}** (the sidebar's \"LR values in\" sets it for every page).")
    calibration = choose_calibration(system.trials)
    criteria = choose_criteria()
    dev = SYSTEMS.sets()[calibration["dev"]] if calibration["dev"] else None
    try:
        with st.spinner("Calibrating and validating…"):
            validation = validated(system.id, dev.id if dev else None, calibration["method"], calibration["folds"],
                                   calibration["by"], system.trials, dev.trials if dev else None)
    except ValueError as error:
        st.error(f"This validation could not be made: {error}")
        return
    validation = validation.with_criteria(criteria)
    if validation.calibration_failure:  # a collapsed fit is no calibration: the LRs are judged as given
        st.error(f"**The calibration failed:** {lc.report.escape_markdown(validation.calibration_failure)}. The LRs "
                 "are judged as given; remove the far scores from the file, or choose PAV.", icon=":material/error:")
    show_matrix(validation, units)
    download(validation, units, system.source)
    show_numbers(validation, units)
    show_figures(validation, units)
    show_tables(validation, units)
    show_words(validation, units)


main()
