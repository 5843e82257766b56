"""Quality-measure calibration and fusion (QMF): metadata columns of the trials as extra features of the fit.

A quality measure is a number per trial that says how hard it is: the durations of the enrolment and test
recordings, the magnitudes of their embeddings, the mean of their cohort scores, an SNR. Scores of short or noisy
trials are less reliable, so the LLR of a score depends on it. Quality-measure calibration makes the quality
measures ``q_j`` extra inputs of the affine calibration (or of a linear fusion of K systems)::

    llr = sum_k w_k s_k + sum_j v_j q_j + sum_(i, j) u_ij qm_i qt_j + b

trained exactly as :func:`~llrcore.calibration.fit.fit_fusion` trains a fusion: the weights and the offset minimise
the prior-weighted objective of a proper scoring rule (Brümmer & Doddington 2013, eq. 3) on the development trials,

    E = P mean_tar C(sigmoid(llr + tau) | H1) + (1 - P) mean_non C(sigmoid(llr + tau) | H2),  P = sigmoid(tau),

the quality measures being more columns beside the scores. With the logarithmic rule this is prior-weighted logistic
regression on ``[scores, quality measures]``. The linear terms are WeSpeaker's QMF (its ``score_calibration.py``
fits ``llr = w . [score, min, max, max - min, max / min of each measure over the two sides] + b`` to Cllr; its
measures are the durations, capped, the embedding magnitudes and the cohort means of the AS-norm;
:func:`pair_quality` makes those four columns); the optional bilinear terms ``qm_i qt_j`` (`bilinear`: pairs of a
model-side and a test-side measure) are BOSARIS's quality fuser (``qfuser_v5``), ``llr = w' s + b + [qm; 1]' W
[qt; 1]``, whose linear and constant parts are the linear terms and the offset here (BOSARIS ties ``W`` to be
symmetric; here each product has a weight of its own).

Make one with ``fit_quality_affine(trials, ["duration", ...])``, or ``fuse(dev, eval, quality=[...])`` for several
systems; call it on Trials that carry the same metadata columns. ``fit_fusion(tar, non, quality=(q_tar, q_non))``
takes the measures as matrices instead and returns a plain :class:`~llrcore.calibration.calibrators.Fusion` over the
columns ``[scores, quality]``.

References
----------
N. Brümmer and G. Doddington, "Likelihood-ratio calibration using prior-weighted proper scoring rules",
Interspeech 2013. N. Brümmer and E. de Villiers, "The BOSARIS toolkit", arXiv:1304.2865, 2013 (quality fusers).
H. Wang et al., "Wespeaker: a research and production oriented speaker embedding learning toolkit", ICASSP 2023
(quality-measure functions in ``wespeaker/bin/score_calibration.py``). T. Thiruvaran et al., "Analysis of quality
measure based fusion and calibration", Interspeech 2012.
"""
from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..binary.metrics import BinaryMetrics, evaluate
from ..binary.tables import metrics_table
from ..data.trials import Trials
from .calibrators import _Fitted
from .calibrators import as_matrix as _as_matrix
from .checks import collapse_reason
from .rules import BetaRule
from .saved import Saved, dumps

__all__ = ["QualityCalibration", "QualityComparison", "fit_quality", "numeric_columns", "pair_quality",
           "quality_matrix", "with_quality"]


def numeric_columns(trials: Trials) -> list[str]:
    """The metadata columns of `trials` that can be quality measures: numbers, finite for every trial.

    Parameters
    ----------
    trials : Trials
        Trials with metadata, one row per trial.

    Returns
    -------
    list of str
        The names of the numeric (not boolean) columns without a missing or infinite value, in the table's order.
    """
    frame = trials.metadata
    return [str(c) for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c])
            and not pd.api.types.is_bool_dtype(frame[c]) and np.isfinite(frame[c].to_numpy(np.float64)).all()]


