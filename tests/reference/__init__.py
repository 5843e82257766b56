"""Peers' code vendored test-only, each file with its provenance and licence: never imported by llrcore.

Tests load a file by name with :func:`vendored`, by path, so that one file's imports (numpy only) never depend on
another's.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType


def vendored(name: str) -> ModuleType:
    """The module ``tests/reference/<name>.py``, loaded from its file."""
    spec = importlib.util.spec_from_file_location(name, Path(__file__).parent / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
