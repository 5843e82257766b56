"""Words of the report and the app that are not numbers: a calibration described in words
(:func:`describe_calibration`) and a user's string made literal in Markdown (:func:`escape_markdown`).
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..prior import sigmoid

if TYPE_CHECKING:  # only for the type hint: the report stands above the calibration package anyway
    from ..calibration.rules import BetaRule

__all__ = ["describe_calibration", "escape_markdown"]


def describe_calibration(method: str, rule: BetaRule | None = None, plo: float = 0.0) -> str:
    """The calibration in words, e.g. ``affine, logistic regression weighted for P_target = 0.01``."""
    if method == "pav":
        return "PAV (monotone, non-parametric)"
    if method == "cmlg":
        return "CMLG (Gaussian, closed form)"
    logarithmic = rule is None or (rule.alpha, rule.beta) == (1, 1)
    fitted = "logistic regression" if logarithmic or rule is None else f"{rule.name} rule"
    return f"affine, {fitted} weighted for P_target = {float(sigmoid(plo)):.3g}"


def escape_markdown(text: str) -> str:
    """A user's string (a system or file name) made literal in Markdown: a backslash before every ASCII punctuation
    character, which CommonMark then shows as it is (no emphasis, links, HTML, tables or LaTeX ``$``)."""
    return re.sub(r"([!-/:-@\[-`{-~])", r"\\\1", str(text))
