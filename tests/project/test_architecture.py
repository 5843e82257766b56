"""The shape of the house, held against the code: which module may import which.

Independent reference: the import statements themselves, read with Python's ``ast`` from the source files (imports
inside functions included), never by importing the modules. The rules (docs/architecture.md):

- no two modules of ``llrcore`` import each other, directly or round a circle (a package's ``__init__`` counts as a
  module, and importing a module of a package runs it, so a package that re-exports a module that imports the
  package back is a circle too);
- the data layer (``llrcore/data/``) and ``llrcore/prior.py`` import nothing of llrcore above them;
- the packages stand in layers (:data:`LAYERS`, docs/architecture.md): a module imports only modules of its own
  package and of the layers below it, never a package beside it on its own layer nor one above;
- the top of ``llrcore/`` holds packages and at most 10 public modules;
- figures never compute (``llrcore/plots/``): from the engines (:data:`ENGINES`: sorting and PAV, fits, resampling,
  clustering) they import result types only, never a function;
- a reader (``llrcore/io/``) imports only readers, the data layer, the prior module and ``llrcore/parallel.py`` (how
  much memory it may take): never an analysis;
- no analysis imports a reader: only ``llrcore/__init__.py`` (which gathers the public API) and the command line
  (``llrcore/cli/``, a front end) do;
- ``llrcore`` never imports Streamlit;
- no page of the app (``app_pages/*.py`` not starting with ``_``) imports another page;
- the app (``app.py``, ``app_pages/``) reaches the library only as ``import llrcore as lc``, and through ``lc`` only the
  public names and the documented namespaces (:data:`NAMESPACES`: ``lc.plots``, ``lc.report``, ``lc.diarization``),
  never an inner module (``from llrcore.words import number``, ``lc.binary.metrics.METRIC_COLUMNS``), imports inside
  functions included;
- the app keeps its state through one module: only ``app_pages/_state.py`` touches ``st.session_state`` (the others
  use its typed keys) or calls ``st.cache_resource``/``st.cache_data`` (the others use its one caching policy);
- there is no top-level ``pages/`` folder: Streamlit switches to its legacy multipage mode when one exists (even one
  holding only a README), and then a shared link such as ``/evaluate`` shows "Page not found" on a fresh server;
- no two test modules share a file name, and the test folders are not packages: pytest imports each module by its
  file name alone (a folder ``tests/io/`` as a package would be imported as ``io``, the standard library's), so a
  second ``test_x.py`` anywhere under ``tests/`` stops the collection; only ``tests/reference/`` is a package;
- every test module lies in a folder of ``tests/`` named after what it tests, none loose at the top.
"""
from __future__ import annotations

import ast
import functools
from collections import Counter
from pathlib import Path
from paths import ROOT

LIBRARY = ROOT / "llrcore"
PAGES = ROOT / "app_pages"
#: The packages the app may reach into (``lc.plots.det_figure``): documented namespaces, each with its ``__all__``.
NAMESPACES = ("llrcore.plots", "llrcore.report", "llrcore.diarization")
#: The modules the data objects stand on; the deprecation path of old spellings is one (the data objects use it), the
#: named choices another (the prior takes its NIST presets from there).
FOUNDATION = ("llrcore.data", "llrcore.prior", "llrcore._deprecation", "llrcore._choices")
#: The packages from the bottom up; each imports only from its own package and from the layers below.
LAYERS = (
    ("llrcore.data", "llrcore.prior", "llrcore.parallel", "llrcore.memory", "llrcore._format", "llrcore._version",
     "llrcore._moved", "llrcore._deprecation", "llrcore._choices"),
    ("llrcore.io", "llrcore.binary", "llrcore.normalization"),
    ("llrcore.uncertainty", "llrcore.scale"),
    ("llrcore.calibration",),
    ("llrcore.spoofing", "llrcore.multiclass", "llrcore.forensic", "llrcore.teaching", "llrcore.diarization"),
    ("llrcore.plots",),
    ("llrcore.report",),
    ("llrcore.cli",),
)
#: The modules that compute (sort, PAV, fit, resample, cluster): a figure takes their results, never calls them.
ENGINES = ("llrcore.binary.rates", "llrcore.binary.merge", "llrcore.binary.pav", "llrcore.binary.costs",
           "llrcore.binary.metrics", "llrcore.calibration.fit", "llrcore.calibration.newton",
           "llrcore.calibration.fusion", "llrcore.calibration.folds", "llrcore.calibration.analysis",
           "llrcore.calibration.fit_objective", "llrcore.calibration.cmlg", "llrcore.calibration.pav",
           "llrcore.calibration.warm", "llrcore.calibration.sweep",
           "llrcore.uncertainty.resampling", "llrcore.uncertainty.draws", "llrcore.spoofing.tdcf_bootstrap", "llrcore.diarization.model",
           "llrcore.diarization.cluster", "llrcore.diarization.chain", "llrcore.diarization.variational")


