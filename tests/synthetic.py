"""Score sets made up for tests of several folders: ordinary Gaussian scores and far ones, and a call that keeps
quiet about a collapsed calibration a test provokes on purpose."""
from __future__ import annotations

import warnings

import numpy as np

FAR = 1e308  # a finite score so far that every affine fit trained on it on the wrong side collapses


def ordinary(seed: int = 7, mu: float = 3.0, n_tar: int = 300, n_non: int = 3000) -> tuple[np.ndarray, np.ndarray]:
    """Calibrated Gaussian LLRs (target mean `mu`, variance ``2 mu``; non-target mean ``-mu``): (tar, non)."""
    rng = np.random.default_rng(seed)
    return rng.normal(mu, np.sqrt(2 * mu), n_tar), rng.normal(-mu, np.sqrt(2 * mu), n_non)


def quiet(function, *args, **kwargs):
    """``function(*args, **kwargs)`` without the warning of a collapsed calibration."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "The calibration collapsed", RuntimeWarning)
        return function(*args, **kwargs)
