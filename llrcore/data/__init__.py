"""The data layer: validated objects that every reader builds and every analysis takes.

- :mod:`~llrcore.data.checks` — the checks every score array passes (numbers, flat, not empty, no NaN).
- :mod:`~llrcore.data.trials` — :class:`Trials`, the scores of binary trials, and :func:`as_systems`.

Nothing here imports a reader or an analysis (a Trials imports the sorted-score machinery only when asked for it).
"""
from .checks import as_scores
from .trials import Trials, as_systems

__all__ = ["Trials", "as_scores", "as_systems"]
