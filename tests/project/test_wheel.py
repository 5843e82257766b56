"""The wheel holds what ``llrcore app`` and ``llrcore demo`` need, laid out as in the repository, and nothing of the
tests: built once from a copy of the repository (``pip wheel --no-deps``, setuptools from the index or pip's cache, as
``python -m build`` gets it), its file list compared with the repository's folders.

Independent references: the repository's own files (``app.py``, every page of ``app_pages/_pages.py``, every file of
``assets/``, every module of ``llrcore/``), listed here by walking the folders, not by reading pyproject.toml.
Installing the wheel in a fresh venv and serving the app is ``tools/check_wheel.py``'s (CI, ``.ci/run``).
"""
import shutil
import subprocess
import sys
import zipfile

import pytest

import llrcore as lc
from app_pages._pages import PAGES
from paths import ROOT

WORKBENCH = "llrcore_workbench"
#: what is not part of a build: the repository's history, earlier builds, caches
NOT_SOURCES = shutil.ignore_patterns(".git", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache",
                                     ".hypothesis", ".venv", "screenshots")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """The wheel's path, built from a copy: setuptools writes build/ into the folder it builds, and the other tests
    read the repository's folders."""
    source, out = tmp_path_factory.mktemp("source") / "repository", tmp_path_factory.mktemp("wheel")
    shutil.copytree(ROOT, source, ignore=NOT_SOURCES)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--wheel-dir", str(out),
                    str(source)], check=True, capture_output=True)
    (built,) = out.glob("*.whl")
    return built


@pytest.fixture(scope="module")
def names(wheel) -> set[str]:
    with zipfile.ZipFile(wheel) as archive:
        return set(archive.namelist())


def test_the_wheel_is_named_with_the_version_of_llrcore(wheel):
    assert wheel.name == f"llrcore_workbench-{lc.__version__}-py3-none-any.whl"


def test_the_wheel_holds_the_app_every_page_and_the_server_settings(names):
    assert {f"{WORKBENCH}/app.py", f"{WORKBENCH}/.streamlit/config.toml"} <= names
    assert {f"{WORKBENCH}/{spec.path}" for spec in PAGES} <= names
    assert {f"{WORKBENCH}/app_pages/{path.name}" for path in (ROOT / "app_pages").glob("*.py")} <= names


def test_the_wheel_holds_every_demo_file_with_its_source(names):
    assets = {f"{WORKBENCH}/{path.relative_to(ROOT)}" for path in (ROOT / "assets").rglob("*") if path.is_file()}
    assert assets <= names
    assert f"{WORKBENCH}/assets/asvspoof2019_la/SOURCE.txt" in names  # the licence travels with the data


def test_the_wheel_holds_every_module_of_llrcore(names):
    """pyproject.toml lists the packages by hand: a new subpackage must be added there."""
    modules = {str(path.relative_to(ROOT)) for path in (ROOT / "llrcore").rglob("*.py")}
    assert modules <= names
    assert "llrcore/report/report.css" in names


def test_the_wheel_holds_nothing_else(names):
    tops = {name.split("/")[0] for name in names}
    assert tops == {"llrcore", WORKBENCH, f"llrcore_workbench-{lc.__version__}.dist-info"}
    assert not [name for name in names if "/tests/" in name or name.startswith(f"{WORKBENCH}/tests")]
    assert not [name for name in names if name.startswith(f"{WORKBENCH}/pages/")]  # never a pages/ folder
