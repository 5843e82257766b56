"""Score normalisation against a cohort: Z-norm, T-norm, S-norm and adaptive S-norm (AS-norm).

Each side of a trial (the enrolment model e, the test segment t) is scored against a cohort of impostor recordings;
the mean and standard deviation of those cohort scores — of all of them, or of the top N highest (adaptive) — move a
raw score s to

- Z-norm: ``(s - mu_e) / sigma_e`` (the model's statistics),
- T-norm: ``(s - mu_t) / sigma_t`` (the test segment's statistics),
- S-norm: ``((s - mu_e) / sigma_e + (s - mu_t) / sigma_t) / 2``,
- AS-norm: S-norm with the statistics of each side's top-N cohort scores (Sturim and Reynolds, "Speaker adaptive
  cohort selection for Tnorm in text-independent speaker verification", ICASSP 2005; Cumani et al., "Comparison of
  speaker recognition approaches for real applications", Interspeech 2011; Matejka et al., "Analysis of score
  normalization in multilingual speaker recognition", Interspeech 2017).

These are the formulas of WeSpeaker (``wespeaker/bin/score_norm.py``: S-norm and AS-norm, ``np.std``, i.e. ``ddof=0``,
top_n = 300 in its VoxCeleb recipe) and SpeechBrain (``recipes/VoxCeleb/SpeakerRec/speaker_verification_cosine.py``:
Z-, T- and S-norm, ``torch.std``, i.e. ``ddof=1``, with ``cohort_size`` keeping the top N for all three).

The statistics are computed once per id (a dense ``ids x cohort`` matrix, top N by ``np.partition``, row blocks on
the pool's threads) and gathered per trial through the ids factorised once: a million trials cost little more than
their ids.
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from .._choices import NORMALIZATION_METHODS as METHODS
from ..data.cohort import CohortScores
from ..data.trials import Trials
from ..parallel import map_tasks, thread_count

__all__ = ["METHODS", "DEFAULT_TOP_N", "CohortStatistics", "cohort_statistics", "normalize_scores",
           "normalize_arrays", "normalize_pairs", "normalization_problems", "as_cohort"]

_NAMES = {"z-norm": "Z-norm", "t-norm": "T-norm", "s-norm": "S-norm", "as-norm": "AS-norm"}
#: The top N of adaptive S-norm when none is given: WeSpeaker's VoxCeleb recipe (examples/voxceleb/v2/run.sh).
DEFAULT_TOP_N = 300
_BLOCK_ROWS = 256  # rows of the cohort matrix per task: a few MB of float64 each, whatever the cohort's size


class CohortStatistics:
    """Mean and standard deviation of each id's cohort scores (or of its top N), one value per id of the cohort."""

    def __init__(self, cohort: CohortScores, mean: np.ndarray, std: np.ndarray, top_n: int):
        self.cohort, self.mean, self.std, self.top_n = cohort, mean, std, top_n
        self._index = pd.Index(cohort.ids)

    def rows(self, ids, side: str) -> np.ndarray:
        """The row of each of `ids` (one per trial), factorised once; a ValueError names ids with no cohort scores."""
        codes, uniques = pd.factorize(np.asarray(ids), sort=False)
        rows = self._index.get_indexer(np.asarray(uniques).astype(str))
        missing = np.flatnonzero(rows < 0)
        if missing.size:
            where = f" in {self.cohort.name}" if self.cohort.name else ""
            many = missing.size != 1
            raise ValueError(f"{missing.size:,} {side} id{'s' if many else ''} of the trials ha{'ve' if many else 's'} "
                             f"no cohort scores{where} (for example '{uniques[missing[0]]}'); each needs its scores "
                             "against the cohort.")
        return rows[codes]


def as_cohort(cohort, what: str) -> CohortScores:
    """A :class:`CohortScores` from itself or from a long table ``id, cohort, score``."""
    if isinstance(cohort, CohortScores):
        return cohort
    if isinstance(cohort, pd.DataFrame):
        return CohortScores.from_frame(cohort)
    raise TypeError(f"The {what} cohort must be CohortScores or a DataFrame with columns id, cohort, score (read a "
                    f"file with llrcore.read_cohort_scores), not {type(cohort).__name__}.")


