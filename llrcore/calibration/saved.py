"""Calibrators saved as JSON text, to apply them outside the workbench: the schema ``llrcore.calibrator/1``.

Every fitted calibrator has ``to_json()``; :func:`llrcore.load_calibrator` reads the text back into the same class,
whose LLRs are the saved one's bit for bit. The document (docs/calibration.md, "Saving a calibrator")::

    {"schema": "llrcore.calibrator/1", "kind": "affine", "output": "llr", "features": ["score"],
     "coefficients": {"scale": 1.02, "offset": -0.31}, "rule": {"name": "logarithmic", "alpha": 1.0, "beta": 1.0},
     "p_target": 0.01, "training": {"plo": -4.59511985013459}, "llrcore_version": "1.0.0"}

``coefficients`` is what applying the calibrator needs, by ``kind``; ``features`` names its inputs in order;
``rule`` and ``p_target`` say how it was trained (null when unknown or not trained with a proper scoring rule);
``training`` holds other facts of the fit that the calibrator keeps (not needed to apply it). Numbers are written by
Python's ``repr`` of a float, the shortest text that reads back to the same float, so the coefficients (and hence the
LLRs) survive the round trip exactly; a calibrator with a coefficient that is not finite is not saved (JSON has no
NaN nor infinity, and such a calibration is no calibration to use).

This module holds what every kind shares (writing, reading, checking); each calibrator class writes and reads its
own coefficients.
"""
from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .._version import __version__
from ..prior import sigmoid
from .rules import BetaRule

__all__ = ["SCHEMA", "VERSION", "Saved", "dumps", "parse"]

_REQUIRED: Any = object()  # the default of a field that must be there

SCHEMA = "llrcore.calibrator"
#: The schema version this llrcore writes and the newest it reads; a reader refuses a newer one.
VERSION = 1


def _plain(value, where: str):
    """`value` with numpy numbers and arrays as Python floats and lists; a ValueError for a number that is not
    finite, naming it (`where`)."""
    if isinstance(value, Mapping):
        return {str(key): _plain(item, f"{where}.{key}") for key, item in value.items()}
    if isinstance(value, np.ndarray) or (isinstance(value, Sequence) and not isinstance(value, str)):
        return [_plain(item, f"{where}[{i}]") for i, item in enumerate(value)]
    if value is None or isinstance(value, (str, bool)):
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"This calibrator cannot be saved: its {where} is {number} (JSON has no such number, and "
                         "a calibrator with one is not a calibration to use).")
    return number


def dumps(kind: str, output: str, coefficients: dict, *, features: Sequence[str] | None, rule=None,
          plo: float | None = None, training: dict | None = None) -> str:
    """The JSON text of a calibrator of `kind` (see the module's docstring for the fields).

    Parameters
    ----------
    kind : str
        ``"affine"``, ``"fusion"``, ``"pav"``, ``"quality"``, ``"conditional"``, ``"multiclass-affine"`` or
        ``"temperature"``.
    output : str
        What the calibrator gives: ``"llr"``, ``"llrs"`` (a matrix, one column per class) or ``"probabilities"``.
    coefficients : dict
        What applying it needs.
    features : list of str or None
        The names of its inputs in order; None when they are not known.
    rule : BetaRule, optional
        The proper scoring rule of the fit.
    plo : float, optional
        The prior weighting ``tau`` of the fit; written as ``p_target = sigmoid(tau)`` and, exactly, as
        ``training.plo``.
    training : dict, optional
        Other facts of the fit; a NaN one (unknown) is left out.
    """
    document = {
        "schema": f"{SCHEMA}/{VERSION}", "kind": kind, "output": output,
        "features": None if features is None else [str(name) for name in features],
        "coefficients": _plain(coefficients, "coefficients"),
        "rule": None if rule is None else {"name": rule.name, "alpha": rule.alpha, "beta": rule.beta},
        "p_target": None if plo is None else _plain(sigmoid(plo), "p_target"),
        "training": _plain({**({} if plo is None else {"plo": plo}), **_known(training or {})}, "training"),
        "llrcore_version": __version__,
    }
    return json.dumps(document, indent=2, allow_nan=False, ensure_ascii=False)


def _known(training: dict) -> dict:
    """The facts of the fit that are known: one that is NaN (or all NaN) is left out, as a document without it is read
    (a calibrator loaded from a file without its ``nll_before`` or ``spreads`` holds NaN and is saved again)."""
    return {name: value for name, value in training.items()
            if not (isinstance(value, (float, np.floating, np.ndarray)) and np.all(np.isnan(value)))}


def _not_finite(constant: str):
    raise ValueError(f"holds {constant}, which is no number a calibrator may have")


def _read(source) -> tuple[str, str]:
    """The text of `source` (JSON text, or the path of a file holding it) and how to name it in a sentence."""
    if isinstance(source, bytes):
        return _decoded(source, "the calibrator"), "the calibrator"
    if isinstance(source, str) and source.lstrip().startswith(("{", "[")):
        return source, "the calibrator"
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(f"Give a calibrator's JSON text or the path of its file, not a {type(source).__name__}.")
    path = Path(source)
    try:
        exists = path.is_file()
    except OSError:  # a name too long for the system: text that is not JSON
        exists = False
    if not exists:
        raise ValueError(f"There is no calibrator file {path} (nor is that JSON text).")
    what = f"the calibrator file {path.name}"
    return _decoded(path.read_bytes(), what), what


