"""Messages that outlive a rerun: a callback runs before the page draws, so what it has to say waits for the page."""
from __future__ import annotations

import streamlit as st

from app_pages import _state


def flash(message: str, kind: str = "success") -> None:
    """Queue a message (``kind`` names an st function: success, info, warning, error) for the page's next run."""
    _state.FLASHES.get().append((kind, message))


def show_flashes() -> None:
    for kind, message in _state.FLASHES.pop() or []:
        getattr(st, kind)(message)
