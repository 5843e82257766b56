"""How sure the numbers are: bootstrap intervals, paired comparisons, metrics per condition.

- :mod:`.resampling` — ``bootstrap``: intervals of every metric and a DET band, re-weighted, never sorting again.
- :mod:`.comparison` — ``compare_systems``: a paired bootstrap of two systems on the same trials.
- :mod:`.paired_words` — such a comparison in words: who did better how often, and what the interval says.
- :mod:`.jackknife` — the grouped jackknife of BCa's acceleration: each left-out block from its sums and one PAV.
- :mod:`.intervals` — intervals from replicates: BCa (the default), the smoothed bootstrap of minDCF, percentile.
- :mod:`.conditions` — one row per condition value and a pooled row, with intervals and the rule of 30.

Stands on :mod:`llrcore.binary`. The old module ``llrcore.uncertainty`` is :mod:`.resampling` now; its names still
answer here for one release, with a DeprecationWarning.
"""
from .._moved import forwarding

__getattr__ = forwarding("uncertainty")
