"""A validation report in the form of the forensic guideline: one self-contained HTML file a lawyer can read.

:func:`build_validation_report` takes an :class:`~llrcore.forensic.LRValidation` (or trials, validated here with
:func:`~llrcore.forensic.validate_lr_method`) and returns a :class:`ValidationReport`: the system and the data
described, the validation matrix of Meuwly, Ramos & Haraksim (2017) — per performance characteristic the metric, the
figure, the validation criterion, the values as given and after calibration, and the decision in words — the Tippett,
ECE, DET and calibration figures, the ELUB bounds in log10 and as LRs, the ENFSI verbal scale, and one paragraph per
characteristic in plain language (:func:`validation_paragraphs`, which the app shows too). The page is the report
engine's (:func:`~llrcore.report.html.html_page`: style sheet and plotly.js inlined, no network); every user string
is escaped.
"""
from __future__ import annotations

import html
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property

import numpy as np
import pandas as pd

from .._version import __version__
from ..data.trials import Trials
from ..forensic.criteria import check_units
from ..forensic.units import from_log10
from ..forensic.validation import CHARACTERISTICS, LRValidation, ValidationRow, validate_lr_method, verbal_scale_frame
from ..plots import det_figure
from ..plots.calibration import calibration_transform_figure
from ..plots.forensic import ece_figure, tippett_figure
from ..plots.uncertainty import condition_figure
from .._format import bits
from .figures import ReportFigure
from .html import figure_html, html_page, made_on, table_html, writing_time

__all__ = ["ValidationReport", "build_validation_report", "validation_paragraphs"]

#: The decision of a row in words, for the matrix and the paragraphs.
DECISION_WORDS = {True: "passes", False: "does not pass", None: "no criterion set"}
_REFERENCES = (
    "D. Meuwly, D. Ramos and R. Haraksim, “A guideline for the validation of likelihood ratio methods used for forensic"
    " evidence evaluation”, Forensic Science International 276 (2017) 142–153. G. S. Morrison et al., “Consensus on "
    "validation of forensic voice comparison”, Science & Justice 61 (2021) 299–309. P. Vergeer et al., “Numerical "
    "likelihood ratios outputted by LR systems are often based on extrapolation: when to stop extrapolating?”, Science "
    "& Justice 56 (2016) 482–491 (ELUB bounds); “Measuring calibration of likelihood-ratio systems”, Forensic Science "
    "International 321 (2021) 110722 (devPAV). D. Ramos and J. González-Rodríguez, “Reliable support: measuring "
    "calibration of likelihood ratios”, Forensic Science International 230 (2013) 156–169 (ECE). ENFSI guideline for "
    "evaluative reporting in forensic science (2015), its verbal scale."
)


def _value(row: ValidationRow, value: float, units: str) -> str:
    if np.isnan(value):
        return "cannot be computed"
    if row.metric.unit == "%":
        return f"{100 * value:.3g} %"
    if row.metric.unit == "log10":  # devPAV scales as the LLRs do: ln 10 times larger in natural-log units
        return f"{value:.3g} log10 units" if units == "log10" else f"{from_log10(value):.3g} natural-log units"
    return f"{bits(value)} bits"


def _judged(row: ValidationRow, units: str) -> str:
    """``"below the criterion of 0.3 bits: it passes"``, or that no criterion is set."""
    if row.criterion is None:
        return "no criterion is set"
    side = "below" if row.passes else "not below"
    return f"{side} the criterion of {_value(row, row.criterion, units)}: it {DECISION_WORDS[row.passes]}"


def _stated(row: ValidationRow, units: str) -> str:
    """``"0.553 bits, not below the criterion of 0.3 bits: it does not pass"``."""
    return f"{_value(row, row.value, units)}, {_judged(row, units)}"


