"""The table of binary metrics, one row per system, as papers, the app and the command line show it.

:func:`metrics_table` turns :class:`~llrcore.BinaryMetrics` (and, optionally, their bootstrap intervals) into a
DataFrame whose columns are named as in papers (:data:`METRIC_COLUMNS`); :func:`table_row` is one row of it.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .._format import interval_words

if TYPE_CHECKING:
    from ..uncertainty.resampling import BootstrapResult
    from .metrics import BinaryMetrics

__all__ = ["METHOD_COLUMN", "METRIC_COLUMNS", "interval_method", "metrics_table", "table_row"]

#: Attribute of :class:`~llrcore.BinaryMetrics` -> its column in :func:`~llrcore.metrics_table`, named as in papers:
#: trial counts; EER a fraction; minDCF, actDCF and (NIST SRE'12) Cprimary normalised; Cllr and minCllr in bits;
#: the calibration loss in percent.
METRIC_COLUMNS = {
    "n_tar": "targets",
    "n_non": "non-targets",
    "eer": "EER",
    "min_dcf": "minDCF",
    "act_dcf": "actDCF",
    "cllr": "Cllr",
    "min_cllr": "minCllr",
    "calibration_loss_percent": "calibration loss %",
    "cprimary": "Cprimary",
    "min_cprimary": "minCprimary",
}


def metrics_table(results: Iterable[BinaryMetrics], *, eer_percent: bool = False, verdict: bool = False,
                  intervals: Mapping[str, BootstrapResult] | None = None) -> pd.DataFrame:
    """A table with one row per :class:`BinaryMetrics`, indexed by system name, columns named as in papers.

    Parameters
    ----------
    results : iterable of BinaryMetrics
        One per system, each with its own name.
    eer_percent : bool
        The EER in percent, in a column ``EER %`` (as the app and the command line show it), instead of a fraction
        in ``EER``.
    verdict : bool
        Add a column ``as LLRs``: whether the scores can be used as likelihood ratios as they are
        (:func:`~llrcore.binary.verdict.llr_verdict`).
    intervals : mapping, optional
        System name -> :class:`~llrcore.BootstrapResult`: each metric it has an interval for gets two more columns,
        ``<column> lower`` and ``<column> upper``, right after it (in the column's unit), and the row's last column,
        ``interval method``, names how they were made (:func:`interval_method`: ``"95 % BCa"``).

    Returns
    -------
    pandas.DataFrame
        One row per system (index ``system``): ``targets``, ``non-targets``, ``EER`` (or ``EER %``), ``minDCF``,
        ``actDCF``, ``Cllr``, ``minCllr`` (bits), ``calibration loss %``, ``Cprimary``, ``minCprimary``.

    Raises
    ------
    ValueError
        If two results share a name (a row would otherwise silently replace another).
    """
    results = list(results)
    names = [r.name for r in results]
    duplicated = sorted({name for name in names if names.count(name) > 1})
    if duplicated:
        raise ValueError(f"Several systems are named {duplicated[0]!r}; give each system its own name.")
    rows = {r.name: table_row(r, eer_percent=eer_percent, interval=(intervals or {}).get(r.name)) for r in results}
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "system"
    if verdict:
        table["as LLRs"] = [r.llr_verdict.verdict for r in results]
    return table


def table_row(result: BinaryMetrics | None, *, eer_percent: bool = False, interval=None) -> dict:
    """One row of :func:`metrics_table` as ``{column: value}`` (NaN everywhere for a missing result)."""
    row = {}
    for attribute, label in METRIC_COLUMNS.items():
        scale, label = (100.0, "EER %") if attribute == "eer" and eer_percent else (1.0, label)
        value = np.nan if result is None else getattr(result, attribute)
        row[label] = value if scale == 1.0 else scale * value
        if interval is not None and attribute in interval.replicates.columns:
            lower, upper = interval.interval(attribute)
            row[f"{label} lower"], row[f"{label} upper"] = scale * lower, scale * upper
    if interval is not None:
        row[METHOD_COLUMN] = interval_method(interval)
    return row


#: The column of :func:`metrics_table` naming how the intervals of its row were made.
METHOD_COLUMN = "interval method"


def interval_method(interval) -> str:
    """How the intervals of a :class:`~llrcore.BootstrapResult` are made, in words: ``"95 % BCa"``, and the
    metrics made otherwise after a semicolon (``"95 % BCa; minDCF: 95 % out-of-bag bracket"``, the out-of-bag bracket
    of a minDCF that rests on few errors, :mod:`llrcore.uncertainty.intervals`)."""
    def words(method: str) -> str:
        return interval_words(interval.level, method).removesuffix(" bootstrap interval")

    others = [f"{METRIC_COLUMNS[m]}: {words(interval.metric_method(m))}" for m in METRIC_COLUMNS
              if m in interval.replicates.columns and interval.metric_method(m) != interval.method]
    return "; ".join([words(interval.method), *others])
