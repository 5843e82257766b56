"""
Language recognition: multiclass Cllr and Cavg of LLR vectors
==============================================================

Language recognition gives one score per class and trial. The maths does not care what the classes are: here they
are four emotions (IEMOCAP, a wav2vec 2.0 system, from Ferrer & Ramos's expected-cost repository), read as NIST LRE
reads languages. Multiclass Cllr in bits (log2 N is a system that says nothing), Cavg and the LRE primary cost,
before and after the direction-preserving calibration ``alpha * llrs + gamma``.
"""
from pathlib import Path

import llrcore as lc

# The repository, from this file (sphinx-gallery runs an example in its folder, with no __file__).
DEMO = Path(globals().get("__file__", "example.py")).resolve().parents[1] / "assets" / "multiclass" / "iemocap_wav2vec_pt"
# Log-posteriors become LLRs by removing the classifier's training prior: here the class frequencies.
scores = lc.read_multiclass(DEMO / "scores.npy", labels=DEMO / "targets.npy", score_type="log-posterior",
                            training_prior="empirical", classes=["anger", "happiness", "neutral", "sadness"])
cal = lc.fit_multiclass_affine(scores)
calibrated = cal(scores.llrs)
print(f"multiclass Cllr {lc.multiclass_cllr(scores):.3f} -> {lc.multiclass_cllr(calibrated, scores.labels):.3f} "
      f"bits (log2 4 = 2)")
print(f"Cavg {lc.cavg(scores, p_target=0.5):.3f}, minCavg {lc.cavg(scores, p_target=0.5, minimum=True):.3f}, "
      f"LRE primary {lc.lre_cprimary(scores):.3f}")

# %%
# Each pair of classes as a binary detector, before and after calibration, against its minimum (PAV)
# --------------------------------------------------------------------------------------------------
pairs = lc.pairwise_analysis(scores, calibrated=calibrated)
lc.plots.pairwise_bar_matrix_figure(pairs, classes=scores.classes).show()

# %%
lc.plots.confusion_matrix_figure(lc.identification_errors(scores)).show()
