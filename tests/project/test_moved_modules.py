"""Old module paths keep working for one release, with a DeprecationWarning that names the new path.

Independent reference: the list of modules that lay at the top of ``llrcore`` before the packages (the issue that
moved them names them), the modules issue 42 moved or shared out (``llrcore.words``'s names as that module listed them
in its ``__all__``), and the new modules found on disk; each old path is imported in a fresh interpreter, as a user's
script would.
"""
from __future__ import annotations

import json
import subprocess
import sys

from llrcore._moved import BECAME_PACKAGES, LEFT, MOVED, SHARED_OUT
from paths import ROOT

LIBRARY = ROOT / "llrcore"
#: The loose modules of llrcore before the packages (issue 29), with _prior_second, which was private.
BEFORE = {"rates", "metrics", "curves", "calibration", "conditional_calibration", "calibration_analysis",
          "calibration_conditions", "folds", "rules", "weighting", "fusion", "tdcf", "spoofing", "tandem_bootstrap",
          "conditions", "uncertainty", "decisions", "fixed_threshold", "histograms", "gaussian", "newton",
          "calibration_checks", "calibrators", "intervals"}
#: Issue 42: a concept per room (figure export into plots/, score normalisation a package, words.py shared out).
REHOMED = {"export": "plots.export", "_trim": "plots._trim", "calibration.normalization": "normalization.norms"}
#: ``llrcore.words.__all__`` before issue 42 shared it out, each name with its new public home.
WORDS = {**dict.fromkeys(["GOOD_LOSS_PERCENT", "USELESS_CLLR", "VERDICTS", "VERDICT_RULE", "LLRVerdict",
                          "calibration_loss_percent", "llr_verdict"], "binary.verdict"),
         **dict.fromkeys(["paired_shares", "paired_verdict"], "uncertainty.paired_words"),
         **dict.fromkeys(["LARGEST_FIXED", "bits", "describe_calibration", "errors_phrase", "escape_markdown",
                          "format_errors", "number", "percent"], "report"),
         "interval_words": "uncertainty.intervals", "INTERVAL_METHODS": "uncertainty.intervals",
         "with_interval": "report", "listed": "report"}


def _run(code: str) -> dict:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    return json.loads(done.stdout.splitlines()[-1])


def test_every_old_module_has_a_new_home_on_disk():
    assert set(MOVED) == BEFORE | set(REHOMED) | {"words"}
    assert REHOMED.items() <= MOVED.items()
    for old, new in MOVED.items():
        assert (LIBRARY / (new.replace(".", "/") + ".py")).is_file(), old
        assert not (LIBRARY / (old.replace(".", "/") + ".py")).exists(), old


def test_importing_an_old_path_gives_the_new_module_with_a_warning():
    flat = sorted(set(MOVED) - set(BECAME_PACKAGES) - set(SHARED_OUT))
    found = _run(f"""
import importlib, json, warnings
out = {{}}
for old in {flat!r}:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = importlib.import_module("llrcore." + old)
    new = importlib.import_module("llrcore." + {dict(MOVED)!r}[old])
    out[old] = [module is new, [str(w.message) for w in caught if w.category is DeprecationWarning]]
print(json.dumps(out))
""")
    for old in flat:
        same, messages = found[old]
        assert same, old
        assert messages == [f"llrcore.{old} has moved to llrcore.{MOVED[old]}; the old path will be removed in the "
                            "next release."], old


#: Names of modules that became packages, each with the module that now holds it.
FROM_PACKAGES = [("calibration", "fit_affine", "calibration.fit"), ("calibration", "fit_cmlg", "calibration.cmlg"),
                 ("calibration", "PAVCalibrator", "calibration.calibrators"),
                 ("spoofing", "evaluate_tandem", "spoofing.tandem"),
                 ("uncertainty", "bootstrap", "uncertainty.resampling"),
                 ("uncertainty", "compare_systems", "uncertainty.comparison")]


