"""Calibration controls shared by the Calibrate and Compare-rules pages: which trials train and which judge a
calibration, and a custom rule of the Beta family.

Their choices are the app's own (``_state.Choice``), kept across page switches, so the two pages stay in step.
"""
from __future__ import annotations

import re

import streamlit as st

import llrcore as lc
from app_pages import _state
from app_pages._loaded import SYSTEMS
from app_pages._registry import ROLE_HELP

CROSS_VALIDATION = "Cross-validation within the training set"
CUSTOM_RULE = "Custom (α, β)"
DEFAULT_FOLDS = 5
RULES = {f"{rule.name} ({rule.alpha:g}, {rule.beta:g})": rule for rule in lc.NAMED_RULES}


def md(text: str) -> str:
    """A user's string (a system or file name) made literal in Streamlit markdown: no emphasis, links or LaTeX."""
    return lc.report.escape_markdown(text)


PARTNER_WORDS = (("development", "evaluation"), ("dev", "eval"), ("train", "test"), ("trn", "tst"))


def evaluation_partner(train: str, names) -> str | None:
    """The evaluation set that belongs to development set `train` by name: "X (dev)" -> "X (eval)",
    "myspk_dev" -> "myspk_eval", "DEV.scores" -> "EVAL.scores".

    A word counts when no letter touches it (so "_dev", "-dev" and "dev2" do, "device" does not); its case is kept.
    """
    for development, evaluation in PARTNER_WORDS:
        candidate = re.sub(rf"(?<![^\W\d_]){development}(?![^\W\d_])",
                           lambda match: _same_case(evaluation, match.group(0)), train, flags=re.IGNORECASE)
        if candidate != train and candidate in names:
            return candidate
    return None


def _same_case(word: str, like: str) -> str:
    """`word` in the case of `like`: upper case, capitalised or lower case."""
    return word.upper() if like.isupper() else word.capitalize() if like[0].isupper() else word


def _default_evaluation(train: str) -> str:
    return evaluation_partner(train, SYSTEMS.sets()) or CROSS_VALIDATION


def _on_train_change() -> None:
    _state.CAL_EVAL.set(_default_evaluation(_state.CAL_TRAIN.get()))


def choose_sets() -> tuple[str, str | None, int]:
    """Training set, evaluation set (None for cross-validation) and the number of folds."""
    loaded = SYSTEMS.sets()
    names = list(loaded)
    development = [name for name, system in loaded.items() if system.role == "development"]
    with st.container(border=True):
        st.markdown("**Trials**")
        train = st.selectbox("Train on", names,
                             **_state.CAL_TRAIN.widget((development or names)[0], options=names,
                                                       on_change=_on_train_change),
                             help="The calibration is trained on these trials' target and non-target scores. "
                             + ROLE_HELP)
        options = [CROSS_VALIDATION] + [name for name in names if name != train]
        evaluation = st.selectbox(
            "Evaluate on", options, **_state.CAL_EVAL.widget(_default_evaluation(train), options=options),
            help="A separate evaluation set, or k-fold cross-validation: every trial is calibrated by a transform "
            "trained on the other folds, so none is judged by a calibration that saw it.",
        )
        folds = DEFAULT_FOLDS
        if evaluation == CROSS_VALIDATION:
            folds = st.slider("Folds", 2, 10, **_state.CAL_FOLDS.widget(DEFAULT_FOLDS))
            st.caption(f"{folds}-fold cross-validation of {md(train)}: honest when only one set exists.")
        else:
            st.caption(f"Trained on {md(train)}, judged on {md(evaluation)}: no evaluation trial is seen in "
                       "training.")
    return train, (None if evaluation == CROSS_VALIDATION else evaluation), int(folds)


def custom_rule(prefix: str) -> lc.BetaRule:
    """Two number inputs for alpha and beta of a Beta-family rule."""
    alpha_column, beta_column = st.columns(2)
    alpha = alpha_column.number_input("α", min_value=0.05, max_value=20.0, step=0.25, format="%g",
                                      **_state.RULE_ALPHA[prefix].widget(1.5),
                                      help="Left tail of the weighting: larger puts less weight on low thresholds.")
    beta = beta_column.number_input("β", min_value=0.05, max_value=20.0, step=0.25, format="%g",
                                    **_state.RULE_BETA[prefix].widget(1.0),
                                    help="Right tail: larger puts less weight on high thresholds.")
    return lc.BetaRule(alpha, beta)


def describe_rule(rule: lc.BetaRule) -> str:
    return f"{rule.name} (α = {rule.alpha:g}, β = {rule.beta:g})"
