"""Test-only reference: the organisers' a-DCF and concurrent t-EER code, vendored to test llrcore against it.

Never imported by llrcore; tests load it (test_sasv_metrics.py, test_teer_conventions.py and others). Provenance
(code copied, trimmed of printing and file reading, otherwise unchanged, except where said):

- ``compute_a_det_curve``, ``normalize``, ``calculate_a_dcf`` and ``CostModel``: github.com/asvspoof-challenge/asvspoof5,
  ``evaluation-package/a_dcf.py`` at commit fe23d3053a0889b305d98c9e4cadf418c213d972 (2024-09-15), "Adopted from
  https://github.com/shimhz/a_DCF" (commit 0560623bb2ec15bba79a918fc6ef36afd9b4b02c); MIT License, Copyright (c)
  2024 shimhz (below).
- ``compute_det_curve``, ``compute_Pmiss_Pfa_Pspoof_curves``: github.com/TakHemlata/T-EER, ``eval_metrics.py``, and
  ``concurrent_teer``: the concurrent t-EER loop of its ``evaluate_tEER.py`` for the one spoof prevalence rho = 0.5,
  wrapped in a function exactly as the ASVspoof 5 evaluation package's ``compute_teer`` wraps it (that file,
  ``evaluation-package/calculate_modules.py``, carries no licence, so it is not copied), with its
  ``flag_return_index`` (``return_index`` here: the loop's ``xpoint_index``, the ASV and CM indices of the crossing);
  commit c2772353d24c5a0215b5c48da9e10c68dd958f36 (2023-09-25); MIT License, Copyright (c) 2023 Hemlata (below).
- ``t_eer_accelerated``: the decimated search of that package's ``compute_teer_accelerated`` (same file, commit
  fe23d3053a0889b305d98c9e4cadf418c213d972, last changed in a24b52cd2d294b0fbee582265a42d63804edcf6b, 2024-07-19),
  written again here step for step around ``concurrent_teer`` since the file carries no licence: when both curves
  have at least ``size_decimated`` (3000) points, ``concurrent_teer`` on every ``len // size_decimated``-th point of
  each, then on the points within ``bin_width`` (1600) of the crossing found, scaled back; else on all points. Called
  as its ``calculate_aDCF_tdcf_tEER`` calls it (CM curve of the bona fide and spoof CM scores, ASV curves of the
  target, non-target and spoof ASV scores).

MIT License (both, with their copyright lines above)

Permission is hereby granted, free of charge, to any person obtaining a copy of this software and associated
documentation files (the "Software"), to deal in the Software without restriction, including without limitation the
rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of the Software, and to permit
persons to whom the Software is furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all copies or substantial portions of the
Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE
WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR
COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR
OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
"""
# ruff: noqa
import numpy as np


# ----- a-DCF (asvspoof5 evaluation-package/a_dcf.py, from shimhz/a_DCF) ------------------------------------------

class CostModel:
    """Class describing SASV-DCF's relevant costs"""
    def __init__(self, Pspf = 0.05, Pnontrg = 0.05, Ptrg = 0.9,
                 Cmiss = 1, Cfa_asv = 10, Cfa_cm = 20):
        self.Pspf = Pspf
        self.Pnontrg = Pnontrg
        self.Ptrg = Ptrg
        self.Cmiss = Cmiss
        self.Cfa_asv = Cfa_asv
        self.Cfa_cm = Cfa_cm


def calculate_a_dcf(trg, nontrg, spf, cost_model=CostModel()):
    far_asvs, far_cms, frrs, a_dcf_thresh = compute_a_det_curve(trg, nontrg, spf)

    a_dcfs = np.array([cost_model.Cmiss * cost_model.Ptrg]) * np.array(frrs) + \
        np.array([cost_model.Cfa_asv * cost_model.Pnontrg]) * np.array(far_asvs) + \
        np.array([cost_model.Cfa_cm * cost_model.Pspf]) * np.array(far_cms)

    a_dcfs_normed = normalize(a_dcfs, cost_model)

    min_a_dcf_idx = np.argmin(a_dcfs_normed)
    min_a_dcf = a_dcfs_normed[min_a_dcf_idx]
    min_a_dcf_thresh = a_dcf_thresh[min_a_dcf_idx]

    return {
        "min_a_dcf": min_a_dcf,
        "min_a_dcf_thresh": min_a_dcf_thresh,
    }


def normalize(a_dcfs, cost_model):
    a_dcf_all_accept = np.array([cost_model.Cfa_asv * cost_model.Pnontrg + \
        cost_model.Cfa_cm * cost_model.Pspf])
    a_dcf_all_reject = np.array([cost_model.Cmiss * cost_model.Ptrg])

    a_dcfs_normed = a_dcfs / min(a_dcf_all_accept, a_dcf_all_reject)

    return a_dcfs_normed


