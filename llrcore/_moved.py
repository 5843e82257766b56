"""Where moved modules and names live now, and the way their old paths keep working for one release with a
:class:`DeprecationWarning` (docs/architecture.md, "Moved modules").

``import llrcore.rates`` (and ``from llrcore.rates import X``) gives the module ``llrcore.binary.rates`` itself,
after a warning that names the new path; ``llrcore.metrics`` as an attribute of the package does the same, and so
does an old module inside a package (``llrcore.calibration.normalization`` is ``llrcore.normalization.norms``).
Three old modules gave their names to the packages that now hold them (``llrcore.calibration``,
``llrcore.spoofing``, ``llrcore.uncertainty``): ``from llrcore.calibration import fit_affine`` is answered by the
package's ``__getattr__`` (:func:`forwarding`), with the same warning. An old module whose names were shared out
among several new ones (``llrcore.words``) is a stand-in module whose every name warns and answers from its new
home. A module split at a seam keeps its path; the names that left it answer there through :func:`left_for`.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import types
import warnings

#: old module (under llrcore) -> its new path (under llrcore)
MOVED = {
    "rates": "binary.rates", "metrics": "binary.metrics", "curves": "binary.curves",
    "histograms": "binary.histograms",
    "rules": "calibration.rules", "calibration": "calibration.fit", "calibrators": "calibration.calibrators",
    "calibration_checks": "calibration.checks", "conditional_calibration": "calibration.conditional",
    "calibration_conditions": "calibration.conditions", "calibration_analysis": "calibration.analysis",
    "folds": "calibration.folds", "weighting": "calibration.weighting", "fusion": "calibration.fusion",
    "newton": "calibration.newton",
    "tdcf": "spoofing.tdcf", "spoofing": "spoofing.tandem", "tandem_bootstrap": "spoofing.tdcf_bootstrap",
    "uncertainty": "uncertainty.resampling", "intervals": "uncertainty.intervals",
    "conditions": "uncertainty.conditions",
    "decisions": "teaching.decisions", "fixed_threshold": "teaching.fixed_threshold", "gaussian": "teaching.gaussian",
    # issue 42: a concept per room
    "export": "plots.export", "_trim": "plots._trim", "calibration.normalization": "normalization.norms",
    "words": "binary.verdict",
}
#: the old modules whose names are now packages' names
BECAME_PACKAGES = ("calibration", "spoofing", "uncertainty")
#: old modules whose names were shared out among more than one new module: the others, searched after MOVED's
SHARED_OUT = {"uncertainty": ("uncertainty.comparison",),
              "calibration": ("calibration.calibrators", "calibration.cmlg", "calibration.pav", "calibration.warm"),
              "words": ("uncertainty.paired_words", "uncertainty.intervals", "report")}
#: modules split at a seam (issue 42): module (under llrcore) -> the new modules that took some of its names
LEFT = {"binary.rates": ("binary.costs", "binary.pav"), "binary.metrics": ("binary.tables",),
        "calibration.fit": ("calibration.cmlg", "calibration.pav", "calibration.warm", "calibration.calibrators"),
        # the modules that define a name before those that import it (SRE12_P_TARGETS: binary.metrics, not .sweep)
        "calibration.analysis": ("calibration.weighting", "binary.metrics", "calibration.folds", "calibration.sweep",
                                 "calibration.problems")}


def _warn(old: str, new: str, stacklevel: int) -> None:
    warnings.warn(f"llrcore.{old} has moved to llrcore.{new}; the old path will be removed in the next release.",
                  DeprecationWarning, stacklevel=stacklevel)


def moved_module(old: str, stacklevel: int = 3):
    """The module once at ``llrcore.<old>``, after a :class:`DeprecationWarning` naming its new path (a module whose
    names were shared out: a stand-in whose every name warns, :func:`forwarding`)."""
    if old in SHARED_OUT and old not in BECAME_PACKAGES:
        module = _stand_in(old)
    else:
        _warn(old, MOVED[old], stacklevel)
        module = importlib.import_module(f"llrcore.{MOVED[old]}")
    # Kept on the package under the old name: ``from llrcore import export`` asks twice, and one warning says it.
    package, _, name = f"llrcore.{old}".rpartition(".")
    sys.modules[package].__dict__[name] = module
    return module


def _stand_in(old: str) -> types.ModuleType:
    """The one module object for ``llrcore.<old>`` that answers each name from its new home, with the warning."""
    if old not in _STAND_INS:
        places = ", ".join(f"llrcore.{place}" for place in (MOVED[old], *SHARED_OUT[old]))
        module = types.ModuleType(f"llrcore.{old}", f"Moved: its names now live in {places} (one release).")
        # a module's __getattr__ (PEP 562) is an attribute of the module object; typeshed declares it a method
        module.__getattr__ = forwarding(old)  # type: ignore[method-assign]
        # the import machinery puts this one in sys.modules; an attribute access of the package finds it here
        _STAND_INS[old] = sys.modules[module.__name__] = module
    return _STAND_INS[old]


_STAND_INS: dict[str, types.ModuleType] = {}


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``llrcore.<old>`` for the moved modules that did not become packages, and loads the new module under
    the old name (the same module object: its classes and functions are the new ones)."""

    def find_spec(self, fullname, path=None, target=None):
        old = fullname.removeprefix("llrcore.")
        if old == fullname or old not in MOVED or old in BECAME_PACKAGES:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        """A throwaway module (the default): :meth:`exec_module` puts the real one in its place."""

    def exec_module(self, module):
        # The import machinery returns whatever sys.modules holds under the name once this returns: the new module
        # itself, so that its classes are the same objects under either path.
        sys.modules[module.__name__] = moved_module(module.__name__.removeprefix("llrcore."), stacklevel=4)


def install() -> None:
    if not any(isinstance(finder, _Alias) for finder in sys.meta_path):
        sys.meta_path.append(_Alias())


def forwarding(package: str):
    """A module ``__getattr__`` for the package ``llrcore.<package>`` that once was a module: a name the old module
    defined is taken from the new one, after the warning (and a module that moved out of the package is found by its
    old name there)."""
    def __getattr__(name: str):
        if f"{package}.{name}" in MOVED:
            return moved_module(f"{package}.{name}", stacklevel=4)
        for place in (MOVED[package], *SHARED_OUT.get(package, ())):
            new = importlib.import_module(f"llrcore.{place}")
            if not name.startswith("__") and name in vars(new):  # not a name a split module forwards itself
                _warn(f"{package}.{name}", f"{place}.{name}", 3)
                # Kept on the package: ``from x import y`` asks twice, and one warning says it.
                value = sys.modules[f"llrcore.{package}"].__dict__[name] = getattr(new, name)
                return value
        raise AttributeError(f"module 'llrcore.{package}' has no attribute {name!r}")
    return __getattr__


def left_for(module: str):
    """A module ``__getattr__`` for ``llrcore.<module>``, split at a seam: a name that left it for one of
    ``LEFT[module]`` is taken from there, after the warning (from the module that defines it, i.e. lists it in its
    ``__all__``, where one does)."""
    def __getattr__(name: str):
        if not name.startswith("_"):
            places = [importlib.import_module(f"llrcore.{place}") for place in LEFT[module]]
            for new in sorted(places, key=lambda new: name not in getattr(new, "__all__", ())):
                if name in vars(new):
                    _warn(f"{module}.{name}", f"{new.__name__.removeprefix('llrcore.')}.{name}", 3)
                    return getattr(new, name)
        raise AttributeError(f"module 'llrcore.{module}' has no attribute {name!r}")
    return __getattr__
