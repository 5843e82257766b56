"""Old spellings of public parameters, kept for one release with a :class:`FutureWarning` naming the new (issue 42).

One signature per family: the two score sets are ``tar, non`` (a :class:`~llrcore.Trials` or counted scores may
stand for both, as ``tar``), the tandem ``cm_bonafide, cm_spoof, asv_tar, asv_non, asv_spoof``, and the prior
``p_target``, keyword-only. :func:`old_spellings` lets a function still be called the old ways, with the same
result: an old keyword (``tar_llr=``, ``operating_point=``, ``p_targets=``), a prior or a cost given by position
(``min_dcf(tar, non, 0.01)``), or a prior given second after one object that holds both classes, as BOSARIS users
write it (``min_dcf(trials, 0.01)``).
"""
from __future__ import annotations

import functools
import inspect
import numbers
import os
import sys
import types
import warnings
from collections.abc import Callable, Mapping, Sequence

__all__ = ["COSTS", "LLRS", "OldSpellingWarning", "holds_both_classes", "moved_call", "old_spellings"]

#: The old names of the two sets of LLRs (cllr, act_dcf, ece, ...).
LLRS = {"tar_llr": "tar", "non_llr": "non"}
#: The operating point, once positional after the scores (``min_dcf(tar, non, 0.01, 10, 1)``).
COSTS = ("p_target", "c_miss", "c_fa")


class OldSpellingWarning(FutureWarning):
    """A public parameter called by its old spelling, which goes in the next release (the test run makes it an
    error, so that llrcore's own code never uses one)."""


#: What may stand second after a Trials as the prior of each kind (see :func:`_is_prior`).
_PRIOR_WORDS = {"p_target": "a P_target (or P_target values between 0 and 1, or an OperatingPoint)",
                "p_target or name": "P_target values between 0 and 1 or an evaluation's name",
                "plo": "one prior log-odds",
                "plo values": "prior log-odds"}


def old_spellings(renames: Mapping[str, str | tuple[str, Callable]] | None = None, *, positional: Sequence[str] = (),
                  prior: str | None = None, prior_kind: str | None = None):
    """Decorator that keeps a public function's old spellings working, with an :class:`OldSpellingWarning`
    (a FutureWarning) that names the new one, and the result of the new spelling.

    Parameters
    ----------
    renames : mapping of str to str or to (str, callable), optional
        Old keyword name -> new name (``{"tar_llr": "tar", "non_llr": "non"}``), or -> the new name and the function
        of the old value that gives the new one, when the units changed (``("plo", from_log10)``). Giving both is
        refused.
    positional : sequence of str
        Parameters, in their old order, that once could be given by position after the function's positional
        ones and are now keyword-only (``("p_target", "c_miss", "c_fa")``).
    prior : str, optional
        The prior among `positional`. When the function's first two parameters are ``tar, non`` and ``tar`` is one
        object that holds both classes (a Trials, or sorted or re-weighted scores), a prior given second is this
        parameter and every later positional argument moves up one place: ``min_dcf(trials, 0.01, 10)`` is
        ``min_dcf(trials, p_target=0.01, c_miss=10)``. Anything else second is refused in a sentence.
    prior_kind : str, optional
        What counts as that prior: ``"p_target"`` (a number, an OperatingPoint, or a flat list of values strictly
        between 0 and 1; the default), ``"p_target or name"`` (also a NIST evaluation's name, ``"SRE16"``),
        ``"plo"`` (one number: an array of log-odds cannot be told from an array of scores) or ``"plo values"`` (a
        number or an array: for a function that always took whatever came second after a Trials as its prior).
    """
    new_names: dict[str, tuple[str, Callable | None]] = {
        old: (new, None) if isinstance(new, str) else new for old, new in (renames or {}).items()}
    kind = prior_kind or ("plo" if prior == "plo" else "p_target")

    def decorate(function):
        parameters = list(inspect.signature(function).parameters.values())
        n_positional = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in parameters)
        names = [p.name for p in parameters]
        scores_first = names[:2] == ["tar", "non"]
        name = function.__name__

        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            changes = []
            if prior is not None and scores_first and len(args) >= 2:
                args = _prior_second(args, kind, prior)
            if len(args) > n_positional:
                args, moved = _by_keyword(name, args, kwargs, n_positional, positional)
                kwargs = {**kwargs, **moved}
                changes.append(f"{name}() takes {_keywords(moved)} by keyword only")
            old = [key for key in new_names if key in kwargs]
            if old:
                kwargs = _renamed(name, kwargs, {key: new_names[key] for key in old}, given=names[:len(args)])
                changes.append(f"{name}({_keywords(old)}) is now {name}({_keywords(new_names[k][0] for k in old)})")
            if changes:
                # stacklevel 2: the caller's line
                warnings.warn(f"{'; '.join(changes)}: the old spelling works in this release only.",
                              OldSpellingWarning, stacklevel=2)
            return function(*args, **kwargs)
        return wrapper
    return decorate


