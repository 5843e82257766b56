"""Spoofing: a countermeasure (CM) judged in front of a speaker verifier (ASV), as ASVspoof evaluates it.

- :mod:`.tdcf` — the tandem detection cost function (t-DCF, legacy and revised).
- :mod:`.tandem` — CM and ASV evaluated together, pooled and per attack.
- :mod:`.tdcf_bootstrap` — a bootstrap interval of the minimum t-DCF.
- :mod:`.adcf` — the a-DCF of a spoofing-robust speaker verifier (SASV), ASVspoof 5's primary metric.
- :mod:`.teer` — the concurrent t-EER of a CM in tandem with an ASV.
- :mod:`.sasv` — both beside the t-DCF, pooled and per attack.

Stands on :mod:`llrcore.binary`. The old module ``llrcore.spoofing`` is :mod:`.tandem` now; its names still answer
here for one release, with a DeprecationWarning.
"""
from .._moved import forwarding
from .adcf import ADCF, a_dcf, a_dcf_cost_model
from .teer import TEER_CONVENTIONS, TandemEER, t_eer, t_eer_conventions

__all__ = ["ADCF", "TEER_CONVENTIONS", "TandemEER", "a_dcf", "a_dcf_cost_model", "t_eer", "t_eer_conventions"]

__getattr__ = forwarding("spoofing")
