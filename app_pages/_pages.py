"""The pages of the workbench: app.py builds st.navigation from this list and Home links to every entry, so a new
page is one line here."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PageSpec:
    path: str  # relative to the repository root
    title: str
    icon: str
    section: str
    blurb: str
    default: bool = False


PAGES = [
    PageSpec("app_pages/home.py", "Home", ":material/home:", "Workbench",
             "What the workbench is for and what is loaded.", default=True),
    PageSpec("app_pages/data.py", "Data", ":material/upload_file:", "Workbench",
             "Upload score files or pick demo sets; name them and mark them for development or evaluation."),
    PageSpec("app_pages/evaluate.py", "Evaluate", ":material/query_stats:", "Workbench",
             "EER, minDCF, actDCF, Cllr and Cprimary at an operating point; DET, APE and Bayes error plots."),
    PageSpec("app_pages/spoofing.py", "ASV + countermeasure", ":material/security:", "Workbench",
             "A spoofing countermeasure in front of a speaker verifier: t-DCF and its minimum, EERs, per attack."),
    PageSpec("app_pages/normalization.py", "Score normalisation", ":material/align_vertical_center:", "Calibration",
             "Z-, T-, S- and adaptive S-norm against cohort scores; metrics, DET and a paired bootstrap before and "
             "after."),
    PageSpec("app_pages/calibrate.py", "Calibrate", ":material/tune:", "Calibration",
             "Train affine (any proper scoring rule), CMLG or PAV calibration on development trials; judge it on "
             "evaluation trials or by cross-validation."),
    PageSpec("app_pages/fusion.py", "Fusion", ":material/merge:", "Calibration",
             "Fuse several systems scored on the same trials; does the fusion beat the best of them calibrated alone?"),
    PageSpec("app_pages/compare_rules.py", "Compare rules", ":material/compare_arrows:", "Calibration",
             "Sweep the prior weighting for several scoring rules and see which gives the lowest evaluation Cprimary."),
    PageSpec("app_pages/bayes_decisions.py", "Bayes decisions", ":material/gavel:", "Teaching",
             "Out of 100 trials, how many errors? Prior and cost sliders, the Bayes threshold, the trapezium bound, "
             "and what a fixed false-alarm threshold costs."),
    PageSpec("app_pages/gaussian_explorer.py", "Gaussian explorer", ":material/area_chart:", "Teaching",
             "Calibrated Gaussian LLRs: EER, d', Cllr and the straight DET from one number; your scores against "
             "the ideal after CMLG."),
    PageSpec("app_pages/forensic.py", "Forensic validation", ":material/balance:", "Share",
             "Validate an LR method as the forensic guideline proposes: the validation matrix, Tippett, ECE, ELUB."),
    PageSpec("app_pages/report.py", "Report", ":material/summarize:", "Share",
             "A one-file HTML report for non-specialists: errors out of 100, can the scores be trusted, figures."),
    PageSpec("app_pages/multiclass.py", "Multiclass", ":material/category:", "Multiclass",
             "Language-recognition style LLR vectors: multiclass Cllr, the α·λ + γ calibration, pair-wise and "
             "detection analyses, confusion matrix at any prior."),
    PageSpec("app_pages/classifier.py", "Classifier calibration", ":material/target:", "Multiclass",
             "Can a classifier's probabilities be trusted? CORP reliability diagrams without bins, MCB/DSC/UNC, the "
             "binned ECE of ML papers, and temperature scaling."),
    PageSpec("app_pages/diarization.py", "Diarization", ":material/record_voice_over:", "Diarization",
             "Who spoke when from a similarity matrix: a Bayesian block model with a sticky Markov chain over the "
             "windows in time order (as in VBx) and a fitted or learnt score model, against AHC, spectral and "
             "NME-SC; DER."),
]
