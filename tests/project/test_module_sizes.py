"""No module over 550 lines, app pages under ~400 (issue 29: "no module over 550 lines, app pages under ~400").

A module that grows past these sizes holds more than one idea, and a page that long computes or repeats what belongs
in the library or in a private page helper (``app_pages/_*.py``). The reference is the line count itself (as
``wc -l`` gives it: newline characters), checked on every file so a new module or page is held to it too.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from paths import ROOT

#: Issue 29: the largest a library module may be.
MAX_MODULE_LINES = 550
#: Issue 29: a page is "under ~400" lines; its helpers (``app_pages/_*.py``) are held to the module limit.
MAX_PAGE_LINES = 400


def _lines(path: Path) -> int:
    """The number of lines as ``wc -l`` counts them (newline characters)."""
    return path.read_bytes().count(b"\n")


def _relative(paths) -> list[str]:
    return [str(path.relative_to(ROOT)) for path in sorted(paths)]


LIBRARY = _relative((ROOT / "llrcore").rglob("*.py"))
PAGES = _relative(path for path in (ROOT / "app_pages").glob("*.py") if not path.name.startswith("_"))
HELPERS = _relative(path for path in (ROOT / "app_pages").glob("*.py") if path.name.startswith("_"))


def test_the_line_count_is_that_of_wc(tmp_path):
    path = tmp_path / "three.py"
    path.write_text("a = 1\n\nb = 2\n")
    assert _lines(path) == 3
    path.write_text("a = 1\nb = 2")  # no newline at the end: wc -l says 1
    assert _lines(path) == 1


def test_the_library_and_the_pages_are_found():
    assert "llrcore/__init__.py" in LIBRARY and "llrcore/diarization/model.py" in LIBRARY
    assert "app_pages/diarization.py" in PAGES and "app_pages/home.py" in PAGES
    assert not any(Path(page).name.startswith("_") for page in PAGES)


@pytest.mark.parametrize("module", LIBRARY)
def test_no_library_module_is_over_550_lines(module):
    assert _lines(ROOT / module) <= MAX_MODULE_LINES, f"{module}: split it along a seam (issue 29)"


@pytest.mark.parametrize("helper", HELPERS)
def test_no_page_helper_is_over_550_lines(helper):
    assert _lines(ROOT / helper) <= MAX_MODULE_LINES, f"{helper}: split it along a seam (issue 29)"


@pytest.mark.parametrize("page_file", PAGES)  # not "page": that is pytest-playwright's fixture
def test_no_app_page_is_over_400_lines(page_file):
    assert _lines(ROOT / page_file) <= MAX_PAGE_LINES, (
        f"{page_file}: move computation into llrcore and shared UI into app_pages/_*.py (issue 29)")
