"""Messages that outlive a rerun: a callback runs before the page draws, so what it has to say waits for the page."""
from __future__ import annotations

import streamlit as st


def flash(message: str, kind: str = "success") -> None:
    """Queue a message (``kind`` names an st function: success, info, warning, error) for the page's next run."""
    st.session_state.setdefault("flash", []).append((kind, message))


def show_flashes() -> None:
    for kind, message in st.session_state.pop("flash", []):
        getattr(st, kind)(message)
