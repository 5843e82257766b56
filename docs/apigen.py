"""The API reference's source, written from ``llrcore.__all__`` before Sphinx reads the pages (docs/conf.py).

``llrcore/__init__.py`` groups the names of ``__all__`` under comments (``# binary evaluation``, ...): each group
becomes one page of the reference, each name on it an autodoc entry (numpydoc renders the docstring) under an
autosummary table. The three documented namespaces, ``lc.plots``, ``lc.report`` and ``lc.diarization``, get a page
each from their own ``__all__`` (for ``lc.diarization``, the names ``llrcore`` does not already give). Constants have
no docstring of their own: their entry shows the ``#:`` comment above their assignment in the module that defines
them, and their value.

tests/project/test_docs.py checks, without building the site, that every name of ``llrcore.__all__`` is on a page.
"""
from __future__ import annotations

import ast
import importlib
import inspect
import io
import re
import tokenize
import types
from pathlib import Path

import llrcore

#: The documented namespaces: module name -> the page's title.
NAMESPACES = {"plots": "Figures: lc.plots", "report": "The report's words: lc.report",
              "diarization": "Diarization's settings: lc.diarization"}
#: The file name of a namespace's page starts so (``lc-diarization``: the group ``# diarization`` is ``diarization``).
NAMESPACE_PAGE = "lc-"
#: Where the generated pages go, under docs/.
FOLDER = "generated/api"
#: Longest value shown for a constant (a long tuple is cut with an ellipsis).
VALUE_WIDTH = 100


def all_groups() -> list[tuple[str, list[str]]]:
    """``llrcore.__all__`` as its source groups it: (comment, names) in order."""
    tokens = tokenize.generate_tokens(io.StringIO(Path(llrcore.__file__).read_text(encoding="utf-8")).readline)
    groups: list[tuple[str, list[str]]] = []
    inside = False
    for token in tokens:
        if not inside:
            inside = token.type == tokenize.NAME and token.string == "__all__" and token.start[1] == 0
        elif token.type == tokenize.COMMENT:
            groups.append((token.string.lstrip("# "), []))
        elif token.type == tokenize.STRING:
            groups[-1][1].append(ast.literal_eval(token.string))
        elif token.type == tokenize.OP and token.string == "]":
            break
    return groups


def slug(title: str) -> str:
    """A page's file name from its title: ``binary evaluation`` -> ``binary-evaluation``."""
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


def _statements(body: list[ast.stmt]):
    """A module's statements, those inside its ``if`` blocks too (llrcore's ``if TYPE_CHECKING:`` imports, which the
    package loads on first use)."""
    for node in body:
        yield from _statements(node.body) if isinstance(node, ast.If) else (node,)


def doc_comment(module: types.ModuleType, name: str) -> list[str]:
    """The ``#:`` comment above ``name``'s assignment, found through the ``from ... import`` chain that gives it."""
    source = inspect.getsource(module)
    for node in _statements(ast.parse(source).body):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if (alias.asname or alias.name) == name:
                    origin = importlib.import_module("." * node.level + (node.module or ""), module.__package__)
                    return doc_comment(origin, alias.name)
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        names = [element for target in targets for element in getattr(target, "elts", [target])]  # a, b = ...
        if any(isinstance(target, ast.Name) and target.id == name for target in names):
            above = source.splitlines()[:node.lineno - 1]
            comment = []
            while above and above[-1].startswith("#:"):
                comment.insert(0, above.pop()[2:].strip())
            return comment
    return []


def entry(module: types.ModuleType, name: str) -> str:
    """The reST entry of one name of `module`."""
    value = getattr(module, name)
    if isinstance(value, types.ModuleType):
        return f".. rubric:: {name}\n\nThe namespace ``lc.{name}``: :doc:`{NAMESPACE_PAGE}{name}`.\n"
    if inspect.isclass(value):
        kind = "autoexception" if issubclass(value, BaseException) else "autoclass"
        return f".. {kind}:: {name}\n   :members:\n"
    if callable(value):
        return f".. autofunction:: {name}\n"
    shown = repr(value)
    shown = shown if len(shown) <= VALUE_WIDTH else shown[:VALUE_WIDTH - 3] + "..."
    body = "".join(f"   {line}\n" for line in doc_comment(module, name))
    return f".. py:data:: {name}\n   :value: {shown}\n\n{body}"


def page(title: str, module: types.ModuleType, names: list[str], intro: str = "") -> str:
    """One page: the title, an autosummary table of its functions and classes (a constant's summary there would be
    its type's docstring), then an entry per name."""
    table = "".join(f"   {name}\n" for name in names if inspect.isroutine(getattr(module, name))
                    or inspect.isclass(getattr(module, name)))
    entries = "\n".join(entry(module, name) for name in names)
    return (f"{title}\n{'=' * len(title)}\n\n{intro}.. currentmodule:: {module.__name__}\n\n"
            f".. autosummary::\n\n{table}\n{entries}")


def namespace_names(name: str) -> list[str]:
    """The names a documented namespace adds to ``llrcore.__all__``."""
    module = getattr(llrcore, name)
    return [n for n in module.__all__ if getattr(llrcore, n, None) is not getattr(module, n)]


def pages() -> dict[str, str]:
    """File name (under :data:`FOLDER`) -> reST source, the index first."""
    written = {}
    for title, names in all_groups():
        title = re.split("[;:]", title)[0]  # the group's name, without its list
        written[slug(title)] = page(title.capitalize(), llrcore, names)
    for name, title in NAMESPACES.items():
        module = getattr(llrcore, name)
        intro = f".. automodule:: {module.__name__}\n   :no-members:\n\n"
        written[NAMESPACE_PAGE + name] = page(title, module, namespace_names(name), intro)
    toctree = "".join(f"   {file}\n" for file in written)
    index = ("API reference\n=============\n\nEvery name of ``llrcore.__all__`` (``import llrcore as lc``, then "
             "``lc.<name>``), grouped as the package groups them, and the three documented namespaces. "
             "Module paths inside the package are internal and may move.\n\n"
             f".. toctree::\n   :maxdepth: 1\n\n{toctree}")
    return {"index": index, **written}


def write_api_reference(docs: Path) -> None:
    """Write the pages under ``docs/generated/api`` (rewritten on every build: the folder is not committed)."""
    folder = docs / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in pages().items():
        path = folder / f"{name}.rst"
        if not path.exists() or path.read_text(encoding="utf-8") != text:  # unchanged pages are not re-read
            path.write_text(text, encoding="utf-8")
