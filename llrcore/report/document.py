"""A report as one object: :func:`build_report` computes it, :class:`Report` holds it and writes it as HTML."""
from __future__ import annotations

import platform
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from typing import cast

import numpy as np
import pandas as pd
import plotly

from .._deprecation import old_spellings
from .._version import __version__
from ..binary.metrics import effective_plo
from ..binary.tables import metrics_table
from ..calibration.analysis import METHODS
from ..calibration.rules import BetaRule
from ..data.trials import Systems, Trials, as_systems
from ..plots._operating_point import OPERATING_POINT
from ..prior import OperatingPoint, as_operating_point, sigmoid
from .conditions import Breakdown, Resampling, resample
from .figures import ReportFigure, report_figures
from .html import render_html, writing_time
from .summary import (
    CROSS_VALIDATION_FOLDS,
    ERRORS,
    MIN_ERRORS,
    TOPICS,
    SystemExtras,
    SystemSummary,
    development_set,
    errors_interval,
    summarise,
    summarise_calibration,
)
from .words import describe_calibration, escape_markdown

__all__ = ["Report", "build_report"]

DEFAULT_P_TARGET = 0.01  # the operating point of a report when none is given (unit costs)


@dataclass(frozen=True, eq=False)
class Report:
    """Everything a report shows; build it with :func:`build_report`, write it with :meth:`to_html`."""

    title: str
    summaries: tuple[SystemSummary, ...]
    operating_point: OperatingPoint
    class_names: tuple[str, str]
    settings: dict
    created: datetime
    version: str
    breakdown: Breakdown | None = None
    resampling: Resampling | None = None

    @property
    def p_target(self) -> float:
        """``operating_point.p_target``."""
        return self.operating_point.p_target

    @property
    def c_miss(self) -> float:
        """``operating_point.c_miss``."""
        return self.operating_point.c_miss

    @property
    def c_fa(self) -> float:
        """``operating_point.c_fa``."""
        return self.operating_point.c_fa

    @property
    def plo_eff(self) -> float:
        """Effective prior log-odds ``logit(P_target) + log(C_miss / C_fa)``."""
        return self.operating_point.plo_eff

    @property
    def p_eff(self) -> float:
        """Effective prior: the errors of the summary are counted at this prior."""
        return self.operating_point.p_eff

    @property
    def systems(self) -> dict[str, Trials]:
        """The systems as given (scores as they are)."""
        return {s.name: s.trials for s in self.summaries}

    @property
    def calibrated_systems(self) -> dict[str, Trials]:
        """The systems as given, then the calibrated ones: a system keeps its colour (set by its position) in every
        figure, whether or not calibrated versions are drawn with it."""
        out = self.systems
        out.update({s.calibration.calibrated.name: s.calibration.calibrated for s in self.summaries
                    if s.calibration is not None})
        return out

    def to_frame(self) -> pd.DataFrame:
        """:meth:`metrics_table`: one row per system, and one per calibrated system."""
        return self.metrics_table()

    def metrics_table(self) -> pd.DataFrame:
        """The full metrics table (:func:`~llrcore.metrics_table`, calibrated rows included) with the errors per 100
        trials at the effective prior. With intervals, each metric of a system as given has ``<column> lower`` and
        ``<column> upper`` after it (the calibrated rows have none: NaN)."""
        rows, errors, min_errors = [], [], []
        for s in self.summaries:
            rows.append(s.metrics)
            errors.append(s.errors_per_100)
            min_errors.append(s.min_errors_per_100)
            if s.calibration is not None:
                rows.append(s.calibration.metrics)
                errors.append(s.calibration.errors_per_100)
                min_errors.append(s.calibration.min_errors_per_100)
        intervals = self.intervals
        table = metrics_table(rows, intervals=intervals or None)
        columns = {ERRORS: errors}
        if intervals:  # the interval of the errors is that of actDCF, scaled (summary.errors_interval)
            bounds = [errors_interval(intervals[name], self.operating_point) if name in intervals else (np.nan,) * 2
                      for name in table.index]
            columns[f"{ERRORS} lower"], columns[f"{ERRORS} upper"] = (list(side) for side in zip(*bounds))
        columns[MIN_ERRORS] = min_errors
        for position, (column, values) in enumerate(columns.items(), start=2):
            table.insert(position, column, values)
        return table

    @property
    def intervals(self) -> dict:
        """System name -> the :class:`~llrcore.BootstrapResult` of all its trials; empty without intervals."""
        return {s.name: s.extras.interval for s in self.summaries if s.extras.interval is not None}

    def summary_markdown(self) -> str:
        """The plain-language summary as Markdown (for the app), every user string escaped."""
        blocks = [f"#### {escape_markdown(s.name)}\n\n" + "\n\n".join(
            s.text(topic, "markdown") for topic in TOPICS if s.paragraphs.get(topic)) for s in self.summaries]
        return "\n\n".join(blocks)

    def summary_text(self) -> str:
        """The plain-language summary as plain text (for the command line)."""
        return "\n\n".join(f"{s.name}\n" + "\n".join(s.text(topic) for topic in TOPICS if s.paragraphs.get(topic))
                           for s in self.summaries)

    @cached_property
    def figures(self) -> dict[str, ReportFigure]:
        """The report's figures, drawn on first use: ``key -> ReportFigure`` (DET, Bayes error, APE, calibration,
        score distributions)."""
        return report_figures(self)

    def to_html(self, *, written: datetime | None = None) -> str:
        """The report as one self-contained HTML page (plotly.js inlined once; no network needed).

        The page says when it was made: `written`, by default now (the moment the file is written, which a cached
        report, e.g. the app's, may write long after :attr:`created`)."""
        return render_html(self, written=written or writing_time())

    def write(self, path) -> None:
        """Write :meth:`to_html` to `path` (UTF-8)."""
        with open(path, "w", encoding="utf-8") as out:
            out.write(self.to_html())


