"""The documentation site's sources hold together, checked without building it (a build takes minutes: CI runs
``sphinx-build -W``, .ci/run): every public name has an entry in the API reference, a constant's with the ``#:``
comment that says what it holds, every page of the user guide is in the site's navigation, the command-line reference
comes from the parser, and the gallery has an example per audience that draws llrcore's own figures.

Independent references: ``llrcore.__all__`` and the namespaces' ``__all__`` as Python imports them (docs/apigen.py
reads the groups from the source text of llrcore/__init__.py); Python's ``ast`` for what each example imports and
calls; the files on disk for the pages.
"""
from __future__ import annotations

import ast
import importlib.util
import inspect
import re
from pathlib import Path

import pytest

import llrcore as lc
from paths import ROOT

DOCS = ROOT / "docs"
EXAMPLES = sorted((ROOT / "examples").glob("plot_*.py"))
#: The audiences of issue 43, each with a word its example's title holds.
AUDIENCES = {"speaker verification": "speaker verification", "anti-spoofing": "anti-spoofing",
             "language recognition": "language recognition", "forensic validation": "forensic validation",
             "classifier calibration": "classifier calibration", "diarization": "diarization",
             "teaching": "bayes decisions"}
#: A constant's entry in the generated reference: its name, then the ``#:`` comment found above its assignment.
CONSTANT = re.compile(r"^\.\. py:data:: (\w+)\n   :value: .*\n\n((?:   .*\n)*)", flags=re.M)
#: An entry of the generated reference: ``.. autofunction:: eer``, ``.. py:data:: VERDICTS``, or a namespace's rubric.
ENTRY = re.compile(r"^\.\. (?:autofunction|autoclass|autoexception|py:data|rubric):: (\w+)$", flags=re.M)


