"""The minimum and actual Cavg to the last bit: exact ties between detection LLRs kept, never above rejecting
everything, and the brute-force minimum over every threshold (issue 28).

Independent reference, computed here and never by llrcore: a brute-force minimum Cavg over every threshold, in plain
Python: detection LLRs of eq. 9 (flat prior over the other classes) at 60 digits with ``mpmath`` (values closer than
1e-40 are one tie), the costs as ``fractions.Fraction`` of whole counts, rejecting everything and accepting everything
among the candidates.

Each test failed before its fix (issue 28).
"""
from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest

import llrcore as lc

INF = math.inf


def detection_values(matrix, labels):
    """``(value, is_target, class, target)`` of every detection LLR, at 60 digits (flat prior over the others)."""
    n = len(matrix[0])
    out = []
    with mp.workdps(60):
        for row, c in zip(matrix, labels):
            for target in range(n):
                others = [mp.exp(mp.mpf(row[i])) if row[i] != -INF else mp.mpf(0) for i in range(n) if i != target]
                mean = mp.fsum(others) / (n - 1)
                if row[target] == -INF:
                    value = -mp.inf
                elif mean == 0:
                    value = mp.inf
                else:
                    value = mp.mpf(row[target]) - mp.log(mean)
                out.append((value, c == target, c, target))
    return out


def brute_cavg(matrix, labels, p_target, threshold=None) -> Fraction:
    """Normalised Cavg, exact, at `threshold` (an mpf), or the least over every threshold when None."""
    n = len(matrix[0])
    counts = [sum(1 for c in labels if c == k) for k in range(n)]
    beta = (1 - Fraction(p_target)) / Fraction(p_target)
    values = detection_values(matrix, labels)

    def cost(accept) -> Fraction:
        total = Fraction(0)
        for target in range(n):
            missed = sum(1 for v, own, c, t in values if t == target and own and not accept(v))
            total += Fraction(missed, counts[target])
            for k in range(n):
                if k != target:
                    accepted = sum(1 for v, own, c, t in values if t == target and c == k and accept(v))
                    total += beta / (n - 1) * Fraction(accepted, counts[k])
        return total / n

    with mp.workdps(60):  # every comparison at the precision of the values
        if threshold is not None:
            return cost(lambda v: v >= threshold)
        distinct = []
        for v in sorted((v for v, *_ in values), key=lambda v: (v != -mp.inf, v)):
            if not distinct or not (v == distinct[-1] or (mp.isfinite(v) and abs(v - distinct[-1]) <= 1e-40)):
                distinct.append(v)
        candidates = [cost(lambda v, t=t: v >= t - mp.mpf(10) ** -45) for t in distinct]
        return min([*candidates, cost(lambda v: False)])  # rejecting everything


def test_min_cavg_of_rows_that_differ_by_a_constant_keeps_the_tie():
    matrix, labels = [[0, 2, 1], [0, -1, 1], [0, -1, 2], [-1, -2, 0]], [0, 1, 2, 2]
    assert brute_cavg(matrix, labels, 0.5) == Fraction(5, 6)
    assert lc.cavg(matrix, p_target=0.5, labels=labels, minimum=True) == float(Fraction(5, 6))
    det = np.column_stack([lc.detection_llrs(np.array(matrix, float), t) for t in range(3)])
    assert (det[1] == det[3]).all()


def test_min_cavg_never_exceeds_rejecting_everything():
    matrix, labels = [[0.0, 0.0], [0.0, -INF]], [0, 1]  # trial 1 is certainly class 0: a false alarm at any threshold
    assert brute_cavg(matrix, labels, 0.1) == 1
    assert lc.cavg(matrix, p_target=0.1, labels=labels, minimum=True) == 1.0
    assert lc.cavg(matrix, p_target=0.1, labels=labels) == float(brute_cavg(matrix, labels, 0.1, mp.log(9)))  # 5.5


def random_case(rng):
    n = int(rng.integers(2, 5))
    size = int(rng.integers(n, n + 5))
    matrix = rng.integers(-2, 3, (size, n)).astype(float)
    matrix[rng.random((size, n)) < 0.25] = -INF
    matrix[np.arange(size), rng.integers(0, n, size)] = rng.integers(-2, 3, size)  # a finite value in every row
    labels = np.concatenate([np.arange(n), rng.integers(0, n, size - n)])
    for k in rng.integers(0, size, 2):  # a row shifted by a constant, and one with its other classes permuted
        matrix = np.vstack([matrix, matrix[k] + rng.integers(-3, 4)])
        labels = np.append(labels, labels[k])
    return matrix, labels


@pytest.mark.parametrize("seed", range(40))
def test_min_cavg_is_the_brute_force_minimum_over_every_threshold(seed):
    rng = np.random.default_rng(seed)
    matrix, labels = random_case(rng)
    rows = matrix.tolist()
    for p_target in (0.5, 0.1, 0.8):
        exact = brute_cavg(rows, labels.tolist(), p_target)
        value = lc.cavg(matrix, p_target=p_target, labels=labels, minimum=True)
        assert value == pytest.approx(float(exact), rel=1e-15, abs=1e-300), (p_target, rows, labels)
        assert value <= min(1.0, float((1 - Fraction(p_target)) / Fraction(p_target))) + 1e-15
        with mp.workdps(60):
            bayes = mp.log((1 - mp.mpf(p_target)) / mp.mpf(p_target))
        actual = lc.cavg(matrix, p_target=p_target, labels=labels)
        assert actual == pytest.approx(float(brute_cavg(rows, labels.tolist(), p_target, bayes)), rel=1e-15)
        assert value <= actual + 1e-15


def test_detection_llrs_do_not_depend_on_the_order_of_the_other_classes():
    matrix = np.array([[0.3, 1.7, -2.1, 0.9], [0.3, 0.9, 1.7, -2.1], [0.3, -2.1, 0.9, 1.7]])
    assert len(set(lc.detection_llrs(matrix, 0).tolist())) == 1