def validation_paragraphs(validation: LRValidation, units: str = "log10") -> dict[str, str]:
    """One paragraph per performance characteristic, and ``"conclusion"``, in plain language (plain text; the names
    in it come from the data and must be escaped by whoever shows them).

    Each says what the characteristic means, the value of the validated LLRs (after calibration when there is one)
    against its criterion, and whether it passes. `units` (``"log10"`` or ``"ln"``) is how devPAV is stated, as in
    the matrix (``LRValidation.to_frame(units)``).
    """
    check_units(units)
    v, stage = validation, validation.validated
    rows = {row.metric.key: row for row in v.rows}
    which = "after calibration" if v.calibrated else "as given"
    t = stage.tippett
    texts = {
        "accuracy": (
            "Accuracy asks whether the likelihood ratios (LRs) are right: large when the two items share a source, "
            "small when they do not, and of the right size. It is measured by Cllr, 0 for a perfect method and 1 bit "
            f"for one that always says LR = 1 (no evidence either way). The LRs {which} have Cllr "
            f"{_stated(rows['cllr'], units)}."
        ),
        "discriminating power": (
            "Discriminating power asks how well the method tells same-source from different-source comparisons "
            "apart, whatever the size of its LRs. At its best threshold it confuses them in "
            f"{_value(rows['eer'], rows['eer'].value, units)} of the comparisons (the equal error rate), "
            f"{_judged(rows['eer'], units)}. After the best possible calibration its Cllr would be "
            f"{_stated(rows['min_cllr'], units)} (Cllr_min)."
        ),
        "calibration": (
            "Calibration asks whether an LR means what it says: whether an LR of 100 is really found 100 times more "
            "often for same-source than for different-source comparisons. The part of Cllr lost to poor calibration, "
            f"Cllr_cal, is {_stated(rows['cllr_cal'], units)}; devPAV, the average distance of the LRs from the "
            f"best calibrated ones, is {_stated(rows['devpav'], units)}. Misleading evidence: "
            f"{t.n_misleading_same_source:,} of {t.n_tar:,} same-source comparisons got an LR below 1, "
            f"{_stated(rows['misleading_same_source'], units)}; {t.n_misleading_different_source:,} of {t.n_non:,} "
            f"different-source comparisons got an LR above 1, {_stated(rows['misleading_different_source'], units)}."
        ),
    }
    if "condition_cllr" in rows:
        row = rows["condition_cllr"]
        texts["robustness"] = (
            f"Robustness asks whether the method works as well in every condition (here by {' × '.join(v.by)}). "
            f"The condition where it does worst, {row.condition or 'none with both kinds of comparison'}, has Cllr "
            f"{_stated(row, units)}."
        )
    else:
        texts["robustness"] = (
            "Robustness (whether the method works as well in every condition of casework) was not assessed: the "
            "comparisons were not broken down by condition."
        )
    before = sum(row.passes_before is True for row in v.rows)
    as_given = (f" Taken as given, before calibration, the LRs pass {before} of the {v.judged} criteria."
                if v.calibrated else "")
    texts["conclusion"] = (
        f"{v.sentence()}{as_given} The criteria are those the "
        "laboratory set for this validation; the guideline leaves them to the laboratory, to be fixed before the "
        "validation for the kind of case and data."
    )
    return texts


@dataclass(frozen=True, eq=False)
class ValidationReport:
    """Everything the validation report shows; :attr:`html` is the page, :meth:`write` saves it."""

    validation: LRValidation
    title: str
    source: str
    description: str
    units: str
    command: str
    created: datetime
    version: str

    @cached_property
    def figures(self) -> dict[str, ReportFigure]:
        """``key -> ReportFigure``: Tippett, ECE, DET, calibration vs PAV and, with conditions, Cllr per condition;
        the LLRs as given and after calibration in each."""
        v, units = self.validation, self.units
        stages = {s.label: s for s in (v.before, v.after) if s is not None}
        said = "log10 LR" if units == "log10" else "natural-log LR (ln)"
        figures = {
            "tippett": ReportFigure(
                "Tippett plot", "How often do the LRs point the right way, and how strongly?",
                tippett_figure({label: s.tippett for label, s in stages.items()}, units=units),
                f"For each value of {said} along the bottom, the share of same-source comparisons (solid) and of "
                "different-source comparisons (dashed) with an LR at least that large. Left of the vertical line "
                "(LR = 1) a same-source LR is misleading, right of it a different-source one; the shares are in the "
                "legend."),
            "ece": ReportFigure(
                "ECE plot", "How much information do the LRs give, whatever the prior odds?",
                ece_figure({label: s.ece for label, s in stages.items()}, units=units),
                "The information still missing after the LRs (empirical cross-entropy, lower is better) for every "
                "prior odds along the bottom; at prior odds 1 (the vertical line) it is Cllr. The dashed curves are "
                "the best calibration could do; the dotted one is an LR of 1, no evidence: a solid curve above it "
                "is worse than no evidence at those prior odds."),
            "det": ReportFigure(
                "DET plot", "How well are same-source and different-source comparisons told apart?",
                det_figure({label: s.trials for label, s in stages.items()}),
                "Each curve shows, for every threshold, the share of same-source comparisons missed (up) against the "
                "share of different-source comparisons wrongly accepted (right): the nearer the bottom-left corner, "
                "the better. The circle is the equal error rate."),
            "calibration": ReportFigure(
                "Calibration vs PAV", "Do the LRs mean what they say?",
                calibration_transform_figure({label: s.trials for label, s in stages.items()}, units=units),
                f"Each curve compares the {said} a comparison received (across) with the best-calibrated one "
                "these comparisons support (up, found by PAV): on the diagonal an LR means exactly what it says. "
                f"devPAV is the average distance from the diagonal, in {'log10' if units == 'log10' else 'natural-log'}"
                " units."),
        }
        conditions = {label: s.conditions for label, s in stages.items() if s.conditions is not None}
        if conditions:
            figures["conditions"] = ReportFigure(
                "Cllr per condition", f"Is it as good for every {' × '.join(v.by)}?",
                condition_figure(conditions, "cllr"),
                "The Cllr of each condition (circles) and of all comparisons pooled (diamonds): lower is better. A "
                "condition far above the pooled value is where the method struggles.")
        return figures

    def paragraphs(self) -> dict[str, str]:
        """:func:`validation_paragraphs` of the validation."""
        return validation_paragraphs(self.validation, self.units)

    @property
    def html(self) -> str:
        """:meth:`to_html` written now."""
        return self.to_html()

    def to_html(self, *, written: datetime | None = None) -> str:
        """The report as one self-contained HTML page.

        The page says when it was made: `written`, by default now (the moment the file is written, which a cached
        report, e.g. the app's, may write long after :attr:`created`), as :meth:`llrcore.report.Report.to_html`."""
        return _render(self, written or writing_time())

    def write(self, path) -> None:
        """Write :meth:`to_html` to `path` (UTF-8)."""
        with open(path, "w", encoding="utf-8") as out:
            out.write(self.to_html())