@pytest.fixture(scope="module")
def apigen():
    spec = importlib.util.spec_from_file_location("apigen", DOCS / "apigen.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def documented(pages: dict[str, str]) -> dict[str, list[str]]:
    """Page -> the names it has an entry for."""
    return {page: ENTRY.findall(text) for page, text in pages.items()}


def missing_or_twice(pages: dict[str, str], prefix: str) -> list[str]:
    """Names of ``llrcore.__all__`` with no entry on the group pages (not the namespaces'), or with more than one."""
    entries = [name for page, names in documented(pages).items() if not page.startswith(prefix) for name in names]
    return [name for name in lc.__all__ if entries.count(name) != 1]


def test_every_public_name_has_one_entry_in_the_api_reference(apigen):
    assert not missing_or_twice(apigen.pages(), apigen.NAMESPACE_PAGE)


def test_the_check_catches_a_name_left_out(apigen):
    pages = apigen.pages()
    pages["binary-evaluation"] = pages["binary-evaluation"].replace(".. autofunction:: eer\n", "")
    assert missing_or_twice(pages, apigen.NAMESPACE_PAGE) == ["eer"]


@pytest.mark.parametrize("namespace", ["plots", "report", "diarization"])
def test_every_name_of_a_documented_namespace_is_in_the_reference(apigen, namespace):
    """On the namespace's page, or (the same object) among the names of ``llrcore.__all__``."""
    module = getattr(lc, namespace)
    on_page = set(documented(apigen.pages())[apigen.NAMESPACE_PAGE + namespace])
    elsewhere = {name for name in module.__all__ if getattr(lc, name, None) is getattr(module, name)}
    assert set(module.__all__) - elsewhere == on_page


def constants(module, names) -> set[str]:
    """The names that are neither modules, classes nor functions: their entry has no docstring to show."""
    return {name for name in names if not (inspect.ismodule(value := getattr(module, name)) or callable(value))}


def without_comment(pages: dict[str, str]) -> list[str]:
    """Constants whose entry shows only their value."""
    return [name for text in pages.values() for name, comment in CONSTANT.findall(text) if not comment.strip()]


def test_every_constant_in_the_reference_says_what_it_holds(apigen):
    pages = apigen.pages()
    namespaces = [getattr(lc, namespace) for namespace in apigen.NAMESPACES]
    public = set().union(*(constants(module, module.__all__) for module in [lc, *namespaces]))
    assert public <= {name for text in pages.values() for name, _ in CONSTANT.findall(text)}
    assert not without_comment(pages)


def test_the_check_catches_a_constant_without_comment(apigen):
    pages = apigen.pages()
    pages["lc-diarization"] = re.sub(r"(:: TOTAL\n   :value: .*\n\n)(   .*\n)+", r"\1", pages["lc-diarization"])
    assert without_comment(pages) == ["TOTAL"]


def test_the_reference_pages_are_in_its_table_of_contents(apigen):
    pages = apigen.pages()
    listed = re.findall(r"^   (\S+)$", pages["index"], flags=re.M)
    assert listed == [page for page in pages if page != "index"]


def toctree_entries(page: Path) -> set[str]:
    """The documents a page's ``{toctree}`` directives list."""
    blocks = re.findall(r"^:::\{toctree\}\n(.*?)^:::$", page.read_text(encoding="utf-8"), flags=re.S | re.M)
    return {line for block in blocks for line in block.splitlines() if line and not line.startswith(":")}


def test_every_page_is_in_the_sites_navigation():
    """Sphinx warns (an error with -W) about a page no toctree lists; this says which before a build."""
    pages = {page.stem for page in DOCS.glob("*.md")} - {"index"}
    pages |= {f"repository/{page.stem}" for page in (DOCS / "repository").glob("*.md")}
    listed = toctree_entries(DOCS / "index.md")
    assert pages | {"auto_examples/index", "generated/api/index"} == listed


def test_the_command_line_reference_comes_from_the_parser():
    text = (DOCS / "cli-reference.md").read_text(encoding="utf-8")
    directive = re.search(r"^:::\{argparse\}\n(.*?)^:::$", text, flags=re.S | re.M).group(1)
    assert {":module: llrcore.cli", ":func: build_parser", ":prog: llrcore"} <= set(directive.splitlines())
    assert "--p-target" not in text  # no option copied by hand: the parser writes them


def test_the_gallery_has_an_example_per_audience():
    titles = [ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))).splitlines()[0].lower()
              for path in EXAMPLES]
    assert not [audience for audience, word in AUDIENCES.items() if not any(word in title for title in titles)]


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: path.name)
def test_an_example_imports_llrcore_alone_and_shows_its_figures(path):
    """``import llrcore as lc`` (and pathlib, to find the demo data); every figure is one of ``lc.plots``, shown."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imports = {(alias.name, alias.asname) for node in ast.walk(tree) if isinstance(node, ast.Import)
               for alias in node.names}
    imports |= {(node.module, None) for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert imports == {("llrcore", "lc"), ("pathlib", None)}
    shown = [node.func.value for node in ast.walk(tree) if isinstance(node, ast.Call)
             and isinstance(node.func, ast.Attribute) and node.func.attr == "show"]
    assert shown and all(ast.unparse(figure.func).startswith("lc.plots.") for figure in shown)
    assert all(ast.unparse(figure.func).removeprefix("lc.plots.") in lc.plots.__all__ for figure in shown)


def test_the_gallery_draws_at_least_five_figures():
    shows = sum(len(re.findall(r"\)\.show\(\)$", path.read_text(encoding="utf-8"), flags=re.M)) for path in EXAMPLES)
    assert shows >= 5


def test_every_extension_of_the_site_is_in_the_docs_extra():
    """``pip install -e ".[docs]"`` installs what docs/conf.py loads (read with ``ast``: running it writes the pages).

    The extra need not be installed when this runs (CI installs it after the tests): an extension's distribution is
    the installed one that holds its module, else its module's name spelt as a distribution (sphinxarg's differs)."""
    import tomllib
    from importlib.metadata import packages_distributions

    from packaging.utils import canonicalize_name  # PEP 503: "Sphinx", "sphinx_gallery", "sphinx-gallery" are one

    tree = ast.parse((DOCS / "conf.py").read_text(encoding="utf-8"))
    extensions = next(ast.literal_eval(node.value) for node in tree.body if isinstance(node, ast.Assign)
                      and any(getattr(target, "id", "") == "extensions" for target in node.targets))
    installed = packages_distributions()
    spelt = {"sphinxarg": "sphinx-argparse"}
    modules = {name.split(".")[0] for name in extensions}
    needed = {canonicalize_name(installed.get(module, [spelt.get(module, module)])[0]) for module in modules}
    needed |= {"sphinx", "pydata-sphinx-theme"}  # the builder and the theme (html_theme)
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    listed = {canonicalize_name(re.split(r"[<>=\[ ]", requirement)[0]) for requirement in extra["docs"]}
    assert needed <= listed


@pytest.mark.parametrize("name, source", [("VERDICTS", "llrcore/binary/verdict.py"),
                                          ("ASV_SCORE", "llrcore/spoofing/sasv.py")])
def test_a_constant_shows_the_comment_above_its_assignment(apigen, name, source):
    """``#:`` above ``VERDICTS = ...`` and above ``CM_SCORE, ASV_SCORE, CM_LABEL = ...``, found through the imports."""
    lines = (ROOT / source).read_text(encoding="utf-8").splitlines()
    assigned = next(i for i, line in enumerate(lines) if re.match(rf"^(\w+, )*{name}\b.* = ", line))
    assert apigen.doc_comment(lc, name) == [lines[assigned - 1].removeprefix("#: ")]
