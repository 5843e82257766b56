"""Test-only reference: Kaldi's ``sid/compute_min_dcf.py``, vendored to test llrcore's Kaldi row against it.

Never imported by llrcore; tests/binary/test_eer_conventions.py loads it. Provenance: github.com/kaldi-asr/kaldi,
``egs/sre08/v1/sid/compute_min_dcf.py``, functions ``ComputeErrorRates`` and ``ComputeMinDcf``, at commit
f4007661023b98b8081fd875029f0dee62242fd1 (2025-07-22); Copyright 2018 David Snyder. voxceleb_trainer's
``tuneThreshold.py`` (github.com/clovaai/voxceleb_trainer, commit f51bab870672a9b0b50fa158b4e30f329e7866d7) carries
the same two functions with its variables renamed.

Changes: ``main``'s reading of the score and trial files is replaced by ``min_dcf(scores, labels, ...)``, which
takes the scores and 1/0 labels in file order, as ``main`` builds them, and calls the two functions as ``main``
does. The two functions are copied unchanged.

Licence: Apache License, Version 2.0 (the file's header says "Apache 2.0"; Kaldi's COPYING). Licensed under the
Apache License, Version 2.0 (the "License"); you may not use this file except in compliance with the License. You
may obtain a copy of the License at http://www.apache.org/licenses/LICENSE-2.0. Unless required by applicable law or
agreed to in writing, software distributed under the License is distributed on an "AS IS" BASIS, WITHOUT WARRANTIES
OR CONDITIONS OF ANY KIND, either express or implied. See the License for the specific language governing
permissions and limitations under the License. This file was modified as stated above.
"""
# ruff: noqa
from operator import itemgetter


# Creates a list of false-negative rates, a list of false-positive rates
# and a list of decision thresholds that give those error-rates.
def ComputeErrorRates(scores, labels):

    # Sort the scores from smallest to largest, and also get the corresponding
    # indexes of the sorted scores.  We will treat the sorted scores as the
    # thresholds at which the the error-rates are evaluated.
    sorted_indexes, thresholds = zip(*sorted(
        [(index, threshold) for index, threshold in enumerate(scores)],
        key=itemgetter(1)))
    labels = [labels[i] for i in sorted_indexes]
    fns = []
    tns = []

    # At the end of this loop, fns[i] is the number of errors made by
    # incorrectly rejecting scores less than thresholds[i]. And, tns[i]
    # is the total number of times that we have correctly rejected scores
    # less than thresholds[i].
    for i in range(0, len(labels)):
        if i == 0:
            fns.append(labels[i])
            tns.append(1 - labels[i])
        else:
            fns.append(fns[i-1] + labels[i])
            tns.append(tns[i-1] + 1 - labels[i])
    positives = sum(labels)
    negatives = len(labels) - positives

    # Now divide the false negatives by the total number of 
    # positives to obtain the false negative rates across
    # all thresholds
    fnrs = [fn / float(positives) for fn in fns]

    # Divide the true negatives by the total number of 
    # negatives to get the true negative rate. Subtract these 
    # quantities from 1 to get the false positive rates.
    fprs = [1 - tn / float(negatives) for tn in tns]
    return fnrs, fprs, thresholds

# Computes the minimum of the detection cost function.  The comments refer to
# equations in Section 3 of the NIST 2016 Speaker Recognition Evaluation Plan.
def ComputeMinDcf(fnrs, fprs, thresholds, p_target, c_miss, c_fa):
    min_c_det = float("inf")
    min_c_det_threshold = thresholds[0]
    for i in range(0, len(fnrs)):
        # See Equation (2).  it is a weighted sum of false negative
        # and false positive errors.
        c_det = c_miss * fnrs[i] * p_target + c_fa * fprs[i] * (1 - p_target)
        if c_det < min_c_det:
            min_c_det = c_det
            min_c_det_threshold = thresholds[i]
    # See Equations (3) and (4).  Now we normalize the cost.
    c_def = min(c_miss * p_target, c_fa * (1 - p_target))
    min_dcf = min_c_det / c_def
    return min_dcf, min_c_det_threshold


def min_dcf(scores, labels, p_target=0.01, c_miss=1, c_fa=1):
    """``main`` without the files: `scores` (floats) and `labels` (1 target, 0 non-target) in file order."""
    fnrs, fprs, thresholds = ComputeErrorRates([float(s) for s in scores], [int(l) for l in labels])
    return ComputeMinDcf(fnrs, fprs, thresholds, p_target, c_miss, c_fa)
