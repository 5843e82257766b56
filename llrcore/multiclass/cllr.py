"""Multiclass Cllr: the prior-weighted logarithmic scoring rule of the posteriors of LLR vectors.

``Cllr = -sum_i pi_i mean_{t in class i} log2 P_i(t)`` with ``P_i(t) = pi_i e^{l_ti} / sum_j pi_j e^{l_tj}``
(Brümmer & van Leeuwen, Odyssey 2006, eq. 17); ``log2 N`` (the entropy of the prior) is the useless reference.
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..data.multiclass import MulticlassScores, class_prior, classes_of, llrs_and_labels, require_trials, row_logsumexp

__all__ = ["entropy_bits", "multiclass_cllr"]

_LN2 = np.log(2.0)



def _true_class_costs(llrs, labels, log_prior, lse) -> np.ndarray:
    """``-log P_true(t)`` in nats; ``inf`` when the true class was ruled out (its posterior is 0)."""
    true = llrs[np.arange(labels.size), labels] + log_prior[labels]
    with np.errstate(invalid="ignore"):
        cost = lse - true
    cost[np.isnan(cost)] = np.inf  # -inf - (-inf): the true class and all others ruled out
    return cost


def multiclass_cllr(llrs: ArrayLike | MulticlassScores, labels: ArrayLike | None = None,
                    prior: str | ArrayLike | None = None) -> float:
    """Multiclass Cllr in bits: the prior-weighted logarithmic scoring rule of the posteriors.

    ``Cllr = -sum_i pi_i mean_{t in class i} log2 P_i(t)`` with ``P_i(t) = pi_i e^{l_ti} / sum_j pi_j e^{l_tj}``
    (Brümmer & van Leeuwen 2006, eq. 17, which uses the flat prior ``pi_i = 1/N``). A system that always outputs
    equal LLRs scores the entropy of the prior, ``log2 N`` bits at the flat prior; more than that is worse than
    deciding from the prior alone. Classes with prior 0 are left out of the question (their trials do not count
    and their LLRs do not enter the posteriors). With two classes and the flat prior this is the binary Cllr of
    ``l_1 - l_0``.

    Parameters
    ----------
    llrs : array_like (T, N) or MulticlassScores
        Natural-log LLRs, one column per class.
    labels : array_like of int (T,), optional
        True classes; taken from `llrs` when it is a :class:`MulticlassScores`.
    prior : None, "flat", "empirical" or array_like
        See :func:`class_prior`; flat by default.

    Returns
    -------
    float
        The Cllr in bits (``inf`` when a trial's true class was ruled out by an LLR of ``-inf``).

    Raises
    ------
    ValueError
        Missing labels, or a class with non-zero prior and no trial.
    """
    llrs, labels = llrs_and_labels(llrs, labels)
    n = llrs.shape[1]
    prior = class_prior(prior, n, labels)
    counts = np.bincount(labels, minlength=n)
    require_trials(prior, counts, classes_of(None, None, n))
    with np.errstate(divide="ignore"):
        log_prior = np.log(prior)
    cost = _true_class_costs(llrs, labels, log_prior, row_logsumexp(llrs, log_prior))
    cost[prior[labels] == 0] = 0.0  # trials of classes outside the question
    mean_cost = np.bincount(labels, weights=cost, minlength=n) / np.maximum(counts, 1)
    return float(prior[prior > 0] @ mean_cost[prior > 0] / _LN2)


def entropy_bits(prior: np.ndarray) -> float:
    positive = prior[prior > 0]
    return float(-(positive @ np.log2(positive)))

