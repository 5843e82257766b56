"""Every public name held to one contract (issue 42), as scikit-learn's ``test_common`` holds every estimator.

The registry is ``llrcore.__all__``: every function there and every class there, each class either a result (built
here from a small real call) or named in :data:`NOT_RESULTS` with the reason it has no table. The contract:

- ``__all__`` resolves and ``from llrcore import *`` gives exactly it;
- the parameters use DESIGN.md's spellings (``tar, non``; ``cm_bonafide, cm_spoof, asv_tar, asv_non, asv_spoof``;
  ``p_target``, ``plo``), never :data:`BANNED` ones, and the prior (``p_target``, ``plo``) is keyword-only;
- every public function's docstring has numpydoc's Parameters and Returns sections;
- every public function has a type hint on each parameter and on its return (DESIGN.md: "Type hints on the public
  API"; llrcore ships ``py.typed``, so users' checkers read them; mypy checks them against the code: pyproject.toml);
- every result has ``to_frame()`` returning a non-empty DataFrame with text column names, a repr that names its class
  (not ``<... object at 0x...>``), and survives pickling (same table and repr after ``pickle.loads(pickle.dumps())``).

A new public name that breaks the contract fails here. Each check is also run on a made-up offender, which it must
catch (the ``test_the_check_*`` tests).

Independent references: numpydoc's own parser (``numpydoc.docscrape``) for the docstring sections, Python's
``inspect`` for the signatures and ``pickle`` for the round trip; the results are built from the real data of
``assets/`` and ``tests/data/`` (BSSR1 face scores, ASVspoof 2019 LA, the lir cartridge-case LLRs, CIFAR-10 logits,
and AMI ES2005a).
"""
from __future__ import annotations

import dataclasses
import functools
import inspect
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from numpydoc.docscrape import FunctionDoc
from scipy.special import softmax

import llrcore as lc
from paths import ASSETS


#: Spellings DESIGN.md replaced: the score sets are ``tar, non``, the tandem ``cm_bonafide, cm_spoof, asv_tar,
#: asv_non, asv_spoof``, the prior ``p_target`` (``plo`` in log-odds).
BANNED = {"tar_llr", "non_llr", "target", "nontarget", "asv_target", "asv_nontarget", "operating_point",
          "prior_log10_odds", "p_targets"}
#: The names of the prior, keyword-only wherever a function takes one.
PRIORS = ("p_target", "plo")

#: Functions whose ``target`` names a class (of a multiclass problem, or the class a density is of), not a set of
#: scores.
TARGET_IS_A_CLASS = {"binned_ece", "calibration_errors", "classifier_calibration", "corp", "detection_decisions",
                     "detection_llrs", "detection_trials", "gaussian_llr_density", "smooth_ece", "smooth_ece_at"}
#: Functions whose subject is the prior itself, which therefore comes first (after the rule, or mu), positionally.
PRIOR_IS_THE_SUBJECT = {"as_operating_point", "effective_plo", "gaussian_bayes_error", "primary_p_targets",
                        "threshold_weighting", "threshold_weightings", "weighting_mode"}
#: Today's signatures that break the rules above. The helper ``sig`` renames them in its own branch: the lead empties
#: this set when that branch merges (then every public signature is held to the rules).
PENDING_SIGNATURES: set[str] = set()
#: Today's public functions whose docstrings lack numpydoc's Parameters or Returns section; to be written as the
#: documentation site is built from them (the next issue). A new public function must have both.
PENDING_DOCSTRINGS: set[str] = set()
#: Today's public functions with a parameter or the return without a type hint (issue 43): the Gaussian closed forms,
#: which give a float for a number and an array for an array (their hints want overloads). A name leaves the set when
#: its hints are written; a new public function must have them all.
PENDING_ANNOTATIONS: set[str] = {"cllr_eer_approximation", "dprime_from_mu", "eer_from_mu", "gaussian_bayes_error",
    "gaussian_cllr", "gaussian_llr_density", "mu_from_dprime", "mu_from_eer"}

