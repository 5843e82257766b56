"""Test-only reference: torchmetrics' calibration error (L1, the ECE), vendored to test llrcore's torchmetrics row of
ece_conventions.

Never imported by llrcore; tests/multiclass/test_ece_conventions.py loads it. Provenance: github.com/Lightning-AI/torchmetrics,
``src/torchmetrics/functional/classification/calibration_error.py`` at commit
dab033394560ab3ce05e3d14c13f32e4cde6b351 (2026-08-20): ``_binning_bucketize``, ``_ce_compute`` (``norm="l1"``),
``_binary_calibration_error_update`` and ``_multiclass_calibration_error_update``, called as
``binary_calibration_error`` and ``multiclass_calibration_error`` call them. Copyright The Lightning team.

Changes: torch replaced by numpy in torch's dtypes. Tensors are float32 (``torch.tensor`` of probabilities; the
multiclass update's ``.float()``); ``torch.linspace(0, 1, n + 1)`` is PyTorch's CPU kernel
(``aten/src/ATen/native/cpu/RangeFactoriesKernel.cpp``: ``step = (end - start) / (steps - 1)``, ``start + step * i``
below ``steps / 2``, ``end - step * (steps - i - 1)`` from there, in float32); ``torch.bucketize(x, b, right=True)``
is ``np.searchsorted(b, x, side="right")``; ``scatter_add_`` is ``np.add.at`` (sequential, in float32);
``Tensor.max(dim=1)`` is ``max``/``argmax`` (both take the first maximum). The input formatting (logits to
probabilities, ``ignore_index``) is left out: probabilities in [0, 1] pass through it unchanged.

Licence: Apache License, Version 2.0 (the file's header). Licensed under the Apache License, Version 2.0 (the
"License"); you may not use this file except in compliance with the License. You may obtain a copy of the License at
http://www.apache.org/licenses/LICENSE-2.0. Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS, WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND,
either express or implied. See the License for the specific language governing permissions and limitations under
the License. This file was modified as stated above.
"""
# ruff: noqa
import numpy as np


def torch_linspace(start, end, steps, dtype=np.float32):
    start, end = dtype(start), dtype(end)
    step = (end - start) / dtype(steps - 1)
    halfway = steps // 2
    out = np.empty(steps, dtype=dtype)
    for idx in range(steps):
        if idx < halfway:
            out[idx] = start + step * dtype(idx)
        else:
            out[idx] = end - step * dtype(steps - idx - 1)
    return out


def _binning_bucketize(confidences, accuracies, bin_boundaries):
    accuracies = accuracies.astype(confidences.dtype)
    acc_bin = np.zeros(len(bin_boundaries), dtype=confidences.dtype)
    conf_bin = np.zeros(len(bin_boundaries), dtype=confidences.dtype)
    count_bin = np.zeros(len(bin_boundaries), dtype=confidences.dtype)

    indices = np.searchsorted(bin_boundaries, confidences, side="right") - 1

    np.add.at(count_bin, indices, np.ones_like(confidences))

    np.add.at(conf_bin, indices, confidences)
    with np.errstate(invalid="ignore", divide="ignore"):
        conf_bin = np.nan_to_num(conf_bin / count_bin)

    np.add.at(acc_bin, indices, accuracies)
    with np.errstate(invalid="ignore", divide="ignore"):
        acc_bin = np.nan_to_num(acc_bin / count_bin)

    prop_bin = count_bin / count_bin.sum()
    return acc_bin, conf_bin, prop_bin


def _ce_compute(confidences, accuracies, bin_boundaries):
    """``norm="l1"``."""
    if isinstance(bin_boundaries, int):
        bin_boundaries = torch_linspace(0, 1, bin_boundaries + 1, dtype=confidences.dtype.type)
    acc_bin, conf_bin, prop_bin = _binning_bucketize(confidences, accuracies, bin_boundaries)
    return np.sum(np.abs(acc_bin - conf_bin) * prop_bin)


def binary_calibration_error(preds, target, n_bins=15):
    confidences, accuracies = np.asarray(preds, dtype=np.float32), np.asarray(target)
    return float(_ce_compute(confidences, accuracies, n_bins))


def multiclass_calibration_error(preds, target, n_bins=15):
    preds = np.asarray(preds, dtype=np.float32)
    confidences, predictions = preds.max(axis=1), preds.argmax(axis=1)
    accuracies = predictions == np.asarray(target)
    return float(_ce_compute(confidences.astype(np.float32), accuracies.astype(np.float32), n_bins))
