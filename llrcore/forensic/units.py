"""Natural-log LLRs and the log10 LRs forensic users read, converted one way and back.

llrcore computes with natural-log LLRs (DESIGN.md); forensic reports, the ENFSI verbal scale, Tippett and ECE plots
and the NFI's ``lir`` speak of ``log10 LR``. These two functions are the one place the factor ``ln 10`` lives:
``log10 LR = llr / ln 10`` and ``llr = ln 10 * log10 LR``.

A round trip ``to_log10(from_log10(x))`` gives back ``x`` to within one unit in the last place (both steps round);
about one value in seven of the cartridge-case test data comes back one ulp away.
"""
from __future__ import annotations

from typing import overload

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["LN10", "from_log10", "to_log10"]

LN10 = float(np.log(10.0))
"""``ln 10``: a natural-log LLR of ``LN10`` is an LR of 10."""


@overload
def to_log10(llr: float) -> float: ...


@overload
def to_log10(llr: np.ndarray) -> np.ndarray: ...  # (a 0-d array gives a float)


@overload
def to_log10(llr: ArrayLike) -> float | np.ndarray: ...


def to_log10(llr: ArrayLike) -> float | np.ndarray:
    """``log10 LR`` of natural-log LLRs: ``llr / ln 10``.

    Parameters
    ----------
    llr : float or array_like
        Natural-log likelihood ratios.

    Returns
    -------
    float or ndarray
        The log10 LRs: a float for a float (or 0-d input), an array for an array.

    Examples
    --------
    >>> to_log10(LN10)
    1.0
    """
    values = np.asarray(llr, dtype=np.float64) / LN10
    return float(values) if values.ndim == 0 else values


@overload
def from_log10(log10_lr: float) -> float: ...


@overload
def from_log10(log10_lr: np.ndarray) -> np.ndarray: ...  # (a 0-d array gives a float)


@overload
def from_log10(log10_lr: ArrayLike) -> float | np.ndarray: ...


def from_log10(log10_lr: ArrayLike) -> float | np.ndarray:
    """Natural-log LLRs of ``log10 LR`` values (as ``lir`` and forensic reports give them): ``ln 10 * log10 LR``.

    Parameters
    ----------
    log10_lr : float or array_like
        Base-10 log likelihood ratios.

    Returns
    -------
    float or ndarray
        The natural-log LLRs: a float for a float (or 0-d input), an array for an array.

    Examples
    --------
    >>> from_log10(2.0) == 2 * LN10
    True
    """
    values = np.asarray(log10_lr, dtype=np.float64) * LN10
    return float(values) if values.ndim == 0 else values
