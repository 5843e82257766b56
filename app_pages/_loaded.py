"""What this session has loaded, one registry per kind of data set (the demos on a session's first visit).

- :data:`SYSTEMS` — binary systems (``LoadedSystem``): every page but Multiclass and Diarization works on them.
- :data:`SCORE_SETS` — multiclass score sets (``LoadedScores``), the Multiclass page's.
- :data:`MATRICES` — similarity matrices of recordings (``LoadedMatrix``), the Diarization page's.
"""
from __future__ import annotations

import llrcore as lc
from app_pages._demos import demo_matrices, demo_score_sets, demo_systems
from app_pages._registry import LoadedMatrix, LoadedScores, LoadedSystem, Registry

SYSTEMS: Registry[LoadedSystem] = Registry("systems", demo_systems)
SCORE_SETS: Registry[LoadedScores] = Registry("mc_sets", demo_score_sets)
MATRICES: Registry[LoadedMatrix] = Registry("diar_sets", demo_matrices)


def trials_by_name(role: str | None = None, names=None) -> dict[str, lc.Trials]:
    """name -> Trials of the loaded systems, optionally only one role or only the given names (in load order)."""
    return {name: system.trials for name, system in SYSTEMS.sets().items()
            if (role is None or system.role == role) and (names is None or name in names)}
