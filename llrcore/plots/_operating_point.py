"""The operating point a figure or a report is drawn at, given as the metrics give it (issue 42): ``p_target`` (a
number, an :class:`~llrcore.prior.OperatingPoint`, or for some figures a sequence of them) with ``c_miss, c_fa``.
Their old spelling ``operating_point=`` works for one release (:func:`llrcore._deprecation.old_spellings`).
"""
from __future__ import annotations

import numpy as np

from ..prior import OperatingPoint, as_operating_point

__all__ = ["OPERATING_POINT", "operating_point_of"]

#: The old name of a figure's or a report's operating point.
OPERATING_POINT = {"operating_point": "p_target"}


def operating_point_of(p_target, c_miss: float = 1.0, c_fa: float = 1.0):
    """None for no `p_target`, else its :class:`OperatingPoint` (a number takes the costs, an OperatingPoint brings
    its own), or a list of them for a sequence of P_targets."""
    if p_target is None:
        return None
    if isinstance(p_target, OperatingPoint) or np.ndim(p_target) == 0:
        return as_operating_point(p_target, c_miss, c_fa)
    return [as_operating_point(p, c_miss, c_fa) for p in p_target]