def _column(metadata: pd.DataFrame, name: str) -> np.ndarray:
    """One metadata column as finite floats, or a sentence naming it."""
    if name not in metadata.columns:
        have = ", ".join(map(str, metadata.columns)) or "none"
        raise ValueError(f"The trials have no metadata column '{name}' to use as a quality measure (their columns: "
                         f"{have}).")
    values = pd.to_numeric(metadata[name].astype(object), errors="coerce").to_numpy(np.float64)
    bad = ~np.isfinite(values)
    if bad.any():
        first = metadata[name].iloc[int(np.flatnonzero(bad)[0])]
        if isinstance(first, str):
            raise ValueError(f"The metadata column '{name}' is not numeric (values such as '{first}'); a quality "
                             "measure needs one number per trial.")
        raise ValueError(f"The metadata column '{name}' has no finite value for {int(bad.sum()):,} trial(s) (missing "
                         "or infinite); a quality measure needs one number per trial.")
    return values


def _names(quality) -> tuple[str, ...]:
    if quality is None:
        return ()
    names = (quality,) if isinstance(quality, str) else tuple(quality)
    if not all(isinstance(n, str) for n in names):
        raise TypeError("The quality measures are named by their metadata columns: give a list of column names.")
    if len(set(names)) != len(names):
        raise ValueError("A quality measure is named twice; give each metadata column once.")
    return names


def _pairs(bilinear) -> tuple[tuple[str, str], ...]:
    pairs = tuple(tuple(p) for p in (bilinear or ()))
    if not all(len(p) == 2 and all(isinstance(n, str) for n in p) for p in pairs):
        raise TypeError("The bilinear terms are pairs of metadata columns (a model-side and a test-side measure), "
                        "e.g. [('duration_model', 'duration_test')].")
    return pairs


def feature_names(quality, bilinear) -> tuple[str, ...]:
    """The names of the quality features: the columns, then each product as ``"a × b"``."""
    return (*_names(quality), *(f"{a} × {b}" for a, b in _pairs(bilinear)))


def quality_matrix(metadata: pd.DataFrame, quality, bilinear=None) -> np.ndarray:
    """The ``(N, Q)`` quality features of the trials of `metadata`: the columns `quality`, then the products of the
    pairs of columns `bilinear`; a sentence naming a column that is missing or not numeric."""
    columns = [_column(metadata, name) for name in _names(quality)]
    columns += [_column(metadata, a) * _column(metadata, b) for a, b in _pairs(bilinear)]
    return np.column_stack(columns) if columns else np.empty((len(metadata), 0))


def with_quality(systems_tar, systems_non, quality):
    """The score matrices of :func:`~llrcore.calibration.fit.fit_fusion` with the quality matrices ``(q_tar, q_non)``
    as more columns (unchanged when `quality` is None)."""
    if quality is None:
        return systems_tar, systems_non
    if not (isinstance(quality, (tuple, list)) and len(quality) == 2):
        raise TypeError("Give the quality measures as a pair of matrices (q_tar, q_non), one row per target and per "
                        "non-target trial.")
    sides = []
    for scores, measures, what in ((systems_tar, quality[0], "target"), (systems_non, quality[1], "non-target")):
        scores = _as_matrix(scores, f"{what} scores")
        measures = _as_matrix(measures, f"{what} quality measures")
        if measures.shape[0] != scores.shape[0]:
            raise ValueError(f"The {what} quality measures have {measures.shape[0]:,} rows but there are "
                             f"{scores.shape[0]:,} {what} trials; give one row per trial.")
        sides.append(np.column_stack([scores, measures]))
    if sides[0].shape[1] != sides[1].shape[1]:
        raise ValueError("The target and non-target quality measures must have the same number of columns.")
    return sides[0], sides[1]


def _blocks(trials) -> tuple[tuple[str, ...], list[np.ndarray], pd.DataFrame]:
    """System names, the ``(N, K)`` score matrices of the targets, non-targets and spoof trials, and the metadata, of
    one Trials (K = 1) or of paired systems (:class:`~llrcore.calibration.fusion.AlignedSystems`)."""
    if isinstance(trials, Trials):
        return ("score",), [b.reshape(-1, 1) for b in (trials.tar, trials.non, trials.spoof)], trials.metadata
    if hasattr(trials, "names") and hasattr(trials, "metadata"):
        spoof = trials.spoof if trials.spoof.size else np.empty((0, len(trials.names)))
        return tuple(trials.names), [trials.tar, trials.non, spoof], trials.metadata
    raise TypeError(f"A quality calibration is trained on and applied to Trials with metadata, not "
                    f"{type(trials).__name__}.")