def _decoded(data: bytes, what: str) -> str:
    """`data` as UTF-8 text (JSON's encoding), or a sentence naming `what` is not text."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"{what[0].upper()}{what[1:]} is not JSON text: byte {error.start + 1} is not UTF-8 "
                         "(a binary file?).") from None


def parse(source) -> Saved:
    """The checked document of a saved calibrator: JSON text, bytes, or a path.

    Raises
    ------
    ValueError
        With one sentence: not JSON (and where), not an llrcore calibrator, a newer schema version, no kind.
    """
    text, what = _read(source)
    sentence = what[0].upper() + what[1:]
    try:
        document = json.loads(text, parse_constant=_not_finite)
    except json.JSONDecodeError as error:
        raise ValueError(f"{sentence} is not JSON: {error.msg} at line {error.lineno}, column {error.colno}.") from None
    except ValueError as error:
        raise ValueError(f"{sentence} {error}.") from None
    if not isinstance(document, dict) or not str(document.get("schema", "")).startswith(f"{SCHEMA}/"):
        raise ValueError(f"{sentence} is not an llrcore calibrator (it has no \"schema\": \"{SCHEMA}/{VERSION}\").")
    version = document["schema"].removeprefix(f"{SCHEMA}/")
    if not version.isdigit():
        raise ValueError(f"{sentence} names the schema version {version!r}, which is no version number.")
    if int(version) > VERSION:
        raise ValueError(f"{sentence} was written by a newer llrcore (schema version {version}; this llrcore "
                         f"{__version__} reads version {VERSION} and older): upgrade llrcore to load it.")
    if not isinstance(document.get("kind"), str):
        raise ValueError(f"{sentence} does not say which kind of calibrator it is (no \"kind\").")
    return Saved(document, what)


class Saved:
    """A saved calibrator's document, or a mapping inside it (`prefix` names where), whose fields are read with checks:
    a field missing or of the wrong type is a ValueError naming the file and the field."""

    def __init__(self, fields: Mapping, what: str, prefix: str = "", kind: str | None = None):
        self.fields, self.what, self.prefix = fields, what, prefix
        self.kind = str(fields["kind"]) if kind is None else kind

    def part(self, name: str) -> Saved:
        """The mapping `name` (e.g. ``coefficients``) read with the same checks."""
        value = self._get(name)
        if not isinstance(value, Mapping):
            self._wrong(name, "a JSON object")
        return Saved(value, self.what, f"{self.prefix}{name}.", self.kind)

    @property
    def training(self) -> Saved:
        """The document's ``training`` facts (none when it has none), read with the same checks."""
        return (self.part("training") if self.fields.get("training") is not None
                else Saved({}, self.what, "training.", self.kind))

    def rule(self) -> BetaRule | None:
        """The :class:`~llrcore.BetaRule` of the fit, or None."""
        if self.fields.get("rule") is None:
            return None
        rule = self.part("rule")
        return BetaRule(rule.number("alpha"), rule.number("beta"))

    def flag(self, name: str) -> bool:
        """A true/false fact of the fit (``converged``); true when not recorded."""
        value = self.fields.get(name, True)
        if not isinstance(value, bool):
            self._wrong(name, "true or false")
        return value

    def _wrong(self, name: str, needed: str):
        raise ValueError(f"In {self.what}, '{self.prefix}{name}' must be {needed}, not "
                         f"{json.dumps(self.fields[name])[:40]}.")

    def _get(self, name: str, default: Any = _REQUIRED) -> Any:
        if name not in self.fields and default is not _REQUIRED:
            return default
        if name not in self.fields:
            raise ValueError(f"{self.what[0].upper()}{self.what[1:]} lacks '{self.prefix}{name}', which a calibrator "
                             f"of kind {json.dumps(self.kind)} needs.")
        return self.fields[name]

    def number(self, name: str, default: Any = _REQUIRED) -> float:
        """A finite number (an integer is taken as the float it writes); `default` when it is absent, if given."""
        value = self._get(name, default)
        if value is default:
            return value
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self._wrong(name, "a number")
        return float(value)

    def vector(self, name: str, *, size: int | None = None, default: Any = _REQUIRED) -> np.ndarray:
        """A non-empty list of numbers (of `size` numbers when given) as float64; `default` when it is absent, if
        given."""
        value = self._get(name, default)
        if value is default:
            return value
        if (not isinstance(value, list) or not value
                or any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in value)):
            self._wrong(name, "a non-empty list of numbers")
        if size is not None and len(value) != size:
            raise ValueError(f"In {self.what}, '{self.prefix}{name}' has {len(value)} numbers where {size} are "
                             "needed.")
        return np.array(value, dtype=np.float64)

    def names(self, name: str) -> tuple[str, ...]:
        """A list of strings."""
        value = self._get(name)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self._wrong(name, "a list of names")
        return tuple(value)

    def pairs(self, name: str) -> tuple[tuple[str, str], ...]:
        """A list of pairs of strings."""
        value = self._get(name)
        if not isinstance(value, list) or not all(isinstance(p, list) and len(p) == 2
                                                  and all(isinstance(v, str) for v in p) for p in value):
            self._wrong(name, "a list of pairs of names")
        return tuple((a, b) for a, b in value)
