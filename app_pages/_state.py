"""The app's state in one place: every key a session keeps, typed, and the one caching policy.

Session state (``st.session_state``) is reached only through the :class:`Key` objects below, never with a raw string:

- a key of the app's own (the operating point, the loaded systems, a page's remembered choice) is filled in once per
  session, by its `first` value, on its first read, and survives page switches;
- a widget's key (``key=WIDGET.name``) is only the widget's view: its initial value is set from the app's own key
  before the widget is drawn, and its ``on_change`` writes the choice back (Streamlit deletes the state of the widgets
  a page does not draw). A widget key is never filled by ``setdefault`` beside ``persist_state``: that pair reset the
  operating point to the widgets' minimum on a sidebar click;
- a page's choice shown by one widget (a :class:`Choice`: Calibrate's method, Compare rules' grid, ...) follows that
  rule through :meth:`Choice.widget`, which gives the widget its key, its value and the ``on_change`` that keeps it:
  ``st.slider("Folds", 2, 10, **CAL_FOLDS.widget(5))``;
- a family of keys (:class:`Keys`: one per loaded system, one per page's choice of systems) is named from a pattern.

Computations are cached by one policy (:func:`cached`): ``st.cache_resource`` (the result itself is returned, never a
copy), at most a bounded number of results per function, each for at most :data:`KEPT` seconds (an hour), keyed by the
data's id (a loaded set's ``id``, an upload's ``file_id``, a demo's name) and the settings; the data themselves are
passed as ``_underscored`` arguments, which Streamlit does not hash (it hashes large arrays from a sample). Work that
shows its progress on the page cannot be cached by Streamlit (the cache would replay the progress bar): its results go
to a :func:`store`, under the same bound and time.
"""
from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import streamlit as st

from app_pages._store import LRUStore

T = TypeVar("T")

#: Seconds a cached result is kept (what is let go is computed again when asked for).
KEPT = 3600.0
#: The results one cached function keeps, unless it says otherwise (a figure per slider step keeps more).
ENTRIES = 16


@dataclass(frozen=True)
class Key(Generic[T]):
    """One key of ``st.session_state``: `name`, and the value a session starts with (`first`, called on the first
    read; None for a key that holds nothing until it is set, such as a widget's)."""

    name: str
    first: Callable[[], T] | None = None

    def get(self, first: T | None = None) -> T | None:
        """The value; on a session's first read the key's `first` value (or the `first` given here: a default the
        key's module owns), kept from then on."""
        if self.name not in st.session_state:
            if self.first is not None:
                st.session_state[self.name] = self.first()
            elif first is not None:
                st.session_state[self.name] = first
        return st.session_state.get(self.name)

    def peek(self, default: T | None = None) -> T | None:
        """The value, or `default` when the key holds none (nothing is filled in: a widget's key, before it is drawn,
        must not be)."""
        return st.session_state.get(self.name, default)

    def set(self, value: T) -> None:
        st.session_state[self.name] = value

    def seed(self, value: T) -> None:
        """Set `value` unless the key holds one: a widget's first value, or its value seeded from the app's own
        state before it is drawn."""
        if self.name not in st.session_state:
            st.session_state[self.name] = value

    def pop(self) -> T | None:
        """The value, taken out of the session (None when there was none)."""
        return st.session_state.pop(self.name, None)

    def is_set(self) -> bool:
        return self.name in st.session_state


@dataclass(frozen=True)
class Keys(Generic[T]):
    """A family of keys named by `pattern` (``"name_{}"``: one per loaded system, by its id)."""

    pattern: str
    first: Callable[[], T] | None = None

    def __getitem__(self, part: str) -> Key[T]:
        return Key(self.pattern.format(part), self.first)

    def part(self, name: str) -> str | None:
        """What fills the pattern's blank in `name` (``"eval_systems"`` of ``"eval_systems_kept"``), None when `name`
        is no key of the family."""
        prefix, _, suffix = self.pattern.partition("{}")
        if name.startswith(prefix) and name.endswith(suffix) and len(name) > len(prefix) + len(suffix):
            return name[len(prefix): len(name) - len(suffix)]
        return None

    def present(self) -> Iterator[tuple[str, Any]]:
        """``(part, value)`` of every key of the family the session holds."""
        for name, value in list(st.session_state.items()):
            if (part := self.part(name)) is not None:
                yield part, value


