"""A figure on a page: drawn without ever showing a traceback, with its data as CSV and the figure as SVG.

The PNG comes from the plot's own toolbar (the camera button). The CSV and SVG are made only when clicked.
"""
from __future__ import annotations

import logging

import streamlit as st

import llrcore as lc


log = logging.getLogger(__name__)


def show_figure(make, stem: str, caption: str | None = None, *, data=None) -> None:
    """Draw ``make()`` (a plotly Figure) under the key `stem`, then its caption and the download buttons.

    `data` makes the table behind the CSV button: the result the figure draws (e.g. ``curves.to_frame``); without
    it the table is read from the figure's traces. A figure that cannot be drawn becomes one sentence on the page
    (and a log entry), never a traceback.
    """
    try:
        fig = make()
    except Exception as err:  # a figure must never take the page down with a traceback
        log.exception("figure %s failed", stem)
        st.error(f"This figure could not be drawn: {err}")
        return
    st.plotly_chart(fig, theme=None, width="stretch", key=stem, config={
        "displaylogo": False, "toImageButtonOptions": {"format": "png", "filename": stem, "scale": 2}})
    if caption:
        st.caption(caption)
    buttons = st.container(horizontal=True, wrap=True)  # as wide as their labels, even in a narrow column
    buttons.download_button(
        "Data as CSV", lambda: (data() if data else lc.plots.figure_to_frame(fig)).to_csv(index=False).encode(),
        file_name=f"{stem}.csv",
        mime="text/csv", icon=":material/download:", key=f"{stem}_csv", on_click="ignore",
    )
    problem = lc.export_problem()
    buttons.download_button(
        "Figure as SVG", lambda: lc.figure_to_image(fig, "svg"), file_name=f"{stem}.svg", mime="image/svg+xml",
        icon=":material/image:", key=f"{stem}_svg", on_click="ignore", disabled=problem is not None,
        help=problem or "Vector graphics for papers and slides (drawn by the system's Chromium).",
    )
