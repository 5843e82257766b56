"""Score normalisation against a cohort: Z-, T-, S- and adaptive S-norm (not calibration: nothing links them).

- :mod:`.norms` — ``normalize_scores``: each side of a trial scored against a cohort of impostors, the raw score moved
  by the cohort's mean and standard deviation (of all of it, or of its top N).

The cohort itself is a data object, :class:`~llrcore.data.cohort.CohortScores` (re-exported here), read from
``model cohort score`` files by :func:`llrcore.io.cohort.read_cohort_scores` (a reader: readers live in
:mod:`llrcore.io`, and no analysis imports one). Stands on :mod:`llrcore.data` alone. The old module
``llrcore.calibration.normalization`` is :mod:`.norms` now; it still answers there for one release, with a
DeprecationWarning.
"""
from ..data.cohort import CohortProblem, CohortScores
from .norms import (
    DEFAULT_TOP_N,
    METHODS,
    CohortStatistics,
    cohort_statistics,
    normalization_problems,
    normalize_arrays,
    normalize_pairs,
    normalize_scores,
)

__all__ = ["DEFAULT_TOP_N", "METHODS", "CohortProblem", "CohortScores", "CohortStatistics", "cohort_statistics",
           "normalization_problems", "normalize_arrays", "normalize_pairs", "normalize_scores"]
