"""Test-only reference: SpeechBrain's ``EER`` and ``minDCF``, vendored to test llrcore's SpeechBrain row against it.

Never imported by llrcore; tests/binary/test_eer_conventions.py loads it. Provenance: github.com/speechbrain/speechbrain,
``speechbrain/utils/metric_stats.py``, functions ``EER`` and ``minDCF``, at commit
9c826ef3937bac885c8a6ca86c6889a30f256fb5 (2026-04-03). Authors of that module: Peter Plantinga, Mirco Ravanelli,
Gaëlle Laperrière, Sahar Ghannay (2020-2021).

Changes: torch replaced by numpy, operation for operation, in the dtypes torch uses: the scores are float32 arrays
(what ``torch.tensor`` makes of Python floats), ``torch.sort``/``torch.unique``/``torch.cat`` are
``np.sort``/``np.unique``/``np.concatenate``, ``.float()`` is ``.astype(np.float32)`` and ``.item()`` gives a
Python float; division by the Python int ``shape[0]`` and products with Python floats stay float32 (NumPy 2's weak
Python scalars, as torch's). ``torch.min(c_det, dim=0)`` is ``np.argmin`` (both give the first minimum). Docstrings
trimmed; the loops and expressions are SpeechBrain's.

Licence: Apache License, Version 2.0 (SpeechBrain's LICENSE). Licensed under the Apache License, Version 2.0 (the
"License"); you may not use this file except in compliance with the License. You may obtain a copy of the License at
http://www.apache.org/licenses/LICENSE-2.0. Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS, WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND,
either express or implied. See the License for the specific language governing permissions and limitations under
the License. This file was modified as stated above.
"""
# ruff: noqa
import numpy as np


def as_tensor(scores):
    """``torch.tensor(scores)``: float32."""
    return np.asarray(scores, dtype=np.float32)


def EER(positive_scores, negative_scores):
    positive_scores, negative_scores = as_tensor(positive_scores), as_tensor(negative_scores)
    # Computing candidate thresholds
    thresholds = np.sort(np.concatenate([positive_scores, negative_scores]))
    thresholds = np.unique(thresholds)

    # Adding intermediate thresholds
    intermediate_thresholds = (thresholds[0:-1] + thresholds[1:]) / 2
    thresholds = np.sort(np.concatenate([thresholds, intermediate_thresholds]))

    # Variable to store the min FRR, min FAR and their corresponding index
    min_index = 0
    final_FRR = 0
    final_FAR = 0

    for i, cur_thresh in enumerate(thresholds):
        pos_scores_threshold = positive_scores <= cur_thresh
        FRR = (pos_scores_threshold.sum(0)).astype(np.float32) / positive_scores.shape[0]
        del pos_scores_threshold

        neg_scores_threshold = negative_scores > cur_thresh
        FAR = (neg_scores_threshold.sum(0)).astype(np.float32) / negative_scores.shape[0]
        del neg_scores_threshold

        # Finding the threshold for EER
        if abs(FAR - FRR).item() < abs(final_FAR - final_FRR) or i == 0:
            min_index = i
            final_FRR = FRR.item()
            final_FAR = FAR.item()

    # It is possible that eer != fpr != fnr. We return (FAR  + FRR) / 2 as EER.
    EER = (final_FAR + final_FRR) / 2

    return float(EER), float(thresholds[min_index])


def minDCF(positive_scores, negative_scores, c_miss=1.0, c_fa=1.0, p_target=0.01):
    positive_scores, negative_scores = as_tensor(positive_scores), as_tensor(negative_scores)
    # Computing candidate thresholds
    thresholds = np.sort(np.concatenate([positive_scores, negative_scores]))
    thresholds = np.unique(thresholds)

    # Adding intermediate thresholds
    intermediate_thresholds = (thresholds[0:-1] + thresholds[1:]) / 2
    thresholds = np.sort(np.concatenate([thresholds, intermediate_thresholds]))

    # Computing False Rejection Rate (miss detection)
    positive_scores = np.concatenate(len(thresholds) * [positive_scores[np.newaxis]])
    pos_scores_threshold = positive_scores.transpose(1, 0) <= thresholds
    p_miss = (pos_scores_threshold.sum(0)).astype(np.float32) / positive_scores.shape[1]
    del positive_scores
    del pos_scores_threshold

    # Computing False Acceptance Rate (false alarm)
    negative_scores = np.concatenate(len(thresholds) * [negative_scores[np.newaxis]])
    neg_scores_threshold = negative_scores.transpose(1, 0) > thresholds
    p_fa = (neg_scores_threshold.sum(0)).astype(np.float32) / negative_scores.shape[1]
    del negative_scores
    del neg_scores_threshold

    c_det = c_miss * p_miss * p_target + c_fa * p_fa * (1 - p_target)
    min_index = np.argmin(c_det, axis=0)
    c_min = c_det[min_index]

    return float(c_min), float(thresholds[min_index])
