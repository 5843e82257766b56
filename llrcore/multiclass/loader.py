"""``load_calibrator``: a calibrator saved by ``to_json()`` (schema ``llrcore.calibrator/1``) read back, of any kind.

It lives here, not in :mod:`llrcore.calibration` beside the schema (:mod:`llrcore.calibration.saved`), because it
must know every kind of calibrator and the multiclass ones stand in this package, one layer above calibration
(docs/architecture.md): this is the lowest package that sees them all.
"""
from __future__ import annotations

import json
import os

from ..calibration.calibrators import Affine, Fusion, PAVCalibrator
from ..calibration.conditional import ConditionalCalibration
from ..calibration.quality import QualityCalibration
from ..calibration.saved import parse
from .calibration import MulticlassAffine
from .temperature import Temperature

__all__ = ["KINDS", "load_calibrator"]

#: The kinds of saved calibrators and the classes that read them.
KINDS = {cls.KIND: cls for cls in (Affine, Fusion, PAVCalibrator, QualityCalibration, ConditionalCalibration,
                                   MulticlassAffine, Temperature)}


def load_calibrator(source: str | bytes | os.PathLike) -> (Affine | Fusion | PAVCalibrator | QualityCalibration
                                                             | ConditionalCalibration | MulticlassAffine | Temperature):
    """A calibrator saved as JSON by its ``to_json()``, read back as the same class.

    The coefficients are read as the floats that were written (JSON numbers in Python's shortest round-trip form),
    so the calibrator gives the saved one's LLRs (probabilities, for a temperature) bit for bit.

    Parameters
    ----------
    source : str, bytes or path
        The JSON text, or the path of a file holding it.

    Returns
    -------
    Affine, Fusion, PAVCalibrator, QualityCalibration, ConditionalCalibration, MulticlassAffine or Temperature
        As its ``"kind"`` says; call it as the fitted calibrator is called.

    Raises
    ------
    ValueError
        With one sentence naming the file and what is wrong: not JSON, not an llrcore calibrator, written by a newer
        llrcore (schema version above 1), an unknown kind, a missing or malformed coefficient.

    Examples
    --------
    >>> import llrcore as lc
    >>> cal = lc.load_calibrator(lc.Affine(scale=1.5, offset=-2.0).to_json())
    >>> float(cal(2.0))
    1.0
    """
    document = parse(source)
    if document.kind not in KINDS:
        raise ValueError(f"{document.what[0].upper()}{document.what[1:]} is of kind {json.dumps(document.kind)}, "
                         f"which this llrcore does not know (it knows {', '.join(KINDS)}).")
    return KINDS[document.kind].from_saved(document)