def build_validation_report(validation: LRValidation | Trials, *, title: str | None = None, source: str = "",
                            description: str = "", units: str = "log10", command: str | None = None,
                            **validate_options) -> ValidationReport:
    """The validation report of an LR method.

    Parameters
    ----------
    validation : LRValidation or Trials
        A validation (:func:`~llrcore.forensic.validate_lr_method`), or the validation trials' natural-log LLRs,
        validated here with `validate_options` (``calibrate=``, ``calibrate_on=``, ``criteria=``, ``by=``, ...).
    title : str, optional
        Default ``"Validation report: <method name>"``.
    source : str
        Where the data came from (a file, a data set).
    description : str
        The method and the data in the user's words (the LR system, the case type, the comparisons).
    units : {"log10", "ln"}
        How LR values (ELUB bounds, devPAV, verbal scale bands) are written besides the LRs themselves.
    command : str, optional
        The command that made the report, shown under "How to reproduce".
    """
    if isinstance(validation, Trials):
        validation = validate_lr_method(validation, **validate_options)
    elif validate_options:
        raise TypeError("Options of the validation go with trials, not with a finished LRValidation.")
    verbal_scale_frame(units)  # checks the units
    title = title or f"Validation report: {validation.name or 'LR method'}"
    return ValidationReport(validation=validation, title=title,
                            source=source, description=description, units=units, command=command or "",
                            created=writing_time(), version=__version__)


# ----- the page -----------------------------------------------------------------------------------------------------


#: The validation matrix reads left to right, like text.
_CSS = "table.matrix th, table.matrix td { text-align: left; }\n"


def _esc(value) -> str:
    return html.escape(str(value))


def _matrix(v: LRValidation, units: str) -> pd.DataFrame:
    frame = v.to_frame(units)
    shown = pd.DataFrame({
        "performance metric": frame["metric"].to_numpy(), "graphical representation": frame["figure"].to_numpy(),
        "validation criterion": frame["criterion"].to_numpy(), "as given": frame["as given"].to_numpy(),
    }, index=pd.Index(frame["characteristic"].to_numpy(), name="performance characteristic"))
    if v.calibrated:
        shown["after calibration"] = frame["after calibration"].to_numpy()
    shown["validation decision"] = [DECISION_WORDS[row.passes] for row in v.rows]
    return shown


def _described(report: ValidationReport) -> str:
    v = report.validation
    stage = v.before
    facts = {
        "LR method": v.name or "not named",
        "data": report.source or "not given",
        "comparisons": (f"{stage.tippett.n_tar:,} same-source (H1 true) and {stage.tippett.n_non:,} different-source "
                        "(H2 true)"),
        "calibration": v.calibration_words,
        "LR values written as": "log10 LR" if report.units == "log10" else "natural-log LR (ln)",
    }
    if v.by:
        facts["conditions"] = " × ".join(v.by)
    rows = "".join(f"<tr><th>{_esc(k)}</th><td>{_esc(value)}</td></tr>" for k, value in facts.items())
    about = f"<p>{_esc(report.description)}</p>" if report.description else ""
    return f'{about}<div class="scroll"><table class="settings"><tbody>{rows}</tbody></table></div>'


