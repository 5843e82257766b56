"""Session state shared by every page: the loaded systems, the demo data, cached parsing of uploads.

``st.session_state["systems"]`` is the single source of truth, an ordered dict::

    name -> {"trials": llrcore.Trials, "role": "evaluation" | "development", "source": str,
             "id": str, "summary": dict}

``id`` never changes (widget keys use it), the name can be edited, ``summary`` is computed once when the system is
added. The ``Trials`` objects are the ones returned by the cached loaders (``st.cache_resource``): they are never
copied, so ``trials.sorted`` (one sort, one PAV) is computed once and serves every operating point and figure.

Pages only call the functions below; nothing else touches ``st.session_state["systems"]``.
"""
from __future__ import annotations

import itertools
import logging
import uuid
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

import llrcore as lc

ROOT = Path(__file__).resolve().parents[1]
ASSETS = ROOT / "assets"
ROLES = ("evaluation", "development")
ROLE_HELP = "Development sets train calibration; evaluation sets are only scored."


def count_columns(*names: str) -> dict:
    """Column formats for trial counts (thousands separators), for st.dataframe's column_config."""
    return {name: st.column_config.NumberColumn(format="localized") for name in names}


#: The "as LLRs" column of every table of systems: the library's one verdict, its rule in the help.
VERDICT_COLUMN = st.column_config.TextColumn(
    help=f"Can the scores be used as likelihood ratios as they are? {lc.VERDICT_RULE.capitalize()}.")

log = logging.getLogger(__name__)


# ----- the pages of the workbench ----------------------------------------------------------------------------------
# app.py builds st.navigation from this list and Home links to every entry, so a new page is one line here.


@dataclass(frozen=True)
class PageSpec:
    path: str  # relative to the repository root
    title: str
    icon: str
    section: str
    blurb: str
    default: bool = False


PAGES = [
    PageSpec("app_pages/home.py", "Home", ":material/home:", "Workbench",
             "What the workbench is for and what is loaded.", default=True),
    PageSpec("app_pages/data.py", "Data", ":material/upload_file:", "Workbench",
             "Upload score files or pick demo sets; name them and mark them for development or evaluation."),
    PageSpec("app_pages/evaluate.py", "Evaluate", ":material/query_stats:", "Workbench",
             "EER, minDCF, actDCF, Cllr and Cprimary at an operating point; DET, APE and Bayes error plots."),
    PageSpec("app_pages/calibrate.py", "Calibrate", ":material/tune:", "Calibration",
             "Train affine (any proper scoring rule), CMLG or PAV calibration on development trials; judge it on "
             "evaluation trials or by cross-validation."),
    PageSpec("app_pages/compare_rules.py", "Compare rules", ":material/compare_arrows:", "Calibration",
             "Sweep the prior weighting for several scoring rules and see which gives the lowest evaluation Cprimary."),
    PageSpec("app_pages/bayes_decisions.py", "Bayes decisions", ":material/gavel:", "Teaching",
             "Out of 100 trials, how many errors? Prior and cost sliders, the Bayes threshold, the trapezium bound, "
             "and what a fixed false-alarm threshold costs."),
    PageSpec("app_pages/gaussian_explorer.py", "Gaussian explorer", ":material/area_chart:", "Teaching",
             "Calibrated Gaussian LLRs: EER, d', Cllr and the straight DET from one number; your scores against "
             "the ideal after CMLG."),
    PageSpec("app_pages/report.py", "Report", ":material/summarize:", "Share",
             "A one-file HTML report for non-specialists: errors out of 100, can the scores be trusted, figures."),
    PageSpec("app_pages/multiclass.py", "Multiclass", ":material/category:", "Multiclass",
             "Language-recognition style LLR vectors: multiclass Cllr, the α·λ + γ calibration, pair-wise and "
             "detection analyses, confusion matrix at any prior."),
    PageSpec("app_pages/diarization.py", "Diarization", ":material/record_voice_over:", "Diarization",
             "Who spoke when from a similarity matrix: Bayesian block model with a CRP prior vs AHC and "
             "spectral; DER."),
]

# ----- demo data ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DemoSet:
    name: str
    role: str
    path: Path
    about: str


