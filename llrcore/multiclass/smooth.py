"""The smooth expected calibration error (smECE) of Błasiok & Nakkiran, as relplot computes it, with a bootstrap band
and its smoothed reliability curve.

For binary outcomes ``y`` and forecasts ``f`` in [0, 1], the residual ``r = f - y`` is smoothed over the forecasts
with a Gaussian kernel ``K_sigma`` reflected at 0 and 1 (so no mass leaks out of [0, 1]):

``rhat(t) = sum_i K(t, f_i) r_i / (sum_i K(t, f_i) + 1e-4)``,  ``dens(t) = sum_i K(t, f_i) + 1e-4``,

``smECE_sigma = sum_t |rhat(t)| dens(t) / sum_t dens(t)``

over an even mesh of ``max(200, round(10 / sigma))`` points of [0, 1]. The bandwidth is the fixed point
``smECE_sigma = sigma`` (the paper's sigma*): ``sigma = 1`` when ``smECE_1 > 1``, otherwise ten halvings of [0, 1]
keeping the end where ``sigma >= smECE_sigma`` (widths below 0.001 count as too small). The smoothed reliability
curve is ``t - rhat(t)`` (the outcome's mean given the forecast, smoothed), drawn on 200 points.

relplot discretises the kernel, and so does this module, in the same way, so that the numbers agree: each forecast is
shared linearly between the two nearest nodes of an even grid of ``g = max(2000, round(20 / sigma)) // 2 + 1`` points
of [0, 1]; the grid is reflected at both ends and convolved with the kernel sampled on ``np.linspace(0, 1, g)``
(centred, unnormalised ``exp(-d^2 / (2 sigma^2)) / (sqrt(2 pi) sigma)``: the floor 1e-4 is added to this scale); the
mesh reads the result by linear interpolation. The bootstrap's replicates convolve by FFT, which is faster and differs
from the direct convolution in the last digits only.

The band re-weights the forecasts as every llrcore bootstrap does (:class:`~llrcore.uncertainty.draws.Draws`, one
stratum): in each replicate a forecast counts as often as it was drawn. The smECE's interval re-chooses the bandwidth
in each replicate (the whole estimator, as relplot's ``report_CE_std``); the curve's band keeps the full data's
sigma* (as relplot's bagged curves).

References
----------
J. Błasiok and P. Nakkiran, "Smooth ECE: Principled reliability diagrams via kernel smoothing", ICLR 2024
(arXiv:2309.12236). relplot, github.com/apple/ml-calibration (``relplot.metrics.smECE``, version 1.0.3).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy.fft import irfft, next_fast_len, rfft

from ..uncertainty.draws import Draws
from .corp import binary_forecasts

__all__ = ["SmoothECE", "smooth_ece", "smooth_ece_at"]

MESH_POINTS = 200  # relplot's smECE_mesh_pts and plot_mesh_pts
SMALLEST_SIGMA = 0.001  # relplot's eps: narrower kernels count as too narrow in the search
DENSITY_FLOOR = 1e-4  # relplot adds it to the smoothed density before dividing by it
HALVINGS = 10


@lru_cache(maxsize=256)
def _kernel(g: int, sigma: float, nfft: int | None) -> np.ndarray:
    """relplot's kernel on ``np.linspace(0, 1, g)`` (centred, unnormalised), or its real FFT of length `nfft`; the
    widths tried by the halvings repeat from one replicate to the next, so they are computed once."""
    d = np.linspace(0, 1, g) - 0.5
    kernel = np.exp(-d * d / (2 * sigma ** 2)) / (np.sqrt(2 * np.pi) * sigma)
    return kernel if nfft is None else rfft(kernel, nfft)


def _fft_length(g: int) -> int:
    """A circular convolution as long as the mirrored grid (``3g - 2``) is enough: the linear one is ``4g - 3`` long,
    and what wraps round lands on indices 0 to ``g - 2``, before the ``g`` values read from ``g - 1 + g // 2`` on."""
    return next_fast_len(3 * g - 2, real=True)


