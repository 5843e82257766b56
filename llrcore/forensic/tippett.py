"""Tippett plot data: for each class, the proportion of LLRs at or above each value, and the misleading evidence.

A Tippett plot (Tippett et al. 1968; Meuwly & Drygajlo 2001; Morrison et al. 2021) draws, on one ``log10 LR`` axis,
the proportion of same-source (H1, target) LLRs at or above each value and the same for different-source (H2,
non-target) LLRs. Where they cross LR = 1 it reads off the rates of misleading evidence:

- same-source misleading: ``RMEP = #{tar: LR < 1} / N_tar`` (evidence pointing to H2 when H1 is true);
- different-source misleading: ``RMED = #{non: LR > 1} / N_non`` (pointing to H1 when H2 is true).

An LR of exactly 1 supports neither proposition and is misleading for neither class.

References
----------
C. F. Tippett, V. J. Emerson, M. J. Fereday, F. Lawton, A. Richardson, L. T. Jones and S. M. Lampert, "The evidential
value of the comparison of paint flakes from sources other than vehicles", J. Forensic Sci. Soc. 8 (1968) 61-65.
G. S. Morrison et al., "Consensus on validation of forensic voice comparison", Science & Justice 61 (2021) 299-309.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .._deprecation import LLRS, old_spellings
from ..data.trials import Trials
from ._trials import sorted_classes
from .units import to_log10

__all__ = ["Tippett", "tippett"]


@dataclass(frozen=True)
class Tippett:
    """The curves of a Tippett plot and the rates of misleading evidence of one system.

    Attributes
    ----------
    name : str
        The system's name.
    llr : ndarray
        Every distinct LLR of either class (natural log), increasing; may start at ``-inf`` or end at ``inf``.
    same_source, different_source : ndarray
        At each of :attr:`llr`, the proportion of same-source (target) and of different-source (non-target) LLRs
        at or above it: ``#{l_i >= llr} / N`` (a step function, continuous from the left).
    n_tar, n_non : int
        Number of same-source and different-source LLRs.
    n_misleading_same_source : int
        Same-source LLRs below 0 (LR < 1).
    n_misleading_different_source : int
        Different-source LLRs above 0 (LR > 1).
    """

    name: str
    llr: np.ndarray = field(repr=False)
    same_source: np.ndarray = field(repr=False)
    different_source: np.ndarray = field(repr=False)
    n_tar: int
    n_non: int
    n_misleading_same_source: int
    n_misleading_different_source: int

    @property
    def log10_lr(self) -> np.ndarray:
        """:attr:`llr` as ``log10 LR``, the Tippett plot's axis."""
        return to_log10(self.llr)

    @property
    def misleading_same_source(self) -> float:
        """Rate of misleading evidence for same-source trials, ``#{tar: LR < 1} / N_tar`` (a fraction)."""
        return self.n_misleading_same_source / self.n_tar

    @property
    def misleading_different_source(self) -> float:
        """Rate of misleading evidence for different-source trials, ``#{non: LR > 1} / N_non`` (a fraction)."""
        return self.n_misleading_different_source / self.n_non

    def to_frame(self) -> pd.DataFrame:
        """One row per distinct LLR: ``llr``, ``log10_lr`` and the proportions ``same_source`` and
        ``different_source`` at or above it."""
        return pd.DataFrame({"llr": self.llr, "log10_lr": self.log10_lr, "same_source": self.same_source,
                             "different_source": self.different_source})

    def misleading_frame(self) -> pd.DataFrame:
        """The rates of misleading evidence as a two-row table: ``class``, ``misleading`` (count), ``trials`` and
        ``rate`` (a fraction)."""
        return pd.DataFrame({
            "class": ["same source (LR < 1)", "different source (LR > 1)"],
            "misleading": [self.n_misleading_same_source, self.n_misleading_different_source],
            "trials": [self.n_tar, self.n_non],
            "rate": [self.misleading_same_source, self.misleading_different_source],
        })


@old_spellings(LLRS)
def tippett(tar: ArrayLike | Trials, non: ArrayLike | None = None, *, name: str | None = None) -> Tippett:
    """The Tippett curves and the rates of misleading evidence of natural-log LLRs.

    ``same_source(x) = #{tar >= x} / N_tar`` and ``different_source(x) = #{non >= x} / N_non`` at every distinct
    LLR ``x`` of either class; ties are counted whole (every LLR equal to ``x`` is "at or above" it). The rates of
    misleading evidence are ``#{tar < 0} / N_tar`` and ``#{non > 0} / N_non``; an LLR of exactly 0 is neither.

    Parameters
    ----------
    tar : Trials or array_like
        One :class:`~llrcore.Trials` (then `non` is left out) or the same-source LLRs.
    non : array_like, optional
        The different-source LLRs, with an array `tar`.
    name : str, optional
        The system's name (default the Trials' name).

    Returns
    -------
    Tippett
        The two curves at every distinct LLR (fractions), the counts and the rates of misleading evidence.

    Raises
    ------
    ValueError
        When a class has no LLR or an LLR is missing (NaN).
    """
    table, trials_name = sorted_classes(tar, non)
    values = table.unique
    same = (table.n_tar - np.searchsorted(table.tar, values, side="left")) / table.n_tar
    different = (table.n_non - np.searchsorted(table.non, values, side="left")) / table.n_non
    return Tippett(
        name=trials_name if name is None else name,
        llr=values,
        same_source=same,
        different_source=different,
        n_tar=int(table.n_tar),
        n_non=int(table.n_non),
        n_misleading_same_source=int(np.searchsorted(table.tar, 0.0, side="left")),
        n_misleading_different_source=int(table.n_non - np.searchsorted(table.non, 0.0, side="right")),
    )
