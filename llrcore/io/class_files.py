"""Same-source and different-source LRs in two files, one value per line and no labels: the form forensic LR
systems (and the NFI's lir, e.g. its cartridge-case ``LLR_KM.csv`` and ``LLR_KNM.csv``) write them in.

:func:`read_class_files` reads each file with the text parser every score reader shares
(:class:`~llrcore.io.text.TextFile`), so every problem is a :class:`~llrcore.io.LoadError` naming the file and the
line, and returns one :class:`~llrcore.Trials`: the first file's values are the targets (same source, H1), the
second's the non-targets (different source, H2). ``scale="log10"`` reads log10 LRs into natural-log LLRs
(``ln 10 * log10 LR``, as :func:`llrcore.read_trials` does).
"""
from __future__ import annotations

import numpy as np

from ..data.trials import Trials
from ._source import Source, _Source, _text_bytes
from .text import SCORE_NAMES, TextFile, clean_name, columns_phrase
from .trials import SCALES

__all__ = ["read_class_files"]


def _values(src: _Source, what: str) -> np.ndarray:
    """The numbers of one file of LRs, one per line (a first line naming the column, e.g. ``llr``, is skipped)."""
    text = TextFile(src, _text_bytes(src))
    first = 1 if len(text.rows[0]) == 1 and clean_name(text.rows[0][0]).lower() in SCORE_NAMES else 0
    if first >= len(text.rows):
        raise src.error(f"the file has a header line but no {what} LRs after it.", text.sample[0][0])
    reference = text.sample[first][0]
    for (lineno, *_), row in zip(text.sample[first:], text.rows[first:]):
        if len(row) != 1:
            raise src.error(f"this line has {columns_phrase(len(row))}; a file of {what} LRs has one value per "
                            "line and no labels (the file says which class its LRs are).", lineno)
    frame, lines = text.read(first, 1, [], reference)
    return text.scores(frame[0], lines, 1, reference, what=f"{what} LR")


def read_class_files(same_source: Source, different_source: Source, *, scale: str = "ln", name: str | None = None
                     ) -> Trials:
    """Read the LRs of same-source and different-source comparisons from two files, one value per line.

    Parameters
    ----------
    same_source, different_source : str, os.PathLike or file-like
        The two files (paths or open files, e.g. Streamlit uploads): plain text, one number per line, no labels;
        blank lines and ``#`` comments are skipped, and a first line ``llr`` (or ``score``) naming the column.
    scale : {"ln", "log10"}
        Natural-log LLRs (``"ln"``, the default) or log10 LRs (``"log10"``: multiplied by ``ln 10``).
    name : str, optional
        The name of the returned Trials (default: the same-source file's stem, or empty for a file without a name).

    Returns
    -------
    Trials
        ``tar`` the same-source LLRs, ``non`` the different-source ones, natural log.

    Raises
    ------
    LoadError
        For an empty file, a line that is not one number (two columns, a word, a missing value), naming the file
        and the line.
    ValueError
        For a `scale` other than ``"ln"`` or ``"log10"``.

    Examples
    --------
    >>> cases = read_class_files("assets/lir_cartridge_case_llrs/LLR_KM.csv",
    ...                          "assets/lir_cartridge_case_llrs/LLR_KNM.csv", scale="log10")
    >>> cases.tar.size, cases.non.size
    (188, 477)
    """
    if scale not in SCALES:
        raise ValueError(f"scale is 'ln' (natural-log LLRs) or 'log10' (log10 LRs), not {scale!r}.")
    factor = np.log(10.0) if scale == "log10" else 1.0
    same = _Source.open(same_source)
    tar = _values(same, "same-source") * factor
    non = _values(_Source.open(different_source), "different-source") * factor
    return Trials(tar, non, name=same.stem if name is None else name)