@dataclass(frozen=True)
class Choice(Generic[T]):
    """A choice a page keeps for the session and shows in one widget, whose key is `name`.

    The value is the app's own, kept in :data:`CHOICES` under `name` and filled in on its first read with the `first`
    value the page gives; the widget only shows it (:meth:`widget`), so a page switch that deletes the widget's state
    loses nothing, and a callback may set the choice while its widget is not drawn.
    """

    name: str

    def get(self, first: T | None = None) -> T | None:
        """The choice; on a session's first read `first` (the page's default), kept from then on."""
        kept = CHOICES.get()
        if self.name not in kept and first is not None:
            kept[self.name] = first
        return kept.get(self.name)

    def set(self, value: T) -> None:
        CHOICES.get()[self.name] = value

    def reset(self) -> None:
        """Forget the choice: the next read gives the page's default again."""
        CHOICES.get().pop(self.name, None)

    def widget(self, first: T, *, options: Collection | None = None, on_change: Callable[..., None] | None = None,
               args: tuple = ()) -> dict[str, Any]:
        """The keyword arguments of the widget that shows this choice: its ``key``, and the ``on_change`` that writes
        the choice back before calling `on_change` with `args`; the widget's state is set from the choice (`first` on
        a session's first draw, or when the choice is not among the widget's `options` any more: a loaded set was
        removed), so the widget takes no ``value``, ``default`` or ``index`` of its own."""
        value = self.get(first)
        if options is not None and value not in options:
            value = first
            self.set(first)
        if value is None:  # Streamlit would show None as nothing chosen: the widget shows its first option instead
            st.session_state.pop(self.name, None)
        else:
            st.session_state[self.name] = value
        return {"key": self.name, "on_change": self._keep, "args": (on_change, args)}

    def _keep(self, then: Callable[..., None] | None, args: tuple) -> None:
        self.set(st.session_state[self.name])
        if then is not None:
            then(*args)


@dataclass(frozen=True)
class Choices(Keys):
    """A family of choices named by `pattern` (``"tandem_cost_{}"``: one per cost of each formulation)."""

    def __getitem__(self, part: str) -> Choice:
        return Choice(self.pattern.format(part))


def cached(*, entries: int = ENTRIES, spinner: bool | str = False):
    """The app's cache for a computation: at most `entries` results of the function, each for at most :data:`KEPT`.

    Key the function by ids and settings (plain arguments) and pass the data as ``_underscored`` arguments: Streamlit
    hashes large arrays from a sample, so two arrays that differ in one value could share an entry.
    """
    return st.cache_resource(show_spinner=spinner, max_entries=entries, ttl=KEPT)


@st.cache_resource(show_spinner=False)
def store(name: str, size: int = ENTRIES) -> LRUStore:
    """The store `name` (one per server, shared by its sessions) for the results of work that reports its progress
    while it runs: at most `size` results, each for at most :data:`KEPT`."""
    return LRUStore(size=size, ttl=KEPT)


# ----- the app's own keys ----------------------------------------------------------------------------------------
# The values they start with that depend on the app's modules (the operating point's first preset, the demo sets) are
# given by those modules, which read them through these keys only.

#: The operating point of every page (``_operating_point.py``) and the NIST evaluation whose primary cost Cprimary
#: follows; the widgets showing them.
OPERATING_POINT: Key = Key("operating_point")
PRIMARY_COST: Key[str] = Key("primary_cost")
OP_PRESET, OP_P_TARGET, OP_C_MISS, OP_C_FA = Key("op_preset"), Key("op_p_target"), Key("op_c_miss"), Key("op_c_fa")
#: "ln" or "log10": the units LR values are shown in (``_units.py``), and the sidebar's widget for them.
LLR_UNITS: Key[str] = Key("llr_units", lambda: "ln")
LLR_UNITS_CHOICE: Key[str] = Key("llr_units_choice")
#: The pages' choices (:class:`Choice`), by their widget's key.
CHOICES: Key[dict] = Key("choices", dict)
#: Messages a callback leaves for the page's next run (``_messages.py``).
FLASHES: Key[list] = Key("flash", list)
#: The loaded sets, ``label -> Loaded...`` (``_registry.py``): binary systems, multiclass score sets, matrices.
SYSTEMS, SCORE_SETS, MATRICES = Key("systems"), Key("mc_sets"), Key("diar_sets")
#: A page's choice of systems (``_loaded.chosen_systems``), as the chosen sets' ids and the ids it has seen; kept for a
#: reload of the tab (``_session.py``).
CHOSEN, SEEN = Keys("{}_kept"), Keys("{}_seen")
#: The session kept for a reload (``_session.py``): its id, the manifest last written and when it was last marked used.
SESSION_ID, SESSION_SAVED, SESSION_TOUCHED = Key("session_id"), Key("session_saved"), Key("session_touched")
#: The uploads the Data page has read, by file id (a file is added once, even when the page runs again).
HANDLED_UPLOADS: Key[set] = Key("handled_uploads", set)
#: The Data page's name and role boxes, one per loaded system (by its id).
SYSTEM_NAME, SYSTEM_ROLE = Keys("name_{}"), Keys("role_{}")

