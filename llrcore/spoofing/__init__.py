"""Spoofing: a countermeasure (CM) judged in front of a speaker verifier (ASV), as ASVspoof evaluates it.

- :mod:`.tdcf` — the tandem detection cost function (t-DCF, legacy and revised).
- :mod:`.tandem` — CM and ASV evaluated together, pooled and per attack.
- :mod:`.tdcf_bootstrap` — a bootstrap interval of the minimum t-DCF.

Stands on :mod:`llrcore.binary`. The old module ``llrcore.spoofing`` is :mod:`.tandem` now; its names still answer
here for one release, with a DeprecationWarning.
"""
from .._moved import forwarding

__getattr__ = forwarding("spoofing")
