"""Every download button of the app leaves the page as it is: ``on_click="ignore"``.

Streamlit reruns the whole page script when a download button is clicked unless told not to; a download changes
nothing on the page, so a rerun only recomputes it (a t-DCF page of four countermeasures, a diarization); on a busy
server it is the likely reason a browser test once found no second button while the first click's rerun ran.

Independent reference: the calls themselves, read with Python's ``ast`` from the page sources (never by running them).
"""
from __future__ import annotations

import ast
from paths import ROOT

PAGES = ROOT / "app_pages"


def download_buttons(source: str) -> list[tuple[int, str | None]]:
    """``(line, on_click)`` of each ``.download_button(...)`` call: the source text of its on_click, else None."""
    return [(node.lineno, next((ast.unparse(k.value) for k in node.keywords if k.arg == "on_click"), None))
            for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "download_button"]


def test_every_download_button_of_every_page_ignores_its_click():
    found = {path.name: download_buttons(path.read_text()) for path in sorted(PAGES.glob("*.py"))}
    assert sum(map(len, found.values())) >= 15  # the pages' buttons were found at all
    rerunning = [f"{name}:{line}" for name, buttons in found.items() for line, on_click in buttons
                 if on_click != "'ignore'"]
    assert rerunning == []


def test_the_check_finds_a_button_that_reruns():
    source = ('st.download_button("a", b"1", on_click="ignore")\n'
              'column.download_button("b", b"2")\n'
              'st.download_button("c", b"3", on_click="rerun")\n')
    assert download_buttons(source) == [(1, "'ignore'"), (2, None), (3, "'rerun'")]
