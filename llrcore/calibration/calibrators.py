"""The calibrators that :mod:`llrcore.calibration.fit` trains: affine, linear fusion and PAV, each called on scores.

An affine calibration or a fusion whose fit collapsed (:mod:`llrcore.calibration.checks`) carries the reason in
``failure``: it is the optimum of its objective, kept so that a caller can show it, but not a calibration to use.
Each is saved as JSON by ``to_json()`` and read back by :func:`llrcore.load_calibrator` (:mod:`.saved`).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..data.checks import as_scores
from .saved import Saved, dumps

__all__ = ["Affine", "Fusion", "PAVCalibrator"]


class _Fitted:
    """What a fitted calibrator says of its fit: ``collapsed`` when its ``failure`` says why."""

    failure: str

    @property
    def collapsed(self) -> bool:
        return bool(self.failure)

    def _savable(self) -> None:
        """A collapsed fit is not saved: it is no calibration to use (the reason is said)."""
        if self.collapsed:
            raise ValueError(f"This calibration collapsed ({self.failure}), so it is not saved: it is no calibration "
                             "to use.")


@dataclass(frozen=True)
class Affine(_Fitted):
    """An affine calibration ``llr = scale * score + offset``; call it on scores to get LLRs.

    ``converged`` is False when the fit that made it did not reach the optimum (a warning said so then).
    ``failure`` says why the fit collapsed (every ordinary score gets about the same LLR although the scores separate
    the classes, or a parameter is not finite); empty when it did not. ``collapsed`` is True when it did.
    """

    scale: float
    offset: float
    converged: bool = field(default=True, repr=False, compare=False)
    failure: str = field(default="", repr=False, compare=False)

    def __call__(self, scores) -> np.ndarray:
        return self.scale * np.asarray(scores, dtype=np.float64) + self.offset

    KIND = "affine"

    def to_json(self, *, rule=None, plo: float | None = None) -> str:
        """The calibrator as JSON text (schema ``llrcore.calibrator/1``, docs/calibration.md): coefficients
        ``scale`` and ``offset``; `rule` and `plo`, the recipe of the fit when known, are recorded with it."""
        self._savable()
        return dumps(self.KIND, "llr", {"scale": self.scale, "offset": self.offset}, features=["score"],
                     rule=rule, plo=plo, training={"converged": self.converged})

    @classmethod
    def from_saved(cls, document: Saved) -> Affine:
        """The calibrator of a saved document (:func:`llrcore.load_calibrator`)."""
        coefficients = document.part("coefficients")
        return cls(scale=coefficients.number("scale"), offset=coefficients.number("offset"),
                   converged=document.training.flag("converged"))


@dataclass(frozen=True)
class Fusion(_Fitted):
    """A linear fusion ``llr = sum_k weights[k] * scores_k + offset``; call it on an ``(N, K)`` score matrix.

    ``converged`` is False when the fit that made it did not reach the optimum (a warning said so then); ``failure``
    says why it collapsed, as for :class:`Affine`.
    """

    weights: np.ndarray
    offset: float
    converged: bool = field(default=True, repr=False, compare=False)
    failure: str = field(default="", repr=False, compare=False)

    def __call__(self, scores) -> np.ndarray:
        return as_matrix(scores, "scores") @ self.weights + self.offset

    KIND = "fusion"

    def to_json(self, *, names=None, rule=None, plo: float | None = None,
                regularisation: float | None = None) -> str:
        """The fusion as JSON text (schema ``llrcore.calibrator/1``, docs/calibration.md): coefficients ``weights``
        (one per system, in the order of `names`) and ``offset``; the recipe of the fit when known."""
        self._savable()
        training = {"converged": self.converged, **({} if regularisation is None else
                                                     {"regularisation": regularisation})}
        return dumps(self.KIND, "llr", {"weights": self.weights, "offset": self.offset}, features=names,
                     rule=rule, plo=plo, training=training)

    @classmethod
    def from_saved(cls, document: Saved) -> Fusion:
        """The calibrator of a saved document (:func:`llrcore.load_calibrator`)."""
        coefficients = document.part("coefficients")
        return cls(weights=coefficients.vector("weights"), offset=coefficients.number("offset"),
                   converged=document.training.flag("converged"))


@dataclass(frozen=True)
class PAVCalibrator:
    """Monotone non-parametric calibration from PAV, finite everywhere.

    Within the score range of a PAV block the LLR is that block's; between blocks it is interpolated linearly;
    beyond the training scores it stays at the end blocks' values.
    """

    knots: np.ndarray
    llrs: np.ndarray

    @property
    def collapsed(self) -> bool:
        return False  # PAV follows the data: a far score moves one block, never the others

    def __call__(self, scores) -> np.ndarray:
        return np.interp(np.asarray(scores, dtype=np.float64), self.knots, self.llrs)

    KIND = "pav"

    def to_json(self) -> str:
        """The calibrator as JSON text (schema ``llrcore.calibrator/1``, docs/calibration.md): coefficients
        ``knots`` (scores, non-decreasing) and ``llrs``, ``llr = interp(score, knots, llrs)``."""
        return dumps(self.KIND, "llr", {"knots": self.knots, "llrs": self.llrs}, features=["score"])

    @classmethod
    def from_saved(cls, document: Saved) -> PAVCalibrator:
        """The calibrator of a saved document (:func:`llrcore.load_calibrator`)."""
        coefficients = document.part("coefficients")
        knots = coefficients.vector("knots")
        if np.any(np.diff(knots) < 0):
            raise ValueError(f"In {document.what}, 'coefficients.knots' must not decrease.")
        return cls(knots=knots, llrs=coefficients.vector("llrs", size=knots.size))


def as_matrix(scores, what: str) -> np.ndarray:
    """Scores of K systems as an ``(N, K)`` float matrix: a 2-D array, or a list of K 1-D arrays."""
    if isinstance(scores, (list, tuple)):
        matrix = np.column_stack([as_scores(column, what) for column in scores])
    else:
        matrix = np.asarray(scores, dtype=np.float64)
        matrix = matrix[:, None] if matrix.ndim == 1 else matrix
    if matrix.ndim != 2 or matrix.shape[0] == 0:
        raise ValueError(f"The {what} must be a non-empty (trials x systems) matrix.")
    if not np.isfinite(matrix).all():
        raise ValueError(f"The {what} contain missing or infinite values; calibration needs finite scores.")
    return matrix
