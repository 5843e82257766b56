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
from the direct convolution in the last digits only; they halve their widths in step, and those that try widths of one
grid size are convolved by one FFT call on a 2-D array, each row with the arithmetic it would have alone.

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
from itertools import islice

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
BATCH = 100  # bootstrap replicates smoothed together
BATCH_VALUES = 2_000_000  # and at most this many weights in a batch


@lru_cache(maxsize=256)
def _kernel(g: int, sigma: float, nfft: int | None) -> np.ndarray:
    """relplot's kernel on ``np.linspace(0, 1, g)`` (centred, unnormalised), or its real FFT of length `nfft`; the
    widths tried by the halvings repeat from one replicate to the next, so they are computed once."""
    d = np.linspace(0, 1, g) - 0.5
    kernel = np.exp(-d * d / (2 * sigma ** 2)) / (np.sqrt(2 * np.pi) * sigma)
    kernel = kernel if nfft is None else rfft(kernel, nfft)
    kernel.flags.writeable = False  # every caller shares the cached array: a change in place would spoil the cache
    return kernel


def _fft_length(g: int) -> int:
    """A circular convolution as long as the mirrored grid (``3g - 2``) is enough: the linear one is ``4g - 3`` long,
    and what wraps round lands on indices 0 to ``g - 2``, before the ``g`` values read from ``g - 1 + g // 2`` on."""
    return next_fast_len(3 * g - 2, real=True)


def _grid_and_mesh(sigma: float) -> tuple[int, int]:
    """relplot's grid size ``max(2000, round(20 / sigma)) // 2 + 1`` and smECE mesh ``max(200, round(10 / sigma))``
    at width `sigma`."""
    return max(2000, round(20 / sigma)) // 2 + 1, max(round(10 / sigma), MESH_POINTS)


