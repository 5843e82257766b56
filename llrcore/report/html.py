"""A report as one self-contained HTML page: plotly.js inlined once, the style sheet (``report.css``, package data)
inlined, a Content-Security-Policy that allows no network at all; every user string escaped. With intervals, a
metric and its interval share a cell, ``3.48 [3.26, 3.69]``; with conditions, a section has one table per system."""
from __future__ import annotations

import html
from datetime import UTC, datetime
from importlib import resources

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
from plotly.offline import get_plotlyjs

from .._format import format_errors
from ..binary.verdict import VERDICTS
from ..plots._style import system_colour
from ..uncertainty.conditions import RULE_OF_30
from .summary import TOPICS, SystemSummary, errors_interval, with_bounds

__all__ = ["figure_html", "html_page", "made_on", "render_html", "table_html", "writing_time"]

# No network at all, even if something in the page tried: scripts and styles only inline, images only inline data.
_CSP = ("default-src 'none'; script-src 'unsafe-inline' 'unsafe-eval'; style-src 'unsafe-inline'; "
        "img-src data: blob:; font-src data:; connect-src 'none'")

_GLOSSARY = (
    ("Likelihood ratio (LR)", "How much more probable the evidence is if the two samples share a source than if "
     "they do not. Systems report its natural logarithm, the LLR: 0 is neutral, positive supports the first "
     "hypothesis."),
    ("EER", "Equal error rate: the error rate at the threshold where misses and false alarms are equally frequent "
     "(on the ROC convex hull). It measures discrimination only."),
    ("minDCF / actDCF", "Detection cost at the operating point, divided by that of no system (1 = useless): "
     "minDCF with the best possible threshold, actDCF with the system's own LLRs and the Bayes threshold."),
    ("Cllr / minCllr", "Cost of the LLRs over all priors, in bits: 0 is perfect, 1 is a system that always says "
     "LLR = 0. minCllr is the Cllr after the best monotone recalibration (PAV) of these very trials."),
    ("Calibration loss", "Cllr − minCllr, here as a share of Cllr: what better calibration could still gain."),
    ("Cprimary", "NIST SRE'12 primary cost: the mean actDCF at P_target 0.01 and 0.001 (minCprimary: of minDCF)."),
    ("Errors per 100", "100 × the Bayes error rate at the (effective) prior: the errors out of 100 trials when "
     "deciding with the Bayes threshold, as in Brümmer, Ferrer & Swart (Interspeech 2021)."),
)

_TABLE_FORMATS = {
    "targets": "{:,.0f}", "non-targets": "{:,.0f}", "errors per 100": "{:.3g}",
    "errors per 100, perfect calibration": "{:.3g}", "EER %": "{:.2f}", "minDCF": "{:.4f}", "actDCF": "{:.4f}",
    "Cllr": "{:.4f}", "minCllr": "{:.4f}", "calibration loss %": "{:.1f}", "Cprimary": "{:.4f}",
    "minCprimary": "{:.4f}",
}


#: The columns of a table per condition.
_CONDITION_COLUMNS = ("targets", "non-targets", "EER %", "minDCF", "actDCF", "Cllr", "minCllr")
#: Figures drawn in a section of their own rather than under "Figures".
_OWN_SECTION = ("conditions",)


def _esc(value) -> str:
    return html.escape(str(value))


def _verdict_class(verdict: str) -> str:
    return {VERDICTS[0]: "good", VERDICTS[1]: "recalibrate"}.get(verdict, "unusable")


def _bars_html(summary: SystemSummary, non_answer: str, calibrated_colour: str) -> str:
    rows = [("This system", summary.errors_per_100, "", "")]
    if summary.calibration is not None:
        rows.append(("After calibration", summary.calibration.errors_per_100, "", f"background: {calibrated_colour}; "))
    rows += [("Perfectly calibrated", summary.min_errors_per_100, "ideal", ""),
             (f"No system (always “{non_answer}”)", summary.default_errors_per_100, "none", "")]
    top = max(row[1] for row in rows) or 1.0
    cells = "".join(
        f'<span>{_esc(label)}</span><div class="track"><div class="fill {kind}" style="{style}width:'
        f'{100 * value / top:.2f}%"></div></div><span class="value">{format_errors(value)}</span>'
        for label, value, kind, style in rows
    )
    return f'<div class="bars" role="img" aria-label="errors per 100 trials">{cells}</div>'


