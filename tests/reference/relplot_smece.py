"""Test-only reference: relplot's smooth ECE (``smECE``, ``smECE_sigma``) and its smoothed reliability curve,
vendored to test ``lc.smooth_ece``.

Never imported by llrcore; tests/multiclass/test_smooth_ece.py loads it. Provenance: github.com/apple/ml-calibration
(the ``relplot`` package, version 1.0.3) at commit 18ff21a7e4e409fc4885690129f50211b32ea144 (2025-11-04):
``src/relplot/metrics.py`` (``smooth_ece``, ``search_param``, ``smECE_sigma``, ``smECE``, ``_get_default_kernel``),
``src/relplot/kernels.py`` (``interpolate``, ``BaseKernelMixin.smooth``, ``GaussianKernel``,
``ReflectedGaussianKernel``, ``smooth_round_to_grid``) and ``src/relplot/config.py`` (``use_logit_scaling = False``,
``smECE_mesh_pts = 200``, ``plot_mesh_pts = 200``). Copyright (C) 2023 Apple Inc. All Rights Reserved.

Changes: only the default path is kept (``config.use_logit_scaling`` is False, so the kernel is always
``ReflectedGaussianKernel``; the logit kernel and the deprecated helpers are dropped); the config values are inlined.
:func:`reliability_curve` is what ``diagrams.prepare_rel_diagram`` computes for its main line without bagging
(``CenteredRegressor(KernelSmoother(ReflectedGaussianKernel(sigma)))`` fitted on ``(f, y)`` and evaluated on
``np.linspace(0, 1, 200)``: ``t + smooth(f, y - f, t)``), and :func:`density` its ``kernel(sigma).kde(f, t)``,
written here without scikit-learn. The arithmetic is relplot's own, line for line.

Licence (relplot's LICENSE, reproduced as it requires for redistribution):

Copyright (C) 2023 Apple Inc. All Rights Reserved.

IMPORTANT:  This Apple software is supplied to you by Apple Inc. ("Apple") in consideration of your agreement to the
following terms, and your use, installation, modification or redistribution of this Apple software constitutes
acceptance of these terms.  If you do not agree with these terms, please do not use, install, modify or redistribute
this Apple software.

In consideration of your agreement to abide by the following terms, and subject to these terms, Apple grants you a
personal, non-exclusive license, under Apple's copyrights in this original Apple software (the "Apple Software"), to
use, reproduce, modify and redistribute the Apple Software, with or without modifications, in source and/or binary
forms; provided that if you redistribute the Apple Software in its entirety and without modifications, you must
retain this notice and the following text and disclaimers in all such redistributions of the Apple Software.
Neither the name, trademarks, service marks or logos of Apple Inc. may be used to endorse or promote products
derived from the Apple Software without specific prior written permission from Apple.  Except as expressly stated in
this notice, no other rights or licenses, express or implied, are granted by Apple herein, including but not limited
to any patent rights that may be infringed by your derivative works or by other works in which the Apple Software may
be incorporated.

The Apple Software is provided by Apple on an "AS IS" basis.  APPLE MAKES NO WARRANTIES, EXPRESS OR IMPLIED,
INCLUDING WITHOUT LIMITATION THE IMPLIED WARRANTIES OF NON-INFRINGEMENT, MERCHANTABILITY AND FITNESS FOR A PARTICULAR
PURPOSE, REGARDING THE APPLE SOFTWARE OR ITS USE AND OPERATION ALONE OR IN COMBINATION WITH YOUR PRODUCTS.

IN NO EVENT SHALL APPLE BE LIABLE FOR ANY SPECIAL, INDIRECT, INCIDENTAL OR CONSEQUENTIAL DAMAGES (INCLUDING, BUT NOT
LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS OR SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS INTERRUPTION)
ARISING IN ANY WAY OUT OF THE USE, REPRODUCTION, MODIFICATION AND/OR DISTRIBUTION OF THE APPLE SOFTWARE, HOWEVER
CAUSED AND WHETHER UNDER THEORY OF CONTRACT, TORT (INCLUDING NEGLIGENCE), STRICT LIABILITY OR OTHERWISE, EVEN IF
APPLE HAS BEEN ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.
"""
# ruff: noqa
import numpy as np

smECE_mesh_pts = 200
plot_mesh_pts = 200


# ----- src/relplot/kernels.py -----

def interpolate(t, y):
    """
    Evaluates linear interpolation of a function mapping i/(len[y] - 1) -> y[i] on all points t.
    """
    buckets_cnt = len(y)
    bucket_size = 1 / (buckets_cnt - 1)
    inds = (t * (buckets_cnt - 1)).astype(int).clip(0, buckets_cnt - 2)
    residual = (t - inds * bucket_size) / bucket_size
    return y[inds] * (1 - residual) + y[inds + 1] * residual


