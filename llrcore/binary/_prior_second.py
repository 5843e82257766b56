"""A prior given second: ``min_dcf(trials, 0.01)`` as BOSARIS users write it.

The metrics take ``f(tar, non=None, p_target, ...)``; with one object that holds both classes first (a
:class:`~llrcore.Trials`, or sorted or re-weighted scores), the second positional argument cannot be non-target scores,
so a prior there is the operating point. Kept apart from :mod:`llrcore.prior`, which every module imports and which
must not know the data objects.
"""
from __future__ import annotations

import functools
import inspect
import numbers

import numpy as np

from ..data.trials import Trials
from ..prior import OperatingPoint
from .rates import ScoreCounts

__all__ = ["prior_may_come_second"]

_PRIOR_WORDS = {"p_target": "a P_target (or P_target values between 0 and 1, or an OperatingPoint)",
                "p_targets": "P_target values between 0 and 1 or an evaluation's name",
                "plo": "one prior log-odds"}


def prior_may_come_second(name: str, kind: str = "p_target"):
    """Decorator of a metric ``f(tar, non=None, <name>, ...)``: with an object that holds both classes first (a
    Trials, or sorted or re-weighted scores), a prior given second is the operating point `name` and every later
    positional argument moves up one place, so ``min_dcf(trials, 0.01, 10)`` is ``min_dcf(trials, p_target=0.01,
    c_miss=10)``.

    What counts as a prior there (`kind`): ``"p_target"``, a number, an :class:`OperatingPoint` or a flat list of
    values strictly between 0 and 1; ``"p_targets"``, the same or an evaluation's name (``"SRE16"``); ``"plo"``, one
    number (an array of log-odds cannot be told from an array of scores). Anything else second (a second Trials, an
    array of scores) is refused in a sentence, as before.
    """
    def decorate(function):
        keyword_only = inspect.signature(function).parameters[name].kind is inspect.Parameter.KEYWORD_ONLY

        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            if len(args) >= 2 and args[1] is not None and _holds_both_classes(args[0]):
                if not _is_prior(args[1], kind):
                    raise TypeError(f"A {type(args[0]).__name__} holds both classes: give it alone, not with a second "
                                    f"set of scores ({type(args[1]).__name__}); give the operating point second as "
                                    f"{_PRIOR_WORDS[kind]}, or as {name}=.")
                if not keyword_only:
                    args = (args[0], None, *args[1:])
                elif name in kwargs:
                    raise TypeError(f"The operating point is given twice: second, and as {name}=.")
                else:
                    args, kwargs = (args[0], *args[2:]), {**kwargs, name: args[1]}
            return function(*args, **kwargs)
        return wrapper
    return decorate


def _holds_both_classes(value) -> bool:
    return isinstance(value, (Trials, ScoreCounts))


def _is_prior(value, kind: str) -> bool:
    """Whether `value`, given second after a Trials, is a prior of `kind` (see :func:`prior_may_come_second`)."""
    if isinstance(value, str):
        return kind == "p_targets"
    if isinstance(value, OperatingPoint):
        return kind != "plo"
    if isinstance(value, bool) or _holds_both_classes(value):
        return False
    if isinstance(value, numbers.Real) or (isinstance(value, np.ndarray) and value.ndim == 0):
        return True
    try:
        values = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        return False
    return kind != "plo" and values.ndim == 1 and values.size > 0 and bool(np.all((values > 0) & (values < 1)))
