"""llrcore workbench: the Streamlit entry point.

Run with ``streamlit run app.py``. This script sets the page config, restores a reloaded tab's session or loads the
demo data on a session's first run (``app_pages/_session.py``, which keeps the session for a reload),
draws the sidebar summary and the app-wide "LR values in" choice (``app_pages/_units.py``) and hands over to the
page chosen in the navigation. Pages live in ``app_pages/`` and are listed in ``app_pages/_pages.py`` (``PAGES``).
"""
from __future__ import annotations

from pathlib import Path

import streamlit as st

import llrcore as lc
from app_pages import _session
from app_pages._loaded import SYSTEMS
from app_pages._pages import PAGES
from app_pages._units import sidebar_control

ROOT = Path(__file__).resolve().parent

st.set_page_config(page_title="llrcore workbench", page_icon=":material/balance:", layout="wide")
st.logo(str(ROOT / "assets" / "logo.svg"), size="large", icon_image=str(ROOT / "assets" / "icon.svg"))

st.html(f"<style>{(ROOT / 'assets' / 'style.css').read_text()}</style>")

try:  # an operator's setting, read by every analysis: said once, in words, instead of a traceback on every page
    lc.thread_count()
except ValueError as err:
    st.error(str(err))
    st.stop()

# A session's first run restores what the address's session id kept (a reloaded tab), or loads the demo systems, so
# every page works at once; every run puts the id back in the address, which a page switch clears.
for kind, message in _session.begin():  # what was restored, or why not: once, above the page
    getattr(st, kind)(message, icon=":material/history:" if kind == "info" else ":material/warning:")

sections: dict[str, list] = {}
for spec in PAGES:
    sections.setdefault(spec.section, []).append(
        st.Page(spec.path, title=spec.title, icon=spec.icon, default=spec.default)
    )
page = st.navigation(sections, expanded=True)  # every page in view: no "View more" to find one

# The summary is drawn after the page ran (into a slot placed before it), so an upload shows up at once.
summary_slot = st.sidebar.empty()
sidebar_control()  # "LR values in": natural log or log10, one choice for every page
try:
    page.run()
finally:
    _session.save()  # written when it changed: kept for a reload of the tab
    loaded = SYSTEMS.sets()
    roles = [system.role for system in loaded.values()]
    summary_slot.caption(
        f"**{len(loaded)}** system{'s' if len(loaded) != 1 else ''} loaded — "
        f"{roles.count('evaluation')} evaluation, {roles.count('development')} development"
    )