def compute_a_det_curve(trg_scores, nontrg_scores, spf_scores):

    all_scores = np.concatenate((trg_scores, nontrg_scores, spf_scores))
    labels = np.concatenate(
        (np.ones_like(trg_scores), np.zeros_like(nontrg_scores), np.ones_like(spf_scores) + 1))

    # Sort labels based on scores
    indices = np.argsort(all_scores, kind='mergesort')
    labels = labels[indices]
    scores_sorted = all_scores[indices]

    fp_nontrg, fp_spf, fn = len(nontrg_scores), len(spf_scores), 0
    far_asvs, far_cms, frrs, a_dcf_thresh = [1.], [1.], [0.], [float(np.min(scores_sorted))-1e-8]
    for sco, lab in zip(scores_sorted, labels):
        if lab == 0: # non-target
            fp_nontrg -= 1 # false alarm for accepting nontarget trial
        elif lab == 1: # target
            fn += 1 # miss
        elif lab == 2: # spoof
            fp_spf -= 1 # false alarm for accepting spof trial
        else:
            raise ValueError ("Label should be one of (0, 1, 2).")
        far_asvs.append(fp_nontrg / len(nontrg_scores))
        far_cms.append(fp_spf / len(spf_scores))
        frrs.append(fn / len(trg_scores))
        a_dcf_thresh.append(sco)

    return far_asvs, far_cms, frrs, a_dcf_thresh


# ----- t-EER (TakHemlata/T-EER eval_metrics.py and evaluate_tEER.py) ---------------------------------------------

def compute_Pmiss_Pfa_Pspoof_curves(tar_scores, non_scores, spf_scores):

    # Concatenate all scores and designate arbitrary labels 1=target, 0=nontarget, -1=spoof
    all_scores = np.concatenate((tar_scores, non_scores, spf_scores))
    labels = np.concatenate((np.ones(tar_scores.size), np.zeros(non_scores.size), -1*np.ones(spf_scores.size)))

    # Sort labels based on scores
    indices = np.argsort(all_scores, kind='mergesort')
    labels = labels[indices]

    # Cumulative sums
    tar_sums    = np.cumsum(labels==1)
    non_sums    = np.cumsum(labels==0)
    spoof_sums  = np.cumsum(labels==-1)

    Pmiss       = np.concatenate((np.atleast_1d(0), tar_sums / tar_scores.size))
    Pfa_non     = np.concatenate((np.atleast_1d(1), 1 - (non_sums / non_scores.size)))
    Pfa_spoof   = np.concatenate((np.atleast_1d(1), 1 - (spoof_sums / spf_scores.size)))
    thresholds  = np.concatenate((np.atleast_1d(all_scores[indices[0]] - 0.001), all_scores[indices]))  # Thresholds are the sorted scores

    return Pmiss, Pfa_non, Pfa_spoof, thresholds


def compute_det_curve(target_scores, nontarget_scores):

    n_scores = target_scores.size + nontarget_scores.size
    all_scores = np.concatenate((target_scores, nontarget_scores))
    labels = np.concatenate((np.ones(target_scores.size), np.zeros(nontarget_scores.size)))

    # Sort labels based on scores
    indices = np.argsort(all_scores, kind='mergesort')
    labels = labels[indices]

    # Compute false rejection and false acceptance rates
    tar_trial_sums = np.cumsum(labels)
    nontarget_trial_sums = nontarget_scores.size - (np.arange(1, n_scores + 1) - tar_trial_sums)

    frr = np.concatenate((np.atleast_1d(0), tar_trial_sums / target_scores.size))  # false rejection rates
    far = np.concatenate((np.atleast_1d(1), nontarget_trial_sums / nontarget_scores.size))  # false acceptance rates
    thresholds = np.concatenate((np.atleast_1d(all_scores[indices[0]] - 0.001), all_scores[indices]))  # Thresholds are the sorted scores

    return frr, far, thresholds


