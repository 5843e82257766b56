"""A classifier's calibration before and after temperature scaling, judged by CORP and by the binned ECE.

:func:`classifier_calibration` gathers what the "Classifier calibration" page, the report and a notebook show for one
set of logits: the temperature (:mod:`.temperature`), and for the raw and the scaled probabilities the CORP
reliability with its band and its ``MCB - DSC + UNC`` decomposition (:mod:`.corp`) and the binned ECE (:mod:`.binned`).
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
from .corp import CORP, corp
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
    temperature_problem : str or None
    """

    temperature: Temperature | None
    corp: dict
    binned: dict
    nll: dict
    accuracy: float
    temperature_problem: str | None = None

    def to_frame(self, *, percent: bool = False) -> pd.DataFrame:
        """One row per version (raw, scaled): NLL, ECE, MCE, the CORP score and its three terms.

        With ``percent=True`` the ECE and MCE are in % (columns ``ECE %``, ``MCE %``), as the app's cards show them.
        """
        scale, ece, mce = (100.0, "ECE %", "MCE %") if percent else (1.0, "ece", "mce")
        rows = []
        for version, result in self.corp.items():
            rows.append({"version": version, "temperature": 1.0 if version == "raw" or self.temperature is None
                         else self.temperature.temperature,
                         "nll": self.nll[version], ece: scale * self.binned[version].ece,
                         mce: scale * self.binned[version].mce,
                         "score": result.score_name, "mean_score": result.score, "MCB": result.mcb,
                         "DSC": result.dsc, "UNC": result.unc})
        return pd.DataFrame(rows)


def classifier_calibration(logits: ArrayLike, labels: ArrayLike, *, score: str = "brier", bins: int = 15,
                           strategy: str = "uniform", target: str | int = "top-label", n: int = 200, level: float = 0.9,
                           seed: int = 0) -> ClassifierCalibration:
    """CORP and binned ECE of ``softmax(logits)`` and of ``softmax(logits / T)`` with the fitted temperature.

    Parameters
    ----------
    logits : array_like, shape (T, K)
        Logits or log-probabilities of a classifier (a constant per row changes nothing).
    labels : array_like of int
        True class index of each trial.
    score, target, n, level, seed
        As in :func:`~.corp.corp` (`target` also sets the binned ECE's forecast).
    bins, strategy
        As in :func:`~.binned.binned_ece`.

    Returns
    -------
    ClassifierCalibration
        The fitted temperature (None, with the reason in ``temperature_problem``, when it cannot be fitted), and
        for ``"raw"`` (and ``"scaled"``) the CORP result, the binned ECE and the mean NLL (nats); the accuracy.
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
    losses: dict[str, float] = {}
    for version, t in versions.items():
        probabilities = softmax(z / t, axis=1)
        corps[version] = corp(probabilities, y, score, target=target, n=n, level=level, seed=seed)
        binned[version] = binned_ece(probabilities, y, bins, strategy, target=target)
        losses[version] = nll(z, y, t)
    accuracy = float(np.mean(np.argmax(z, axis=1) == y))
    return ClassifierCalibration(temperature, corps, binned, losses, accuracy, problem)
