"""
Speaker verification: how good are the scores, and are they LLRs?
=================================================================

The ASVspoof 2019 LA speaker verifier's scores (bona fide targets and non-targets, from the challenge's own
files): its EER and minDCF say how well it separates the speakers, Cllr against minCllr whether its scores can be
read as likelihood ratios. An affine calibration trained on the development trials, with the prior of the
application, fixes what the scores lack.
"""
from pathlib import Path

import llrcore as lc

# The repository, from this file (sphinx-gallery runs an example in its folder, with no __file__).
ASSETS = Path(globals().get("__file__", "example.py")).resolve().parents[1] / "assets" / "asvspoof2019_la"
dev = lc.read_trials(ASSETS / "ASVspoof2019.LA.asv.dev.gi.trl.scores.txt")
trials = lc.read_trials(ASSETS / "ASVspoof2019.LA.asv.eval.gi.trl.scores.txt")
op = lc.OperatingPoint(0.01, c_miss=10)
print(f"EER {lc.eer(trials):.2%}, minDCF {lc.min_dcf(trials, p_target=op):.3f}")
print(f"Cllr {lc.cllr(trials):.3f} bits, minCllr {lc.min_cllr(trials):.3f} bits")
print(lc.evaluate(trials, p_target=op).sentence())

# %%
# Calibrate on the development trials, then evaluate on the evaluation trials
# ---------------------------------------------------------------------------
# Prior-weighted logistic regression at the application's effective prior.
cal = lc.fit_affine(dev, plo=op.plo_eff)
calibrated = lc.Trials(cal(trials.tar), cal(trials.non), name="calibrated on dev")
print(f"LLR = {cal.scale:.3f} x score + {cal.offset:.3f}; Cllr after it {lc.cllr(calibrated):.3f} bits")

# %%
# The DET curves are the same (a monotone map keeps the ranking); the APE curves show what calibration bought.
systems = {"raw scores": trials, "calibrated": calibrated}
lc.plots.det_figure(systems, p_target=op).show()

# %%
lc.plots.ape_figure(systems).show()
