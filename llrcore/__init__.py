"""llrcore: likelihood-ratio calibration and evaluation.

The analysis library behind the llrcore workbench; usable on its own from a notebook or a script (it never imports
streamlit). See DESIGN.md-style conventions in the README: natural-log LLRs, Cllr in bits, targets accepted when
``llr >= -plo_eff``.
"""
from .data import Trials
from .metrics import (
    BayesErrorRates,
    BinaryMetrics,
    act_dcf,
    bayes_error_rates,
    cllr,
    cprimary,
    det_curve,
    eer,
    effective_plo,
    evaluate,
    metrics_table,
    min_cllr,
    min_dcf,
    pav_llrs,
)
from .rates import SortedScores

__version__ = "0.1.0"
