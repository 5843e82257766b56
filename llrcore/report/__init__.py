"""A report for non-specialists: plain-language summary, figures, full metrics, in one self-contained HTML file.

:func:`build_report` computes everything once (one sort and one PAV per system, through ``Trials.sorted``) and
returns a :class:`Report`: the summary as data (numbers and sentences), the metrics table, the settings, and the
figures on demand. :meth:`Report.to_html` writes one HTML file with plotly.js inlined once: it opens offline, in
any browser, years from now.

The summary answers, per system, the questions of Brümmer, Ferrer & Swart (2021): out of 100 trials at your prior,
how many errors does the system make (its Bayes error rate, times 100), how many would it make with perfect
calibration (the minimum Bayes error rate, PAV/ROCCH) and how many without it (deciding from the prior alone,
``min(P, 1 - P)``)? Then whether its scores can be read as likelihood ratios (:func:`~llrcore.binary.verdict.llr_verdict`, the one
verdict the app and the command line give too) and what a calibration trained on development data (or cross-validated) changes.

With costs other than 1 the errors are counted at the effective prior
``P_eff = sigmoid(logit(P_target) + log(C_miss / C_fa))``, the prior whose error-minimising decisions are the
operating point's cost-minimising ones.

References
----------
N. Brümmer, L. Ferrer and A. Swart, "Out of a hundred trials, how many errors does your speaker verifier make?",
Interspeech 2021.
N. Brümmer and J. du Preez, "Application-independent evaluation of speaker detection", CSL 20, 2006.

When asked (``build_report(by=..., ci=0.95)``), the report also says how sure its numbers are (bootstrap intervals
in words, in its tables and as DET bands) and what they are condition by condition (a table per system, a figure, and
a sentence for conditions too small to say much).

Modules: :mod:`~llrcore.report.summary` (the summary as numbers and sentences), :mod:`~llrcore.report.conditions`
(the breakdown and the bootstrap runs), :mod:`~llrcore.report.figures`,
:mod:`~llrcore.report.html` (the page; its style sheet is ``report.css``), :mod:`~llrcore.report.document`
(:class:`Report` and :func:`build_report`) and :mod:`~llrcore.report.words`; :func:`build_validation_report` writes a
forensic validation report.

The words every front end writes the same way are here too: numbers (:func:`number`, :func:`percent`, :func:`bits`,
:func:`format_errors`, :func:`errors_phrase`, :func:`with_interval`, :data:`LARGEST_FIXED`), :func:`per_100`,
:func:`listed`, :func:`describe_calibration` and :func:`escape_markdown` for a user's string in Markdown
(``lc.report.number(x)``).
"""

from .._format import LARGEST_FIXED, bits, errors_phrase, format_errors, listed, number, percent, with_interval
from ..binary.verdict import VERDICTS
from ..teaching.decisions import per_100
from .document import Report, build_report
from .figures import ReportFigure
from .summary import CalibrationSummary, SystemSummary
from .validation import DECISION_WORDS, build_validation_report, validation_paragraphs
from .words import describe_calibration, escape_markdown

__all__ = [
    "DECISION_WORDS",
    "LARGEST_FIXED",
    "VERDICTS",
    "CalibrationSummary",
    "Report",
    "ReportFigure",
    "SystemSummary",
    "bits",
    "build_report",
    "build_validation_report",
    "describe_calibration",
    "errors_phrase",
    "escape_markdown",
    "format_errors",
    "listed",
    "number",
    "per_100",
    "percent",
    "validation_paragraphs",
    "with_interval",
]
