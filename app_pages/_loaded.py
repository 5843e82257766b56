"""What this session has loaded, one registry per kind of data set (the demos on a session's first visit).

- :data:`SYSTEMS` — binary systems (``LoadedSystem``): every page but Multiclass and Diarization works on them.
- :data:`SCORE_SETS` — multiclass score sets (``LoadedScores``), the Multiclass page's.
- :data:`MATRICES` — similarity matrices of recordings (``LoadedMatrix``), the Diarization page's.

:func:`chosen_systems` keeps a page's choice of systems for the session and lets new ones join it.
"""
from __future__ import annotations

import llrcore as lc
from app_pages._demos import demo_matrices, demo_score_sets, demo_systems
import streamlit as st

from app_pages import _state
from app_pages._registry import LoadedMatrix, LoadedScores, LoadedSystem, Registry

SYSTEMS: Registry[LoadedSystem] = Registry(_state.SYSTEMS, demo_systems)
SCORE_SETS: Registry[LoadedScores] = Registry(_state.SCORE_SETS, demo_score_sets)
MATRICES: Registry[LoadedMatrix] = Registry(_state.MATRICES, demo_matrices)


def trials_by_name(role: str | None = None, names=None) -> dict[str, lc.Trials]:
    """name -> Trials of the loaded systems, optionally only one role or only the given names (in load order)."""
    return {name: system.trials for name, system in SYSTEMS.sets().items()
            if (role is None or system.role == role) and (names is None or name in names)}


def _keep_choice(key: str) -> None:
    """``on_change`` of a choice of systems: the chosen sets' ids go to the page's own state (they survive renames)."""
    ids = {name: system.id for name, system in SYSTEMS.sets().items()}
    _state.CHOSEN[key].set([ids[name] for name in _state.Key(key).peek([]) if name in ids])


def chosen_systems(key: str, label: str, role: str | None = "evaluation", **options) -> list[str]:
    """A multiselect of the loaded systems whose choice survives page switches and takes in new sets.

    The choice lives in ``_state.CHOSEN[key]`` (the sets' ids, in the order chosen), the ids the page has seen in
    ``_state.SEEN[key]``; the widget (key `key`) is only its view, set from it before it is drawn, and its
    ``on_change`` writes it back (Streamlit deletes a widget's state on a page that does not draw it). On the first
    visit the choice is the sets of `role` (every set when there are none, or when `role` is None); afterwards a set
    loaded since the page last drew the choice (an upload, a demo set, a calibration added) joins it when it is of
    `role`, as it would have on a first visit. `options` go to ``st.multiselect``.
    """
    loaded = SYSTEMS.sets()
    ids = {name: system.id for name, system in loaded.items()}
    names = {system_id: name for name, system_id in ids.items()}
    default = [name for name, system in loaded.items() if role is None or system.role == role] or list(loaded)
    kept = _state.CHOSEN[key].peek()
    if kept is None:
        chosen = [ids[name] for name in default]
    else:  # a choice written by another page before this one drew it (Calibrate's "Add") is taken as it is
        seen = set(_state.SEEN[key].peek(ids.values()))
        chosen = [*kept, *(ids[name] for name in default if ids[name] not in seen and ids[name] not in kept)]
    chosen = [system_id for system_id in chosen if system_id in names]  # sets removed meanwhile leave it
    _state.CHOSEN[key].set(chosen)
    _state.SEEN[key].set(list(names))
    _state.Key(key).set([names[system_id] for system_id in chosen])
    return st.multiselect(label, list(loaded), key=key, on_change=_keep_choice, args=(key,), **options)
