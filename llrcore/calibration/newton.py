"""The solver of every calibration fit: exact-Hessian trust region, then Newton steps to machine precision.

An objective is any object with ``value(phi) -> float`` and ``derivatives(phi) -> (gradient, hessian)`` (exact, in
the parameters ``phi``): the binary objective of affine calibration and fusion (:mod:`llrcore.calibration.fit`) and the
multiclass one (:mod:`llrcore.multiclass.calibration`). Both are smooth and, for the logarithmic rule, convex, so a
trust region from a safe start and a few Newton steps from near the optimum reach it to machine precision.

Reference: J. Nocedal and S. Wright, "Numerical optimization", 2nd ed., Springer 2006 (ch. 4, trust-region methods;
ch. 3, Newton's method).
"""
from __future__ import annotations

import numpy as np
from scipy import optimize

__all__ = ["newton", "newton_polish", "trust_region"]


class _Memo:
    """Caches the derivatives at the last point: scipy asks for the gradient and the Hessian separately."""

    def __init__(self, objective):
        self.objective, self.phi, self.result = objective, None, None

    def __call__(self, phi):
        if self.phi is None or not np.array_equal(phi, self.phi):
            self.phi, self.result = phi.copy(), self.objective.derivatives(phi)
        return self.result


def trust_region(objective, start) -> np.ndarray:
    """Minimise by scipy's ``trust-exact`` with the exact gradient and Hessian, to a gradient of about 1e-10."""
    derivatives = _Memo(objective)
    result = optimize.minimize(
        objective.value,
        start,
        jac=lambda phi: derivatives(phi)[0],
        hess=lambda phi: derivatives(phi)[1],
        method="trust-exact",
        options={"gtol": 1e-10, "maxiter": 200},
    )
    return result.x


def newton(objective, start, iterations: int = 8, small_step: float = 1e-5) -> tuple[np.ndarray, bool]:
    """Newton steps from a nearby start, until one is smaller than `small_step` times the parameters' size.

    Near the optimum the Hessian is positive definite and Newton converges quadratically, so from a subsample's
    optimum two or three steps reach machine precision, each one pass over the data and no objective values.
    Returns the last point and whether the steps converged; they give up when a step does not shrink the gradient.
    """
    phi = start
    gradient, hessian = objective.derivatives(phi)
    for _ in range(iterations):
        try:
            step = -np.linalg.solve(hessian, gradient)
        except np.linalg.LinAlgError:
            break
        if not np.all(np.isfinite(phi + step)):  # a (near-)singular Hessian far from the optimum
            break
        if np.all(np.linalg.eigvalsh(hessian) > 0) and np.abs(step).max() < small_step * (1 + np.abs(phi).max()):
            return phi + step, True  # quadratic convergence: what remains after this step is of the order of step**2
        new_gradient, new_hessian = objective.derivatives(phi + step)
        if not np.linalg.norm(new_gradient) < np.linalg.norm(gradient):
            break
        phi, gradient, hessian = phi + step, new_gradient, new_hessian
    return phi, False


def newton_polish(objective, start, iterations: int = 8) -> np.ndarray:
    """Newton steps from a nearby start (:func:`newton`); the trust region takes over if they do not converge."""
    phi, converged = newton(objective, start, iterations)
    return phi if converged else trust_region(objective, phi)
