"""Test-only reference: netcal's ECE for classification, vendored to test llrcore's netcal row of ece_conventions.

Never imported by llrcore; tests/multiclass/test_ece_conventions.py loads it. Provenance: github.com/EFS-OpenSource/
calibration-framework at commit 2a3db8d7cb2a557f3b563c98ce00954f43dfe927 (2024-08-08):
``netcal/metrics/Miscalibration.py`` (``_Miscalibration._prepare_input``, ``_prepare_bins``, ``binning``,
``reduce``, ``process``), ``netcal/metrics/confidence/ECE.py`` (``ECE.measure`` -> ``_measure(metric='ece')``) and
``netcal/Helper.py`` (``squeeze_generic``). Copyright (C) 2019-2023 Ruhr West University of Applied Sciences, Bottrop,
Germany AND e:fs TechHub GmbH, Gaimersheim, Germany.

Changes: only the path that ``ECE(bins).measure(X, y)`` takes for classification is kept (one batch, no detection,
no uncertainty, ``equal_intervals=True``, ``sample_threshold=1``), methods made functions taking ``bins``; the
``prepare``/``_measure`` plumbing of lists is reduced to the one batch it builds. netcal already works in numpy and
scipy, so the arithmetic is its own, line for line.

Licence: Apache License, Version 2.0 ("This Source Code Form is subject to the terms of the Apache License 2.0";
netcal's LICENSE.txt). Licensed under the Apache License, Version 2.0 (the "License"); you may not use this file
except in compliance with the License. You may obtain a copy of the License at
http://www.apache.org/licenses/LICENSE-2.0. Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS, WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND,
either express or implied. See the License for the specific language governing permissions and limitations under
the License. This file was modified as stated above.
"""
# ruff: noqa
import numpy as np
from scipy.stats import binned_statistic_dd


def squeeze_generic(a, axes_to_keep):
    if type(axes_to_keep) == int:
        axes_to_keep = (axes_to_keep, )
    out_s = [s for i, s in enumerate(a.shape) if i in axes_to_keep or s != 1]
    return a.reshape(out_s)


def _prepare_input(X, y):
    """``_Miscalibration._prepare_input`` with ``detection=False``."""
    y = squeeze_generic(y, axes_to_keep=0)
    assert X.ndim <= 2, "Fatal error: invalid number of dimensions."
    assert y.size > 0, "No samples provided."
    assert X.shape[0] == y.shape[0], "Unequal number of samples given in X and y."

    if len(y.shape) == 2:
        if y.shape[1] <= 2:
            y = y[:, -1]
        else:
            y = np.argmax(y, axis=1)

    # clip to (0, 1) in order to get all samples into binning scheme
    epsilon = np.finfo(X.dtype).eps
    X = np.clip(X, epsilon, 1. - epsilon)

    if len(np.unique(y)) <= 2:
        matched = np.array(y)
        if X.shape[1] > 2:
            raise RuntimeError("Asserted binary classification problem but retrieved more than 2 confidence dims.")
        elif X.shape[1] == 2:
            X = X[:, 1:2]
    else:
        matched = np.argmax(X, axis=1) == y
        X = np.max(X, axis=1, keepdims=True)

    return X, y, matched


def _prepare_bins(bins, num_features=1, min_=0.0, max_=1.0):
    """``_Miscalibration._prepare_bins`` for one batch with ``equal_intervals=True``."""
    bins = [bins, ] * num_features
    min_ = [min_, ] * num_features
    max_ = [max_, ] * num_features
    return [np.linspace(min_[dim], max_[dim], b + 1) for dim, b in enumerate(bins)]


def binning(bin_bounds, samples, *values, nan=0.0, sample_threshold=1):
    num_samples_hist, _ = np.histogramdd(samples, bins=bin_bounds)
    binning_schemes = []
    binning_result = None
    for val in values:
        binning_result = binned_statistic_dd(samples, val, statistic='mean', bins=bin_bounds,
                                             binned_statistic_result=binning_result)
        hist, _, _ = binning_result
        hist[num_samples_hist < sample_threshold] = np.nan
        hist = np.nan_to_num(hist, nan=nan)
        binning_schemes.append(hist)
    return tuple(binning_schemes), num_samples_hist


def process_ece(acc_hist, conf_hist, num_samples_hist):
    """``_Miscalibration.process`` with ``metric='ece'``: the score only."""
    samples_map = np.sum(num_samples_hist, axis=0)
    total_samples = np.sum(samples_map)
    deviation_map = np.abs(acc_hist - conf_hist)
    rel_samples_hist = num_samples_hist / total_samples
    return np.sum(deviation_map * rel_samples_hist)


def ece(X, y, bins=10):
    """``netcal.metrics.ECE(bins).measure(X, y)`` on classification outputs."""
    X = np.asarray(X)
    y = np.asarray(y)
    if X.ndim == 1:
        X = np.reshape(X, (-1, 1))
    # ``_prepare_uncertainty`` with uncertainty=None leaves X and y as they are, its uncertainty zero
    uncertainty = np.zeros_like(X)
    X, y, matched = _prepare_input(X, y)
    bounds = _prepare_bins(bins)
    histograms, num_samples_hist = binning(bounds, X, matched, X[:, 0], uncertainty[:, 0])
    return float(process_ece(histograms[0], histograms[1], num_samples_hist))