def concurrent_teer(Pmiss_CM, Pfa_CM, tau_CM, Pmiss_ASV, Pfa_non_ASV, Pfa_spf_ASV, tau_ASV, return_index=False):
    """The concurrent t-EER in percent, and the (ASV, CM) thresholds of the crossing (its (ASV, CM) indices with
    `return_index`, as compute_teer's flag_return_index)."""
    rho_spf = 0.5

    # Table to store the CM threshold index, per each of the ASV operating points
    tEER_idx_CM = np.empty(len(tau_ASV), dtype=int)

    # best intersection point
    xpoint_crit_best = np.inf
    xpoint = np.empty(2)
    xpoint_index = []

    # Loop over all possible ASV thresholds
    for tau_ASV_idx, tau_ASV_val in enumerate(tau_ASV):

        # Tandem miss and fa rates as defined in the manuscript
        Pmiss_tdm = Pmiss_CM + (1 - Pmiss_CM) * Pmiss_ASV[tau_ASV_idx]
        Pfa_tdm   = (1 - rho_spf) * (1 - Pmiss_CM) * Pfa_non_ASV[tau_ASV_idx] + rho_spf * Pfa_CM * Pfa_spf_ASV[tau_ASV_idx]

        # Store only the INDEX of the CM threshold (for the current ASV threshold)
        h = Pmiss_tdm - Pfa_tdm
        tmp = np.argmin(abs(h))
        tEER_idx_CM[tau_ASV_idx] = tmp

        if Pmiss_ASV[tau_ASV_idx] < (1 - rho_spf) * Pfa_non_ASV[tau_ASV_idx] + rho_spf * Pfa_spf_ASV[tau_ASV_idx]:

            # Check how close we are to the INTERSECTION POINT for different prior (rho) values:
            LHS = Pfa_non_ASV[tau_ASV_idx]/Pfa_spf_ASV[tau_ASV_idx]
            RHS = Pfa_CM[tmp]/(1 - Pmiss_CM[tmp])
            crit = abs(LHS - RHS)

            if crit < xpoint_crit_best:
                xpoint_crit_best = crit
                xpoint[0] = tau_ASV_val
                xpoint[1] = tau_CM[tmp]
                xpoint_tEER = Pfa_spf_ASV[tau_ASV_idx]*Pfa_CM[tmp]
                xpoint_index = [tau_ASV_idx, tmp]

    return xpoint_tEER*100, (xpoint_index if return_index else xpoint)


def t_eer(cm_bonafide, cm_spoof, asv_tar, asv_non, asv_spoof):
    """As the ASVspoof 5 package calls it: ASV curves of the three classes, the CM's DET curve, the concurrent t-EER."""
    Pmiss_ASV, Pfa_non_ASV, Pfa_spf_ASV, tau_ASV = compute_Pmiss_Pfa_Pspoof_curves(asv_tar, asv_non, asv_spoof)
    Pmiss_CM, Pfa_CM, tau_CM = compute_det_curve(cm_bonafide, cm_spoof)
    return concurrent_teer(Pmiss_CM, Pfa_CM, tau_CM, Pmiss_ASV, Pfa_non_ASV, Pfa_spf_ASV, tau_ASV)


def t_eer_accelerated(cm_bonafide, cm_spoof, asv_tar, asv_non, asv_spoof, size_decimated=3000, bin_width=1600):
    """The concurrent t-EER in percent as the ASVspoof 5 package's compute_teer_accelerated finds it (see above)."""
    Pmiss_ASV, Pfa_non_ASV, Pfa_spf_ASV, tau_ASV = compute_Pmiss_Pfa_Pspoof_curves(asv_tar, asv_non, asv_spoof)
    Pmiss_CM, Pfa_CM, tau_CM = compute_det_curve(cm_bonafide, cm_spoof)
    cm, asv = (Pmiss_CM, Pfa_CM, tau_CM), (Pmiss_ASV, Pfa_non_ASV, Pfa_spf_ASV, tau_ASV)
    ds_asv_ratio, ds_cm_ratio = tau_ASV.shape[0] // size_decimated, tau_CM.shape[0] // size_decimated
    if ds_asv_ratio > 0 and ds_cm_ratio > 0:
        # coarse search on the down-sampled curves
        _, approx_teer_index = concurrent_teer(*(x[::ds_cm_ratio] for x in cm), *(x[::ds_asv_ratio] for x in asv),
                                               return_index=True)
        # fine search around the approximate index in the original arrays
        cen_asv_idx, cen_cm_idx = approx_teer_index[0] * ds_asv_ratio, approx_teer_index[1] * ds_cm_ratio
        asv_bins = slice(np.max([cen_asv_idx - bin_width, 0]), np.min([cen_asv_idx + bin_width, len(tau_ASV)]))
        cm_bins = slice(np.max([cen_cm_idx - bin_width, 0]), np.min([cen_cm_idx + bin_width, len(tau_CM)]))
        cm, asv = tuple(x[cm_bins] for x in cm), tuple(x[asv_bins] for x in asv)
    return concurrent_teer(*cm, *asv)[0]