def _scores_collapsed(fusion, tar: np.ndarray, non: np.ndarray) -> str:
    """Why the scores' part of a fit collapsed (:func:`~llrcore.calibration.checks.collapse_reason` of their weights
    alone: quality weights fitted to noise must not hide scores that all get the same LLR), with a warning; or ""."""
    k = tar.shape[1]
    reason = collapse_reason(fusion.weights[:k], fusion.offset, list(tar.T), list(non.T))
    if reason:
        warnings.warn(f"The calibration collapsed: {reason}. It is not a calibration to use; remove the far scores.",
                      RuntimeWarning, stacklevel=4)
    return reason


@dataclass(frozen=True, eq=False)
class QualityCalibration(_Fitted):
    """``llr = sum_k w_k s_k + sum_j v_j q_j + b``: scores and quality measures read from the trials' metadata.

    Call it on Trials (or paired systems) whose metadata has the columns :attr:`quality` (and those of
    :attr:`bilinear`): it returns Trials of the calibrated LLRs, with their metadata.

    Attributes
    ----------
    systems : tuple of str
        The score columns: ``("score",)`` for one system (whichever system it is applied to), or the fused systems'
        names.
    quality : tuple of str
        The metadata columns used as linear features.
    bilinear : tuple of (str, str)
        The pairs of columns whose products are features (BOSARIS's model x test quality term).
    weights : ndarray
        One weight per feature, in the order of :attr:`features`.
    offset : float
    spreads : ndarray
        The standard deviation of each feature over the training trials: ``weight × spread`` compares features in
        any units.
    rule, plo :
        The proper scoring rule and prior weighting of the fit.
    converged, failure :
        As for :class:`~llrcore.calibration.calibrators.Fusion` (a collapsed fit says why in ``failure``).
    """

    systems: tuple[str, ...]
    quality: tuple[str, ...]
    bilinear: tuple[tuple[str, str], ...]
    weights: np.ndarray = field(repr=False)
    offset: float
    spreads: np.ndarray = field(repr=False)
    rule: BetaRule = field(repr=False)
    plo: float = 0.0
    converged: bool = field(default=True, repr=False, compare=False)
    failure: str = field(default="", repr=False, compare=False)

    @property
    def features(self) -> tuple[str, ...]:
        """The names of the features: the systems, the quality columns, then the products ``"a × b"``."""
        return (*self.systems, *feature_names(self.quality, self.bilinear))

    @classmethod
    def fit(cls, trials, quality, fit: Callable, *, rule: BetaRule | None = None, plo: float = 0.0, bilinear=None,
            regularisation: float = 0.0) -> QualityCalibration:
        """Train on the target and non-target trials of `trials` (Trials, or paired systems) with the measures
        `quality` of their metadata; `fit` is :func:`~llrcore.calibration.fit.fit_fusion` (given, not imported: it
        reaches this module through :func:`~llrcore.calibration.fit.fit_affine`)."""
        rule = rule or BetaRule.logarithmic()
        names, (tar, non, _), metadata = _blocks(trials)
        q = quality_matrix(metadata, quality, bilinear)
        q_tar, q_non = q[:tar.shape[0]], q[tar.shape[0]:tar.shape[0] + non.shape[0]]
        fusion = fit(tar, non, rule, plo=plo, regularisation=regularisation, quality=(q_tar, q_non))
        failure = fusion.failure or _scores_collapsed(fusion, tar, non)
        features = np.concatenate([np.column_stack([tar, q_tar]), np.column_stack([non, q_non])])
        return cls(systems=names, quality=_names(quality), bilinear=_pairs(bilinear), weights=fusion.weights,
                   offset=fusion.offset, spreads=features.std(axis=0), rule=rule, plo=float(plo),
                   converged=fusion.converged, failure=failure)

    def llrs(self, scores, metadata: pd.DataFrame) -> np.ndarray:
        """The LLRs of trials with `scores` (``(N,)`` or ``(N, K)``) and `metadata` (one row per trial)."""
        scores = _as_matrix(scores, "scores")
        if scores.shape[1] != len(self.systems):
            raise ValueError(f"The calibration takes {len(self.systems)} score column(s), not {scores.shape[1]}.")
        if len(metadata) != scores.shape[0]:
            raise ValueError(f"There are {scores.shape[0]:,} scores but {len(metadata):,} rows of quality measures.")
        features = np.column_stack([scores, quality_matrix(metadata, self.quality, self.bilinear)])
        return features @ self.weights + self.offset

    def __call__(self, trials, name: str | None = None) -> Trials:
        """Trials of the calibrated LLRs of `trials` (Trials, or paired systems), with their metadata."""
        _, blocks, metadata = _blocks(trials)
        q = quality_matrix(metadata, self.quality, self.bilinear)  # first: a missing column is named before any LLR
        cut = np.cumsum([b.shape[0] for b in blocks])[:-1]
        llrs = [np.column_stack([b, part]) @ self.weights + self.offset if b.shape[0] else np.empty(0)
                for b, part in zip(blocks, np.split(q, cut))]
        default = getattr(trials, "name", "") or "quality calibration"
        return Trials(llrs[0], llrs[1], name=default if name is None else name, spoof=llrs[2], metadata=metadata)

    KIND = "quality"

    def to_json(self) -> str:
        """The calibration as JSON text (schema ``llrcore.calibrator/1``, docs/calibration.md): coefficients
        ``weights`` (in the order of :attr:`features`), ``offset``, and the columns ``systems``, ``quality`` and
        ``bilinear`` that make the features; the rule, the prior weighting and the spreads of the fit."""
        self._savable()
        coefficients = {"weights": self.weights, "offset": self.offset, "systems": self.systems,
                        "quality": self.quality, "bilinear": self.bilinear}
        return dumps(self.KIND, "llr", coefficients, features=self.features, rule=self.rule, plo=self.plo,
                     training={"converged": self.converged, "spreads": self.spreads})

    @classmethod
    def from_saved(cls, document: Saved) -> QualityCalibration:
        """The calibration of a saved document (:func:`llrcore.load_calibrator`)."""
        coefficients = document.part("coefficients")
        systems, quality = coefficients.names("systems"), coefficients.names("quality")
        bilinear = coefficients.pairs("bilinear")
        size = len(systems) + len(quality) + len(bilinear)
        training, rule = document.training, document.rule()
        if rule is None:
            raise ValueError(f"In {document.what}, a quality calibration needs the 'rule' it was trained with.")
        return cls(systems=systems, quality=quality, bilinear=bilinear,
                   weights=coefficients.vector("weights", size=size), offset=coefficients.number("offset"),
                   spreads=training.vector("spreads", size=size, default=np.full(size, np.nan)), rule=rule,
                   plo=training.number("plo"), converged=training.flag("converged"))

    def weights_frame(self) -> pd.DataFrame:
        """One row per feature: ``feature``, ``weight``, and ``weight × spread`` (the weight times the feature's
        standard deviation on the training trials: how much it moves the LLR, comparable across features)."""
        return pd.DataFrame({"feature": list(self.features), "weight": self.weights,
                             "weight × spread": self.weights * self.spreads})

    to_frame = weights_frame

    def formula(self, digits: int = 4) -> str:
        """The calibration as text: ``llr = 1.02·score + 0.31·duration − 2.1``."""
        terms = " ".join(f"{'+' if w >= 0 else '−'} {abs(w):.{digits}g}·{n}"
                         for w, n in zip(self.weights, self.features)).removeprefix("+ ")
        return f"llr = {terms} {'+' if self.offset >= 0 else '−'} {abs(self.offset):.{digits}g}"

    def compare(self, plain, trials: Trials, *, p_target=0.01, c_miss: float = 1.0,
                c_fa: float = 1.0) -> QualityComparison:
        """The metrics of `trials` raw, calibrated by `plain` (an affine calibration of the scores alone, e.g.
        ``fit_affine(train, rule=..., plo=...)``) and by this calibration with the quality measures."""
        names = ("raw scores", "affine", f"affine + {', '.join(feature_names(self.quality, self.bilinear))}")
        calibrated = (trials, Trials(plain(trials.tar), plain(trials.non)), self(trials))
        metrics = {n: evaluate(t.sorted, p_target=p_target, c_miss=c_miss, c_fa=c_fa, name=n)
                   for n, t in zip(names, calibrated)}
        return QualityComparison(metrics=metrics, calibrated=dict(zip(names, calibrated)))