DEMO_SETS = [
    DemoSet("ASVspoof19 LA ASV (dev)", "development",
            ASSETS / "asvspoof2019_la" / "ASVspoof2019.LA.asv.dev.gi.trl.scores.txt",
            "ASVspoof 2019 LA organisers' speaker-verification scores, development part; spoofing attacks are "
            "kept apart from the non-targets."),
    DemoSet("ASVspoof19 LA ASV (eval)", "evaluation",
            ASSETS / "asvspoof2019_la" / "ASVspoof2019.LA.asv.eval.gi.trl.scores.txt",
            "The same system on the ASVspoof 2019 LA evaluation part."),
    DemoSet("FVC-AUS DCA-PLDA", "evaluation",
            ASSETS / "fvcaus_plda" / "fvcaus_plda.npz",
            "DCA-PLDA log posterior ratios on forensic voice comparison trials (Australian English): "
            "excellent discrimination, strongly miscalibrated."),
]


@st.cache_resource(show_spinner=False)
def load_demo(path: str, name: str) -> lc.Trials:
    """Read a demo set once per server (shared by all sessions; read-only) and pre-compute its sort and PAV."""
    trials = lc.read_trials(path, name=name)
    trials.sorted.pav  # noqa: B018 - warm the cache: the first Evaluate visit is then instant
    return trials


# ----- uploads -----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Parsed:
    """The outcome of reading one uploaded file: systems (name -> Trials) or a sentence for the user.

    ``needs_key`` marks a Kaldi/BOSARIS score file ``model test score`` read without its key: the page asks for that
    file's key. ``warnings`` are sentences about trials left out (a key covering part of the score file), to show
    beside the success.
    """

    systems: dict | None = None
    error: str | None = None
    needs_key: bool = False
    warnings: tuple[str, ...] = ()


def _user_message(name: str, err: Exception) -> str:
    """The sentence a user sees for an exception raised while reading the file `name` (call it in ``except``)."""
    if isinstance(err, lc.LoadError):  # already a sentence naming the file and the line
        return str(err)
    if isinstance(err, ValueError):  # a validation error (e.g. no target trials) may not name the file yet
        message = str(err)
        return message if name in message else f"{name}: {message}"
    log.exception("unexpected error reading %s", name)  # never a traceback for a user's file
    return f"{name} could not be read ({type(err).__name__}: {err})."


def read_user_file(name: str, read):
    """``(read(), None)``, or ``(None, a sentence naming the file)`` whatever goes wrong: never a traceback."""
    try:
        return read(), None
    except Exception as err:
        return None, _user_message(name, err)


def read_upload(upload, key_upload=None) -> Parsed:
    """Read a score file (with its key file, for a Kaldi/BOSARIS score file ``model test score``) into systems.

    The LoadWarnings of the reader (trials in only one of the two files) are collected through ``on_warning``, not
    ``warnings.catch_warnings``: sessions run in threads, and the warnings filters are shared by all of them.
    """
    name = getattr(upload, "name", "the file")
    notes = []
    try:
        loaded = lc.read_trials(upload, key=key_upload, on_warning=notes.append)
    except Exception as err:
        return Parsed(error=_user_message(name, err), needs_key=isinstance(err, lc.LoadError) and err.needs_key)
    stem = Path(name).stem
    if isinstance(loaded, dict):
        systems = {str(key) if len(loaded) > 1 else stem: trials for key, trials in loaded.items()}
    else:
        systems = {stem: loaded}
    for trials in systems.values():
        trials.sorted.pav  # noqa: B018 - sort and PAV now, under the upload spinner
    return Parsed(systems=systems, warnings=tuple(str(note) for note in notes))


@st.cache_resource(show_spinner=False, max_entries=16, ttl="1h")
def parse_upload(file_id: str, key_id: str | None, _upload, _key_upload) -> Parsed:
    """:func:`read_upload` once per uploaded score file and key file, cached by their ``file_id``.

    The payloads are ``_underscored`` so Streamlit does not hash megabytes of bytes; the file ids identify them.
    Errors are returned (and so cached) rather than raised: a bad file is reported without being parsed again on
    every rerun.
    """
    return read_upload(_upload, _key_upload)