def _top_n(method: str, top_n: int | None) -> int | None:
    if method not in METHODS:
        raise ValueError(f"The normalisation method is one of {', '.join(METHODS)}, not {method!r}.")
    if top_n is None:
        return DEFAULT_TOP_N if method == "as-norm" else None
    if int(top_n) != top_n or top_n < 2:
        raise ValueError(f"top_n is a whole number of cohort scores of at least 2, not {top_n!r}.")
    return int(top_n)


def _check_ddof(ddof) -> None:
    if ddof not in (0, 1):
        raise ValueError(f"ddof is 0 (numpy's and WeSpeaker's std) or 1 (torch's and SpeechBrain's), not {ddof!r}.")


def cohort_statistics(cohort: CohortScores, top_n: int | None = None, ddof: int = 0,
                      threads: int | None = None) -> CohortStatistics:
    """Mean and standard deviation of each id's cohort scores: all of them (`top_n` None), or its `top_n` highest
    (all when the cohort is smaller).

    ``std = sqrt(sum (x - mean)^2 / (k - ddof))`` over the k scores kept: ``ddof=0`` as numpy's ``np.std``
    (WeSpeaker), ``ddof=1`` as ``torch.std`` (SpeechBrain). An id whose kept scores are all equal is refused.
    """
    _check_ddof(ddof)
    n, m = cohort.scores.shape
    k = m if top_n is None else min(top_n, m)
    mean, std = np.empty(n), np.empty(n)

    def block(lo: int) -> None:
        rows = cohort.scores[lo:lo + _BLOCK_ROWS]
        if k < m:  # the k largest of each row, in no particular order: linear time, where a sort is m log m
            rows = np.partition(rows, m - k, axis=1)[:, m - k:]  # in the scores' own type: the same values
        rows = rows.astype(np.float64)  # statistics in float64 whatever the scores' type
        mean[lo:lo + len(rows)] = rows.mean(axis=1)
        std[lo:lo + len(rows)] = rows.std(axis=1, ddof=ddof)

    map_tasks(block, range(0, n, _BLOCK_ROWS), min(thread_count(threads), max(1, n // _BLOCK_ROWS)))
    flat = np.flatnonzero(~(std > 0))
    if flat.size:
        raise ValueError(f"The cohort scores of {cohort.ids[flat[0]]!r} kept for normalisation are all equal (no "
                         "spread to divide by); use a larger cohort or top N.")
    return CohortStatistics(cohort, mean, std, k)


def _check_ids(trials: Trials) -> None:
    if not {"model", "test"} <= set(trials.metadata.columns):
        raise ValueError("Score normalisation needs the model and test ids of each trial (metadata columns 'model' "
                         "and 'test'): read the scores from a file with ids, e.g. a 'model test score' file with its "
                         "key.")


def _side_rows(values: pd.Series, statistics: CohortStatistics | None, side: str) -> np.ndarray | None:
    """Rows of the statistics for each trial; categorical id columns are matched per category, not per trial."""
    if statistics is None:
        return None
    if isinstance(values.dtype, pd.CategoricalDtype):
        codes = values.cat.codes.to_numpy()
        if (codes < 0).any():
            raise ValueError(f"Some trials have no {side} id; every trial needs one to be normalised.")
        return statistics.rows(np.asarray(values.cat.categories).astype(str), side)[codes]
    return statistics.rows(values.to_numpy().astype(str), side)


def normalize_arrays(scores, enrol_rows, test_rows, enrol: CohortStatistics | None, test: CohortStatistics | None,
                     method: str) -> np.ndarray:
    """The normalised scores of trials whose sides are rows `enrol_rows` and `test_rows` of the statistics."""
    scores = np.asarray(scores, dtype=np.float64)
    sides = [] if method == "t-norm" else [_standardised(scores, enrol, enrol_rows)]  # z, then t
    if method != "z-norm":
        sides.append(_standardised(scores, test, test_rows))
    return sides[0] if len(sides) == 1 else 0.5 * (sides[0] + sides[1])


def _standardised(scores: np.ndarray, statistics: CohortStatistics | None, rows) -> np.ndarray:
    assert statistics is not None  # (the callers give the statistics of every side the method uses)
    return (scores - statistics.mean[rows]) / statistics.std[rows]


def _unique_ids(metadata: pd.DataFrame, column: str) -> pd.Index:
    """The different ids of a metadata column, as strings (per category for a categorical column)."""
    if column not in metadata:
        return pd.Index([], dtype=str)
    values = metadata[column]
    if isinstance(values.dtype, pd.CategoricalDtype):
        codes = np.unique(values.cat.codes.to_numpy())
        return pd.Index(np.asarray(values.cat.categories)[codes[codes >= 0]].astype(str))
    return pd.Index(pd.unique(values.to_numpy().astype(str)))


def normalization_problems(trials: Trials, method: str, enrol: CohortScores | None = None,
                           test: CohortScores | None = None) -> list[str]:
    """What is doubtful in normalising these trials so, as sentences (see :func:`normalize_scores`).

    Two checks: cohort leakage (a cohort recording that is also a model or test id of the trials, read from the
    metadata columns ``model`` and ``test``) and a one-sided norm (Z- or T-norm) of a one-to-one list, where which
    side is the model is arbitrary.

    Parameters
    ----------
    trials : Trials
        The trials to normalise, with ``model`` and ``test`` ids in their metadata where known.
    method : str
        One of :data:`METHODS`: ``"z-norm"``, ``"t-norm"``, ``"s-norm"``, ``"as-norm"``.
    enrol, test : CohortScores, optional
        The enrolment-side and test-side cohorts.

    Returns
    -------
    list of str
        One sentence per problem found, empty when nothing is doubtful.
    """
    metadata = trials.metadata
    models, tests = _unique_ids(metadata, "model"), _unique_ids(metadata, "test")
    problems = []
    for side, cohort in (("enrolment", enrol), ("test", test)):
        if cohort is None:
            continue
        recordings = pd.Index(cohort.cohort)  # hash lookups: np.isin compares strings by sorting
        as_model, as_test = int(recordings.isin(models).sum()), int(recordings.isin(tests).sum())
        if as_model or as_test:
            problems.append(
                f"Cohort leakage: {as_model + as_test:,} of the {cohort.size:,} recordings of the {side} cohort are "
                f"also trial ids ({as_model:,} among the model ids, {as_test:,} among the test ids); a cohort must "
                "hold no recording of the evaluation, or the normalisation learns from the trials themselves.")
    if method in ("z-norm", "t-norm") and len(metadata) and len(models) == len(tests) == len(metadata):
        problems.append(
            f"Every model and every test segment is in one trial only (a one-to-one list): which side is the model is "
            f"arbitrary, so {_NAMES[method]} alone normalises by an arbitrary side; S-norm (or AS-norm) treats "
            "both sides alike.")
    return problems


def _cohorts(method: str, top_n, ddof, enrol_cohort, test_cohort):
    """The checked top N, and the cohorts the method needs (None for the side it does not use)."""
    top = _top_n(method, top_n)
    _check_ddof(ddof)
    needs_enrol, needs_test = method != "t-norm", method != "z-norm"
    for needed, cohort, what, side in ((needs_enrol, enrol_cohort, "enrol_cohort", "model"),
                                       (needs_test, test_cohort, "test_cohort", "test segment")):
        if needed and cohort is None:
            raise ValueError(f"{_NAMES[method]} needs {what} (the cohort scores of each {side}).")
    enrol = as_cohort(enrol_cohort, "enrolment") if needs_enrol else None
    test = as_cohort(test_cohort, "test") if needs_test else None
    return top, enrol, test


def _statistics(enrol, test, top, ddof, threads):
    stats_e = cohort_statistics(enrol, top, ddof, threads) if enrol is not None else None
    stats_t = (stats_e if test is enrol else cohort_statistics(test, top, ddof, threads)) if test is not None else None
    return stats_e, stats_t


def normalize_pairs(models, tests, scores, enrol_cohort=None, test_cohort=None, method: str = "as-norm",
                    top_n: int | None = None, *, ddof: int = 0, threads: int | None = None) -> np.ndarray:
    """The normalised scores of trials given as three arrays (model ids, test ids, scores, e.g. the lines of a
    ``model test score`` file in file order), as :func:`normalize_scores` computes them; no labels needed, no
    warnings (:func:`normalization_problems` says them for trials)."""
    top, enrol, test = _cohorts(method, top_n, ddof, enrol_cohort, test_cohort)
    stats_e, stats_t = _statistics(enrol, test, top, ddof, threads)
    rows_e = _side_rows(pd.Series(np.asarray(models)), stats_e, "model")
    rows_t = _side_rows(pd.Series(np.asarray(tests)), stats_t, "test")
    return normalize_arrays(scores, rows_e, rows_t, stats_e, stats_t, method)


def normalize_scores(trials: Trials, enrol_cohort: CohortScores | pd.DataFrame | None = None,
                     test_cohort: CohortScores | pd.DataFrame | None = None, method: str = "as-norm",
                     top_n: int | None = None, *, ddof: int = 0, name: str | None = None, threads: int | None = None
                     ) -> Trials:
    """Normalise the scores of trials with the statistics of their sides' cohort scores.

    With ``mu_e, sigma_e`` the mean and standard deviation of the enrolment model's cohort scores and ``mu_t,
    sigma_t`` those of the test segment's:

    - ``"z-norm"``: ``(s - mu_e) / sigma_e``; needs `enrol_cohort`;
    - ``"t-norm"``: ``(s - mu_t) / sigma_t``; needs `test_cohort`;
    - ``"s-norm"``: the mean of the two; needs both;
    - ``"as-norm"`` (adaptive S-norm): S-norm with the statistics of each side's `top_n` highest cohort scores.

    Parameters
    ----------
    trials : Trials
        With the model and test id of each trial (metadata columns ``model`` and ``test``, as the readers of
        ``model test score`` files and their keys give them).
    enrol_cohort, test_cohort : CohortScores or DataFrame
        Each model (test segment) against the cohort: :class:`~llrcore.data.cohort.CohortScores`, or a long table
        ``model cohort score`` (``test cohort score``); files are read by :func:`llrcore.read_cohort_scores`.
        Both may be the same object when models and test segments were scored into one table.
    method : {"z-norm", "t-norm", "s-norm", "as-norm"}
    top_n : int, optional
        Keep each side's `top_n` highest cohort scores (all when the cohort is smaller). Default: 300 for AS-norm
        (WeSpeaker's VoxCeleb recipe), the whole cohort otherwise; given with Z-, T- or S-norm it makes them
        adaptive too, as SpeechBrain's ``cohort_size`` does.
    ddof : {0, 1}
        Standard deviation ``sqrt(sum (x - mu)^2 / (k - ddof))``: 0 (default) as ``np.std`` in WeSpeaker, 1 (the
        unbiased estimate) as ``torch.std`` in SpeechBrain.
    name : str, optional
        Of the result; default the trials' name with the method, e.g. ``"sys (as-norm, top 300)"``.

    Returns
    -------
    Trials
        The same trials, metadata and order, with normalised scores (spoof trials too), and metadata columns
        ``model_cohort_mean`` / ``test_cohort_mean`` (the statistics used; WeSpeaker writes them for its
        quality-measure calibration).

    Warns
    -----
    UserWarning
        Cohort leakage (cohort recordings that are also model or test ids, with counts), and Z-norm or T-norm alone
        on a one-to-one list (every model and every test segment in one trial: the sides are interchangeable, so
        a one-sided normalisation is arbitrary). :func:`normalization_problems` gives the same sentences.
    """
    _check_ids(trials)
    top, enrol, test = _cohorts(method, top_n, ddof, enrol_cohort, test_cohort)
    for problem in normalization_problems(trials, method, enrol, test):
        warnings.warn(problem, UserWarning, stacklevel=2)
    stats_e, stats_t = _statistics(enrol, test, top, ddof, threads)
    rows_e = _side_rows(trials.metadata["model"], stats_e, "model")
    rows_t = _side_rows(trials.metadata["test"], stats_t, "test")
    scores = np.concatenate([trials.tar, trials.non, trials.spoof])
    normed = normalize_arrays(scores, rows_e, rows_t, stats_e, stats_t, method)
    metadata = trials.metadata.copy()
    if stats_e is not None:
        metadata["model_cohort_mean"] = stats_e.mean[rows_e]
    if stats_t is not None:
        metadata["test_cohort_mean"] = stats_t.mean[rows_t]
    cut = np.cumsum([trials.tar.size, trials.non.size])
    tar, non, spoof = np.split(normed, cut)
    kept = (stats_e or stats_t).top_n
    label = method if top is None else f"{method}, top {kept}"
    return Trials(tar, non, name=f"{trials.name} ({label})" if name is None and trials.name else name or label,
                  spoof=spoof, metadata=metadata)
