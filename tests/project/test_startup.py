"""Start-up: ``import llrcore`` and the command line's parser import no analysis (issue 45, ``llrcore --help`` <= 0.5 s).

Nothing is timed (times belong to bench/RESULTS.md, "Start-up"): the reference is the interpreter's own record of what
a fresh process imported (``sys.modules``), and the package's source itself (its ``TYPE_CHECKING`` imports, which
type checkers read, against the table the package loads names from at run time).
"""
from __future__ import annotations

import ast
import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import llrcore as lc

ROOT = Path(__file__).resolve().parents[2]
#: What start-up must not pay for: the array, table, science and figure libraries (and DuckDB's reader).
HEAVY = ("numpy", "pandas", "pyarrow", "scipy", "plotly", "duckdb")


def imported_after(code: str) -> list[str]:
    """The modules a fresh interpreter holds after running `code` (this checkout's llrcore first on the path)."""
    script = f"import sys\n{code}\nimport json\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    return json.loads(done.stdout.splitlines()[-1])


def test_import_llrcore_imports_no_analysis_library():
    modules = imported_after("import llrcore")
    assert [m for m in HEAVY if m in modules] == []
    assert [m for m in modules if m.startswith("llrcore.")] == ["llrcore._moved", "llrcore._version"]


def test_the_command_lines_parser_imports_no_analysis():
    modules = imported_after("import llrcore.cli\nllrcore.cli.build_parser()")
    assert [m for m in HEAVY if m in modules] == []
    outside = [m for m in modules if m.startswith("llrcore.") and not m.startswith("llrcore.cli")]
    assert outside == ["llrcore._choices", "llrcore._moved", "llrcore._version"]


def test_a_name_used_imports_its_module_only():
    modules = imported_after("import llrcore\nllrcore.OperatingPoint")
    assert "llrcore.prior" in modules and "plotly" not in modules and "llrcore.binary" not in modules


def _type_checking_imports() -> dict[str, tuple[str, str]]:
    """public name -> (module, its name there) of the ``if TYPE_CHECKING:`` imports of llrcore/__init__.py."""
    tree = ast.parse((ROOT / "llrcore" / "__init__.py").read_text(encoding="utf-8"))
    block = next(node for node in tree.body if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING")
    return {alias.asname or alias.name: (f".{node.module}", alias.name)
            for node in block.body if isinstance(node, ast.ImportFrom) and node.module
            for alias in node.names}


def test_the_table_of_names_is_what_type_checkers_read():
    assert _type_checking_imports() == lc._WHERE


@pytest.mark.parametrize("name", lc.__all__)
def test_every_public_name_is_its_modules_object(name):
    value = getattr(lc, name)
    assert name in dir(lc)
    if name in lc._WHERE:
        module, attribute = lc._WHERE[name]
        assert value is getattr(importlib.import_module(module, "llrcore"), attribute)
    else:  # a documented namespace, or read_counts (made of two layers' functions)
        assert name in ("plots", "report", "diarization", "read_counts")


@pytest.mark.parametrize("name", lc._SUBMODULES)
def test_the_packages_are_attributes_as_before(name):
    assert getattr(lc, name) is importlib.import_module(f"llrcore.{name}")


def test_a_missing_name_is_an_attribute_error():
    assert not hasattr(lc, "no_such_name")
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        lc.no_such_name  # noqa: B018 - the attribute access is the test


def test_the_command_lines_own_choices_are_the_librarys():
    """--cost-model and --teer-convention take their choices from the words the command prints for each."""
    from llrcore.cli import sasv
    from llrcore.diarization.cluster import OWN_FIT
    from llrcore.spoofing.adcf import A_DCF_PRESETS

    assert tuple(sasv.PRESETS) == tuple(A_DCF_PRESETS)
    assert tuple(sasv.TEER_WORDS) == lc.TEER_CONVENTIONS
    assert OWN_FIT == "recording"  # the first choice of `llrcore diarize --prior`