#: The public classes that are no result, each with why it has no table of its own.
NOT_RESULTS = {
    "Trials": "data: the scores every analysis takes (its .metadata is the table)",
    "MulticlassScores": "data: the LLR matrix every multiclass analysis takes",
    "SimilarityMatrix": "data: a recording's similarity matrix",
    "CohortScores": "data: cohort scores a reader returns",
    "ScoreTally": "data: a reader's counts, which read_counts gives as a CountedScores",
    "SortedScores": "the sorting engine every metric answers from",
    "OperatingPoint": "a setting: the prior and the costs",
    "BetaRule": "a setting: a proper scoring rule",
    "ValidationCriteria": "a setting: a laboratory's criteria",
    "ScoringConventions": "a setting: the DER's conventions",
    "Folds": "a setting: which trials each cross-validation fold tests",
    "Affine": "a fitted calibrator: called on scores",
    "Fusion": "a fitted calibrator: called on scores",
    "PAVCalibrator": "a fitted calibrator: called on scores",
    "MulticlassAffine": "a fitted calibrator: called on LLRs",
    "Temperature": "a fitted calibrator: called on logits",
    "ElubBounded": "a fitted calibrator: called on scores (its bounds are an ElubBounds, a result)",
    "LoadError": "an exception",
    "LoadWarning": "a warning",
}


# ----- small real data ------------------------------------------------------------------------------------------------


@functools.cache
def face() -> lc.Trials:
    """NIST BSSR1 face matcher G: 3,000 trials, every target among them, with a made-up two-valued condition."""
    trials = lc.read_trials(ASSETS / "nist_bssr1/bssr1_face.tsv.gz")["face-G"]
    tar, non = trials.tar, trials.non[:3000 - trials.tar.size]
    half = pd.DataFrame({"session": np.arange(tar.size + non.size) % 2})
    return lc.Trials(tar, non, name="face-G", metadata=half)


def accumulated(trials: lc.Trials) -> lc.ScoreAccumulator:
    """`trials` fed to a ScoreAccumulator in batches of 500, as a training loop would."""
    accumulator = lc.ScoreAccumulator()
    for start in range(0, trials.scores.size, 500):
        accumulator.update(trials.scores[start:start + 500], trials.labels[start:start + 500])
    return accumulator


@functools.cache
def face_llrs() -> lc.Trials:
    """:func:`face` calibrated (affine, cross-validated): LLRs."""
    return lc.cross_calibrated(face())


@functools.cache
def spoofing() -> tuple[lc.Trials, lc.Trials]:
    """ASVspoof 2019 LA development: the LFCC-GMM countermeasure and the ASV's scores (with their attacks)."""
    return (lc.read_trials(ASSETS / "asvspoof2019_la_cm/ASVspoof2019.LA.cm.dev.scores.tsv.gz")["LFCC-GMM"],
            lc.read_trials(ASSETS / "asvspoof2019_la/ASVspoof2019.LA.asv.dev.gi.trl.scores.txt"))


def tandem_parts() -> tuple[np.ndarray, ...]:
    cm, asv = spoofing()
    return cm.tar, cm.non, asv.tar, asv.non, asv.spoof


@functools.cache
def cartridges() -> lc.Trials:
    """The lir cartridge-case LLRs (log10 in the files, natural log here)."""
    folder = ASSETS / "lir_cartridge_case_llrs"
    km, knm = (np.loadtxt(folder / name, delimiter=",") for name in ("LLR_KM.csv", "LLR_KNM.csv"))
    return lc.Trials(lc.from_log10(km), lc.from_log10(knm), name="cartridges")


@functools.cache
def cifar() -> tuple[np.ndarray, np.ndarray]:
    """CIFAR-10 ResNet-20 logits and labels, the first 2,000."""
    folder = ASSETS / "multiclass/cifar10_resnet-20"
    return np.load(folder / "scores.npy")[:2000].astype(np.float64), np.load(folder / "targets.npy")[:2000]


@functools.cache
def multiclass() -> lc.MulticlassScores:
    logits, labels = cifar()
    return lc.MulticlassScores(lc.scores_to_llrs(logits, score_type="logit"), labels)


@functools.cache
def es2005a() -> lc.SimilarityMatrix:
    folder = ASSETS / "ami_ES2005a"
    return lc.read_similarity(folder / "ES2005a_similarity.npz", reference=folder / "ES2005a.rttm")


@functools.cache
def ahc_turns() -> pd.DataFrame:
    """ES2005a's speaker turns by agglomerative clustering."""
    return lc.cluster_recordings([es2005a()], "ahc")


@functools.cache
def diarizers() -> tuple[lc.SystemScores, lc.SystemScores]:
    """AMI ES2005a scored for VBx's turns and for agglomerative clustering's."""
    reference = lc.read_rttm(ASSETS / "ami_ES2005a/ES2005a.rttm")
    return (lc.score_system(reference, lc.read_rttm(ASSETS / "ami_ES2005a/ES2005a.vbx_output_reproduced_here.rttm")),
            lc.score_system(reference, ahc_turns()))


