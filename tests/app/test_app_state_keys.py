"""The app's state module (``app_pages/_state.py``): one name per key, families of keys read back from their names.

Independent reference: the key names the app used before the state module (``"operating_point"``, ``"systems"``,
``"eval_systems_kept"``, ``"name_<id>"``, ...), written out here: kept sessions (``_session.py``) and the tests read
them, so the module must not rename them.
"""
from __future__ import annotations

from app_pages import _state


def _declared() -> dict[str, object]:
    return {name: value for name, value in vars(_state).items() if isinstance(value, (_state.Key, _state.Keys))}


def test_no_two_keys_share_a_name():
    names = [key.name if isinstance(key, _state.Key) else key.pattern for key in _declared().values()]
    assert len(names) == len(set(names))


def test_no_key_reads_as_one_of_a_family():
    """A kept session saves every ``<page>_kept`` key as a choice of systems: no other key may look like one."""
    declared = _declared().values()
    families = [family for family in declared if isinstance(family, _state.Keys)]
    keys = [key.name for key in declared if isinstance(key, _state.Key)]
    assert [(name, family.pattern) for name in keys for family in families if family.part(name) is not None] == []


def test_the_keys_keep_the_names_kept_sessions_use():
    assert (_state.OPERATING_POINT.name, _state.PRIMARY_COST.name, _state.LLR_UNITS.name) == \
        ("operating_point", "primary_cost", "llr_units")
    assert (_state.SYSTEMS.name, _state.SCORE_SETS.name, _state.MATRICES.name) == ("systems", "mc_sets", "diar_sets")
    assert _state.CHOSEN["eval_systems"].name == "eval_systems_kept"
    assert _state.SYSTEM_NAME["0123abcdef"].name == "name_0123abcdef"


def test_a_family_reads_its_part_back_from_a_name():
    assert _state.CHOSEN.part("eval_systems_kept") == "eval_systems"
    assert _state.TANDEM_COST.part("tandem_cost_revised_Pspoof") == "revised_Pspoof"
    assert _state.CHOSEN.part("_kept") is None  # nothing in the blank
    assert _state.CHOSEN.part("eval_systems") is None
    assert _state.SYSTEM_ROLE.part("name_0123abcdef") is None
