"""llrcore workbench: the Streamlit entry point.

Run with ``streamlit run app.py``. This script sets the page config, loads the demo data on a session's first run,
draws the sidebar summary and hands over to the page chosen in the navigation. Pages live in ``app_pages/`` and
are listed in ``app_pages/_state.py`` (``PAGES``).
"""
from __future__ import annotations

from pathlib import Path

import streamlit as st

from app_pages import _state as state

ROOT = Path(__file__).resolve().parent

st.set_page_config(page_title="llrcore workbench", page_icon=":material/balance:", layout="wide")
st.logo(str(ROOT / "assets" / "logo.svg"), size="large", icon_image=str(ROOT / "assets" / "icon.svg"))

st.html(f"<style>{(ROOT / 'assets' / 'style.css').read_text()}</style>")

state.init_session()

sections: dict[str, list] = {}
for spec in state.PAGES:
    sections.setdefault(spec.section, []).append(
        st.Page(spec.path, title=spec.title, icon=spec.icon, default=spec.default)
    )
page = st.navigation(sections)

# The summary is drawn after the page ran (into a slot placed before it), so an upload shows up at once.
summary_slot = st.sidebar.empty()
try:
    page.run()
finally:
    loaded = state.systems()
    roles = [record["role"] for record in loaded.values()]
    summary_slot.caption(
        f"**{len(loaded)}** system{'s' if len(loaded) != 1 else ''} loaded — "
        f"{roles.count('evaluation')} evaluation, {roles.count('development')} development"
    )