@functools.cache
def gaussian() -> lc.GaussianComparison:
    return lc.gaussian_comparison(face())


@functools.cache
def tandem() -> lc.TandemEvaluation:
    return lc.evaluate_tandem(*spoofing())


def first(curves: lc.CurveSet):
    """The first system's curve of a :class:`~llrcore.CurveSet`."""
    return next(iter(curves.values()))


#: class name -> a small real call that returns one
RESULTS = {
    "ADCF": lambda: lc.a_dcf(*tandem_parts()[2:]),
    "ASVPoints": lambda: lc.asv_points(*tandem_parts()[2:]),
    "AlignedSystems": lambda: lc.align_systems([face(), face_llrs()]),
    "AttackRow": lambda: tandem().rows[0],
    "BayesErrorCurve": lambda: first(lc.bayes_error_curves({"face": face_llrs()})),
    "BayesErrorRates": lambda: lc.bayes_error_rates(face_llrs()),
    "BinaryMetrics": lambda: lc.evaluate(face_llrs()),
    "BinnedECE": lambda: lc.binned_ece(softmax(cifar()[0], axis=1), cifar()[1]),
    "BootstrapResult": lambda: lc.bootstrap(face_llrs(), n=20),
    "CORP": lambda: lc.corp(softmax(cifar()[0], axis=1), cifar()[1], n=20),
    "CalibrationErrors": lambda: lc.calibration_errors(softmax(cifar()[0], axis=1), cifar()[1], binning="equal-mass"),
    "RiskCoverage": lambda: lc.aurc(softmax(cifar()[0], axis=1).max(axis=1),
                                    cifar()[0].argmax(axis=1) == cifar()[1]),
    "SmoothECE": lambda: lc.smooth_ece(softmax(cifar()[0], axis=1), cifar()[1], n=20),
    "CalibrationResult": lambda: lc.calibrate_and_evaluate(face(), face(), "affine"),
    "CalibrationSummary": lambda: lc.build_report(face(), calibrate_on=face()).summaries[0].calibration,
    "ClassifierCalibration": lambda: lc.classifier_calibration(*cifar(), n=20),
    "CllrEerCurve": lambda: lc.cllr_eer_curve(comparison=gaussian()),
    "ClusteringResult": lambda: lc.cluster_similarity(es2005a(), "ahc", n_clusters=4),
    "Condition": lambda: lc.evaluate_by_condition(face(), "session").conditions[0],
    "ConditionCalibrationResult": lambda: lc.calibrate_by_condition(face(), None, "session"),
    "ConditionColumns": lambda: lc.condition_columns(face()),
    "ConditionMetrics": lambda: lc.evaluate_by_condition(face(), "session"),
    "ConditionalCalibration": lambda: lc.fit_affine_by_condition(face(), "session"),
    "Convention": lambda: lc.eer_conventions(face()).conventions[0],
    "CorpusScores": lambda: lc.score_corpus([es2005a()], ahc_turns()),
    "CountedScores": lambda: lc.CountedScores.of(lc.count_scores(
        ASSETS / "asvspoof2019_la/ASVspoof2019.LA.asv.dev.gi.trl.scores.txt")),
    "CurveSet": lambda: lc.det_curves({"face": face()}),
    "ScoreAccumulator": lambda: accumulated(face()),
    "BinnedScores": lambda: lc.score_embeddings(np.random.default_rng(1).normal(size=(40, 3)), np.arange(40) % 5,
                                                bins=50),
    "DERResult": lambda: lc.diarization_error_rate(es2005a().reference_turns, ahc_turns()),
    "DETBand": lambda: lc.bootstrap(face_llrs(), n=20).det_band,
    "DETCurve": lambda: first(lc.det_curves({"face": face()})),
    "DecisionHistograms": lambda: lc.decision_histograms(face_llrs(), p_target=0.01),
    "DecisionSummary": lambda: lc.bayes_decisions(face_llrs(), p_target=0.01),
    "DiarizationBootstrap": lambda: lc.bootstrap_diarization(diarizers()[0], n=20),
    "DiarizerComparison": lambda: lc.compare_diarizers(*diarizers(), n=20),
    "ECECurve": lambda: lc.ece_curve(cartridges()),
    "EERConventions": lambda: lc.eer_conventions(face()),
    "ElubBounds": lambda: lc.elub_bounds(cartridges()),
    "FixedThresholdAnalysis": lambda: lc.fixed_false_alarm_threshold(face(), face(), 0.01),
    "FusionResult": lambda: lc.fuse([face(), face_llrs()]),
    "GaussianComparison": gaussian,
    "GaussianDensities": lambda: lc.gaussian_densities(comparison=gaussian()),
    "IdentificationErrors": lambda: lc.identification_errors(multiclass().llrs, multiclass().labels),
    "LLRVerdict": lambda: lc.llr_verdict(0.3, 0.2),
    "LRValidation": lambda: lc.validate_lr_method(cartridges()),
    "MethodComparison": lambda: lc.compare_methods(es2005a(), {"ahc": lc.cluster_similarity(es2005a(), "ahc",
                                                                                            n_clusters=4)}),
    "MulticlassAnalysis": lambda: lc.analyse_multiclass(multiclass()),
    "PAVTransform": lambda: first(lc.pav_transforms({"face": face()})),
    "QualityCalibration": lambda: lc.fit_quality_affine(face(), ["session"]),
    "QualityComparison": lambda: lc.fit_quality_affine(face(), ["session"]).compare(lc.fit_affine(face()), face()),
    "Report": lambda: lc.build_report(face()),
    "RuleSweep": lambda: lc.sweep_prior_weighting(face(), face(), plo_grid=[-2.0, 0.0]),
    "ScoreHistograms": lambda: first(lc.score_histograms({"face": face()})),
    "SegmentScores": lambda: lc.segment_scores(lc.cluster_similarity(es2005a(), "ahc", n_clusters=4).labels,
                                               es2005a().reference),
    "SystemComparison": lambda: lc.compare_systems(face_llrs(), face(), n=20),
    "SystemScores": lambda: diarizers()[0],
    "SystemSummary": lambda: lc.build_report(face()).summaries[0],
    "TandemASV": lambda: lc.tandem_asv(tandem()),
    "TandemBootstrap": lambda: lc.bootstrap_tdcf(*spoofing(), n=20),
    "TandemDCF": lambda: lc.tdcf(*tandem_parts()),
    "TandemEER": lambda: lc.t_eer(*tandem_parts()),
    "TandemEvaluation": tandem,
    "TandemIntervals": lambda: lc.bootstrap_tandem(*spoofing(), n=20),
    "ThresholdWeightings": lambda: lc.threshold_weightings([lc.BetaRule.logarithmic()], 0.0),
    "Tippett": lambda: lc.tippett(cartridges()),
}