def fit_quality(fit: Callable, trials, non=None, rule: BetaRule | None = None, plo: float = 0.0, *, start=None,
                by=None, quality=None, bilinear=None) -> QualityCalibration:
    """:func:`~llrcore.fit_quality_affine` (and the deprecated ``fit_affine(trials, quality=...)``): the checks of
    their arguments, then :meth:`QualityCalibration.fit` with `fit` (:func:`~llrcore.calibration.fit.fit_fusion`)."""
    if not isinstance(trials, Trials):
        raise TypeError("A quality-measure calibration reads its measures from the trials' metadata: give one Trials, "
                        "as fit_quality_affine(trials, ['duration']).")
    if non is not None:
        raise TypeError("Give one Trials with quality measures, not the target and the non-target scores; pass the "
                        "rule and the prior weighting by name (rule=..., plo=...).")
    if by is not None:
        raise TypeError("A calibration per condition (by=) and quality measures (quality=) cannot be combined; give "
                        "one of them.")
    if start is not None:
        raise TypeError("A start calibration is for an affine fit of the scores alone, not for one with quality "
                        "measures.")
    return QualityCalibration.fit(trials, quality, fit, rule=rule, plo=plo, bilinear=bilinear)


@dataclass(frozen=True, eq=False)
class QualityComparison:
    """The metrics of the same trials raw, affinely calibrated, and calibrated with quality measures.

    Attributes
    ----------
    metrics : dict of str -> BinaryMetrics
        ``"raw scores"``, ``"affine"``, then the quality calibration (named after its measures).
    calibrated : dict of str -> Trials
        The trials under each, as the metrics saw them.
    """

    metrics: dict[str, BinaryMetrics]
    calibrated: dict[str, Trials] = field(repr=False)

    def to_frame(self) -> pd.DataFrame:
        """One row per calibration, the columns of :func:`~llrcore.metrics_table` (EER in %)."""
        return metrics_table(self.metrics.values(), eer_percent=True)


