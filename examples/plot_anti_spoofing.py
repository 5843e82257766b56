"""
Anti-spoofing: the countermeasure and the speaker verifier in tandem
====================================================================

Four ASVspoof 2019 LA countermeasures (CMs) in front of the challenge's speaker verifier (ASV): the min t-DCF of
each tandem, per attack, the concurrent t-EER of ASVspoof 5, and the ASV's own a-DCF on its targets, non-targets and
spoofs.
"""
from pathlib import Path

import llrcore as lc

# The repository, from this file (sphinx-gallery runs an example in its folder, with no __file__).
ASSETS = Path(globals().get("__file__", "example.py")).resolve().parents[1] / "assets"
cms = lc.read_trials(ASSETS / "asvspoof2019_la_cm" / "ASVspoof2019.LA.cm.eval.scores.tsv.gz")  # name -> Trials
asv = lc.read_trials(ASSETS / "asvspoof2019_la" / "ASVspoof2019.LA.asv.eval.gi.trl.scores.txt")
tandems = {name: lc.evaluate_tandem(cm, asv) for name, cm in cms.items()}
for name, tandem in tandems.items():
    print(f"{name:10} min t-DCF {tandem.min_tdcf:.4f}")

# %%
# ASVspoof 5's measures: the t-EER of one CM with the ASV, the a-DCF of the ASV alone
# -----------------------------------------------------------------------------------
lfcc = cms["LFCC-GMM"]
teer = lc.t_eer(lfcc.tar, lfcc.non, asv.tar, asv.non, asv.spoof)
print(f"t-EER {teer.value:.4f}; the ASV's min a-DCF {lc.a_dcf(asv.tar, asv.non, asv.spoof).minimum:.4f}")

# %%
# The normalised t-DCF against the CM threshold, then per attack.
lc.plots.tdcf_figure(tandems).show()

# %%
lc.plots.attack_bars_figure(tandems).show()