def _front_end(module: str) -> bool:
    return module == "llrcore" or _within(module, "llrcore.cli")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules(folder: Path) -> dict[str, Path]:
    return {module_name(path): path for path in sorted(folder.rglob("*.py"))}


LIBRARY_MODULES = _modules(LIBRARY)


def _resolve(module: str, path: Path, node: ast.ImportFrom) -> str:
    """The absolute name of a relative ``from . import`` in `module` (defined in `path`)."""
    if node.level == 0:
        return node.module or ""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    base = package[: len(package) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def _run_nodes(tree: ast.AST):
    """Every node of `tree` but those under ``if TYPE_CHECKING:`` (imports for type hints only, never run)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            yield from (inner for child in node.orelse for inner in [child, *_run_nodes(child)])
            continue
        yield node
        yield from _run_nodes(node)


def imports(module: str, path: Path) -> set[str]:
    """Every module `module` imports when it runs (``from x import y`` counts as x.y when x.y is a module, else x;
    imports under ``if TYPE_CHECKING:`` are for type hints and do not count)."""
    found = set()
    for node in _run_nodes(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            source = _resolve(module, path, node)
            for alias in node.names:
                candidate = f"{source}.{alias.name}"
                found.add(candidate if candidate in LIBRARY_MODULES else source)
    return found


@functools.cache  # parsing every module takes seconds: the five tests that read the graph parse once
def library_graph() -> dict[str, set[str]]:
    """module -> the llrcore modules it imports. Importing ``llrcore.pkg.mod`` runs ``llrcore/pkg/__init__.py`` first,
    so from outside the package that is an import of the package's face too (the root package, which gathers the
    whole API, is left out: every module is below it)."""
    graph = {}
    for module, path in LIBRARY_MODULES.items():
        imported = {name for name in imports(module, path) if name in LIBRARY_MODULES}
        faces = {name.rsplit(".", 1)[0] for name in imported if name.count(".") >= 2}
        graph[module] = imported | {face for face in faces if face in LIBRARY_MODULES and not _within(module, face)}
    return graph


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every circle a depth-first walk of `graph` meets, each as the list of modules round it."""
    found, state = [], {}

    def visit(module, trail):
        state[module] = "open"
        for imported in sorted(graph.get(module, ())):
            if state.get(imported) == "open":
                found.append(trail[trail.index(imported):] + [imported])
            elif imported not in state:
                visit(imported, trail + [imported])
        state[module] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    return found


