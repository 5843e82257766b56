"""The figures of a report, each with its title as a question and a caption for non-specialists."""
from __future__ import annotations

from dataclasses import dataclass

import plotly.graph_objects as go

from .. import plots
from ..prior import OperatingPoint
from ..plots.calibration import calibration_transform_figure
from ..plots.uncertainty import condition_figure, with_det_bands
from .summary import likely

__all__ = ["ReportFigure", "report_figures"]


@dataclass(frozen=True)
class ReportFigure:
    """A figure of the report: a short label (``"DET"``), its title as a question, the figure and a two-sentence
    caption for non-specialists."""

    label: str
    title: str
    figure: go.Figure
    caption: str


def report_figures(report) -> dict[str, ReportFigure]:
    """The figures of a :class:`~llrcore.report.Report`: DET (with each system's confidence band when the report
    has intervals), Bayes error with its trapezium, APE, calibration against PAV, score histograms and, when the
    report breaks the systems down, the EER per condition, at the report's operating point."""
    systems, both = report.systems, report.calibrated_systems
    tar_name, non_name = report.class_names
    op = report.operating_point
    bands = {name: interval.det_band for name, interval in report.intervals.items()}
    figures = {
        "det": ReportFigure(
            "DET",
            "How often does it miss, and how often does it raise a false alarm?",
            with_det_bands(plots.det_figure(systems, p_target=op), bands, list(systems)),
            f"Each curve shows the share of {tar_name} trials the system misses (up) against the share of {non_name} "
            "trials it wrongly accepts (right), for every possible decision threshold: the nearer the bottom-left "
            "corner, the better. The circle marks the equal error rate (EER), the diamond the best threshold at "
            "your operating point and the star where the system's own likelihood ratios decide."
            + (f" The shaded band around each curve is where it would {likely(report.resampling.level)} lie with "
               f"many more trials like these ({100 * report.resampling.level:g} % bootstrap band)." if bands else ""),
        ),
        "bayes_error": ReportFigure(
            "Bayes error",
            "Out of 100 trials, how many errors at every prior?",
            plots.bayes_error_trapezium_figure(systems, p_target=OperatingPoint(report.p_eff)),
            "The error rate when the scores are used as likelihood ratios (solid), with perfect calibration "
            "(dashed) and without any system (dotted), for every proportion of targets along the bottom; the "
            "numbers of the summary are marked on the vertical line. The shaded trapezium is the limit the equal "
            "error rate sets: perfect calibration always stays inside it.",
        ),
        "ape": ReportFigure(
            "APE",
            "How much is lost to calibration over all priors?",
            plots.ape_figure(both),
            "The same error rates on a linear scale: the area under each solid curve is the system's Cllr, the "
            "overall cost of its likelihood ratios, and the area under the dashed curve its minimum, minCllr. The "
            "bars split Cllr into what the scores cannot tell apart (solid) and what calibration loses (hatched).",
        ),
        "calibration": ReportFigure(
            "Calibration vs PAV",
            "Do its likelihood ratios mean what they say?",
            calibration_transform_figure(both, p_target=op),
            "Each curve compares the log-likelihood ratio a trial received (across) with the best one these trials "
            "support (up, found by PAV): on the diagonal, a likelihood ratio means exactly what it says. Where a "
            "curve is flatter than the diagonal the system overstates the evidence, where it is steeper it "
            "understates it.",
        ),
        "scores": ReportFigure(
            "Score histograms",
            "How far apart are the scores of the two kinds of trial?",
            plots.score_histogram_figure(systems),
            f"Histograms of the scores of {tar_name} trials and {non_name} trials: the less they overlap, the "
            "better the system tells them apart. Calibrated scores are log-likelihood ratios, mostly above 0 for "
            f"{tar_name} trials and below 0 for {non_name} trials.",
        ),
    }
    if report.breakdown is not None:
        figures["conditions"] = _conditions_figure(report)
    return figures


def _conditions_figure(report) -> ReportFigure:
    """The EER of every condition, with its interval when the report has intervals."""
    results = {s.name: s.extras.conditions for s in report.summaries if s.extras.conditions is not None}
    intervals = {s.name: s.extras.condition_intervals for s in report.summaries if s.extras.condition_intervals}
    by = report.breakdown.words
    bars = (f" The bars show where each would {likely(report.resampling.level)} lie with many more trials like these "
            f"({100 * report.resampling.level:g} % bootstrap intervals)." if intervals else "")
    figure = condition_figure(results, "eer", intervals=intervals or None, order=[s.name for s in report.summaries])
    return ReportFigure(
        "EER per condition",
        f"Is it as good for every {by}?",
        figure,
        f"The equal error rate of each system for every {by} (circles) and for all its trials pooled (diamonds): "
        f"lower is better. A condition far above the pooled value is where the system struggles.{bars}",
    )