@functools.cache
def built(name: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # today's spellings, until the sig branch merges
        return RESULTS[name]()


# ----- the checks -----------------------------------------------------------------------------------------------------


def signature_problems(function) -> list[str]:
    """What breaks the naming rules in `function`'s signature, in words."""
    parameters, own = inspect.signature(function).parameters, function.__name__
    banned = BANNED - {"target"} if own in TARGET_IS_A_CLASS else BANNED
    problems = [f"parameter {name!r} is an old spelling" for name in parameters if name in banned]
    problems += [f"the prior {name!r} is not keyword-only" for name, p in parameters.items()
                 if name in PRIORS and p.kind is not inspect.Parameter.KEYWORD_ONLY and own not in PRIOR_IS_THE_SUBJECT]
    return problems


def docstring_problems(function) -> list[str]:
    """The numpydoc sections `function`'s docstring lacks (Parameters when it takes any, Returns)."""
    if not inspect.getdoc(function):
        return ["no docstring"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numpydoc warns of sections it does not know (References come through)
        doc = FunctionDoc(function)
    problems = []
    if inspect.signature(function).parameters and not doc["Parameters"]:
        problems.append("no Parameters section")
    if not doc["Returns"] and not doc["Yields"]:
        problems.append("no Returns section")
    return problems


def annotation_problems(function) -> list[str]:
    """The parameters (``*args`` and ``**kwargs`` too) and the return of `function` that have no type hint."""
    signature = inspect.signature(function)
    problems = [f"parameter {name!r} has no type hint" for name, parameter in signature.parameters.items()
                if parameter.annotation is inspect.Parameter.empty]
    if signature.return_annotation is inspect.Signature.empty:
        problems.append("the return has no type hint")
    return problems


def result_problems(result) -> list[str]:
    """What breaks the result contract: to_frame, repr, pickling."""
    name = type(result).__name__
    if not callable(getattr(result, "to_frame", None)):
        return ["no to_frame()"]
    frame = result.to_frame()
    if not isinstance(frame, pd.DataFrame):
        return [f"to_frame() gives a {type(frame).__name__}, not a DataFrame"]
    problems = [] if len(frame) else ["to_frame() is empty"]
    problems += [f"column {c!r} is not named in words" for c in frame.columns if not isinstance(c, str)]
    text = repr(result)
    if not text.startswith(name) or " object at 0x" in text:
        problems.append(f"repr {text[:60]!r} does not name the class and its contents")
    try:
        back = pickle.loads(pickle.dumps(result))
    except Exception as error:  # noqa: BLE001 - the check reports why, whatever it is
        return [*problems, f"cannot be pickled: {error}"]
    if repr(back) != text:
        problems.append("its repr changes through pickling")
    try:
        pd.testing.assert_frame_equal(back.to_frame(), frame)
    except AssertionError:
        problems.append("its table changes through pickling")
    return problems


def functions() -> list[str]:
    return [n for n in lc.__all__ if callable(getattr(lc, n)) and not inspect.isclass(getattr(lc, n))]


def classes() -> list[str]:
    return [n for n in lc.__all__ if inspect.isclass(getattr(lc, n))]


# ----- the registry held to the contract ------------------------------------------------------------------------------


def test_all_resolves_and_star_import_gives_exactly_all():
    assert len(set(lc.__all__)) == len(lc.__all__)
    assert [n for n in lc.__all__ if not hasattr(lc, n)] == []
    namespace = {}
    exec("from llrcore import *", namespace)  # noqa: S102 - the star import is what is tested
    assert set(namespace) - {"__builtins__"} == set(lc.__all__)


def test_all_holds_no_inner_module_but_the_documented_namespaces():
    """Figures (``lc.plots``), a report's words (``lc.report``) and diarization's settings (``lc.diarization``)."""
    modules = [n for n in lc.__all__ if inspect.ismodule(getattr(lc, n))]
    assert sorted(modules) == ["diarization", "plots", "report"]


def test_every_public_class_is_a_result_or_says_why_not():
    unclassified = set(classes()) - set(RESULTS) - set(NOT_RESULTS)
    assert unclassified == set(), f"add these to RESULTS (with a small real call) or NOT_RESULTS: {unclassified}"
    assert set(RESULTS) & set(NOT_RESULTS) == set()
    assert set(RESULTS) | set(NOT_RESULTS) <= set(classes())


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_every_result_has_a_table_a_repr_and_survives_pickling(name):
    result = built(name)
    assert type(result).__name__ == name
    assert result_problems(result) == []


def assert_kept(name: str, problems: list[str], pending: set[str], pending_name: str) -> None:
    """No problem, or, for a name still `pending`, some (a name that keeps the rule leaves the pending set)."""
    if name in pending:
        assert problems, f"{name} keeps the rule now: take it out of {pending_name}"
    else:
        assert problems == []


@pytest.mark.parametrize("name", functions())
def test_every_public_signature_uses_the_design_spellings_with_the_prior_keyword_only(name):
    assert_kept(name, signature_problems(getattr(lc, name)), PENDING_SIGNATURES, "PENDING_SIGNATURES")


@pytest.mark.parametrize("name", functions())
def test_every_public_function_has_numpydoc_parameters_and_returns(name):
    assert_kept(name, docstring_problems(getattr(lc, name)), PENDING_DOCSTRINGS, "PENDING_DOCSTRINGS")


@pytest.mark.parametrize("name", functions())
def test_every_public_function_has_type_hints(name):
    assert_kept(name, annotation_problems(getattr(lc, name)), PENDING_ANNOTATIONS, "PENDING_ANNOTATIONS")


def test_the_package_says_it_is_typed():
    """PEP 561: the ``py.typed`` marker beside ``__init__.py``, and in the package data that puts it in the wheel."""
    import tomllib
    from pathlib import Path

    package = Path(lc.__file__).parent
    assert (package / "py.typed").is_file()
    pyproject = tomllib.loads((package.parent / "pyproject.toml").read_text(encoding="utf-8"))
    assert "py.typed" in pyproject["tool"]["setuptools"]["package-data"]["llrcore"]


def test_results_with_a_verdict_say_it_in_a_sentence():
    """The results that decide something (a verdict, a comparison, a validation) say it in words."""
    for name in ("BinaryMetrics", "LLRVerdict", "SystemComparison", "DiarizerComparison", "LRValidation",
                 "FusionResult", "SystemSummary", "DecisionSummary", "GaussianComparison"):
        sentence = built(name).sentence()
        assert isinstance(sentence, str) and len(sentence) > 20 and sentence.endswith("."), name


def test_the_tables_hold_the_results_own_numbers():
    """Each new table against the numbers it shows, read from the result itself or from the table it is a row of."""
    metrics = built("BinaryMetrics")
    row = metrics.to_frame().iloc[0]
    assert (row["EER"], row["Cllr"], row["minDCF"], row["targets"]) == (metrics.eer, metrics.cllr, metrics.min_dcf,
                                                                        metrics.n_tar)
    conditions = built("ConditionMetrics")
    pd.testing.assert_frame_equal(conditions.conditions[0].to_frame(), conditions.to_frame().iloc[[0]])
    evaluation = tandem()
    pd.testing.assert_frame_equal(evaluation.rows[0].to_frame(), evaluation.to_frame().iloc[[0]])
    der = built("DERResult")
    table = der.to_frame()
    assert table.loc["all recordings", "DER"] == der.der
    assert table.iloc[:-1]["missed (s)"].sum() == pytest.approx(der.missed)
    counts = built("CountedScores")
    assert counts.to_frame()[["targets", "non-targets"]].sum().tolist() == [counts.n_tar, counts.n_non]
    calibration = built("CalibrationResult")
    assert calibration.to_frame()["Cllr"].tolist() == [calibration.before.cllr, calibration.after.cllr]
    assert built("TandemEER").to_frame().loc[0, "t-EER"] == built("TandemEER").value
    assert lc.llr_verdict(0.3, 0.2).sentence() == "Needs recalibration: 33 % of Cllr 0.300 bits is calibration loss."


# ----- each check catches a made-up offender --------------------------------------------------------------------------


def test_the_check_of_signatures_catches_old_spellings_and_a_positional_prior():
    def offender(tar_llr, non_llr=None, p_target=0.01, *, operating_point=None):
        """Made up."""

    assert signature_problems(offender) == [
        "parameter 'tar_llr' is an old spelling", "parameter 'non_llr' is an old spelling",
        "parameter 'operating_point' is an old spelling", "the prior 'p_target' is not keyword-only"]

    def keeper(tar, non=None, *, p_target=0.01):
        """Made up."""

    assert signature_problems(keeper) == []


def test_the_check_of_docstrings_catches_missing_sections():
    def bare(tar, non):
        """One line only."""

    def numbered(tar, non):
        """Made up.

        Parameters
        ----------
        tar, non : array_like
            Scores.

        Returns
        -------
        float
        """

    assert docstring_problems(bare) == ["no Parameters section", "no Returns section"]
    assert docstring_problems(lambda: None) == ["no docstring"]
    assert docstring_problems(numbered) == []


def test_the_check_of_type_hints_catches_a_missing_hint():
    def unhinted(tar, non: np.ndarray | None = None, *options: float, **more):
        """Made up."""

    def hinted(tar: np.ndarray, non: np.ndarray | None = None, *, p_target: float = 0.01) -> float:
        """Made up."""

    assert annotation_problems(unhinted) == ["parameter 'tar' has no type hint", "parameter 'more' has no type hint",
                                             "the return has no type hint"]
    assert annotation_problems(hinted) == []


@dataclasses.dataclass(frozen=True)
class _NoTable:
    value: float


class _OpaqueResult:
    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({0: [1.0]})


@dataclasses.dataclass(frozen=True)
class _Unpicklable:
    how: object

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"value": [1.0]})


def test_the_check_of_results_catches_a_missing_table_an_opaque_repr_and_a_failed_pickle():
    assert result_problems(_NoTable(1.0)) == ["no to_frame()"]
    problems = result_problems(_OpaqueResult())
    assert problems[0] == "column 0 is not named in words" and "does not name the class" in problems[1]
    assert result_problems(_Unpicklable(lambda: 0))[-1].startswith("cannot be pickled")


def test_the_check_of_classes_catches_an_unclassified_public_class(monkeypatch):
    monkeypatch.setattr(lc, "__all__", [*lc.__all__, "NewResult"])
    monkeypatch.setattr(lc, "NewResult", _NoTable, raising=False)
    with pytest.raises(AssertionError, match="NewResult"):
        test_every_public_class_is_a_result_or_says_why_not()