# ----- the loaded systems ------------------------------------------------------------------------------------------


def _summary(trials: lc.Trials) -> dict:
    """Numbers of the Data table, computed once per system (they do not depend on the operating point)."""
    table = trials.sorted
    cllr, min_cllr = table.cllr(), table.min_cllr()
    lo = min(table.tar[0], table.non[0], *(trials.spoof.min(),) if trials.spoof.size else ())
    hi = max(table.tar[-1], table.non[-1], *(trials.spoof.max(),) if trials.spoof.size else ())
    return {
        "targets": table.n_tar,
        "non-targets": table.n_non,
        "spoof": int(trials.spoof.size),
        "min score": float(lo),
        "max score": float(hi),
        "Cllr": cllr,
        "minCllr": min_cllr,
        "as LLRs": lc.llr_verdict(cllr, min_cllr).verdict,
    }


def _unique_name(name: str, taken) -> str:
    name = name.strip() or "system"
    if name not in taken:
        return name
    for i in itertools.count(2):
        candidate = f"{name} ({i})"
        if candidate not in taken:
            return candidate


def systems() -> dict:
    """The loaded systems, name -> record (see module docstring)."""
    return st.session_state.setdefault("systems", {})


def add_system(name: str, trials: lc.Trials, role: str, source: str) -> str:
    """Add a system under a free name (``name``, or ``name (2)``, ...) and return the name used."""
    loaded = systems()
    name = _unique_name(name, loaded)
    loaded[name] = {"trials": trials, "role": role, "source": source, "id": uuid.uuid4().hex[:10],
                    "summary": _summary(trials)}
    return name


def remove_system(name: str) -> None:
    systems().pop(name, None)


def rename_system(old: str, new: str) -> str | None:
    """Rename keeping the order; returns a sentence if the new name cannot be used."""
    loaded = systems()
    new = new.strip()
    if new == old or old not in loaded:
        return None
    if not new:
        return "A system needs a name."
    if new in loaded:
        return f"There is already a system named {new!r}."
    st.session_state["systems"] = {(new if k == old else k): v for k, v in loaded.items()}
    return None


def set_role(name: str, role: str) -> None:
    if name in systems() and role in ROLES:
        systems()[name]["role"] = role


def trials_by_name(role: str | None = None, names=None) -> dict[str, lc.Trials]:
    """name -> Trials of the loaded systems, optionally only one role or only the given names (in load order)."""
    return {name: record["trials"] for name, record in systems().items()
            if (role is None or record["role"] == role) and (names is None or name in names)}


def loaded_demo_paths() -> set[str]:
    return {record["source"] for record in systems().values()}


def add_demo(demo: DemoSet) -> str:
    trials = load_demo(str(demo.path), demo.name)
    return add_system(demo.name, trials, demo.role, demo_source(demo))


def demo_source(demo: DemoSet) -> str:
    return f"demo: {demo.path.relative_to(ASSETS)}"


def init_session() -> None:
    """First run of a session: load the demo sets, so every page works before any upload."""
    if "systems" in st.session_state:
        return
    st.session_state["systems"] = {}
    st.session_state["handled_uploads"] = set()
    with st.spinner("Loading the demo data…"):
        for demo in DEMO_SETS:
            add_demo(demo)


def summary_frame(names=None):
    """The table of what is loaded: one row per system (all, or the given names)."""
    import pandas as pd

    rows = []
    for name, record in systems().items():
        if names is not None and name not in names:
            continue
        rows.append({"system": name, "role": record["role"], **record["summary"], "source": record["source"]})
    columns = ["system", "role", "targets", "non-targets", "spoof", "min score", "max score", "Cllr", "minCllr",
               "as LLRs", "source"]
    return pd.DataFrame(rows, columns=columns)


def flash(message: str, kind: str = "success") -> None:
    """Queue a message for the next run of the page (callbacks run before the page draws)."""
    st.session_state.setdefault("flash", []).append((kind, message))


def show_flashes() -> None:
    for kind, message in st.session_state.pop("flash", []):
        getattr(st, kind)(message)
