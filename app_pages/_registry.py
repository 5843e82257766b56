"""What a session has loaded: one typed registry for every kind of data set.

A registry keeps, under its session key (``_state.SYSTEMS``, ...), an ordered ``label -> LoadedSet`` of one kind: binary
systems (:class:`LoadedSystem`, a ``Trials`` with its role), multiclass score sets (:class:`LoadedScores`) and
similarity matrices (:class:`LoadedMatrix`). A set's ``id`` never changes (widget keys and caches use it); its label
can. The data objects are the ones the cached loaders return (``_state.cached``): never copied, so a ``Trials``'s sort
and PAV are computed once and serve every page. Pages change a registry only through its methods.
"""
from __future__ import annotations

import itertools
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Generic, TypeVar

import pandas as pd

import llrcore as lc
from app_pages._state import Key

ROLES = ("evaluation", "development")
ROLE_HELP = "Development sets train calibration; evaluation sets are only scored."


def new_id() -> str:
    return uuid.uuid4().hex[:10]


@dataclass(eq=False)
class LoadedSystem:
    """A binary system: its trials, its role, where it came from, and the numbers of the Data table.

    `origin` says, in JSON, how to read it again after a reload of the tab (a demo set, or kept uploaded files: see
    ``_session.py``); None for a system that is not kept (made on a page, read from the server's folder).
    """

    trials: lc.Trials
    source: str
    role: str = "evaluation"
    id: str = field(default_factory=new_id)
    origin: dict | None = None

    @property
    def data(self) -> lc.Trials:
        return self.trials

    @cached_property
    def summary(self) -> dict:
        """Numbers of the Data table, computed once (they do not depend on the operating point)."""
        trials, table = self.trials, self.trials.sorted
        cllr, min_cllr = table.cllr(), table.min_cllr()
        spoof = (trials.spoof.min(), trials.spoof.max()) if trials.spoof.size else ()
        return {
            "targets": table.n_tar,
            "non-targets": table.n_non,
            "spoof": int(trials.spoof.size),
            "min score": float(min(table.tar[0], table.non[0], *spoof)),
            "max score": float(max(table.tar[-1], table.non[-1], *spoof)),
            "Cllr": cllr,
            "minCllr": min_cllr,
            "as LLRs": lc.llr_verdict(cllr, min_cllr).verdict,
        }


@dataclass(eq=False)
class LoadedScores:
    """A multiclass score set; `id` identifies its data for the cached analysis (demo path, or upload + options)."""

    scores: lc.MulticlassScores
    source: str
    id: str = field(default_factory=new_id)

    @property
    def data(self) -> lc.MulticlassScores:
        return self.scores


@dataclass(eq=False)
class LoadedMatrix:
    """A similarity matrix, and the turns of a published full system on the same recording where there are some."""

    matrix: lc.SimilarityMatrix
    source: str
    id: str = field(default_factory=new_id)
    system: pd.DataFrame | None = None

    @property
    def data(self) -> lc.SimilarityMatrix:
        return self.matrix


Loaded = TypeVar("Loaded", LoadedSystem, LoadedScores, LoadedMatrix)


class Registry(Generic[Loaded]):
    """The loaded sets of one kind, ``label -> set`` in load order, kept in the session under `key`.

    `first_visit` returns the sets a session starts with (the demos), loaded on the first use in a session.
    """

    def __init__(self, key: Key[dict[str, Loaded]], first_visit: Callable[[], dict[str, Loaded]]):
        self.key = key
        self._first_visit = first_visit

    def sets(self) -> dict[str, Loaded]:
        """``label -> set``, filled with the demos on a session's first use."""
        if not self.key.is_set():
            self.key.set(self._first_visit())
        return self.key.get()

    def add(self, label: str, loaded: Loaded) -> str:
        """Add under a free label (``label``, or ``label (2)``, ...) and return the label used."""
        sets = self.sets()
        label = _free_label(label, sets)
        sets[label] = loaded
        return label

    def put(self, label: str, loaded: Loaded) -> None:
        """Keep `loaded` under exactly `label`, replacing what was there (a file uploaded again with new options)."""
        self.sets()[label] = loaded

    def remove(self, label: str) -> None:
        self.sets().pop(label, None)

    def rename(self, old: str, new: str) -> str | None:
        """Rename keeping the order; a sentence when the new label cannot be used."""
        sets = self.sets()
        new = new.strip()
        if new == old or old not in sets:
            return None
        if not new:
            return "A name is needed."
        if new in sets:
            return f"There is already one named {new!r}."
        self.key.set({(new if label == old else label): s for label, s in sets.items()})
        return None

    def by_id(self, set_id: str) -> tuple[str | None, Loaded | None]:
        return next(((label, s) for label, s in self.sets().items() if s.id == set_id), (None, None))

    def label_of(self, data) -> str | None:
        """The label under which this very data object is loaded, if it is."""
        return next((label for label, s in self.sets().items() if s.data is data), None)


def _free_label(label: str, taken) -> str:
    label = label.strip() or "untitled"
    if label not in taken:
        return label
    return next(f"{label} ({i})" for i in itertools.count(2) if f"{label} ({i})" not in taken)