def _keywords(names) -> str:
    """``"a=, b="``."""
    return ", ".join(f"{key}=" for key in names)


def _by_keyword(name: str, args: tuple, kwargs: dict, n_positional: int, positional: Sequence[str]):
    """The first `n_positional` of `args`, and those beyond by their old names in `positional`."""
    extra = args[n_positional:]
    if len(extra) > len(positional):
        raise TypeError(f"{name}() takes {n_positional} positional arguments but {len(args)} were given.")
    moved = dict(zip(positional, extra))
    for key in moved:
        if key in kwargs:
            raise TypeError(f"{name}() got {key} twice: by position and as {key}=.")
    return args[:n_positional], moved


def _renamed(name: str, kwargs: dict, renames: dict, given: Sequence[str]) -> dict:
    """`kwargs` with the old keywords in `renames` given their new names (and values, when the units changed);
    `given` are the names of the arguments given by position."""
    kwargs = dict(kwargs)
    for old, (new, convert) in renames.items():
        if new in kwargs or new in given:
            raise TypeError(f"{name}() got {new}= and its old spelling {old}=: give {new}= alone.")
        value = kwargs.pop(old)
        kwargs[new] = value if convert is None else convert(value)
    return kwargs


def _prior_second(args: tuple, kind: str, prior: str) -> tuple:
    """``(trials, prior, *rest)`` as ``(trials, None, prior, *rest)``; a second set of scores after an object that
    holds both classes is refused."""
    if args[1] is None or not _holds_both_classes(args[0]):
        return args
    if not _is_prior(args[1], kind):
        raise TypeError(f"A {type(args[0]).__name__} holds both classes: give it alone, not with a second set of "
                        f"scores ({type(args[1]).__name__}); the operating point goes in {prior}= as "
                        f"{_PRIOR_WORDS[kind]}.")
    return (args[0], None, *args[1:])


#: The classes whose one object holds both classes of scores (Trials, sorted or counted scores), after which a number
#: second is the prior: each registers itself with :func:`holds_both_classes` (they live in layers above this one).
BOTH_CLASSES: list[type] = []


def holds_both_classes(cls: type) -> type:
    """Class decorator: one object of `cls` holds the target and the non-target scores (see :func:`old_spellings`)."""
    BOTH_CLASSES.append(cls)
    return cls


def _holds_both_classes(value) -> bool:
    return isinstance(value, tuple(BOTH_CLASSES))


def _is_prior(value, kind: str) -> bool:
    """Whether `value`, given second after a Trials, is a prior of `kind` (see :func:`old_spellings`)."""
    import numpy as np  # here: pytest's filterwarnings imports this module before tests/conftest.py sets BLAS's threads

    from .prior import OperatingPoint
    if isinstance(value, str):
        return kind == "p_target or name"
    if isinstance(value, OperatingPoint):
        return kind != "plo"
    if isinstance(value, bool) or _holds_both_classes(value):
        return False
    if isinstance(value, numbers.Real) or (isinstance(value, np.ndarray) and value.ndim == 0):
        return True
    if kind == "plo values":
        return True
    try:
        values = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        return False
    return kind != "plo" and values.ndim == 1 and values.size > 0 and bool(np.all((values > 0) & (values < 1)))


def moved_call(old: str, new: str) -> None:
    """An :class:`OldSpellingWarning` for a call whose answer now comes from another function, for one release:
    `old` (``"evaluate(..., by=...)"``) is now `new`. It points at the first caller outside llrcore."""
    warnings.warn(f"{old} is now {new}; the old call will be removed in the next release.", OldSpellingWarning,
                  stacklevel=_outside_llrcore())


def _outside_llrcore() -> int:
    """The stacklevel, for a warning raised by the caller of this function, of the first frame outside llrcore."""
    root, level = os.path.dirname(os.path.abspath(__file__)), 2
    frame: types.FrameType | None = sys._getframe(level)
    while frame is not None and frame.f_code.co_filename.startswith(root):
        frame, level = frame.f_back, level + 1
    return level
