"""
Classifier calibration: CORP reliability, binned ECE and temperature scaling
============================================================================

The logits of a ResNet-20 on the CIFAR-10 test set: how reliable its top-label confidence is, by the CORP
reliability diagram (isotonic, no bins to choose) and by the binned ECE of machine-learning papers, before and
after temperature scaling.
"""
from pathlib import Path

import llrcore as lc

# The repository, from this file (sphinx-gallery runs an example in its folder, with no __file__).
DEMO = Path(globals().get("__file__", "example.py")).resolve().parents[1] / "assets" / "multiclass" / "cifar10_resnet-20"
scores = lc.read_multiclass(DEMO / "scores.npy", labels=DEMO / "targets.npy", score_type="logit")
result = lc.classifier_calibration(scores.llrs, scores.labels, n=100)
print(f"accuracy {result.accuracy:.2%}, temperature T = {result.temperature.temperature:.3f}")
print(result.to_frame().to_string())

# %%
# Reliability, raw and temperature-scaled
# ---------------------------------------
lc.plots.corp_figure(result.corp).show()

# %%
lc.plots.binned_figure(result.binned).show()
