"""
Teaching: Bayes decisions out of 100 trials
===========================================

What a score means for a decision: at a prior P(target) = 1 %, the LLR threshold that minimises errors is
``-logit(0.01)``. Out of 100 trials, how many errors does the speaker verifier make, how many would it make with
perfect calibration, and how many without any system? Then the calibrated Gaussian LLRs that make an EER a Cllr.
"""
from pathlib import Path

import llrcore as lc

# The repository, from this file (sphinx-gallery runs an example in its folder, with no __file__).
ASSETS = Path(globals().get("__file__", "example.py")).resolve().parents[1] / "assets" / "asvspoof2019_la"
trials = lc.read_trials(ASSETS / "ASVspoof2019.LA.asv.eval.gi.trl.scores.txt")
summary = lc.bayes_decisions(trials, p_target=0.01)
print(summary.sentence())
print(f"Bayes threshold on the LLRs: {-lc.logit(0.01):.2f}")

# %%
# Errors per 100 trials: the system as it is, perfectly calibrated, and no system
# -------------------------------------------------------------------------------
lc.plots.errors_per_100_figure(summary).show()

# %%
# Where the threshold cuts the two score distributions.
lc.plots.decision_figure(trials, p_target=0.01).show()

# %%
# Calibrated Gaussian LLRs with an EER of 10 %: their Cllr and its approximation from the EER.
mu = lc.mu_from_eer(0.10)
print(f"mu = {mu:.3f}: Cllr {lc.gaussian_cllr(mu):.4f} bits, approximation {lc.cllr_eer_approximation(0.10):.4f}")
lc.plots.gaussian_llr_figure(mu).show()