# ----- the pages' keys -------------------------------------------------------------------------------------------

#: Calibrate (``calibrate.py``, ``_calibration_controls.py``, ``_calibration_conditions.py``): the trials, the method
#: and its options, the breakdown by condition; Compare scoring rules sets them to open Calibrate on its best rule.
CAL_TRAIN, CAL_EVAL, CAL_FOLDS = Choice("cal_train"), Choice("cal_eval"), Choice("cal_folds")
CAL_METHOD, CAL_RULE = Choice("cal_method"), Choice("cal_rule")
CAL_WEIGHT_AS, CAL_WEIGHT_P, CAL_WEIGHT_PLO = Choice("cal_weight_as"), Choice("cal_weight_p"), Choice("cal_weight_plo")
CAL_BY_VIEW, CAL_CI = Choice("cal_by_view"), Key("cal_ci")
#: A custom rule's α and β, one pair per page that draws it (``"cal"``, ``"cmp"``, ``"fusion"``).
RULE_ALPHA, RULE_BETA = Choices("{}_alpha"), Choices("{}_beta")
#: Evaluate's choice of systems (Calibrate's "Add" opens it on the raw and the calibrated system).
EVAL_SYSTEMS = Key("eval_systems")
#: Compare scoring rules: the rules, the grid of prior weightings, the cost, the weighting shown (and the sweep it was
#: set for) and the request to open Calibrate.
CMP_RULES, CMP_RANGE = Choice("cmp_rules"), Choice("cmp_range")
CMP_POINTS, CMP_COST = Choice("cmp_points"), Choice("cmp_cost")
CMP_WEIGHT_TAU, CMP_WEIGHT_TAU_OF = Key("cmp_weight_tau"), Key("cmp_weight_tau_of")
CMP_GO_CALIBRATE: Key[bool] = Key("cmp_go_calibrate")
#: The confidence-interval controls (``_uncertainty.py``): each widget's key, and their values kept for the session.
UNCERTAINTY_SETTINGS: Key[dict] = Key("unc_settings", dict)
#: Forensic: the chosen LR method.
FORENSIC_SYSTEM = Choice("forensic_system")
#: Fusion: demo or loaded systems, and the development and evaluation systems chosen.
FUSION_SOURCE, FUSION_DEV, FUSION_EVAL = Key("fusion_source"), Choice("fusion_dev"), Choice("fusion_eval")
#: Calibrated Gaussian LLRs: "EER", "d'" or "μ" (the choice box), and the system's μ the sliders show.
GAUSS_BY, GAUSS_MU = Key("by"), Key("gauss_current_mu")
#: Spoofing: the page's choices of systems and intervals kept across page switches (``{"asv", "cms", "ci",
#: "replicates"}``), the ASV and CM boxes, the formulation and its costs (``tandem_cost_<formulation>_<name>``).
TANDEM_KEPT: Key[dict] = Key("tandem_choices")  # not "..._kept": that would read as a page's choice of systems
TANDEM_ASV, TANDEM_CMS, TANDEM_FORMULATION = Key("tandem_asv"), Key("tandem_cms"), Choice("tandem_formulation")
TANDEM_COST = Choices("tandem_cost_{}")
#: Multiclass, Classifier and Diarization: the uploaders, the chosen set, the clustering settings read elsewhere.
MC_UPLOAD, MC_SET, CC_UPLOAD = Key("mc_upload"), Choice("mc_set"), Key("cc_upload")
DIAR_UPLOAD, DIAR_SET, DIAR_PRIOR = Key("diar_upload"), Choice("diar_set"), Choice("diar_prior")
DIAR_COLLAR, DIAR_SKIP_OVERLAP = Choice("diar_collar"), Choice("diar_skip_overlap")
#: Diarization: the comparisons with the other methods this session asked for (``_diarization.comparison_key``); the
#: results are shared by the server's sessions, but a session shows them once it has asked.
DIAR_COMPARED = Key("diar_compared", set)
#: Diarization's "Several recordings": the corpus in use ``(data key, description, matrices)`` and its results.
DIAR_CORPUS, DIAR_CORPUS_RESULTS = Key("diar_corpus"), Key("diar_corpus_results", dict)
#: Diarization: the priors learnt on "Several recordings" by corpus data key, and the prior file uploaded on "One
#: recording" ``(file id, BlockModelPrior)``.
DIAR_LEARNT_PRIORS, DIAR_PRIOR_FILE = Key("diar_learnt_priors", dict), Key("diar_prior_file")
