"""Write binary trials so that :func:`~llrcore.io.trials.read_trials` reads back exactly the same scores: text with
every digit, NumPy ``.npz``, or a BOSARIS Scores ``.h5`` with its Key."""
from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..data.trials import Trials
from ._source import Destination
from .bosaris_h5_write import write_bosaris_key, write_bosaris_scores
from .trials import FORMAT_ALIASES

__all__ = ["write_trials"]


def write_trials(path: Destination, trials: Trials | Mapping[str, Trials], format: str = "two-column", *,
                 key: Destination | None = None) -> None:
    """Write trials so that :func:`read_trials` reads back exactly the same scores.

    Parameters
    ----------
    path : str, os.PathLike or binary file-like
        Where to write.
    trials : Trials or mapping of str to Trials
        One system, or several (written in long form with a ``system`` column; two-column format only).
    format : {"two-column", "npz", "bosaris-h5"}
        ``"two-column"``: a header ``score label`` then one trial per line, labels ``target``, ``nontarget``
        (and ``spoof``), scores with all their digits. ``"npz"``: arrays ``tar``, ``non`` (and ``spoof``).
        ``"bosaris-h5"``: a BOSARIS Scores ``.h5`` file at `path` and its Key at `key`, in the BOSARIS toolkit's
        layout (:func:`~llrcore.io.bosaris_h5.write_bosaris_scores`); the trials need ``model`` and ``test`` ids.
    key : str, os.PathLike or binary file-like, optional
        Where the key goes, for ``"bosaris-h5"`` (required there).

    Returns
    -------
    None
        The file (and, for ``"bosaris-h5"``, its key) is written, replacing any file at that path.

    Raises
    ------
    ValueError
        An unknown `format`; ``"bosaris-h5"`` without `key`; several systems for ``"npz"``; a system name that is
        empty, has spaces at an end or holds a tab or a line break; no system at all; and, for ``"bosaris-h5"``,
        the problems :func:`~llrcore.io.bosaris_h5_write.write_bosaris_scores` names.
    """
    fmt = FORMAT_ALIASES.get(str(format).lower())
    if fmt not in ("two-column", "npz", "bosaris-h5"):
        raise ValueError(f"write_trials writes format 'two-column', 'npz' or 'bosaris-h5', not {format!r}.")
    if fmt == "bosaris-h5" and key is None:
        raise ValueError("format 'bosaris-h5' keeps the scores and the key in two files: give key= the path of the "
                         "key file.")
    if fmt != "two-column":
        if not isinstance(trials, Trials):
            raise ValueError(f"format {fmt!r} holds one system: pass one Trials, not several.")
        _write_one_system(path, trials, fmt, key)
        return
    if isinstance(trials, Trials):
        text = "score label\n" + _lines(trials, "")
    else:
        blocks = ["system\tscore\tlabel\n"]
        for system, one in trials.items():
            system = str(system)
            if re.search(r"[\t\r\n]", system) or not system.strip() or system != system.strip():
                raise ValueError(f"The system name {system!r} cannot be written: it is empty, has spaces at an end or "
                                 "holds a tab or a line break.")
            blocks.append(_lines(one, system + "\t", "\t"))
        if len(blocks) == 1:
            raise ValueError("There are no systems to write.")
        text = "".join(blocks)
    with _open_for_writing(path) as out:
        out.write(text.encode("utf-8"))


def _write_one_system(path, trials: Trials, fmt: str, key) -> None:
    """:func:`write_trials` in a format of one system: ``"bosaris-h5"`` (scores and key) or ``"npz"``."""
    if fmt == "bosaris-h5":
        write_bosaris_scores(path, trials)
        write_bosaris_key(key, trials)
        return
    arrays: dict[str, Any] = {"tar": np.asarray(trials.tar), "non": np.asarray(trials.non)}
    if trials.spoof.size:
        arrays["spoof"] = np.asarray(trials.spoof)
    with _open_for_writing(path) as out:
        np.savez(out, **arrays)


def _lines(trials: Trials, prefix: str, sep: str = " ") -> str:
    """One line per trial, ``<prefix><score><sep><label>``; ``repr`` gives the shortest exact decimal form."""
    blocks = []
    for scores, label in ((trials.tar, "target"), (trials.non, "nontarget"), (trials.spoof, "spoof")):
        if scores.size:
            end = f"{sep}{label}\n"
            blocks.append(prefix + (end + prefix).join(map(repr, scores.tolist())) + end)
    return "".join(blocks)


class _open_for_writing:
    def __init__(self, path):
        self.path = path
        self.file = None

    def __enter__(self):
        if hasattr(self.path, "write"):
            return self.path
        self.file = open(self.path, "wb")
        return self.file

    def __exit__(self, *exc):
        if self.file is not None:
            self.file.close()
