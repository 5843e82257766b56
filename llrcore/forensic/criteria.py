"""The validation matrix's definition (Meuwly, Ramos & Haraksim 2017): its performance characteristics, the metric
of each row with its unit and figure, the validation criteria the laboratory sets, and how a value is written.

:func:`~llrcore.forensic.validation.validate_lr_method` fills the matrix; this module only says what it holds.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._format import number
from .units import from_log10
from .verbal import verbal_scale_table

__all__ = ["CHARACTERISTICS", "METRICS", "METRIC_BY_KEY", "UNITS", "ValidationCriteria", "ValidationMetric",
           "check_units", "format_value", "verbal_scale_frame"]

#: The performance characteristics of the guideline's validation matrix, in its order.
CHARACTERISTICS = ("accuracy", "discriminating power", "calibration", "robustness")
#: Units of LLR values shown: natural log or log10.
UNITS = ("log10", "ln")


@dataclass(frozen=True)
class ValidationMetric:
    """One row of the matrix's definition: the key of its criterion, its characteristic, name, unit and figure."""

    key: str
    characteristic: str
    name: str
    unit: str  # "bits", "%" (a fraction shown in percent) or "log10" (devPAV)
    figure: str
    meaning: str


#: The rows of the validation matrix (Meuwly, Ramos & Haraksim 2017), in its order: each metric's criterion key,
#: performance characteristic, name, unit ("bits", "%" or "log10"), figure and meaning in words.
METRICS = (
    ValidationMetric("cllr", "accuracy", "Cllr", "bits", "ECE plot (solid curve at prior odds 1)",
                     "the overall cost of the LRs, 0 perfect, 1 bit no better than always saying LR = 1"),
    ValidationMetric("eer", "discriminating power", "EER", "%", "DET plot",
                     "how often same-source and different-source comparisons are confused at the best threshold"),
    ValidationMetric("min_cllr", "discriminating power", "Cllr_min", "bits", "ECE plot (dashed curve)",
                     "the Cllr after the best possible calibration: what the comparisons can tell apart"),
    ValidationMetric("cllr_cal", "calibration", "Cllr_cal = Cllr − Cllr_min", "bits", "ECE plot (gap between curves)",
                     "the part of Cllr lost because the LRs do not mean what they say"),
    ValidationMetric("devpav", "calibration", "devPAV", "log10", "calibration vs PAV",
                     "the average distance of the LRs from the best-calibrated ones, in log10 units"),
    ValidationMetric("misleading_same_source", "calibration", "misleading evidence, same source (LR < 1)", "%",
                     "Tippett plot", "the share of same-source comparisons whose LR points the wrong way"),
    ValidationMetric("misleading_different_source", "calibration", "misleading evidence, different source (LR > 1)",
                     "%", "Tippett plot", "the share of different-source comparisons whose LR points the wrong way"),
    ValidationMetric("condition_cllr", "robustness", "largest Cllr of any condition", "bits", "Cllr per condition",
                     "the Cllr of the condition where the method does worst"),
)
METRIC_BY_KEY = {metric.key: metric for metric in METRICS}


@dataclass(frozen=True)
class ValidationCriteria:
    """The validation criteria, one upper limit per metric (None: that metric is shown but not judged).

    **The defaults are examples, not recommendations**: the guideline leaves the criteria to the laboratory, set
    before the validation for its case type and data (often as "no worse than a baseline method by more than ..."),
    and expects them to be changed. A metric passes when ``value < criterion``.

    Attributes
    ----------
    cllr : float
        Accuracy: Cllr in bits (example 0.3).
    eer : float
        Discriminating power: equal error rate as a fraction (example 0.05, i.e. 5 %).
    min_cllr : float
        Discriminating power: Cllr_min in bits (example 0.2).
    cllr_cal : float
        Calibration: Cllr_cal = Cllr - Cllr_min in bits (example 0.1).
    devpav : float
        Calibration: devPAV in log10 units (example 0.5).
    misleading_same_source, misleading_different_source : float
        Calibration: rates of misleading evidence as fractions (examples 0.05 each).
    condition_cllr : float
        Robustness: the largest Cllr of any condition, in bits, when the trials are broken down (example 0.5).
    """

    cllr: float | None = 0.3
    eer: float | None = 0.05
    min_cllr: float | None = 0.2
    cllr_cal: float | None = 0.1
    devpav: float | None = 0.5
    misleading_same_source: float | None = 0.05
    misleading_different_source: float | None = 0.05
    condition_cllr: float | None = 0.5

    def __post_init__(self):
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) or not value > 0:
                raise ValueError(f"The criterion {field.name} must be a positive number (an upper limit), not "
                                 f"{value!r}.")
            object.__setattr__(self, field.name, float(value))

    @classmethod
    def parse(cls, items: Iterable[str], base: ValidationCriteria | None = None) -> ValidationCriteria:
        """Criteria from ``name=value`` texts (``"cllr=0.3"``, ``"eer=0.05"``, ``"devpav=none"``) over `base`
        (default the examples).

        Raises
        ------
        ValueError
            With one sentence naming the bad item and the names allowed.
        """
        names = [field.name for field in dataclasses.fields(cls)]
        values: dict[str, float | None] = {}
        for item in items:
            name, sep, text = str(item).partition("=")
            name = name.strip().lower().replace("-", "_")
            if not sep or name not in names:
                raise ValueError(f"The criterion {item!r} is not NAME=VALUE with NAME one of {', '.join(names)}.")
            text = text.strip()
            if text.lower() == "none":
                values[name] = None
                continue
            try:
                values[name] = float(text.rstrip("%")) / (100.0 if text.endswith("%") else 1.0)
            except ValueError:
                raise ValueError(f"The criterion {item!r} needs a number after '=' (or 'none').") from None
        return dataclasses.replace(base or cls(), **values)



def format_value(value: float, unit: str, units: str = "log10") -> str:
    """A metric's value with its unit: ``0.649 bits``, ``25 %``, ``6.08 (log10)`` or, in natural log, ``14 (ln)``."""
    if np.isnan(value):
        return "—"
    if unit == "%":
        return f"{100 * value:.3g} %"
    if unit == "log10":
        return f"{value:.3g} (log10)" if units == "log10" else f"{from_log10(value):.3g} (ln)"
    return f"{number(value)} bits" if np.isfinite(value) else "infinite"  # 2.39e+305 bits, never 306 digits


def check_units(units: str) -> None:
    if units not in UNITS:
        raise ValueError(f"Units are 'log10' or 'ln' (natural log), not {units!r}.")


def verbal_scale_frame(units: str = "log10") -> pd.DataFrame:
    """The ENFSI verbal scale's bands for LR > 1 (:func:`~llrcore.forensic.verbal_scale_table`), with the band
    edges in LR and in `units`. The same bands of 1/LR support the other proposition.

    Parameters
    ----------
    units : {"log10", "ln"}
        The units of the LR values shown beside the LRs.

    Returns
    -------
    pandas.DataFrame
        ``LR from``, ``LR to``, ``log10 LR from``/``to`` (or ``LLR (ln) from``/``to``), ``support``.
    """
    check_units(units)
    table = verbal_scale_table()
    if units == "log10":
        edges = {"log10 LR from": table["log10_lr_from"], "log10 LR to": table["log10_lr_to"]}
    else:
        edges = {"LLR (ln) from": from_log10(table["log10_lr_from"].to_numpy()),
                 "LLR (ln) to": from_log10(table["log10_lr_to"].to_numpy())}
    return pd.DataFrame({"LR from": table["lr_from"], "LR to": table["lr_to"], **edges, "support": table["support"]})
