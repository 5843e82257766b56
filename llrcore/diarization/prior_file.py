"""What a learnt block-model prior was learnt on, its leave-one-out report, and its JSON file.

The file (:meth:`~llrcore.diarization.block_prior.BlockModelPrior.to_json`) is one JSON object:

``kind``
    ``"llrcore.diarization.BlockModelPrior"``.
``version``
    :data:`FILE_VERSION` (1); a reader refuses a later one.
``hyperparameters``
    ``within_mean``, ``between_mean``, ``variance``, ``between_variance`` (or null), ``mean_strength`` (kappa0),
    ``shape`` (a0) and ``concentration`` (alpha), in the units of the scores (finite; all but the means above 0,
    :data:`POSITIVE`); floats written with Python's shortest round-trip repr, so that a loaded prior is the same bit
    for bit and gives the same labels.
``learnt_on``
    null, or ``recordings`` (how many), ``uris``, ``embedder`` and ``windows`` (as the user named them, or null),
    ``data`` (where the recordings come from, or null), ``llrcore_version``, and ``leave_one_out``: null or one
    object per recording, ``uri``, ``speakers`` (reference), ``found`` and ``DER %`` (:class:`LeaveOneOut`).
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

__all__ = ["FILE_KIND", "FILE_VERSION", "HYPERPARAMETERS", "LeaveOneOut", "PriorSource", "read_prior_json",
           "write_prior_json"]

FILE_KIND = "llrcore.diarization.BlockModelPrior"
FILE_VERSION = 1
#: The fields of the prior the file holds, in this order.
HYPERPARAMETERS = ("within_mean", "between_mean", "variance", "between_variance", "mean_strength", "shape",
                   "concentration")
#: The hyper-parameters that are variances, strengths (kappa0, a0) or the Dirichlet process's alpha: above 0.
POSITIVE = ("variance", "between_variance", "mean_strength", "shape", "concentration")
_REPORT_COLUMNS = ("speakers", "found", "DER %")


@dataclass(frozen=True, eq=False)
class LeaveOneOut:
    """Each recording a prior was learnt on, clustered with the prior learnt on all the others (the default call
    otherwise, :func:`~llrcore.fit_diarization_prior`): what the prior does on a recording it has not seen.

    Attributes
    ----------
    rows : pandas.DataFrame
        Index ``uri``; ``speakers`` (reference), ``found`` and ``DER %`` (md-eval, collar 0.25 s, overlap not
        scored).
    """

    rows: pd.DataFrame

    @property
    def right_counts(self) -> int:
        """Recordings with as many speakers found as the reference has."""
        return int((self.rows["found"] == self.rows["speakers"]).sum())

    @property
    def mean_der(self) -> float:
        """The mean of the recordings' DERs, in %."""
        return float(self.rows["DER %"].mean())

    def to_frame(self) -> pd.DataFrame:
        """One row per recording: ``speakers``, ``found``, ``DER %`` (index ``uri``)."""
        return self.rows.copy()

    def sentence(self) -> str:
        """The report in one sentence."""
        n = len(self.rows)
        return (f"Left out in turn, each of the {n} recordings was clustered with the prior learnt on the other "
                f"{n - 1}: the right number of speakers on {self.right_counts} of {n}, mean DER "
                f"{self.mean_der:.1f} %.")


