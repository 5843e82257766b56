"""The objective every affine and fusion fit minimises, with its exact gradient and Hessian: :class:`FusionObjective`.

The prior-weighted proper-scoring-rule objective of eq. (3) of Brümmer & Doddington (2013), over the fused LLR of
one or more score columns, seen by the optimiser (:mod:`llrcore.calibration.newton`) in standardised parameters.

Reference
---------
N. Brümmer and G. Doddington, "Likelihood-ratio calibration using prior-weighted proper scoring rules",
Interspeech 2013.
"""
from __future__ import annotations

import numpy as np

from ..parallel import dot
from ..prior import sigmoid
from .rules import BetaRule

__all__ = ["FusionObjective"]


class FusionObjective:
    """Prior-weighted scoring-rule objective of the fused LLR ``x = sum_k theta_k s_k + theta_K + plo``.

    Works on the raw score columns (no copies). The optimiser sees standardised parameters ``theta = M phi``,
    under which every score column has mean 0 and spread 1, so the Newton steps are well scaled whatever the
    score units; the gradient and Hessian map as ``M^T g`` and ``M^T H M``.
    """

    def __init__(self, tar_columns, non_columns, rule: BetaRule, plo: float, regularisation: float = 0.0):
        self.tar, self.non, self.rule, self.plo = tar_columns, non_columns, rule, plo
        self.regularisation = regularisation
        self.tar_weight = sigmoid(plo) / tar_columns[0].size
        self.non_weight = sigmoid(-plo) / non_columns[0].size
        centre, spread = np.array([_moments(t, u) for t, u in zip(tar_columns, non_columns)]).T
        spread[~(spread > 1e-12 * np.maximum(np.abs(centre), 1.0))] = 1.0
        k = centre.size
        self.standardisation = np.eye(k + 1)
        self.standardisation[:k, :k] = np.diag(1 / spread)
        self.standardisation[k, :k] = -centre / spread

    def raw(self, phi) -> np.ndarray:
        """Raw parameters (weights..., offset) from standardised ones."""
        return self.standardisation @ phi

    def standardised(self, theta) -> np.ndarray:
        """Standardised parameters from raw ones (weights..., offset)."""
        return np.linalg.solve(self.standardisation, theta)

    def _llrs(self, columns, theta):
        x = theta[0] * columns[0] + (theta[-1] + self.plo)
        for weight, column in zip(theta[1:-1], columns[1:]):
            x += weight * column
        return x

    def value(self, phi) -> float:
        self.last_value = (phi.copy(), self._value(phi))
        return self.last_value[1]

    def _value(self, phi) -> float:
        theta = self.raw(phi)
        target_cost = self.rule.target_cost(self._llrs(self.tar, theta)).sum()
        non_cost = self.rule.non_cost(self._llrs(self.non, theta)).sum()
        penalty = self.regularisation / 2 * (phi[:-1] @ phi[:-1])
        return float(self.tar_weight * target_cost + self.non_weight * non_cost + penalty)

    def derivatives(self, phi) -> tuple[np.ndarray, np.ndarray]:
        """Gradient and Hessian with respect to the standardised parameters (the last gradient is kept, with its
        point, in ``last_gradient``)."""
        gradient, hessian = self._derivatives(phi)
        self.last_gradient = (phi.copy(), gradient)
        return gradient, hessian

    def _derivatives(self, phi) -> tuple[np.ndarray, np.ndarray]:
        theta = self.raw(phi)
        k = theta.size
        gradient, hessian = np.zeros(k), np.zeros((k, k))
        for columns, weight, side in ((self.tar, self.tar_weight, self.rule.target_derivatives),
                                      (self.non, self.non_weight, self.rule.non_derivatives)):
            slope, curvature = side(self._llrs(columns, theta))
            gradient[-1] += weight * slope.sum()
            hessian[-1, -1] += weight * curvature.sum()
            for i, column in enumerate(columns):
                weighted = curvature * column
                gradient[i] += weight * dot(slope, column)
                hessian[i, -1] += weight * weighted.sum()
                for j in range(i, len(columns)):
                    hessian[i, j] += weight * dot(weighted, columns[j])
        hessian = np.triu(hessian) + np.triu(hessian, 1).T
        m = self.standardisation
        gradient, hessian = m.T @ gradient, m.T @ hessian @ m
        # The penalty (regularisation / 2) |phi_weights|^2 acts on the standardised weights, not on the offset.
        gradient[:-1] += self.regularisation * phi[:-1]
        hessian[:-1, :-1] += self.regularisation * np.eye(k - 1)
        return gradient, hessian


def _moments(tar: np.ndarray, non: np.ndarray) -> tuple[float, float]:
    """Mean and spread of one system's pooled scores, for conditioning only (so E[s^2] - E[s]^2 is good enough)."""
    n = tar.size + non.size
    mean = (tar.sum() + non.sum()) / n
    return mean, np.sqrt(max((dot(tar, tar) + dot(non, non)) / n - mean**2, 0.0))