def _bounds(report: ValidationReport) -> str:
    v, units = report.validation, report.units
    frame = v.bounds_frame(units).set_index("bounds of")
    unit = "log10 LR" if units == "log10" else "ln LR"
    frame = frame.rename(columns={"lower": f"lower ({unit})", "upper": f"upper ({unit})"})
    formats = {f"lower ({unit})": "{:.3f}", f"upper ({unit})": "{:.3f}", "lower LR": "{:.4g}", "upper LR": "{:.4g}"}
    bounds = v.fold_bounds[0] if len(v.fold_bounds) == 1 else v.bounds
    limit = (" The calibrated method reports any LR beyond the bounds of its training data as that bound: LRs "
             "never go further than the data can support.") if v.calibrated else ""
    return ("<p>How large an LR can these validation data support? Beyond the empirical lower and upper bounds (ELUB, "
            "Vergeer et al. 2016) an LR says more than the data can show: here between "
            f"1/{1 / 10 ** bounds.lower_log10:.3g} and {10 ** bounds.upper_log10:.3g} "
            f"(log10 {bounds.lower_log10:+.2f} to {bounds.upper_log10:+.2f})."
            f"{limit}</p>{table_html(frame, formats, 'metrics')}")


def _verbal(report: ValidationReport) -> str:
    frame = verbal_scale_frame(report.units)
    frame.index = pd.Index([f"band {i + 1}" for i in range(len(frame))], name="")
    formats = {c: "{:g}" for c in frame.columns if c != "support"}
    formats.update({"LR from": "{:,.0f}", "LR to": "{:,.0f}"})
    return ("<p>The ENFSI guideline's words for the size of an LR. An LR above 1 supports the same-source proposition "
            "rather than the different-source one by the words of its band; the same bands of 1/LR give the support "
            "for the different-source proposition; LR = 1 supports neither. The words describe the strength of the "
            "findings, never the probability that a proposition is true.</p>"
            f"{table_html(frame, formats, 'metrics')}")


def _render(report: ValidationReport, written: datetime) -> str:
    v = report.validation
    created = made_on(written)
    paragraphs = validation_paragraphs(v, report.units)
    verdict_class, verdict = ("good", "passes") if v.passed else ("unusable", "does not pass")
    plain = "".join(f'<p class="topic">{_esc(c)}</p><p>{_esc(paragraphs[c])}</p>' for c in CHARACTERISTICS)
    figures = "".join(figure_html(key, item) for key, item in report.figures.items())
    reproduce = (f"<p>How to reproduce:</p><pre>{_esc(report.command)}</pre>" if report.command else "")
    return html_page(report.title, report.version, f"""<header>
  <h1>{_esc(report.title)}</h1>
  <p class="meta">{_esc(v.name)} · made with llrcore {_esc(report.version)} on {_esc(created)}</p>
  <nav><a href="#conclusion">Conclusion</a><a href="#matrix">Validation matrix</a><a href="#plain">In plain words</a>
  <a href="#figures">Figures</a><a href="#elub">Limits of the LRs</a><a href="#verbal">Verbal scale</a>
  <a href="#tested">What was tested</a></nav>
</header>
<section id="conclusion">
  <p class="lead"><span class="verdict {verdict_class}">{verdict}</span>{_esc(paragraphs["conclusion"])}</p>
</section>
<section id="matrix"><h2>Validation matrix</h2>
  <p>As the guideline of Meuwly, Ramos &amp; Haraksim (2017) sets it out: for each performance characteristic, the
  metric that measures it, the figure that shows it, the criterion the laboratory set and the decision. The decision
  is about the LRs {"after calibration" if v.calibrated else "as given"}; the values of the LRs as given are there to
  compare. A value passes when it is below its criterion.</p>
  {table_html(_matrix(v, report.units), {}, "matrix")}
</section>
<section id="plain"><h2>In plain words</h2>{plain}</section>
<section id="figures"><h2>Figures</h2>{figures}</section>
<section id="elub"><h2>Limits of the LRs</h2>{_bounds(report)}</section>
<section id="verbal"><h2>Verbal scale</h2>{_verbal(report)}</section>
<section id="tested"><h2>What was tested</h2>{_described(report)}{reproduce}</section>
<footer>Made with llrcore {_esc(report.version)} on {_esc(created)}. Everything in this file works offline.
{_esc(_REFERENCES)}</footer>""", _CSS)