@dataclass(frozen=True)
class PriorSource:
    """What a prior was learnt on (the ``learnt_on`` of its file).

    Attributes
    ----------
    recordings : int
        How many labelled recordings.
    uris : tuple of str
        Their names.
    embedder, windows : str or None
        The embedder and the windows the scores were made with, as the user named them (e.g. ``"Resemblyzer"``,
        ``"1.5 s every 0.75 s"``): a prior fits scores made the same way only.
    data : str or None
        Where the recordings come from (provenance).
    llrcore_version : str
        The llrcore that learnt it.
    leave_one_out : LeaveOneOut or None
        Its report on the recordings it was learnt on.
    """

    recordings: int
    uris: tuple[str, ...] = ()
    embedder: str | None = None
    windows: str | None = None
    data: str | None = None
    llrcore_version: str = ""
    leave_one_out: LeaveOneOut | None = field(default=None, compare=False)

    def to_dict(self) -> dict:
        report = None
        if self.leave_one_out is not None:
            rows = self.leave_one_out.rows
            report = [{"uri": str(uri), "speakers": int(row["speakers"]), "found": int(row["found"]),
                       "DER %": float(row["DER %"])} for uri, row in rows.iterrows()]
        return {"recordings": self.recordings, "uris": list(self.uris), "embedder": self.embedder,
                "windows": self.windows, "data": self.data, "llrcore_version": self.llrcore_version,
                "leave_one_out": report}

    @classmethod
    def from_dict(cls, data: dict) -> PriorSource:
        report = data.get("leave_one_out")
        if report is not None:
            if not isinstance(report, list) or not all(_report_row(row) for row in report):
                raise ValueError("its leave_one_out must be null or a list of rows, each with a uri and the numbers "
                                 "speakers, found and DER %")
            frame = pd.DataFrame(report, columns=["uri", *_REPORT_COLUMNS]).set_index("uri")
            report = LeaveOneOut(frame.astype({"speakers": np.int64, "found": np.int64, "DER %": np.float64}))
        return cls(int(data["recordings"]), tuple(data.get("uris", ())), data.get("embedder"), data.get("windows"),
                   data.get("data"), str(data.get("llrcore_version", "")), report)


def _report_row(row) -> bool:
    """Whether `row` is one recording of a leave-one-out report as :meth:`PriorSource.to_dict` writes it."""
    return (isinstance(row, dict) and "uri" in row
            and all(isinstance(row.get(column), (int, float)) and not isinstance(row.get(column), bool)
                    for column in _REPORT_COLUMNS))


def write_prior_json(hyperparameters: dict, source: PriorSource | None) -> str:
    """The JSON text of a prior (module docstring)."""
    return json.dumps({"kind": FILE_KIND, "version": FILE_VERSION, "hyperparameters": hyperparameters,
                       "learnt_on": None if source is None else source.to_dict()}, indent=2)


def read_prior_json(text: str) -> tuple[dict, PriorSource | None]:
    """The hyper-parameters and the source of a prior's JSON text; ValueError with a sentence if it is not one."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise ValueError(f"This is not a prior file: it is not JSON (line {err.lineno}: {err.msg}).") from None
    if not isinstance(data, dict) or data.get("kind") != FILE_KIND:
        raise ValueError(f"This is not a prior file: its 'kind' is not {FILE_KIND!r}.")
    if not isinstance(data.get("version"), int) or data["version"] > FILE_VERSION:
        raise ValueError(f"This prior file is of version {data.get('version')!r}; this llrcore reads version "
                         f"{FILE_VERSION} or earlier: update llrcore.")
    values = data.get("hyperparameters")
    if not isinstance(values, dict):
        values = {}
    missing = [name for name in HYPERPARAMETERS if name not in values]
    if missing:
        raise ValueError(f"The prior file lacks the hyper-parameter(s) {', '.join(missing)}.")
    for name in HYPERPARAMETERS:
        value = values[name]
        if value is None and name == "between_variance":
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ValueError(f"The prior file's {name} is not a number: {value!r}.")
        if name in POSITIVE and value <= 0:
            raise ValueError(f"The prior file's {name} must be above 0 (a variance, a strength or a concentration), "
                             f"not {value!r}.")
    learnt_on = data.get("learnt_on")
    try:
        source = None if learnt_on is None else PriorSource.from_dict(learnt_on)
    except (KeyError, TypeError, ValueError) as err:
        raise ValueError(f"The prior file's 'learnt_on' is not readable: {err}.") from None
    return {name: values[name] for name in HYPERPARAMETERS}, source
