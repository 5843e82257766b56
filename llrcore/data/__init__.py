"""The data layer: validated objects that every reader builds and every analysis takes.

- :mod:`~llrcore.data.checks` — the checks every score array passes (numbers, flat, not empty, no NaN).
- :mod:`~llrcore.data.trials` — :class:`~llrcore.data.trials.Trials`, the scores of binary trials, and
  :func:`~llrcore.data.trials.as_systems`.
- :mod:`~llrcore.data.cohort` — :class:`~llrcore.data.cohort.CohortScores`, the scores of ids against a cohort (score
  normalisation).

Nothing here imports a reader or an analysis (a Trials imports the sorted-score machinery only when asked for it).
This face gathers nothing: modules import what they need from the module that defines it, and ``llrcore`` gathers
the public API.
"""
