"""
Forensic validation: Tippett, ECE and the validation matrix
===========================================================

LRs of cartridge-case comparisons (same source and different source, log10, from the NFI's lir package), validated
as the forensic guideline asks: the validation matrix of Cllr, EER, minCllr, Cllr_cal and devPAV, the ELUB bounds,
and the ENFSI verbal equivalent of an LR.
"""
from pathlib import Path

import llrcore as lc

# The repository, from this file (sphinx-gallery runs an example in its folder, with no __file__).
DEMO = Path(globals().get("__file__", "example.py")).resolve().parents[1] / "assets" / "lir_cartridge_case_llrs"
cases = lc.read_class_files(DEMO / "LLR_KM.csv", DEMO / "LLR_KNM.csv", scale="log10", name="cartridge cases")
print(f"{len(cases.tar)} same-source and {len(cases.non)} different-source comparisons")
bounds = lc.elub_bounds(cases)
print(f"Cllr {lc.cllr(cases):.3f} bits, devPAV {lc.devpav(cases):.3f}, "
      f"ELUB bounds {bounds.lower_log10} to {bounds.upper_log10} (log10 LR)")
print(lc.verbal_scale(lc.from_log10(3.0)))
print(lc.validate_lr_method(cases, calibrate=None).to_frame().to_string())

# %%
# Tippett plot and empirical cross-entropy, LRs in log10 as forensic readers expect
# ---------------------------------------------------------------------------------
lc.plots.tippett_figure({"cartridge cases": cases}).show()

# %%
lc.plots.ece_figure({"cartridge cases": cases}).show()
