"""The labels of binary trials in every file format: which words mean target, non-target, spoof and bona fide, and the
Trials built from a column of them (a LoadError naming the line of the first word that is none of them), with their
metadata in the order of the trials.

A countermeasure (anti-spoofing) file labels its trials ``bonafide`` and ``spoof`` only, as the ASVspoof 2019 CM score
files and protocols do: its detection task is bona fide against spoof, so the bona fide trials are the targets and
the spoof trials the non-targets. In a file that also has target or non-target trials (an ASV file), spoof trials are
kept apart in ``Trials.spoof``.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from ..data.trials import Trials
from ._source import _Source
from .ids import LazyIds
from .metadata import take_rows
from .text import Lines, TextFile

__all__ = ["ACCEPTED", "BONAFIDE", "LABELS", "NONTARGET", "SPOOF", "TARGET", "label_codes", "label_key", "renamed", "text_labels",
           "trials_from_codes"]

TARGET, NONTARGET, SPOOF, BONAFIDE = 1, 0, 2, 3

LABELS = {
    **dict.fromkeys(("target", "tar", "1", "1.0", "true", "genuine", "same"), TARGET),
    **dict.fromkeys(("nontarget", "non-target", "non_target", "non", "0", "0.0", "false", "impostor", "imposter",
                     "different"), NONTARGET),
    "spoof": SPOOF,
    **dict.fromkeys(("bonafide", "bona-fide", "bona_fide"), BONAFIDE),
}

#: The key forms that label a score file of 'enrol test score' lines, named where such a file comes without one.
KEY_FORMS = ("a Kaldi/BOSARIS key 'model test target|nontarget' or a VoxCeleb trial list '1 enrol test' "
             "(1 target, 0 non-target)")

ACCEPTED = ("target/nontarget, tar/non, 1/0, true/false, genuine/impostor or same/different (any case), "
            "and spoof for spoofing trials (bonafide/spoof in a countermeasure file)")


def text_labels(text: TextFile, column: pd.Series, lines: Lines, ncols: int, reference: int) -> np.ndarray:
    """The binary label codes of a text column; a LoadError names the line of the first label not accepted."""
    codes, _ = label_codes(column)
    bad = codes < 0
    if bad.any():
        row = int(np.argmax(bad))
        lineno = int(lines[row])
        text.check_width(lineno, ncols, reference)
        raw = str(column.iloc[row]).strip()
        if not raw:
            raise text.src.error(f"the label is empty; accepted labels are {ACCEPTED}.", lineno)
        raise text.src.error(f"the label {raw!r} is not one of the accepted labels: {ACCEPTED}.", lineno)
    return codes


def label_codes(column: pd.Series) -> tuple[np.ndarray, list]:
    """Codes TARGET/NONTARGET/SPOOF per value, -1 where the value is not an accepted label."""
    if not isinstance(column.dtype, pd.CategoricalDtype):
        column = column.astype("category")
    categories = list(column.cat.categories)
    lut = np.array([LABELS.get(label_key(c), -1) for c in categories] + [-1], dtype=np.int8)
    codes = column.cat.codes.to_numpy()
    return lut[codes], categories


def label_key(value) -> str:
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        value = int(value)
    return str(value).strip().strip('"').strip().lower()


def trials_from_codes(src: _Source, scores: np.ndarray, labels: np.ndarray, name: str, who: str = "the file",
                      metadata: pd.DataFrame | LazyIds | None = None, lines=None, unit: str = "line") -> Trials:
    """Trials from scores and label codes in file order; `metadata` (one row per score, in the same order) is
    reordered with them: targets, non-targets, then spoof trials, each in file order.

    Bona fide and spoof trials without any target or non-target trial are a countermeasure's: bona fide trials become
    the targets, spoof trials the non-targets. `lines` (each score's line, or row for `unit` "row") places the first
    bona fide label in the message when bona fide labels are mixed with target/non-target ones.
    """
    bona_fide = labels == BONAFIDE
    if bona_fide.any():
        is_tar, is_non = labels == TARGET, labels == NONTARGET
        if is_tar.any() or is_non.any():
            row = int(np.argmax(bona_fide))
            raise src.error("the label 'bonafide' is mixed with target/non-target labels; in a speaker verification "
                            "file say whether a bona fide trial is a target or a non-target trial (bonafide/spoof "
                            "labels alone are read as a countermeasure's: bona fide against spoof).",
                            None if lines is None else int(lines[row]), unit)
        masks = [bona_fide, labels == SPOOF]
        if not masks[1].any():
            raise src.error(f"{who} has bona fide trials but no spoof trials; a countermeasure file needs both.")
    else:
        masks = [labels == TARGET, labels == NONTARGET, labels == SPOOF]
    # ids whose table is built on first use (LazyIds): their rows are taken lazily
    with_metadata = isinstance(metadata, LazyIds) or (metadata is not None and metadata.shape[1] > 0)
    if with_metadata:  # one order for the scores and their metadata rows
        rows = [np.flatnonzero(mask) for mask in masks]
        order = np.concatenate(rows)
        ordered = scores[order]
        tar, non, *spoof = np.split(ordered, np.cumsum([r.size for r in rows])[:-1])
    else:
        tar, non, *spoof = (scores[mask] for mask in masks)
    if tar.size == 0 or non.size == 0:
        missing, present = ("target", "non-target") if tar.size == 0 else ("non-target", "target")
        raise src.error(f"{who} has {present} trials but no {missing} trials; both classes are needed.")
    return Trials(tar, non, name=name, spoof=spoof[0] if spoof else np.empty(0),
                  metadata=_taken(metadata, order) if with_metadata and metadata is not None else None,
                  file_labels=masks[0][masks[0] | masks[1]] if spoof and spoof[0].size else masks[0])


def renamed(trials: Trials, name: str) -> Trials:
    """The same trials under another name (one system of a file of several takes the name the user gave)."""
    return dataclasses.replace(trials, name=name)


def _taken(metadata: pd.DataFrame | LazyIds, rows: np.ndarray) -> pd.DataFrame | LazyIds:
    """Rows `rows` of the metadata; those of ids built on first use still unbuilt."""
    return metadata.take(rows) if isinstance(metadata, LazyIds) else take_rows(metadata, rows)