class _Smoother:
    """The weighted residuals ``w r`` and weights ``w`` of one data set (or one replicate), smoothed at any width by
    relplot's discretised, reflected kernel (module docstring).

    The grid depends on the width only through its size ``g = max(2000, round(20 / sigma)) // 2 + 1`` (1001 for
    every width above 0.01), so each grid, and with `fft` its reflection's FFT, is built once for all the widths of
    the search. Convolved directly as relplot does, or by FFT (the bootstrap's replicates: many times faster, errors
    of about 1e-13 of the largest sum, which the density floor can magnify to 1e-6 where there are no forecasts).
    """

    def __init__(self, f: np.ndarray, r: np.ndarray, w: np.ndarray, *, fft: bool = False):
        self.f, self.rows, self.fft = f, np.stack([w * r, w]), fft
        self._reflected: dict[int, np.ndarray] = {}

    def reflected(self, g: int) -> np.ndarray:
        """The rows shared linearly between the two nearest of `g` grid nodes, mirrored at both ends (or its FFT)."""
        if g not in self._reflected:
            node = (self.f * (g - 1)).astype(int).clip(0, g - 2)
            frac = self.f * (g - 1) - node
            grid = np.array([np.bincount(node, (1 - frac) * v, minlength=g)
                             + np.bincount(node + 1, frac * v, minlength=g) for v in self.rows])
            mirrored = np.concatenate([grid[:, ::-1][:, :-1], grid, grid[:, ::-1][:, 1:]], axis=1)
            self._reflected[g] = rfft(mirrored, _fft_length(g), axis=1) if self.fft else mirrored
        return self._reflected[g]

    def sums(self, sigma: float, mesh: np.ndarray) -> np.ndarray:
        """``sum_i K_sigma(t, f_i) v_i`` on `mesh` for both rows ``v``."""
        g = max(2000, round(20 / sigma)) // 2 + 1
        if self.fft:
            nfft = _fft_length(g)
            full = irfft(self.reflected(g) * _kernel(g, sigma, nfft), nfft, axis=1)
            smoothed = full[:, g - 1 + g // 2: g - 1 + g // 2 + g]  # 'valid' starts at g - 1
        else:
            kernel = _kernel(g, sigma, None)
            smoothed = np.array([np.convolve(row, kernel, "valid")[g // 2: g // 2 + g]
                                 for row in self.reflected(g)])
        # read the grid at the mesh by linear interpolation, as relplot's ``interpolate``
        at = (mesh * (g - 1)).astype(int).clip(0, g - 2)
        residual = (mesh - at / (g - 1)) * (g - 1)
        return smoothed[:, at] * (1 - residual) + smoothed[:, at + 1] * residual

    def residual(self, sigma: float, mesh: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(rhat, dens)`` on `mesh`: the kernel-weighted mean of ``r`` and the floored density."""
        numerator, density = self.sums(sigma, mesh)
        density = density + DENSITY_FLOOR
        return numerator / density, density

    def smece(self, sigma: float) -> float:
        """``smECE_sigma`` on relplot's mesh of ``max(200, round(10 / sigma))`` points."""
        rhat, density = self.residual(sigma, np.linspace(0, 1, max(round(10 / sigma), MESH_POINTS)))
        return float(np.sum(np.abs(rhat) * density) / np.sum(density))

    def bandwidth(self) -> float:
        """relplot's ``search_param``: 1 if ``smECE_1 > 1``, else ten halvings keeping ``sigma >= smECE_sigma``
        above."""
        def too_wide(sigma: float) -> bool:
            return sigma < SMALLEST_SIGMA or sigma < self.smece(sigma)

        if too_wide(1.0):
            return 1.0
        upper, lower = 1.0, 0.0
        for _ in range(HALVINGS):
            middle = (upper + lower) / 2
            if too_wide(middle):
                lower = middle
            else:
                upper = middle
        return upper


@dataclass(frozen=True)
class SmoothECE:
    """Smooth ECE with its bandwidth, its smoothed reliability curve and bootstrap band (:func:`smooth_ece`).

    Attributes
    ----------
    smece : float
        The smooth ECE at the bandwidth `sigma` (a fraction, like the ECE).
    sigma : float
        The kernel's width sigma*, where ``smECE_sigma = sigma``.
    curve : DataFrame
        200 rows: ``forecast`` (the mesh of [0, 1]), ``recalibrated`` (smoothed mean outcome given the forecast),
        ``density`` (kernel density of the forecasts, integrating to about 1), and with a band ``lower``, ``upper``.
    interval : tuple of float or None
        The smECE's percentile bootstrap interval at `level` (None without replicates).
    level : float
    n : int
        Bootstrap replicates (0: no band).
    target : str
        ``"binary"``, ``"top-label"`` or the class number against the rest.
    """

    smece: float
    sigma: float
    curve: pd.DataFrame
    interval: tuple[float, float] | None
    level: float
    n: int
    target: str

    def to_frame(self) -> pd.DataFrame:
        """The smoothed reliability curve (:attr:`curve`)."""
        return self.curve

    def sentence(self) -> str:
        """The smooth ECE in percent, its interval and its bandwidth, in one sentence."""
        band = ("" if self.interval is None else
                f" ({100 * self.level:.0f} % bootstrap interval {100 * self.interval[0]:.2f} to "
                f"{100 * self.interval[1]:.2f} %, {self.n} replicates)")
        return (f"Smooth ECE {100 * self.smece:.2f} %{band}, kernel width {self.sigma:.4f} chosen where the smooth "
                f"ECE equals the width ({self.target}); no bins to choose.")


def smooth_ece_at(probabilities: ArrayLike, labels: ArrayLike, sigma: float, *, target: str | int = "top-label"
                  ) -> float:
    """The smooth ECE at a fixed kernel width, relplot's ``smECE_sigma(f, y, sigma)``.

    Parameters
    ----------
    probabilities, labels, target
        As in :func:`smooth_ece`.
    sigma : float
        The width of the Gaussian kernel, on the probability scale (``0 < sigma``).

    Returns
    -------
    float
        ``sum_t |rhat(t)| dens(t) / sum_t dens(t)`` (module docstring).
    """
    if not np.isfinite(sigma) or sigma <= 0:
        raise ValueError(f"The kernel width sigma must be a positive number, not {sigma}.")
    f, y = binary_forecasts(probabilities, labels, target)
    return _Smoother(f, f - y, np.ones_like(f)).smece(float(sigma))


def smooth_ece(probabilities: ArrayLike, labels: ArrayLike, *, target: str | int = "top-label", n: int = 200,
               level: float = 0.95, seed: int = 0) -> SmoothECE:
    """Smooth ECE (Błasiok & Nakkiran 2024) at the bandwidth where it equals the bandwidth, as relplot's ``smECE``,
    with a bootstrap interval and the smoothed reliability curve with its band.

    ``smECE_sigma = sum_t |rhat(t)| dens(t) / sum_t dens(t)`` with ``rhat`` the kernel-smoothed residual ``f - y``
    and ``dens`` the kernel density of the forecasts on an even mesh of [0, 1]; sigma* solves ``smECE_sigma = sigma``
    (module docstring for relplot's discretisation, which this follows).

    Parameters
    ----------
    probabilities : array_like, shape (T,) or (T, K)
        Probability of class 1 (labels 0/1), or one probability per class.
    labels : array_like of int
    target : "top-label" or int
        For a matrix: the top label's confidence against whether it is right, or class ``k`` against the rest.
    n : int
        Bootstrap replicates (0: no interval, no band).
    level : float
        Coverage of the percentile interval and of the pointwise band.
    seed : int

    Returns
    -------
    SmoothECE
        ``.smece``, ``.sigma``, ``.interval``, ``.curve`` (``to_frame()``) and ``.sentence()``.

    Examples
    --------
    >>> import llrcore as lc
    >>> result = lc.smooth_ece([0.9, 0.8, 0.7, 0.6, 0.2], [1, 1, 0, 1, 0], n=0)
    >>> round(result.smece, 4), round(result.sigma, 4)
    (0.1034, 0.1035)
    """
    if int(n) != n or n < 0:
        raise ValueError(f"The number of bootstrap replicates must be a whole number of at least 0, not {n}.")
    if not 0 < level < 1:
        raise ValueError(f"The level must lie between 0 and 1, not {level}.")
    f, y = binary_forecasts(probabilities, labels, target)
    r = f - y
    data = _Smoother(f, r, np.ones_like(f))
    sigma = data.bandwidth()
    mesh = np.linspace(0, 1, MESH_POINTS)
    rhat, density = data.residual(sigma, mesh)
    curve = pd.DataFrame({"forecast": mesh, "recalibrated": mesh - rhat,
                          "density": (density - DENSITY_FLOOR) / f.size})
    interval = None
    if n:
        values, curves = _replicates(f, r, sigma, mesh, int(n), seed)
        tail = (1 - level) / 2
        interval = (float(np.quantile(values, tail)), float(np.quantile(values, 1 - tail)))
        curve["lower"], curve["upper"] = np.quantile(curves, [tail, 1 - tail], axis=0)
    name = "binary" if np.ndim(probabilities) == 1 else str(target)
    return SmoothECE(data.smece(sigma), sigma, curve, interval, level, int(n), name)


def _replicates(f: np.ndarray, r: np.ndarray, sigma: float, mesh: np.ndarray, n: int, seed: int
                ) -> tuple[np.ndarray, np.ndarray]:
    """Per replicate: the smECE with its own bandwidth, and the curve at the full data's `sigma`."""
    draws = Draws((f.size,), seed)
    values, curves = np.empty(n), np.empty((n, mesh.size))
    for i, drawn in enumerate(draws.replicates(n)):
        (w,) = draws.weights(drawn)
        replicate = _Smoother(f, r, w.astype(np.float64), fft=True)
        values[i] = replicate.smece(replicate.bandwidth())
        curves[i] = mesh - replicate.residual(sigma, mesh)[0]
    return values, curves