def _big_interval(report, summary: SystemSummary) -> str:
    """Under the big number, its interval: ``95 % BCa bootstrap interval: 0.31 to 0.43``."""
    interval = summary.extras.interval
    if interval is None:
        return ""
    _, lower, upper = with_bounds(summary.errors_per_100, *errors_interval(interval, report.operating_point))
    return f'<span class="unit range">{_esc(interval.interval_words)}: {_esc(lower)} to {_esc(upper)}</span>'


def _system_html(report, position: int, summary: SystemSummary) -> str:
    non_answer = report.class_names[1] if report.p_eff < 0.5 else report.class_names[0]
    figure_positions = {name: i for i, name in enumerate(report.calibrated_systems)}
    calibrated_colour = system_colour(figure_positions[summary.calibration.calibrated.name]) \
        if summary.calibration is not None else ""
    topics = []
    for topic, heading in TOPICS.items():
        parts = summary.paragraphs.get(topic)
        if topic == "tested" or not parts:
            continue
        text = summary.text(topic, "html", verdict=False)
        if topic == "trust":  # a badge says what the paragraph's bold verdict would
            text = f'<span class="verdict {_verdict_class(summary.verdict)}">{_esc(summary.verdict)}</span>{text}'

        topics.append(f'<p class="topic">{_esc(heading)}</p><p>{text}</p>')
    return f"""
<article class="system" style="--colour: {system_colour(position)}">
  <h3>{_esc(summary.name)}</h3>
  <p>{summary.text("tested", "html")}</p>
  <div class="glance">
    <div class="big"><span class="num">{format_errors(summary.errors_per_100)}</span>
      <span class="unit">errors out of 100 trials at your prior</span>{_big_interval(report, summary)}</div>
    {_bars_html(summary, non_answer, calibrated_colour)}
  </div>
  {"".join(topics)}
</article>"""


