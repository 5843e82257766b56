"""No module over 550 lines, app pages under ~400 (issue 29: "no module over 550 lines, app pages under ~400").

A module that grows past these sizes holds more than one idea, and a page that long computes or repeats what belongs
in the library or in a private page helper (``app_pages/_*.py``). The reference is the line count itself (as
``wc -l`` gives it: newline characters), checked on every file so a new module or page is held to it too. One test
lists every offender in its message; a made-up tree of files of known lengths shows that the check finds each kind.
"""
from __future__ import annotations

from pathlib import Path

from paths import ROOT

#: Issue 29: the largest a library module may be.
MAX_MODULE_LINES = 550
#: Issue 29: a page is "under ~400" lines; its helpers (``app_pages/_*.py``) are held to the module limit.
MAX_PAGE_LINES = 400


def _lines(path: Path) -> int:
    """The number of lines as ``wc -l`` counts them (newline characters)."""
    return path.read_bytes().count(b"\n")


def _limits(root: Path) -> dict[Path, tuple[int, str]]:
    """Every library module, page and page helper under `root`, with its limit and what to do past it."""
    split = "split it along a seam (issue 29)"
    limits = {path: (MAX_MODULE_LINES, split) for path in (root / "llrcore").rglob("*.py")}
    for path in (root / "app_pages").glob("*.py"):
        limits[path] = ((MAX_MODULE_LINES, split) if path.name.startswith("_") else
                        (MAX_PAGE_LINES, "move computation into llrcore and shared UI into app_pages/_*.py (issue 29)"))
    return limits


def oversized(root: Path) -> list[str]:
    """One line per file under `root` longer than its limit: its path, its length, the limit and what to do."""
    return [f"{path.relative_to(root)}: {lines} lines > {limit}: {advice}"
            for path, (limit, advice) in sorted(_limits(root).items())
            if (lines := _lines(path)) > limit]


def test_the_line_count_is_that_of_wc(tmp_path):
    path = tmp_path / "three.py"
    path.write_text("a = 1\n\nb = 2\n")
    assert _lines(path) == 3
    path.write_text("a = 1\nb = 2")  # no newline at the end: wc -l says 1
    assert _lines(path) == 1


def test_the_library_and_the_pages_are_found():
    limits = {path.relative_to(ROOT).as_posix(): limit for path, (limit, _) in _limits(ROOT).items()}
    assert limits["llrcore/__init__.py"] == limits["llrcore/diarization/model.py"] == MAX_MODULE_LINES
    assert limits["app_pages/diarization.py"] == limits["app_pages/home.py"] == MAX_PAGE_LINES
    assert limits["app_pages/_session.py"] == MAX_MODULE_LINES


def test_no_module_or_page_is_over_its_size():
    offenders = oversized(ROOT)
    assert not offenders, "\n".join(["over their size:", *offenders])


def test_every_offender_is_listed_and_nothing_else(tmp_path):
    """A made-up project: a module, a page and a helper one line over their limits, and three files at them."""
    sizes = {"llrcore/big.py": 551, "llrcore/sub/at_limit.py": 550, "app_pages/long_page.py": 401,
             "app_pages/page.py": 400, "app_pages/_helper.py": 551, "app_pages/_short.py": 401}
    for name, lines in sizes.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x = 1\n" * lines)
    found = oversized(tmp_path)
    assert [line.split(":")[0] for line in found] == ["app_pages/_helper.py", "app_pages/long_page.py",
                                                      "llrcore/big.py"]
    assert found[1] == ("app_pages/long_page.py: 401 lines > 400: move computation into llrcore and shared UI into "
                        "app_pages/_*.py (issue 29)")
    assert found[2] == "llrcore/big.py: 551 lines > 550: split it along a seam (issue 29)"