def test_a_name_of_a_module_that_became_a_package_still_answers():
    """Each name imported from its old module (now a package) in one fresh interpreter, one after the other: a
    package's first import and its later ones."""
    found = _run(f"""
import importlib, json, warnings
out = []
for package, name, place in {FROM_PACKAGES!r}:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(f"from llrcore.{{package}} import {{name}} as old")
    new = getattr(importlib.import_module("llrcore." + place), name)
    out.append([old is new, [str(w.message) for w in caught if w.category is DeprecationWarning],
                [w.filename for w in caught]])
print(json.dumps(out))
""")
    for (package, name, place), (same, messages, files) in zip(FROM_PACKAGES, found, strict=True):
        assert same, name
        assert messages == [f"llrcore.{package}.{name} has moved to llrcore.{place}.{name}; the old path will "
                            "be removed in the next release."], name
        assert files == ["<string>"], f"{name}: the warning points at the user's line"


def test_every_name_of_a_shared_out_module_answers_from_its_new_home():
    """``from llrcore.words import number`` is ``llrcore.report.number``, after one warning that names it."""
    found = _run(f"""
import importlib, json, warnings
out = {{}}
for name, place in {WORDS!r}.items():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(f"from llrcore.words import {{name}} as old")
    new = getattr(importlib.import_module("llrcore." + place), name)
    out[name] = [old is new, [str(w.message) for w in caught if w.category is DeprecationWarning]]
print(json.dumps(out))
""")
    for name, place in WORDS.items():
        same, messages = found[name]
        assert same, name
        assert messages == [f"llrcore.words.{name} has moved to llrcore.{place}.{name}; the old path will be removed "
                            "in the next release."], name


def test_a_moved_module_of_a_package_answers_as_an_attribute_and_in_from_imports():
    found = _run("""
import json, warnings
import llrcore as lc
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    from llrcore.calibration import normalization
    from llrcore import export
    attribute = lc.calibration.normalization
print(json.dumps([normalization is attribute is lc.normalization.norms, export is lc.plots.export,
                  [str(w.message) for w in caught], [w.filename for w in caught]]))
""")
    same, export, messages, files = found
    assert same and export
    assert messages == ["llrcore.calibration.normalization has moved to llrcore.normalization.norms; the old path "
                        "will be removed in the next release.",
                        "llrcore.export has moved to llrcore.plots.export; the old path will be removed in the next "
                        "release."]
    assert files == ["<string>", "<string>"], "one warning per old path, pointing at the user's line"


def test_a_name_that_left_a_split_module_still_answers_there():
    """A module split at a seam (issue 42) keeps its path; every public name of the modules that took part of it
    answers there too: as before when the module still imports it, else after a warning that names its new home."""
    found = _run(f"""
import importlib, json, warnings
out = {{}}
for module, places in {dict(sorted(LEFT.items()))!r}.items():
    old = importlib.import_module("llrcore." + module)
    for place in places:
        new = importlib.import_module("llrcore." + place)
        for name in new.__all__:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                value = getattr(old, name)
            out.setdefault(module, {{}})[name] = [place, value is getattr(new, name), name in vars(old),
                                                 [str(w.message) for w in caught if w.category is DeprecationWarning]]
print(json.dumps(out))
""")
    assert found.keys() == LEFT.keys()
    for module, names in found.items():
        assert names, module
        for name, (place, same, imported, messages) in names.items():
            assert same, (module, name)
            moved = f"llrcore.{module}.{name} has moved to llrcore.{place}.{name}; the old path will be removed in " \
                    "the next release."
            assert messages == ([] if imported else [moved]), (module, name)


def test_an_old_module_as_an_attribute_of_the_package():
    found = _run("""
import json, warnings
import llrcore as lc
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    columns = lc.metrics.SRE12_P_TARGETS
print(json.dumps([columns == lc.binary.metrics.SRE12_P_TARGETS, [w.filename for w in caught]]))
""")
    assert found == [True, ["<string>"]]


def test_importing_llrcore_warns_nothing():
    found = _run("""
import json, warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import llrcore, llrcore.cli, llrcore.report
print(json.dumps([str(w.message) for w in caught if w.category is DeprecationWarning]))
""")
    assert found == []