def table_html(frame: pd.DataFrame, formats: dict, css_class: str = "") -> str:
    head = "".join(f"<th>{_esc(c)}</th>" for c in [frame.index.name or "", *frame.columns])
    rows = []
    for index, row in frame.iterrows():
        cells = [f"<td>{_esc(index)}</td>"]
        for column, value in row.items():
            text = _cell(value, formats.get(column, "{}"))
            cells.append(f"<td>{_esc(text)}</td>")
        rows.append(f"<tr>{''.join(cells)}</tr>")
    return (f'<div class="scroll"><table class="{css_class}"><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table></div>")


def _cell(value, form: str) -> str:
    """A table cell's text: a number in its column's format, a missing one as a dash."""
    if isinstance(value, (float, np.floating)) and np.isnan(value):
        return "—"
    return form.format(value) if isinstance(value, (int, float, np.number)) else value


def _with_intervals(frame: pd.DataFrame) -> pd.DataFrame:
    """Each column that has ``<column> lower`` and ``<column> upper`` written ``value`` and, on a line of its own,
    ``[lower, upper]`` in its format (the value alone where the limits are missing), the limits' columns dropped."""
    shown = frame.copy()
    for column in frame.columns:
        if f"{column} lower" not in frame.columns:
            continue
        form = _TABLE_FORMATS.get(column, "{}")
        shown[column] = [_cell(value, form) + ("" if np.isnan(low) else f"\n[{form.format(low)}, {form.format(high)}]")
                         for value, low, high in zip(frame[column], frame[f"{column} lower"], frame[f"{column} upper"])]
    return shown.drop(columns=[c for c in frame.columns if c.endswith((" lower", " upper"))])


def _percent_eer(table: pd.DataFrame) -> pd.DataFrame:
    """The EER columns (value and limits) in percent, named ``EER %``."""
    columns = [c for c in ("EER", "EER lower", "EER upper") if c in table.columns]
    table[columns] = 100 * table[columns]
    return table.rename(columns={c: c.replace("EER", "EER %") for c in columns})


def _condition_table(summary: SystemSummary) -> str:
    """One system's table per condition: the conditions, then pooled; with intervals when there are."""
    result = summary.extras.conditions
    assert result is not None  # (a table for a breakdown)
    frame = result.to_frame(eer_percent=True, intervals=summary.extras.condition_intervals)
    labels = [row.label if row is result.pooled else ", ".join(map(str, row.values.values())) for row in result.rows]
    frame.index = pd.Index(labels, name=" × ".join(result.by))
    kept = [c for c in frame.columns if c.removesuffix(" lower").removesuffix(" upper") in _CONDITION_COLUMNS]
    shown = _with_intervals(frame[kept])
    shown["too few errors"] = ["one class only" if row.metrics is None else "yes" if row.too_few_errors else ""
                               for row in result.rows]
    return table_html(shown, _TABLE_FORMATS, "conditions")


def _conditions_html(report) -> str:
    """The section "Per <column>": a table per system and a sentence for its conditions that cannot say much, the
    systems not broken down, then the figure."""
    breakdown, resampling = report.breakdown, report.resampling
    if breakdown is None:
        return ""
    articles = []
    for position, summary in enumerate(report.summaries):
        if summary.extras.conditions is None:
            continue
        notes = "".join(f'<p class="note">{_esc(note)}</p>' for note in summary.extras.conditions.notes())
        articles.append(f'<article class="condition" style="--colour: {system_colour(position)}">'
                        f"<h3>{_esc(summary.name)}</h3>{_condition_table(summary)}{notes}</article>")
    lacking = (f"<p>Not broken down (no column {_esc(', '.join(map(repr, breakdown.by)))}): "
               f"{_esc(', '.join(breakdown.lacking))}.</p>" if breakdown.lacking else "")
    intervals = (f", each with its {resampling.interval_words} [lower, upper]"
                 if resampling is not None else "")
    figure = figure_html("conditions", report.figures["conditions"]) if "conditions" in report.figures else ""
    return f"""<section id="conditions"><h2>Per {_esc(breakdown.words)}</h2>
  <p>Each system's metrics for every {_esc(breakdown.words)}, then for all its trials pooled{intervals}. EER in %,
  costs normalised (1 = no system), Cllr in bits. “Too few errors”: fewer than {RULE_OF_30} misses or false alarms
  at the EER, so by the rule of 30 the error rates are not known to within ±30 %.</p>
  {"".join(articles)}{lacking}{figure}
</section>"""


def figure_html(key: str, item) -> str:
    return (f'<section class="figure" id="figure-{key}"><h3>{_esc(item.title)}</h3>'
            f'<div class="plot">{_plot_html(key, item.figure)}</div><p class="caption">{_esc(item.caption)}</p>'
            "</section>")


def _plot_html(key: str, fig: go.Figure) -> str:
    return pio.to_html(
        fig, full_html=False, include_plotlyjs=False, div_id=f"plot-{key}", default_width="100%",
        default_height=f"{int(fig.layout.height or 560)}px",
        config={"displaylogo": False, "responsive": True,
                "toImageButtonOptions": {"format": "png", "filename": key, "scale": 2}},
    )


def _css() -> str:
    """The style sheet, read from the package's ``report.css``."""
    return resources.files(__package__).joinpath("report.css").read_text(encoding="utf-8")


def writing_time() -> datetime:
    """Now, in the local time zone: the moment a report is written, which a cached report (the app's) may reach long
    after its analysis was built."""
    return datetime.now(UTC).astimezone()


def made_on(when: datetime) -> str:
    """The time a page says it was made, ``2026-11-27 10:17:05 UTC`` (to the second: two downloads a minute apart, or
    seconds apart, say so)."""
    return when.strftime("%Y-%m-%d %H:%M:%S %Z").strip()


def render_html(report, written=None) -> str:
    """The page of a :class:`~llrcore.report.Report`: summary, figures, every metric, settings and glossary; it says
    it was made at `written` (a datetime; default the report's ``created``)."""
    op = report.operating_point.describe()
    created = made_on(written or report.created)
    figures = "".join(figure_html(key, item) for key, item in report.figures.items() if key not in _OWN_SECTION)
    table = _with_intervals(_percent_eer(report.metrics_table()))
    intervals = (f" Each metric of a system as given has its {report.resampling.interval_words} [lower, upper] (the "
                 "column “interval method” names it for each metric); the calibrated rows have none."
                 if report.resampling is not None else "")
    conditions = _conditions_html(report)
    nav_conditions = (f'<a href="#conditions">Per {_esc(report.breakdown.words)}</a>'
                      if report.breakdown is not None else "")
    settings = pd.DataFrame({"value": list(report.settings.values())},
                            index=pd.Index(list(report.settings), name="setting"))
    sources = "".join(f"<li><strong>{_esc(s.name)}</strong>: {_esc(s.source or 'not given')}</li>"
                      for s in report.summaries)
    glossary = "".join(f"<dt>{_esc(term)}</dt><dd>{_esc(text)}</dd>" for term, text in _GLOSSARY)
    systems = "".join(_system_html(report, i, s) for i, s in enumerate(report.summaries))
    return html_page(report.title, report.version, f"""<header>
  <h1>{_esc(report.title)}</h1>
  <p class="meta">Operating point: {_esc(op)} · made with llrcore {_esc(report.version)} on {_esc(created)}</p>
  <nav><a href="#summary">Summary</a><a href="#figures">Figures</a>{nav_conditions}<a href="#metrics">All metrics</a>
  <a href="#settings">Settings</a><a href="#glossary">Glossary</a></nav>
</header>
<section id="summary">
  <p class="lead">How many errors does each system make, can the numbers it gives be taken at face value as
  likelihood ratios, and what does calibration change? An error is a {_esc(report.class_names[0])} trial the system
  misses or a {_esc(report.class_names[1])} trial it wrongly accepts, when it decides with its own likelihood
  ratios. The figures, every metric and the settings follow.</p>
  {systems}
</section>
<section id="figures"><h2>Figures</h2>{figures}</section>{conditions}
<section id="metrics"><h2>All metrics</h2>
  <p>At the operating point {_esc(op)}; EER in %, costs normalised (1 = no system), Cllr in bits. “Errors per
  100” are counted at the effective prior {_esc(f"{report.p_eff:.4g}")}.{intervals}</p>
  {table_html(table, _TABLE_FORMATS, "metrics")}
</section>
<section id="settings"><h2>Settings</h2>
  {table_html(settings, {}, "settings")}
  <p>Data:</p><ul>{sources}</ul>
</section>
<section id="glossary"><h2>Glossary</h2><dl class="glossary">{glossary}</dl></section>
<footer>Made with llrcore {_esc(report.version)} on {_esc(created)}. Everything in this file works offline.
Bayes error rates and their trapezium bound: N. Brümmer, L. Ferrer and A. Swart, “Out of a hundred trials, how many
errors does your speaker verifier make?”, Interspeech 2021. APE curves and Cllr: N. Brümmer and J. du Preez,
“Application-independent evaluation of speaker detection”, Computer Speech and Language 20, 2006.</footer>""")


def html_page(title: str, version: str, body: str, css: str = "") -> str:
    """One self-contained HTML page around `body` (HTML, already escaped): the escaped `title`, the report style
    sheet (and `css` after it) and plotly.js inlined, a Content-Security-Policy that allows no network."""
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{_CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="llrcore {_esc(version)}">
<title>{_esc(title)}</title>
<style>
{_css()}{css}</style>
<script>{get_plotlyjs()}</script>
</head>
<body>
<main>
{body}
</main>
</body>
</html>
"""
