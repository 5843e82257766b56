"""One self-contained HTML page of a classifier's calibration (:func:`~llrcore.classifier_calibration`): the numbers
in words, the tables, the CORP reliability diagram with its band, the ``MCB - DSC + UNC`` bars, the binned and the
smooth reliability diagrams and the risk-coverage curve, raw and after temperature scaling. The command line writes
it (``llrcore classifier --html``), the app's page offers it as a download."""
from __future__ import annotations

from datetime import datetime

from .._version import __version__
from ..multiclass.classifier import ClassifierCalibration
from ..plots import reliability, selective
from .figures import ReportFigure
from .html import _esc, figure_html, html_page, made_on, table_html, writing_time

__all__ = ["classifier_report_html"]

#: How each column of the table is written.
FORMATS = {"temperature": "{:.3f}", "nll": "{:.4f}", "ece": "{:.2%}", "mce": "{:.2%}", "smece": "{:.2%}",
           "aurc": "{:.2%}", "e_aurc": "{:.2%}", "mean_score": "{:.4g}", "MCB": "{:.4g}", "DSC": "{:.4g}",
           "UNC": "{:.4g}"}


def classifier_report_html(result: ClassifierCalibration, name: str = "classifier", written: datetime | None = None
                           ) -> str:
    """The page for `result` of the classifier `name`, stamped with the time it was `written`.

    Parameters
    ----------
    result : ClassifierCalibration
        What :func:`~llrcore.classifier_calibration` gives: CORP and binned reliability, raw and temperature-scaled.
    name : str
        The classifier's name, shown in the title (escaped).
    written : datetime, optional
        When the page says it was made; default now.

    Returns
    -------
    str
        One self-contained HTML page: the numbers in words, the two tables and the five figures.
    """
    figures = {
        "corp": ReportFigure("CORP", "Can its probabilities be taken at their word?", reliability.corp_figure(result.corp),
                             "The PAV-recalibrated probability against the forecast: on the diagonal, a forecast of "
                             "70 % comes true 70 % of the time. Grey: where a calibrated forecaster's curve falls."),
        "decomposition": ReportFigure("MCB - DSC + UNC", "What does its score consist of?",
                                      reliability.decomposition_figure(result.corp),
                                      "Miscalibration (what recalibration would remove), discrimination (what the "
                                      "forecasts know) and uncertainty (the task's own); the score is MCB - DSC + UNC."),
        "binned": ReportFigure("Binned", "And as ML papers draw it?", reliability.binned_figure(result.binned),
                               "Each bin's accuracy against its mean confidence; the ECE is the weighted gap. It moves "
                               "with the number of bins, CORP does not."),
        "smooth": ReportFigure("Smooth", "And without bins?", reliability.smooth_figure(result.smooth),
                               "The outcomes averaged by a Gaussian kernel around each forecast (Błasiok & Nakkiran): "
                               "the smooth ECE is the mean distance to the diagonal, with no bins to choose."),
        "risk_coverage": ReportFigure("Risk-coverage", "Do its most confident answers err least?",
                                      selective.risk_coverage_figure(result.selective),
                                      "Accepting the most confident predictions first, the share of wrong ones "
                                      "among those accepted; AURC is the area under the curve, E-AURC what is lost "
                                      "to the ideal ranking."),
    }
    words = [" ".join([result.corp[version].sentence(), result.errors[version].sentence(),
                       result.smooth[version].sentence(), result.selective[version].sentence()])
             for version in result.corp]
    temperature = (f"Temperature scaling: T = {result.temperature.temperature:.3f}, fitted on these trials (the "
                   "'scaled' numbers are the best one temperature can do here)." if result.temperature is not None
                   else f"No temperature was fitted: {result.temperature_problem}")
    body = (f"<h1>Calibration of {_esc(name)}</h1><p class=\"meta\">{_esc(made_on(written or writing_time()))}; "
            f"accuracy {100 * result.accuracy:.2f} %.</p>"
            + "".join(f"<p>{_esc(version)}: {_esc(text)}</p>" for version, text in zip(result.corp, words))
            + f"<p>{_esc(temperature)}</p>"
            + table_html(result.to_frame().set_index("version"), FORMATS)
            + table_html(result.errors_frame().set_index("measure"), dict.fromkeys(result.errors, "{:.2%}"))
            + "".join(figure_html(key, item) for key, item in figures.items()))
    return html_page(f"Calibration of {name}", __version__, body)
