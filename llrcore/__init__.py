"""llrcore: likelihood-ratio calibration and evaluation.

The analysis library behind the llrcore workbench; usable on its own from a notebook or a script (it never imports
streamlit). Conventions: natural-log LLRs, Cllr in bits, a target is accepted when ``llr >= -plo_eff`` with
``plo_eff = logit(P_target) + log(C_miss / C_fa)``.

``import llrcore`` is light: every public name is imported from its module the first time it is used (PEP 562, the
table :data:`_EXPORTS`), so that ``llrcore --help`` or a script that only reads files does not pay for plotly, pandas
and scipy it never touches. ``from llrcore import *``, ``dir(llrcore)`` and type checkers (the ``TYPE_CHECKING``
imports below, which tests/project/test_startup.py holds equal to the table) see every name as before.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from . import _moved
from ._version import __version__

#: module (relative to llrcore) -> the public names it gives, imported on first use
_EXPORTS: dict[str, tuple[str, ...]] = {
    ".binary.conventions": ("Convention", "EERConventions", "eer_conventions"),
    ".binary.counts": ("CountedScores",),
    ".binary.curves": (
        "BayesErrorCurve", "CurveSet", "DETCurve", "PAVTransform", "bayes_error_curves", "det_curves", "pav_transforms",
    ),
    ".binary.histograms": ("ScoreHistograms", "score_histograms"),
    ".binary.metrics": (
        "BayesErrorRates", "BinaryMetrics", "act_dcf", "bayes_error_rates", "cllr", "cprimary", "det_curve", "eer",
        "effective_plo", "evaluate", "metrics_table", "min_cllr", "min_dcf", "pav_llrs", "SRE12_P_TARGETS",
    ),
    ".binary.rates": ("SortedScores",),
    ".binary.tables": ("METHOD_COLUMN", "METRIC_COLUMNS"),
    ".binary.verdict": ("VERDICTS", "VERDICT_RULE", "LLRVerdict", "llr_verdict"),
    ".calibration.affine_kinds": ("fit_affine_by_condition", "fit_quality_affine"),
    ".calibration.analysis": ("CalibrationResult", "calibrate_and_evaluate", "calibration_label"),
    ".calibration.calibrators": ("Affine", "Fusion", "PAVCalibrator"),
    ".calibration.cmlg": ("fit_cmlg",),
    ".calibration.conditional": ("ConditionalCalibration",),
    ".calibration.conditions": ("ConditionCalibrationResult", "calibrate_by_condition"),
    ".calibration.fit": ("fit_affine", "fit_fusion"),
    ".calibration.folds": ("Folds", "cross_calibrate"),
    ".calibration.fusion": ("AlignedSystems", "FusionResult", "align_systems", "fuse"),
    ".calibration.pav": ("fit_pav",),
    ".calibration.problems": ("calibration_problems",),
    ".calibration.quality": ("QualityCalibration", "QualityComparison", "numeric_columns", "pair_quality"),
    ".calibration.rules": ("BetaRule", "objective", "threshold_weighting"),
    ".calibration.sweep": ("RuleSweep", "sweep_prior_weighting", "NAMED_RULES"),
    ".calibration.weighting": ("ThresholdWeightings", "threshold_weightings", "weighting_mode"),
    ".data.cohort": ("CohortScores",),
    ".data.similarity": ("SimilarityMatrix",),
    ".data.trials": ("Trials",),
    ".diarization": (
        "ClusteringResult", "CorpusScores", "DERResult", "MethodComparison", "SegmentScores", "cluster_recordings",
        "cluster_similarity", "compare_methods", "diarization_error_rate", "score_corpus", "segment_scores",
        "segments_to_turns", "DiarizationBootstrap", "DiarizerComparison", "ScoringConventions", "SystemScores",
        "bootstrap_diarization", "compare_diarizers", "score_system", "fit_diarization_prior",
    ),
    ".forensic": (
        "ECECurve", "ElubBounded", "ElubBounds", "LRValidation", "Tippett", "ValidationCriteria", "cllr_cal",
        "ece_curve", "elub_bounded", "elub_bounds", "from_log10", "to_log10", "validate_lr_method", "verbal_scale",
    ),
    ".forensic.criteria": ("verbal_scale_frame",),
    ".forensic.devpav": ("devpav",),
    ".forensic.ece": ("ece",),
    ".forensic.tippett": ("tippett",),
    ".io": (
        "LoadError", "LoadWarning", "read_multiclass", "read_trials", "rescore_file", "write_trials",
        "read_class_files", "read_bosaris_key", "read_bosaris_ndx", "read_bosaris_scores", "write_bosaris_key",
        "write_bosaris_ndx", "write_bosaris_scores",
    ),
    ".io.cohort": ("read_cohort_scores",),
    ".io.diarization": (
        "read_labels", "read_rttm", "read_segments", "read_similarity", "read_uem", "rttm_text", "similarity_keys",
        "write_rttm",
    ),
    ".io.diarization_corpus": ("read_corpus",),
    ".io.out_of_core": ("ScoreTally", "count_labels", "count_scores", "score_files", "tally_labels"),
    ".multiclass": (
        "IdentificationErrors", "MulticlassAffine", "MulticlassAnalysis", "MulticlassScores", "analyse_multiclass",
        "cavg_table", "class_prior", "confusion_matrix", "detection_analysis", "detection_decisions", "detection_llrs",
        "detection_trials", "fit_multiclass_affine", "identification_errors", "lre_cprimary", "map_decisions",
        "multiclass_cllr", "pairwise_analysis", "pairwise_decisions", "scores_to_llrs",
    ),
    ".multiclass.binned": ("BinnedECE", "binned_ece"),
    ".multiclass.cavg": ("cavg",),
    ".multiclass.classifier": ("ClassifierCalibration", "classifier_calibration"),
    ".multiclass.corp": ("CORP", "corp", "corp_per_class"),
    ".multiclass.ece_conventions": ("ece_conventions",),
    ".multiclass.errors": ("CalibrationErrors", "calibration_errors"),
    ".multiclass.loader": ("load_calibrator",),
    ".multiclass.selective": ("RiskCoverage", "aurc"),
    ".multiclass.smooth": ("SmoothECE", "smooth_ece", "smooth_ece_at"),
    ".multiclass.temperature": ("Temperature", "fit_temperature"),
    ".normalization": ("normalization_problems", "normalize_scores"),
    ".parallel": ("thread_count", "thread_limit"),
    ".plots.export": ("export_problem", "figure_to_image", "figures_zip"),
    ".prior": (
        "NIST_PRIMARY_P_TARGETS", "OperatingPoint", "as_operating_point", "logit", "sigmoid", "primary_p_targets",
    ),
    ".report": ("CalibrationSummary", "Report", "SystemSummary", "build_report"),
    ".report.classifier": ("classifier_report_html",),
    ".scale.accumulator": ("ScoreAccumulator",),
    ".scale.embeddings": ("BinnedScores", "score_embeddings"),
    ".scale.files": ("counts_reader",),
    ".spoofing.adcf": ("ADCF", "a_dcf", "a_dcf_cost_model"),
    ".spoofing.sasv": (
        "TandemASV", "sasv_parts", "sasv_table", "tandem_asv", "tandem_teer_conventions", "ASV_SCORE", "CM_SCORE",
    ),
    ".spoofing.tandem": (
        "AttackRow", "TandemEvaluation", "TandemIntervals", "bootstrap_tandem", "evaluate_tandem", "tandem_table",
    ),
    ".spoofing.tdcf": ("TandemDCF", "asv_eer_threshold", "spoof_false_alarm_rate", "tdcf", "tdcf_cost_model"),
    ".spoofing.tdcf_bootstrap": ("TandemBootstrap", "bootstrap_tdcf"),
    ".spoofing.teer": ("ASVPoints", "TEER_CONVENTIONS", "TandemEER", "asv_points", "t_eer", "t_eer_conventions"),
    ".teaching.decisions": (
        "DecisionHistograms", "DecisionSummary", "bayes_decisions", "cross_calibrated", "decision_histograms",
    ),
    ".teaching.fixed_threshold": (
        "FixedThresholdAnalysis", "fixed_false_alarm_threshold", "score_threshold_for_false_alarm_rate",
    ),
    ".teaching.gaussian": (
        "CllrEerCurve", "GaussianComparison", "GaussianDensities", "cllr_eer_curve", "cllr_eer_approximation",
        "dprime_from_mu", "eer_from_mu", "gaussian_bayes_error", "gaussian_cllr", "gaussian_cllr_curve",
        "gaussian_comparison", "gaussian_densities", "gaussian_det", "gaussian_llr_density", "mu_from_dprime",
        "mu_from_eer",
    ),
    ".uncertainty.comparison": ("SystemComparison", "compare_systems"),
    ".uncertainty.conditions": (
        "Condition", "ConditionColumns", "ConditionMetrics", "condition_columns", "evaluate_by_condition",
    ),
    ".uncertainty.intervals": ("INTERVAL_METHODS",),
    ".uncertainty.resampling": ("BootstrapResult", "DETBand", "bootstrap"),
}
#: public name -> (module, the name it has there)
_RENAMED: dict[str, tuple[str, str]] = {
    "NORMALIZATION_TOP_N": (".normalization.norms", "DEFAULT_TOP_N"),
    "NORMALIZATION_METHODS": (".normalization.norms", "METHODS"),
    "VALIDATION_METRICS": (".forensic.criteria", "METRICS"),
    "DEFAULT_INTERVAL_METHOD": (".uncertainty.intervals", "DEFAULT_METHOD"),
}
#: the packages and modules that were attributes of llrcore once it was imported (the documented namespaces
#: ``plots``, ``report``, ``diarization`` among them): imported on first use too
_SUBMODULES = ("binary", "calibration", "data", "diarization", "forensic", "io", "multiclass", "normalization",
               "parallel", "plots", "prior", "report", "scale", "spoofing", "teaching", "uncertainty", "_deprecation",
               "_format")
_WHERE = {name: (module, name) for module, names in _EXPORTS.items() for name in names} | _RENAMED

if TYPE_CHECKING:
    from . import diarization, plots, report
    from .calibration.calibrators import Affine, Fusion, PAVCalibrator
    from .calibration.cmlg import fit_cmlg
    from .calibration.fit import fit_affine, fit_fusion
    from .calibration.pav import fit_pav
    from .binary.curves import (
        BayesErrorCurve,
        CurveSet,
        DETCurve,
        PAVTransform,
        bayes_error_curves,
        det_curves,
        pav_transforms,
    )
    from .binary.histograms import ScoreHistograms, score_histograms
    from .binary.conventions import Convention, EERConventions, eer_conventions
    from .data.trials import Trials
    from .binary.metrics import (
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
    from .io import LoadError, LoadWarning, read_multiclass, read_trials, rescore_file, write_trials
    from .io import read_class_files  # same-source and different-source LRs in two files
    from .io.cohort import read_cohort_scores  # score normalisation: `model cohort score` files
    from .data.cohort import CohortScores
    from .normalization import normalization_problems, normalize_scores
    from .io import read_bosaris_key, read_bosaris_ndx, read_bosaris_scores  # BOSARIS Scores/Key/Ndx .h5 files
    from .io import write_bosaris_key, write_bosaris_ndx, write_bosaris_scores
    from .parallel import thread_count, thread_limit
    from .prior import NIST_PRIMARY_P_TARGETS, OperatingPoint, as_operating_point, logit, sigmoid
    from .binary.rates import SortedScores
    from .binary.counts import CountedScores
    from .io.out_of_core import ScoreTally, count_labels, count_scores, score_files, tally_labels
    from .scale.accumulator import ScoreAccumulator
    from .scale.embeddings import BinnedScores, score_embeddings
    from .scale.files import counts_reader
    from .calibration.rules import BetaRule, objective, threshold_weighting
    from .calibration.weighting import ThresholdWeightings, threshold_weightings
    from .binary.verdict import VERDICTS, VERDICT_RULE, LLRVerdict, llr_verdict
    from .calibration.conditions import ConditionCalibrationResult, calibrate_by_condition
    from .calibration.conditional import ConditionalCalibration
    from .calibration.folds import Folds, cross_calibrate
    from .calibration.analysis import CalibrationResult, calibrate_and_evaluate
    from .calibration.problems import calibration_problems
    from .calibration.sweep import RuleSweep, sweep_prior_weighting
    from .calibration.weighting import weighting_mode
    from .teaching.decisions import (
        DecisionHistograms,
        DecisionSummary,
        bayes_decisions,
        cross_calibrated,
        decision_histograms,
    )
    from .teaching.fixed_threshold import FixedThresholdAnalysis, fixed_false_alarm_threshold, score_threshold_for_false_alarm_rate
    from .teaching.gaussian import (
        CllrEerCurve,
        GaussianComparison,
        GaussianDensities,
        cllr_eer_curve,
        cllr_eer_approximation,
        dprime_from_mu,
        eer_from_mu,
        gaussian_bayes_error,
        gaussian_cllr,
        gaussian_cllr_curve,
        gaussian_comparison,
        gaussian_densities,
        gaussian_det,
        gaussian_llr_density,
        mu_from_dprime,
        mu_from_eer,
    )
    from .multiclass import (
        IdentificationErrors,
        MulticlassAffine,
        MulticlassAnalysis,
        MulticlassScores,
        analyse_multiclass,
        cavg_table,
        class_prior,
        confusion_matrix,
        detection_analysis,
        detection_decisions,
        detection_llrs,
        detection_trials,
        fit_multiclass_affine,
        identification_errors,
        lre_cprimary,
        map_decisions,
        multiclass_cllr,
        pairwise_analysis,
        pairwise_decisions,
        scores_to_llrs,
    )
    from .multiclass.cavg import cavg  # a function named as its module: mypy wants it from there
    from .multiclass.corp import CORP, corp, corp_per_class
    from .multiclass.binned import BinnedECE, binned_ece
    from .multiclass.ece_conventions import ece_conventions
    from .multiclass.errors import CalibrationErrors, calibration_errors
    from .multiclass.selective import RiskCoverage, aurc
    from .multiclass.smooth import SmoothECE, smooth_ece, smooth_ece_at
    from .multiclass.temperature import Temperature, fit_temperature
    from .multiclass.loader import load_calibrator  # every kind of saved calibrator, binary and multiclass
    from .multiclass.classifier import ClassifierCalibration, classifier_calibration
    from .report.classifier import classifier_report_html
    from .uncertainty.conditions import (
        Condition,
        ConditionColumns,
        ConditionMetrics,
        condition_columns,
        evaluate_by_condition,
    )
    from .uncertainty.comparison import SystemComparison, compare_systems
    from .uncertainty.resampling import BootstrapResult, DETBand, bootstrap
    from .report import CalibrationSummary, Report, SystemSummary, build_report
    from .data.similarity import SimilarityMatrix
    from .diarization import (
        ClusteringResult,
        CorpusScores,
        DERResult,
        MethodComparison,
        SegmentScores,
        cluster_recordings,
        cluster_similarity,
        compare_methods,
        diarization_error_rate,
        fit_diarization_prior,
        score_corpus,
        segment_scores,
        segments_to_turns,
    )
    from .diarization import (  # any diarization system's RTTM scored, with intervals and a paired comparison
        DiarizationBootstrap,
        DiarizerComparison,
        ScoringConventions,
        SystemScores,
        bootstrap_diarization,
        compare_diarizers,
        score_system,
    )
    from .io.diarization import (
        read_labels,
        read_rttm,
        read_segments,
        read_similarity,
        read_uem,
        rttm_text,
        similarity_keys,
        write_rttm,
    )
    from .io.diarization_corpus import read_corpus
    from .spoofing.tdcf import TandemDCF, asv_eer_threshold, spoof_false_alarm_rate, tdcf, tdcf_cost_model
    from .calibration.fusion import AlignedSystems, FusionResult, align_systems, fuse
    from .calibration.affine_kinds import fit_affine_by_condition, fit_quality_affine
    from .calibration.quality import QualityCalibration, QualityComparison, numeric_columns, pair_quality
    from .spoofing.tandem import AttackRow, TandemEvaluation, TandemIntervals, bootstrap_tandem, evaluate_tandem, tandem_table
    from .spoofing.tdcf_bootstrap import TandemBootstrap, bootstrap_tdcf
    from .spoofing.adcf import ADCF, a_dcf, a_dcf_cost_model
    from .spoofing.teer import ASVPoints, TEER_CONVENTIONS, TandemEER, asv_points, t_eer, t_eer_conventions
    from .spoofing.sasv import TandemASV, sasv_parts, sasv_table, tandem_asv, tandem_teer_conventions
    from .forensic.devpav import devpav  # functions named as their modules, as cavg above
    from .forensic.ece import ece
    from .forensic.tippett import tippett
    from .forensic import (
        ECECurve,
        ElubBounded,
        ElubBounds,
        LRValidation,
        Tippett,
        ValidationCriteria,
        cllr_cal,
        ece_curve,
        elub_bounded,
        elub_bounds,
        from_log10,
        to_log10,
        validate_lr_method,
        verbal_scale,
    )
    from .binary.metrics import SRE12_P_TARGETS
    from .binary.tables import METHOD_COLUMN, METRIC_COLUMNS
    from .calibration.analysis import calibration_label
    from .calibration.sweep import NAMED_RULES
    from .normalization.norms import DEFAULT_TOP_N as NORMALIZATION_TOP_N
    from .normalization.norms import METHODS as NORMALIZATION_METHODS
    from .plots.export import export_problem, figure_to_image, figures_zip
    from .forensic.criteria import METRICS as VALIDATION_METRICS
    from .forensic.criteria import verbal_scale_frame
    from .prior import primary_p_targets
    from .spoofing.sasv import ASV_SCORE, CM_SCORE
    from .uncertainty.intervals import DEFAULT_METHOD as DEFAULT_INTERVAL_METHOD
    from .uncertainty.intervals import INTERVAL_METHODS

    #: Files larger than memory: counts per unique score from DuckDB (here or on a Dask cluster), as a CountedScores
    #: every metric takes.
    read_counts = counts_reader(score_files, count_labels, tally_labels)

_moved.install()


def __getattr__(name: str) -> Any:
    """A public name or namespace, imported on first use and then kept as an ordinary attribute; ``llrcore.metrics``
    and the other modules that moved into packages, for one release (:mod:`llrcore._moved`)."""
    if name in _WHERE:
        module, attribute = _WHERE[name]
        value = getattr(importlib.import_module(module, __name__), attribute)
    elif name in _SUBMODULES:
        value = importlib.import_module(f".{name}", __name__)
    elif name == "read_counts":  # the io layer's counting of each file, merged by the scale layer's engines
        value = __getattr__("counts_reader")(*map(__getattr__, ("score_files", "count_labels", "tally_labels")))
    elif name in _moved.MOVED:
        return _moved.moved_module(name, stacklevel=4)
    else:
        raise AttributeError(f"module 'llrcore' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_WHERE, *_SUBMODULES, "read_counts"})


#: The documented API, grouped as the packages that hold it: what ``from llrcore import *`` gives and what
#: tests/project/test_api_common.py holds to one contract. Everything else is private or lives in a documented
#: namespace (``llrcore.plots``, ``llrcore.report``, ``llrcore.diarization``).
__all__ = [
    # data and the prior
    "CohortScores", "MulticlassScores", "NIST_PRIMARY_P_TARGETS", "OperatingPoint", "SimilarityMatrix", "Trials",
    "as_operating_point", "class_prior", "effective_plo", "logit", "scores_to_llrs", "sigmoid",
    "thread_count", "thread_limit",
    # reading and writing
    "LoadError", "LoadWarning", "ScoreTally", "count_scores", "read_bosaris_key", "read_bosaris_ndx",
    "read_bosaris_scores", "read_class_files", "read_cohort_scores", "read_corpus", "read_counts", "read_labels",
    "read_multiclass", "read_rttm", "read_segments", "read_similarity", "read_trials", "read_uem", "rescore_file",
    "rttm_text", "similarity_keys", "write_bosaris_key", "write_bosaris_ndx", "write_bosaris_scores", "write_rttm",
    "write_trials",
    # binary evaluation
    "BayesErrorCurve", "BayesErrorRates", "BinaryMetrics", "Convention", "CountedScores", "CurveSet", "DETCurve",
    "BinnedScores", "EERConventions", "LLRVerdict", "PAVTransform", "ScoreAccumulator", "ScoreHistograms",
    "SortedScores",
    "VERDICTS", "VERDICT_RULE", "act_dcf", "bayes_error_curves", "bayes_error_rates", "cllr", "cprimary",
    "det_curve", "det_curves", "eer", "eer_conventions", "evaluate", "llr_verdict", "metrics_table", "min_cllr",
    "min_dcf", "pav_llrs", "pav_transforms", "score_embeddings", "score_histograms",
    # conditions and uncertainty
    "BootstrapResult", "Condition", "ConditionColumns", "ConditionMetrics", "DETBand", "SystemComparison",
    "bootstrap", "compare_systems", "condition_columns", "evaluate_by_condition",
    # calibration, fusion and score normalisation
    "Affine", "AlignedSystems", "BetaRule", "CalibrationResult", "ConditionCalibrationResult",
    "ConditionalCalibration", "Folds", "Fusion", "FusionResult", "PAVCalibrator", "QualityCalibration",
    "QualityComparison", "RuleSweep", "ThresholdWeightings", "align_systems", "calibrate_and_evaluate",
    "calibrate_by_condition", "calibration_problems", "cross_calibrate", "fit_affine", "fit_affine_by_condition",
    "fit_cmlg", "fit_fusion", "fit_pav", "fit_quality_affine", "fuse", "load_calibrator", "normalization_problems",
    "normalize_scores",
    "numeric_columns", "objective", "pair_quality", "sweep_prior_weighting", "threshold_weighting",
    "threshold_weightings", "weighting_mode",
    # spoofing and the tandem
    "ADCF", "ASVPoints", "AttackRow", "TEER_CONVENTIONS", "TandemASV", "TandemBootstrap", "TandemDCF", "TandemEER",
    "TandemEvaluation", "TandemIntervals", "a_dcf", "a_dcf_cost_model", "asv_eer_threshold", "asv_points",
    "bootstrap_tandem", "bootstrap_tdcf", "evaluate_tandem", "sasv_parts", "sasv_table", "spoof_false_alarm_rate",
    "t_eer", "t_eer_conventions", "tandem_asv", "tandem_table", "tandem_teer_conventions", "tdcf", "tdcf_cost_model",
    # multiclass and classifiers
    "BinnedECE", "CORP", "CalibrationErrors", "ClassifierCalibration", "IdentificationErrors", "MulticlassAffine",
    "MulticlassAnalysis", "RiskCoverage", "SmoothECE", "Temperature", "analyse_multiclass", "aurc", "binned_ece",
    "calibration_errors", "cavg", "cavg_table", "classifier_calibration", "confusion_matrix", "corp",
    "corp_per_class", "detection_analysis", "detection_decisions", "detection_llrs", "detection_trials",
    "ece_conventions", "fit_multiclass_affine", "fit_temperature", "identification_errors", "lre_cprimary",
    "map_decisions", "multiclass_cllr", "pairwise_analysis", "pairwise_decisions", "smooth_ece", "smooth_ece_at",
    # forensic validation
    "ECECurve", "ElubBounded", "ElubBounds", "LRValidation", "Tippett", "ValidationCriteria", "cllr_cal", "devpav",
    "ece", "ece_curve", "elub_bounded", "elub_bounds", "from_log10", "tippett", "to_log10", "validate_lr_method",
    "verbal_scale",
    # diarization
    "ClusteringResult", "CorpusScores", "DERResult", "DiarizationBootstrap", "DiarizerComparison",
    "MethodComparison", "ScoringConventions", "SegmentScores", "SystemScores", "bootstrap_diarization",
    "cluster_recordings", "cluster_similarity", "compare_diarizers", "compare_methods", "diarization_error_rate",
    "fit_diarization_prior", "score_corpus", "score_system", "segment_scores", "segments_to_turns",
    # teaching
    "CllrEerCurve", "DecisionHistograms", "DecisionSummary", "FixedThresholdAnalysis", "GaussianComparison",
    "GaussianDensities", "bayes_decisions", "cllr_eer_approximation", "cllr_eer_curve", "cross_calibrated",
    "decision_histograms", "dprime_from_mu", "eer_from_mu", "fixed_false_alarm_threshold", "gaussian_bayes_error",
    "gaussian_cllr", "gaussian_cllr_curve", "gaussian_comparison", "gaussian_densities", "gaussian_det",
    "gaussian_llr_density", "mu_from_dprime", "mu_from_eer", "score_threshold_for_false_alarm_rate",
    # reports; the documented namespaces: figures (with their export), a report's words, diarization's settings
    "CalibrationSummary", "Report", "SystemSummary", "build_report", "classifier_report_html", "diarization", "plots",
    "report",
    # the settings a front end offers: named rules, methods, columns, presets
    "ASV_SCORE", "CM_SCORE", "DEFAULT_INTERVAL_METHOD", "INTERVAL_METHODS", "METHOD_COLUMN", "METRIC_COLUMNS",
    "NAMED_RULES", "NORMALIZATION_METHODS", "NORMALIZATION_TOP_N", "SRE12_P_TARGETS", "VALIDATION_METRICS",
    "calibration_label", "export_problem", "figure_to_image", "figures_zip", "primary_p_targets",
    "verbal_scale_frame",
]
