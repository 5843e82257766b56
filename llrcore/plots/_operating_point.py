"""The operating point a figure or a report is drawn at: one :class:`~llrcore.prior.OperatingPoint` (issue 29).

Figures and reports take ``operating_point=`` (an OperatingPoint, or a bare P_target with unit costs); the metric
functions keep their loose ``p_target, c_miss, c_fa``. The loose keywords of the public figures and of
:func:`~llrcore.build_report` still work for one release, with a :class:`DeprecationWarning`
(:func:`with_deprecated`).
"""
from __future__ import annotations

import warnings

import numpy as np

from ..prior import OperatingPoint, as_operating_point

__all__ = ["operating_point_of", "with_deprecated"]

_LOOSE = ("p_target", "c_miss", "c_fa")


def operating_point_of(operating_point) -> OperatingPoint | None:
    """`operating_point` as an OperatingPoint (a number is a P_target with unit costs), or None."""
    return None if operating_point is None else as_operating_point(operating_point)


def with_deprecated(operating_point, deprecated: dict, function: str, default_p_target: float | None = None):
    """`operating_point`, or the one made of the deprecated loose keywords ``p_target, c_miss, c_fa`` in `deprecated`
    (the ``**`` of `function`; a missing ``p_target`` was `default_p_target`, None: no operating point), with a
    DeprecationWarning. A sequence of P_targets gives a list of OperatingPoints.

    Raises
    ------
    TypeError
        For any other keyword, as Python would.
    ValueError
        When the operating point is given both ways.
    """
    unknown = [name for name in deprecated if name not in _LOOSE]
    if unknown:
        raise TypeError(f"{function}() got an unexpected keyword argument {unknown[0]!r}")
    if not deprecated:
        return operating_point
    warnings.warn(f"{function}(p_target=, c_miss=, c_fa=) is deprecated and goes in the next release: pass "
                  "operating_point=llrcore.OperatingPoint(p_target, c_miss, c_fa).", DeprecationWarning, stacklevel=3)
    if operating_point is not None:
        raise ValueError("Give the operating point once: as operating_point, or as the deprecated p_target, c_miss "
                         "and c_fa.")
    p_target = deprecated.get("p_target", default_p_target)
    if p_target is None:
        return None
    costs = deprecated.get("c_miss", 1.0), deprecated.get("c_fa", 1.0)
    if np.ndim(p_target) == 0:
        return as_operating_point(p_target, *costs)
    return [as_operating_point(p, *costs) for p in p_target]