def readers_importing_analyses(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    # parallel.py and memory.py are foundations too, though not data ones: a reader may sort on every core and ask how
    # much memory it may take
    allowed = ("llrcore.io", "llrcore.parallel", "llrcore.memory", *FOUNDATION)
    bad = {module: {name for name in imported if not any(_within(name, base) for base in allowed)}
           for module, imported in graph.items() if _within(module, "llrcore.io")}
    return {module: names for module, names in bad.items() if names}


def analyses_importing_readers(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    bad = {module: {name for name in imported if _within(name, "llrcore.io")}
           for module, imported in graph.items() if not _front_end(module) and not _within(module, "llrcore.io")}
    return {module: names for module, names in bad.items() if names}


def test_the_library_has_no_circle():
    assert circles(library_graph()) == []


def test_the_data_layer_and_the_prior_stand_on_nothing_above_them():
    for module, imported in library_graph().items():
        if any(_within(module, base) for base in FOUNDATION):
            above = {name for name in imported if not any(_within(name, base) for base in FOUNDATION)}
            # a Trials imports the sorted-score machinery when first asked for it: its one way up
            allowed = {"llrcore.binary", "llrcore.binary.rates"} if module == "llrcore.data.trials" else set()
            assert above <= allowed, (module, above)


def layer_of(module: str) -> tuple[int, str] | None:
    """(layer, package) of `module` in :data:`LAYERS`; None for the root package, which gathers the public API."""
    for number, packages in enumerate(LAYERS):
        for package in packages:
            if _within(module, package):
                return number, package
    return None


def imports_across_layers(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The imports of each module that reach a package above its own layer or beside it on that layer."""
    bad = {}
    for module, imported in graph.items():
        if (own := layer_of(module)) is None:
            continue
        for name in imported:
            other = layer_of(name)
            if other is None or other[0] > own[0] or (other[0] == own[0] and other[1] != own[1] and own[0] > 0):
                bad.setdefault(module, set()).add(name)
    return bad


def engine_functions_in_figures() -> dict[str, set[str]]:
    """The names that ``llrcore/plots/`` imports from :data:`ENGINES` and that are not classes."""
    bad = {}
    for module, path in LIBRARY_MODULES.items():
        if not _within(module, "llrcore.plots"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and _resolve(module, path, node) in ENGINES:
                names = {alias.name for alias in node.names if not alias.name[:1].isupper()}
                bad.setdefault(module, set()).update(names)
    return {module: names for module, names in bad.items() if names}


def test_the_top_of_the_library_reads_as_a_table_of_contents():
    """Issue 29: a package per concept, at most 10 public modules loose at the top of llrcore (private ones aside)."""
    loose = sorted(path.stem for path in LIBRARY.glob("*.py") if not path.stem.startswith("_"))
    assert len(loose) <= 10, loose
    assert all((LIBRARY / package / "__init__.py").is_file() for package in ("binary", "calibration", "uncertainty",
                                                                              "spoofing", "teaching"))


def test_every_package_has_a_layer():
    tops = {".".join(module.split(".")[:2]) for module in LIBRARY_MODULES if module != "llrcore"}
    assert {top for top in tops if layer_of(top) is None} == set()


def test_imports_flow_down_the_layers():
    graph = dict(library_graph())  # the graph is shared by the tests: change a copy
    # a Trials imports the sorted-score machinery when first asked for it: the data layer's one way up
    graph["llrcore.data.trials"] = graph["llrcore.data.trials"] - {"llrcore.binary", "llrcore.binary.rates"}
    assert imports_across_layers(graph) == {}


def test_figures_never_compute():
    assert engine_functions_in_figures() == {}


def test_readers_import_no_analysis():
    assert readers_importing_analyses(library_graph()) == {}


def test_no_analysis_imports_a_reader():
    assert analyses_importing_readers(library_graph()) == {}


def test_the_library_never_imports_streamlit():
    for module, path in LIBRARY_MODULES.items():
        assert not any(_within(name, "streamlit") for name in imports(module, path)), module


def test_no_page_imports_another_page():
    pages = {module_name(path) for path in PAGES.glob("*.py") if not path.name.startswith("_")}
    assert pages, "the app's pages are in app_pages/"
    for path in sorted(PAGES.glob("*.py")):
        bad = {name for name in imports(module_name(path), path) if name in pages}
        assert not bad, (path.name, bad)


def _dotted(node: ast.AST) -> str | None:
    """``lc.plots.det_figure`` for the attribute chain `node`, None when it does not start at a name."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return ".".join([node.id, *reversed(parts)]) if isinstance(node, ast.Name) else None


def inner_uses(source: str) -> list[str]:
    """What `source` (an app page) reaches of llrcore other than ``import llrcore as lc``, its public names and the
    documented :data:`NAMESPACES`: imports of llrcore's modules (anywhere, in functions too) and ``lc.<module>`` chains
    that go through an inner module."""
    found, nodes = [], list(ast.walk(ast.parse(source)))
    inner_links = {id(node.value) for node in nodes if isinstance(node, ast.Attribute)}  # lc.a of lc.a.b
    for node in nodes:
        if isinstance(node, ast.Import):
            found += [f"import {alias.name}" for alias in node.names
                      if _within(alias.name, "llrcore") and (alias.name, alias.asname) != ("llrcore", "lc")]
        elif isinstance(node, ast.ImportFrom) and _within(node.module or "", "llrcore"):
            found.append(f"from {node.module} import {', '.join(alias.name for alias in node.names)}")
        elif isinstance(node, ast.Attribute) and id(node) not in inner_links:
            chain = _dotted(node) or ""
            names = ["llrcore", *chain.split(".")[1:]] if chain.startswith("lc.") else []
            modules = [module for i in range(2, len(names) + 1) if (module := ".".join(names[:i])) in LIBRARY_MODULES]
            if modules and modules[-1] not in NAMESPACES:
                found.append(chain)
    return found


def _app_files() -> list[Path]:
    return [ROOT / "app.py", *sorted(PAGES.glob("*.py"))]


def test_pages_import_only_llrcore():
    bad = {path.name: uses for path in _app_files() if (uses := inner_uses(path.read_text(encoding="utf-8")))}
    assert bad == {}


def state_uses(source: str) -> list[str]:
    """The places `source` reaches Streamlit's session state or caches itself (``st.session_state``,
    ``st.cache_resource``, ``st.cache_data``), as the attribute chains written."""
    uses = ("session_state", "cache_resource", "cache_data")
    return [_dotted(node) for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Attribute) and node.attr in uses and _dotted(node)]


def test_the_app_keeps_its_state_in_one_module():
    bad = {path.name: uses for path in _app_files()
           if path.name != "_state.py" and (uses := state_uses(path.read_text(encoding="utf-8")))}
    assert bad == {}


def test_the_state_check_finds_raw_keys_and_own_caches():
    source = """
import streamlit as st


@st.cache_resource(max_entries=4)
def load(): ...


def page():
    st.session_state["op"] = 1
    return st.cache_data, "st.session_state in words is no use"
"""
    assert state_uses(source) == ["st.cache_resource", "st.session_state", "st.cache_data"]


def test_the_page_check_finds_inner_modules():
    """Every way a page could reach past the public face: the check must name each."""
    source = """
import llrcore as lc
import llrcore.plots
from llrcore import plots
from llrcore.words import number


def draw():
    from llrcore.plots._units import llr_unit
    return lc.binary.metrics.METRIC_COLUMNS, lc.plots.reliability.corp_figure, lc.plots.det_figure, lc.eer
"""
    assert sorted(inner_uses(source)) == sorted([
        "import llrcore.plots", "from llrcore import plots", "from llrcore.words import number",
        "from llrcore.plots._units import llr_unit", "lc.binary.metrics.METRIC_COLUMNS",
        "lc.plots.reliability.corp_figure"])


def test_there_is_no_top_level_pages_folder():
    assert not (ROOT / "pages").exists(), "a top-level pages/ folder switches Streamlit to its legacy multipage mode"


def test_no_two_test_modules_share_a_name():
    names = Counter(path.name for path in (ROOT / "tests").rglob("test_*.py"))
    assert [name for name, count in names.items() if count > 1] == []
    packages = [path.parent.relative_to(ROOT).as_posix() for path in (ROOT / "tests").rglob("__init__.py")]
    assert packages == ["tests/reference"]


def test_test_modules_lie_in_folders():
    assert sorted(path.name for path in (ROOT / "tests").glob("test_*.py")) == []


def test_the_checks_find_what_they_guard_against():
    """On made-up graphs: a circle through a package's face, a reader importing an analysis and the reverse."""
    hidden = {"llrcore.io.d": {"llrcore.diarization.matrix"}, "llrcore.diarization": {"llrcore.io.d"},
              "llrcore.diarization.matrix": {"llrcore.diarization"}}
    assert circles(hidden) == [["llrcore.diarization", "llrcore.io.d", "llrcore.diarization.matrix",
                                "llrcore.diarization"]]
    assert readers_importing_analyses(hidden) == {"llrcore.io.d": {"llrcore.diarization.matrix"}}
    assert analyses_importing_readers(hidden) == {"llrcore.diarization": {"llrcore.io.d"}}
    clean = {"llrcore.io.d": {"llrcore.data.similarity"}, "llrcore": {"llrcore.io.d", "llrcore.binary.metrics"}}
    assert circles(clean) == [] and readers_importing_analyses(clean) == analyses_importing_readers(clean) == {}