def pair_quality(trials: Trials, model: str, test: str, name: str | None = None) -> Trials:
    """`trials` with WeSpeaker's four symmetric features of one measure taken on both sides of each trial.

    For the model-side value ``a`` and the test-side value ``b`` (columns `model` and `test`), adds the columns
    ``{name}_min = min(a, b)``, ``{name}_max = max(a, b)``, ``{name}_diff = max - min`` and ``{name}_ratio =
    max / min`` (``reorder_values`` in WeSpeaker's ``score_calibration.py``), which do not depend on which side is
    which; `name` defaults to `model`.

    Parameters
    ----------
    trials : Trials
        Trials whose metadata holds both sides' measure.
    model, test : str
        The metadata columns of the model-side and of the test-side value, positive numbers.
    name : str, optional
        The stem of the four new columns; default `model`.

    Returns
    -------
    Trials
        The same trials (scores, name, spoof trials) with the four columns added to their metadata.

    Raises
    ------
    ValueError
        When a column is missing, not numeric or not finite for every trial, or a value is 0 (the ratio would be
        infinite).
    """
    a, b = _column(trials.metadata, model), _column(trials.metadata, test)
    low, high = np.minimum(a, b), np.maximum(a, b)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = high / low
    if not np.isfinite(ratio).all():
        raise ValueError(f"The ratio max / min of '{model}' and '{test}' is not finite for every trial (a value is 0); "
                         "use positive measures such as durations or magnitudes.")
    stem = name or model
    metadata = trials.metadata.assign(**{f"{stem}_min": low, f"{stem}_max": high, f"{stem}_diff": high - low,
                                          f"{stem}_ratio": ratio})
    return Trials(trials.tar, trials.non, name=trials.name, spoof=trials.spoof, metadata=metadata)