class _Smoother:
    """The weighted residuals ``w r`` and weights ``w`` of a data set under several weightings at once (the data: one
    row of ones; the bootstrap: one row of counts per replicate), smoothed by relplot's discretised, reflected kernel
    (module docstring), each weighting at a width of its own.

    The grid depends on the width only through its size ``g`` (1001 for every width above 0.01), so each grid, and
    with `fft` its reflection's FFT, is built once for all the widths of the search. The weightings whose widths share
    ``g`` and the mesh are smoothed together: one FFT call on a 2-D array rather than one per weighting, the same
    arithmetic on each row. Convolved directly as relplot does, or by FFT (the bootstrap's replicates: many times
    faster, errors of about 1e-13 of the largest sum, which the density floor can magnify to 1e-6 where there are no
    forecasts).

    Parameters
    ----------
    f, r : ndarray, shape (N,)
        Forecasts and residuals ``f - y``.
    w : ndarray, shape (n, N)
        One row of weights per weighting.
    fft : bool
    """

    def __init__(self, f: np.ndarray, r: np.ndarray, w: np.ndarray, *, fft: bool = False):
        self.f, self.r, self.w, self.fft = f, r, w, fft
        self._reflected: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # grid size -> (rows, which are built)

    @property
    def n(self) -> int:
        """The number of weightings."""
        return self.w.shape[0]

    def reflected(self, g: int, which: np.ndarray) -> np.ndarray:
        """Shape (len(which), 2, 3g - 2): the rows of the weightings `which` shared linearly between the two nearest
        of `g` grid nodes, mirrored at both ends (or its FFT). Built once per weighting and grid size, and only for
        the weightings that ask: below a width of 0.01 each width has a grid size of its own."""
        if g not in self._reflected:  # rows filled on demand; np.empty leaves the others' memory untouched
            length = _fft_length(g) // 2 + 1 if self.fft else 3 * g - 2
            self._reflected[g] = (np.empty((self.n, 2, length), complex if self.fft else float),
                                  np.zeros(self.n, bool))
        built, done = self._reflected[g]
        missing = which[~done[which]]
        if missing.size:
            node = (self.f * (g - 1)).astype(int).clip(0, g - 2)
            frac = self.f * (g - 1) - node
            # a weighting at a time: a batch of them would be as many times larger and fall out of the CPU's caches
            grid = np.array([[np.bincount(node, (1 - frac) * v, minlength=g)
                              + np.bincount(node + 1, frac * v, minlength=g) for v in (w * self.r, w)]
                             for w in self.w[missing]])
            mirrored = np.concatenate([grid[..., ::-1][..., :-1], grid, grid[..., ::-1][..., 1:]], axis=-1)
            built[missing] = rfft(mirrored, _fft_length(g), axis=-1) if self.fft else mirrored
            done[missing] = True
        return built if which.size == self.n else built[which]  # `which` is in order: all rows, or a few

    def sums(self, sigma: list[float], mesh: np.ndarray, which: np.ndarray) -> np.ndarray:
        """Shape (len(which), 2, mesh.size): ``sum_i K_sigma(t, f_i) v_i`` on `mesh` for both rows ``v`` of the
        weightings `which`, each at its own width (all of one grid size)."""
        g = _grid_and_mesh(sigma[0])[0]
        if self.fft:
            nfft = _fft_length(g)
            kernels = np.array([_kernel(g, s, nfft) for s in sigma])
            full = irfft(self.reflected(g, which) * kernels[:, None, :], nfft, axis=-1)
            smoothed = full[..., g - 1 + g // 2: g - 1 + g // 2 + g]  # 'valid' starts at g - 1
        else:
            smoothed = np.array([[np.convolve(row, _kernel(g, s, None), "valid")[g // 2: g // 2 + g] for row in rows]
                                 for rows, s in zip(self.reflected(g, which), sigma)])
        # read the grid at the mesh by linear interpolation, as relplot's ``interpolate``
        at = (mesh * (g - 1)).astype(int).clip(0, g - 2)
        residual = (mesh - at / (g - 1)) * (g - 1)
        # in C order, so that a row's sums (smece) are numpy's pairwise sums of one row: the indexing leaves F order
        return np.ascontiguousarray(smoothed[..., at] * (1 - residual) + smoothed[..., at + 1] * residual)

    def residual(self, sigma: np.ndarray, mesh: np.ndarray, which: np.ndarray | None = None
                 ) -> tuple[np.ndarray, np.ndarray]:
        """``(rhat, dens)`` on `mesh`, shape (len(which), mesh.size) each: the kernel-weighted mean of ``r`` and the
        floored density of the weightings `which` (all by default) at their widths `sigma`."""
        which = np.arange(self.n) if which is None else which
        sums = self.sums(np.asarray(sigma, dtype=np.float64).tolist(), mesh, which)
        density = sums[:, 1] + DENSITY_FLOOR
        return sums[:, 0] / density, density

    def smece(self, sigma: np.ndarray, which: np.ndarray | None = None) -> np.ndarray:
        """``smECE_sigma`` of the weightings `which` (all by default) at their widths `sigma`, each on relplot's mesh
        of ``max(200, round(10 / sigma))`` points."""
        which = np.arange(self.n) if which is None else which
        sigma = np.asarray(sigma, dtype=np.float64)
        values = np.empty(sigma.size)
        sizes = [_grid_and_mesh(s) for s in sigma.tolist()]
        for g, m in set(sizes):
            alike = np.array([size == (g, m) for size in sizes])
            rhat, density = self.residual(sigma[alike], np.linspace(0, 1, m), which[alike])
            values[alike] = np.sum(np.abs(rhat) * density, axis=-1) / np.sum(density, axis=-1)
        return values

    def bandwidth(self) -> tuple[np.ndarray, np.ndarray]:
        """relplot's ``search_param`` for every weighting: 1 if ``smECE_1 > 1``, else ten halvings keeping
        ``sigma >= smECE_sigma`` above; the weightings halve in step, each deciding on its own smECE.

        Returns sigma* per weighting and the smECE there, kept from the search rather than smoothed once more.
        """
        upper, lower = np.ones(self.n), np.zeros(self.n)
        narrow_at_one, at_one = self._too_narrow(upper)
        at_upper = at_one
        for _ in range(HALVINGS):
            middle = (upper + lower) / 2
            narrow, at_middle = self._too_narrow(middle)
            lower, upper = np.where(narrow, middle, lower), np.where(narrow, upper, middle)
            at_upper = np.where(narrow, at_upper, at_middle)
        return np.where(narrow_at_one, 1.0, upper), np.where(narrow_at_one, at_one, at_upper)

    def _too_narrow(self, sigma: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``sigma < smECE_sigma`` per weighting, and ``smECE_sigma``; widths below 0.001 count as too narrow
        without smoothing (their smECE NaN)."""
        narrow, values = sigma < SMALLEST_SIGMA, np.full(sigma.size, np.nan)
        asked = np.flatnonzero(~narrow)
        values[asked] = self.smece(sigma[asked], asked)
        narrow[asked] = sigma[asked] < values[asked]
        return narrow, values


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
    return float(_Smoother(f, f - y, np.ones((1, f.size))).smece(np.array([float(sigma)]))[0])


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
    data = _Smoother(f, r, np.ones((1, f.size)))
    sigmas, smeces = data.bandwidth()
    sigma, smece = float(sigmas[0]), float(smeces[0])
    mesh = np.linspace(0, 1, MESH_POINTS)
    rhat, density = (row[0] for row in data.residual(np.array([sigma]), mesh))
    curve = pd.DataFrame({"forecast": mesh, "recalibrated": mesh - rhat,
                          "density": (density - DENSITY_FLOOR) / f.size})
    interval = None
    if n:
        values, curves = _replicates(f, r, sigma, mesh, int(n), seed)
        tail = (1 - level) / 2
        interval = (float(np.quantile(values, tail)), float(np.quantile(values, 1 - tail)))
        curve["lower"], curve["upper"] = np.quantile(curves, [tail, 1 - tail], axis=0)
    name = "binary" if np.ndim(probabilities) == 1 else str(target)
    return SmoothECE(smece, sigma, curve, interval, level, int(n), name)


def _replicates(f: np.ndarray, r: np.ndarray, sigma: float, mesh: np.ndarray, n: int, seed: int
                ) -> tuple[np.ndarray, np.ndarray]:
    """Per replicate: the smECE with its own bandwidth, and the curve at the full data's `sigma`; the replicates are
    smoothed in batches of at most ``BATCH`` (fewer when the forecasts are many, to bound the memory)."""
    draws = Draws((f.size,), seed)
    replicates = draws.replicates(n)
    size = max(1, min(BATCH, BATCH_VALUES // f.size))
    values, curves = [], []
    for start in range(0, n, size):
        counts = np.array([draws.weights(drawn)[0] for drawn in islice(replicates, min(size, n - start))],
                          dtype=np.float64)
        batch = _Smoother(f, r, counts, fft=True)
        values.append(batch.bandwidth()[1])
        curves.append(mesh - batch.residual(np.full(batch.n, sigma), mesh)[0])
    return np.concatenate(values), np.concatenate(curves)