@old_spellings(OPERATING_POINT)
def build_report(systems: Systems, *, p_target: OperatingPoint | float = DEFAULT_P_TARGET, c_miss: float = 1.0,
                 c_fa: float = 1.0, calibrate_on: Trials | Mapping[str, Trials] | None = None,
                 calibrate: bool = True, method: str = "affine", rule: BetaRule | None = None,
                 calibration_prior: float | None = None, sources: Mapping[str, str] | None = None,
                 class_names: tuple[str, str] = ("target", "non-target"), title: str | None = None,
                 command: str | None = None, by: str | Sequence[str] | None = None, ci: float | None = None,
                 bootstrap: int = 1000, group_by: str | None = None, seed: int = 0,
                 progress: Callable[[int, int], None] | None = None) -> Report:
    """Compute a report of one or several systems at an operating point.

    Parameters
    ----------
    systems : Mapping[str, Trials] or Trials
        The evaluation scores, taken as natural-log LLRs.
    p_target, c_miss, c_fa : OperatingPoint or float
        The operating point (errors per 100 trials are counted at its effective prior); `p_target` may be an
        OperatingPoint, with its costs. Default: P_target = 0.01 with unit costs.
    calibrate_on : Trials or Mapping[str, Trials], optional
        Development trials to train the calibration on (one set for every system, or one per system name).
        Without it, each system is calibrated by 5-fold cross-validation on its own trials, so no trial is
        calibrated by a transform that saw it.
    calibrate : bool
        False leaves out "what calibration changes".
    method : {"affine", "pav", "cmlg"}
        The calibration method (as :func:`~llrcore.calibrate_and_evaluate`).
    rule : BetaRule, optional
        Scoring rule of the affine calibration (logarithmic by default).
    calibration_prior : float, optional
        P_target the affine calibration is weighted for; default the effective prior of the operating point.
    sources : Mapping[str, str], optional
        Where each system's scores came from (a file or data-set name), shown under "What was tested".
    class_names : (str, str)
        Words for the target and non-target classes, e.g. ``("same speaker", "different speakers")``.
    title : str, optional
        The page's title; default ``"Evaluation report: "`` and the systems' names.
    command : str, optional
        The command line that made the report, shown under "How to reproduce".
    by : str or list of str, optional
        Metadata column(s) to break every system down by (:func:`~llrcore.evaluate_by_condition`): a table per
        system, a figure per condition, and a sentence for conditions too small to say much. A system without the column(s) is said
        not to be broken down.
    ci : float, optional
        Level of bootstrap confidence intervals (e.g. 0.95): then the summary says how sure its numbers are, the
        tables give each metric's interval and the DET figure each system's band.
    bootstrap : int
        Bootstrap replicates (with `ci`).
    group_by : str, optional
        Draw whole groups of this metadata column (speakers, models) instead of trials one by one; a system without
        it has its trials drawn one by one, and the report says so.
    seed : int
        Seed of the bootstrap draws (the intervals are those of :func:`~llrcore.bootstrap` with this seed).
    progress : callable, optional
        ``progress(done, total)`` after each bootstrap replicate, counted over every system and condition.

    Returns
    -------
    Report
        Each system's summary, the operating point, the settings, the breakdown by condition and the bootstrap
        intervals when asked for; :meth:`~Report.to_html` writes it as one page.

    Raises
    ------
    ValueError
        For a bad operating point, calibration choice or bootstrap setting, or when no system has the `by` columns;
        a calibration that cannot be trained on some data (scores that do not overlap, infinite scores) is reported
        in that system's summary instead.
    """
    systems = as_systems(systems)
    op = as_operating_point(p_target, c_miss, c_fa)
    if method not in METHODS:
        raise ValueError(f"Unknown calibration method {method!r}: use one of {', '.join(METHODS)}.")
    cal_plo = op.plo_eff if calibration_prior is None else float(effective_plo(calibration_prior))
    rule = rule or BetaRule.logarithmic()
    sources = dict(sources or {})
    class_names = cast(tuple[str, str], tuple(str(c) for c in class_names))  # (any two names, as text)
    by = () if by is None else (by,) if isinstance(by, str) else tuple(by)
    extras, breakdown, resampling = resample(systems, op, by, ci, bootstrap, group_by, seed, progress)
    summaries = [_summary(name, trials, op, sources.get(name, ""), class_names,
                          (method, rule, cal_plo, calibrate_on) if calibrate else None, extras[name])
                 for name, trials in systems.items()]
    settings = _settings(op, class_names, (method, rule, cal_plo, calibrate_on) if calibrate else None)
    _conditions_settings(settings, breakdown, resampling)
    if command:
        settings["command"] = command
    return Report(
        title=title or f"Evaluation report: {', '.join(systems)}",
        summaries=tuple(summaries),
        operating_point=op,
        class_names=class_names,
        settings=settings,
        created=writing_time(),
        version=__version__,
        breakdown=breakdown,
        resampling=resampling,
    )