class BaseKernelMixin:
    def smooth(self, f, y, x_eval, eps = 0.0001):
        ys = self.apply(f, y, x_eval)
        dens = self.apply(f, np.ones_like(y), x_eval) + eps
        ys = ys / dens
        return ys, dens


class GaussianKernel(BaseKernelMixin):
    def __init__(self, sigma):
        self.sigma = sigma

    def kernel_ev(self, num_eval_points : int):
        t = np.linspace(0, 1, num_eval_points)
        var = self.sigma ** 2
        res = np.exp(-(t - 0.5) * (t - 0.5) / (2*var))
        res /= np.sqrt(2 * np.pi) * self.sigma
        #res *= len(t) / np.sum(res)
        return res

    def convolve(self, values, eval_points):
        ker = self.kernel_ev(eval_points)
        return np.convolve(values, ker, 'same')

    def apply(self, f, y, x_eval, eval_points = None):
        if eval_points is None:
            eval_points = max(2000, round(20 / self.sigma))
#        eval_points = 40_000
        eval_points = (eval_points // 2) + 1
        values = smooth_round_to_grid(f, y, eval_points = eval_points)
        smoothed = self.convolve(values, eval_points)
        return interpolate(x_eval, smoothed)

    def kde(self, x, x_eval):
        weights = np.ones_like(x) / len(x)
        density = self.apply(x, weights, x_eval)
        return density


class ReflectedGaussianKernel(GaussianKernel):
    def convolve(self, values, eval_points):
        ker = self.kernel_ev(eval_points)
        ext_vals = np.concatenate([np.flip(values)[:-1], values, np.flip(values)[1:]])
        return np.convolve(ext_vals, ker, "valid")[eval_points//2 : eval_points//2 + eval_points]


def smooth_round_to_grid(f, y, eval_points = 1000):
    values = np.zeros(eval_points)
    bins = (f * (eval_points-1)).astype(int).clip(0, eval_points-2)
    frac = f * (eval_points - 1) - bins
    np.add.at(values, bins, (1-frac)*y)
    np.add.at(values, bins + 1, frac*y)
    return values


# ----- src/relplot/metrics.py -----

def _get_default_kernel():
    return ReflectedGaussianKernel  # config.use_logit_scaling is False


def smooth_ece(f, y, bin_size):
    ev_points = smECE_mesh_pts
    kernel = _get_default_kernel()
    ev_points = max(round(10 / bin_size), ev_points)
    t = np.linspace(0, 1, ev_points)
    ker = kernel(bin_size)
    rs, density = ker.smooth(f, (f - y), t)
    return np.sum(np.abs(rs) * density) / np.sum(density)


def search_param(predicate, start=1, refine=10):
    if predicate(start):
        return start
    start, end = 1, 0 
    for _ in range(refine):
        midpoint = (start + end) / 2
        if predicate(midpoint):
            end = midpoint
        else:
            start = midpoint
    return start


def smECE_sigma(f, y, sigma=0.05):
    """
        Computes SmoothECE at a fixed bandwidth sigma.
    """
    return smooth_ece(f, y, sigma)


def smECE(f, y, eps=0.001, return_width=False):
    """
        Computes SmoothECE with automatic choice of bandwidth sigma, as described in [Błasiok-Nakkiran '23].
        Note, the implementation discretizes the kernel for large datasets.
    """
    def check_smooth_ece(alpha):
        return alpha < eps or alpha < smooth_ece(f, y, alpha)

    bin_size = search_param(check_smooth_ece, start=1, refine=10)
    if return_width:
        return smooth_ece(f, y, bin_size), bin_size
    else:
        return smooth_ece(f, y, bin_size)


# ----- src/relplot/diagrams.py, prepare_rel_diagram without bagging, and its kde -----

def reliability_curve(f, y, sigma):
    """``CenteredRegressor(KernelSmoother(ReflectedGaussianKernel(sigma))).fit(f, y).predict(t)`` on relplot's mesh."""
    t = np.linspace(0, 1, plot_mesh_pts)
    ys, _ = ReflectedGaussianKernel(sigma).smooth(f, y - f, t)
    return t, ys + t


def density(f, sigma):
    """``ReflectedGaussianKernel(sigma).kde(f, t)`` on relplot's mesh."""
    return ReflectedGaussianKernel(sigma).kde(f, np.linspace(0, 1, plot_mesh_pts))
