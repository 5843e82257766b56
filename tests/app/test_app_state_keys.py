"""The app's state module (``app_pages/_state.py``): one name per key, families of keys read back from their names,
and a page's choice (``Choice``) that its widget only shows.

Independent reference: the key names the app used before the state module (``"operating_point"``, ``"systems"``,
``"eval_systems_kept"``, ``"name_<id>"``, ...), written out here: kept sessions (``_session.py``) and the tests read
them, so the module must not rename them. A choice's values are those the tests set; what Streamlit does to the
state of a widget a run does not draw (it deletes it, as on a page switch) is what the app works against.
"""
from __future__ import annotations

from streamlit.testing.v1 import AppTest

from app_pages import _state


def _declared() -> dict[str, object]:
    return {name: value for name, value in vars(_state).items()
            if isinstance(value, (_state.Key, _state.Keys, _state.Choice))}


def test_no_two_keys_share_a_name():
    names = [key.pattern if isinstance(key, _state.Keys) else key.name for key in _declared().values()]
    assert len(names) == len(set(names))


def test_no_key_reads_as_one_of_a_family():
    """A kept session saves every ``<page>_kept`` key as a choice of systems: no other key may look like one."""
    declared = _declared().values()
    families = [family for family in declared if isinstance(family, _state.Keys)]
    keys = [key.name for key in declared if not isinstance(key, _state.Keys)]
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


# ----- a page's choice, shown by one widget ---------------------------------------------------------------------------


def _folds_page():
    """A page drawing a choice's slider when "show" is ticked; a button sets the choice while the slider is hidden."""
    import streamlit as st

    from app_pages import _state

    folds = _state.Choice("test_folds")
    if st.checkbox("show", value=True, key="show"):
        st.slider("Folds", 2, 10, **folds.widget(5))
    st.button("Three", key="three", on_click=folds.set, args=(3,))
    st.markdown(f"kept {folds.get(5)}")


def test_a_choice_outlives_its_widget_and_a_callback_reaches_it():
    at = AppTest.from_function(_folds_page).run()
    assert at.slider(key="test_folds").value == 5 and at.markdown[0].value == "kept 5"  # the page's default
    at.slider(key="test_folds").set_value(7).run()
    assert at.markdown[0].value == "kept 7"
    at.checkbox(key="show").uncheck().run()  # the slider is not drawn: Streamlit deletes its state
    at.run()
    assert "test_folds" not in at.session_state and at.markdown[0].value == "kept 7"
    at.checkbox(key="show").check().run()
    assert at.slider(key="test_folds").value == 7  # back at the value chosen, not at the default nor the minimum
    at.checkbox(key="show").uncheck().run()
    at.button(key="three").click().run()  # set while its widget is not drawn (Compare rules opening Calibrate)
    at.checkbox(key="show").check().run()
    assert at.slider(key="test_folds").value == 3 and at.markdown[0].value == "kept 3"

