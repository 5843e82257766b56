"""A classifier's calibration before and after temperature scaling, judged by CORP and by the binned ECE.

:func:`classifier_calibration` gathers what the "Classifier calibration" page, the report and a notebook show for one
set of logits: the temperature (:mod:`.temperature`), and for the raw and the scaled probabilities the CORP
reliability with its band and its ``MCB - DSC + UNC`` decomposition (:mod:`.corp`), the binned ECE (:mod:`.binned`)
with ACE, MCE and RMS-CE over the same bins (:mod:`.errors`), the smooth ECE with its curve and band (:mod:`.smooth`)
and the risk-coverage curve of the top label's confidence with its AURC and E-AURC (:mod:`.selective`).
The temperature is fitted on the same trials it is judged on, so the "after" numbers are optimistic (what the best
single temperature could do); fit it on development data with :func:`~.temperature.fit_temperature` to judge it fairly.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy.special import softmax

from .binned import BinnedECE, binned_ece
from .corp import CORP, binary_forecasts, corp
from .errors import CalibrationErrors
from .selective import RiskCoverage, aurc
from .smooth import SmoothECE, smooth_ece
from .temperature import Temperature, fit_temperature, nll

__all__ = ["ClassifierCalibration", "classifier_calibration"]


@dataclass(frozen=True)
class ClassifierCalibration:
    """Calibration of one classifier's outputs, raw and temperature-scaled (:func:`classifier_calibration`).

    Attributes
    ----------
    temperature : Temperature or None
        None when it could not be fitted (``temperature_problem`` says why).
    corp, binned : dict
        ``"raw"`` (and ``"scaled"``) -> :class:`~.corp.CORP` / :class:`~.binned.BinnedECE`.
    nll : dict
        ``"raw"`` (and ``"scaled"``) -> mean NLL in nats.
    accuracy : float
        Share of trials whose most probable class is the true one (temperature scaling never changes it).
    errors, smooth, selective : dict
        ``"raw"`` (and ``"scaled"``) -> :class:`~.errors.CalibrationErrors` (the binned ECE's bins),
        :class:`~.smooth.SmoothECE` and :class:`~.selective.RiskCoverage` (the top label's confidence ranks the
        predictions, whatever the forecast; a temperature can change that ranking across trials).
    temperature_problem : str or None
    """

    temperature: Temperature | None
    corp: dict
    binned: dict
    nll: dict
    accuracy: float
    errors: dict
    smooth: dict
    selective: dict
    temperature_problem: str | None = None

    def to_frame(self, *, percent: bool = False) -> pd.DataFrame:
        """One row per version (raw, scaled): NLL, ECE, MCE, smooth ECE, AURC, E-AURC, the CORP score and its three
        terms.

        With ``percent=True`` the fractions are in % (columns ``ECE %``, ``MCE %``, ``smECE %``, ``AURC %``,
        ``E-AURC %``), as the app's cards show them.
        """
        scale, suffix = (100.0, " %") if percent else (1.0, "")
        rows = []
        for version, result in self.corp.items():
            fractions = {"ECE": self.binned[version].ece, "MCE": self.binned[version].mce,
                         "smECE": self.smooth[version].smece, "AURC": self.selective[version].aurc,
                         "E-AURC": self.selective[version].e_aurc}
            rows.append({"version": version, "temperature": 1.0 if version == "raw" or self.temperature is None
                         else self.temperature.temperature, "nll": self.nll[version],
                         **{(name + suffix if percent else name.lower().replace("-", "_")): scale * value
                            for name, value in fractions.items()},
                         "score": result.score_name, "mean_score": result.score, "MCB": result.mcb,
                         "DSC": result.dsc, "UNC": result.unc})
        return pd.DataFrame(rows)

    def errors_frame(self, *, percent: bool = False) -> pd.DataFrame:
        """The binned calibration errors (ECE, ACE, MCE, RMS-CE) of each version side by side: ``measure``, one
        column per version (``raw %``, ``scaled %`` with `percent`), ``binning`` and ``definition``."""
        frames = {version: errors.to_frame(percent=percent) for version, errors in self.errors.items()}
        first = next(iter(frames.values()))
        value = "value %" if percent else "value"
        columns = {(f"{version} %" if percent else version): frame[value] for version, frame in frames.items()}
        return pd.DataFrame({"measure": first["measure"], **columns, "binning": first["binning"],
                             "definition": first["definition"]})


def classifier_calibration(logits: ArrayLike, labels: ArrayLike, *, score: str = "brier", bins: int = 15,
                           strategy: str = "uniform", target: str | int = "top-label", n: int = 200, level: float = 0.9,
                           seed: int = 0) -> ClassifierCalibration:
    """CORP, binned and smooth ECE and AURC of ``softmax(logits)`` and of ``softmax(logits / T)`` with the fitted
    temperature.

    Parameters
    ----------
    logits : array_like, shape (T, K)
        Logits or log-probabilities of a classifier (a constant per row changes nothing).
    labels : array_like of int
        True class index of each trial.
    score, target, n, level, seed
        As in :func:`~.corp.corp` (`target` also sets the forecast of the binned and smooth ECE; `n` the smooth
        ECE's bootstrap replicates too).
    bins, strategy
        As in :func:`~.binned.binned_ece` (and of :func:`~.errors.calibration_errors`).

    Returns
    -------
    ClassifierCalibration
        The fitted temperature (None, with the reason in ``temperature_problem``, when it cannot be fitted), and
        for ``"raw"`` (and ``"scaled"``) the CORP result, the binned ECE and the other binned errors, the smooth ECE,
        the risk-coverage curve and the mean NLL (nats); the accuracy.
    """
    z = np.asarray(logits, dtype=np.float64)
    y = np.asarray(labels).reshape(-1)
    try:
        temperature, problem = fit_temperature(z, y), None
    except ValueError as err:
        temperature, problem = None, str(err)
    versions = {"raw": 1.0} if temperature is None else {"raw": 1.0, "scaled": temperature.temperature}
    corps: dict[str, CORP] = {}
    binned: dict[str, BinnedECE] = {}
    errors: dict[str, CalibrationErrors] = {}
    smooth: dict[str, SmoothECE] = {}
    selective: dict[str, RiskCoverage] = {}
    losses: dict[str, float] = {}
    for version, t in versions.items():
        probabilities = softmax(z / t, axis=1)
        corps[version] = corp(probabilities, y, score, target=target, n=n, level=level, seed=seed)
        binned[version] = binned_ece(probabilities, y, bins, strategy, target=target)
        errors[version] = CalibrationErrors.of(binned[version])
        smooth[version] = smooth_ece(probabilities, y, target=target, n=n, level=level, seed=seed)
        selective[version] = aurc(*binary_forecasts(probabilities, y))
        losses[version] = nll(z, y, t)
    accuracy = float(np.mean(np.argmax(z, axis=1) == y))
    return ClassifierCalibration(temperature, corps, binned, losses, accuracy, errors, smooth, selective, problem)