def _summary(name: str, trials: Trials, op: OperatingPoint, source: str, class_names, calibration,
             extras: SystemExtras) -> SystemSummary:
    """One system's summary; `calibration` is ``(method, rule, cal_plo, calibrate_on)`` or None (no calibration).
    A calibration that cannot be trained on these data is said in the summary, not raised."""
    trained, problem = None, None
    if calibration is not None:
        method, rule, cal_plo, calibrate_on = calibration
        development = development_set(calibrate_on, name)  # a missing one is the caller's mistake: raised
        try:
            trained = summarise_calibration(name, trials, development, method, rule, cal_plo, op)
        except ValueError as error:  # these data cannot be calibrated so: said in the summary
            problem = str(error)
    return summarise(name, trials, source, op, class_names, trained, problem, extras)


def _settings(op: OperatingPoint, class_names, calibration) -> dict:
    """The report's "How to reproduce" table: the operating point, the calibration, the conventions, the versions
    and the call in Python. `calibration` is ``(method, rule, cal_plo, calibrate_on)`` or None."""
    plo_eff = op.plo_eff
    settings = {
        "P_target": f"{op.p_target:g}",
        "C_miss": f"{op.c_miss:g}",
        "C_fa": f"{op.c_fa:g}",
        "effective prior log-odds": f"{plo_eff:+.4f} (P_eff = {float(sigmoid(plo_eff)):.4g})",
        "Bayes decision threshold on LLRs": f"accept as {class_names[0]} when LLR ≥ {-plo_eff:+.4f}",
        "calibration": "none",
        "calibration trained on": "none",
        "EER": "ROC convex hull (ROCCH-EER)",
        "Cllr": "bits; LLRs in natural log",
        "Cprimary": "mean actual DCF at P_target 0.01 and 0.001, C_miss = C_fa = 1 (NIST SRE'12)",
        "llrcore": __version__,
        "Python, NumPy, plotly": f"{platform.python_version()}, {np.__version__}, {plotly.__version__}",
    }
    call = f"llrcore.build_report(systems, p_target={op.p_target!r}, c_miss={op.c_miss!r}, c_fa={op.c_fa!r}, "
    if calibration is None:
        settings["in Python"] = call + "calibrate=False)"
        return settings
    method, rule, cal_plo, calibrate_on = calibration
    settings["calibration"] = describe_calibration(method, rule, cal_plo)
    development = calibrate_on.name if isinstance(calibrate_on, Trials) else None
    settings["calibration trained on"] = (
        f"{CROSS_VALIDATION_FOLDS}-fold cross-validation (seed 0) on each system's trials" if calibrate_on is None
        else (development or "the given development sets"))
    settings["in Python"] = (call + f"method={method!r}, rule=llrcore.BetaRule({rule.alpha:g}, {rule.beta:g}), "
                             f"calibration_prior={float(sigmoid(cal_plo)):.6g}"
                             + (", calibrate_on=development)" if calibrate_on is not None else ")"))
    return settings


def _conditions_settings(settings: dict, breakdown: Breakdown | None, resampling: Resampling | None) -> None:
    """Add the breakdown and the intervals to the "How to reproduce" table and to its call in Python."""
    arguments = []
    if breakdown is not None:
        settings["broken down by"] = breakdown.words + (f" (not {', '.join(breakdown.lacking)}: no such column)"
                                                        if breakdown.lacking else "")
        arguments.append(f"by={list(breakdown.by)!r}")
    if resampling is not None:
        settings["confidence intervals"] = resampling.describe()
        arguments.append(f"ci={resampling.level!r}, bootstrap={resampling.replicates!r}, "
                         f"group_by={resampling.group_by!r}, seed={resampling.seed!r}")
    if arguments:
        settings["in Python"] = settings["in Python"].removesuffix(")") + ", " + ", ".join(arguments) + ")"
