"""Home: what the workbench is for, where to go, what is loaded."""
from __future__ import annotations

import streamlit as st

from app_pages._loaded import SYSTEMS
from app_pages._pages import PAGES
from app_pages._tables import VERDICT_COLUMN, count_columns, summary_frame

st.title("llrcore workbench")
intro, numbers = st.columns([3, 2], gap="large")
with intro:
    st.markdown(
        "Check whether the scores of a speaker, language or forensic recognition system can be read as "
        "**likelihood ratios**, and how much is lost when they are used for decisions at your operating point. "
        "Load score files (or use the demo sets), then compare systems with EER, minimum and actual DCF, Cllr and "
        "Cprimary, and with DET curves and Bayes error plots that separate discrimination from calibration. "
        "Every number and figure comes from the `llrcore` Python library, so what you see here can be reproduced "
        "in a notebook or a script."
    )
with numbers:
    loaded = SYSTEMS.sets()
    roles = [system.role for system in loaded.values()]
    trials = sum(len(system.trials) for system in loaded.values())
    systems_card, evaluation_card, development_card = st.columns(3)
    systems_card.metric("Systems", len(loaded), border=True)
    evaluation_card.metric("Evaluation", roles.count("evaluation"), border=True)
    development_card.metric("Development", roles.count("development"), border=True)
    st.caption(f"{trials:,} target and non-target trials loaded.")

st.subheader("Pages")
others = [spec for spec in PAGES if not spec.default]
per_row = 3
for row_start in range(0, len(others), per_row):
    columns = st.columns(per_row)
    for column, spec in zip(columns, others[row_start:row_start + per_row]):
        with column.container(border=True, height="stretch"):
            st.page_link(spec.path, label=f"**{spec.title}**", icon=spec.icon)
            st.caption(spec.blurb)

st.subheader("Loaded systems")
if not loaded:
    st.info("Nothing is loaded. Add score files or the demo sets on the Data page.")
    st.page_link("app_pages/data.py", label="Go to Data", icon=":material/upload_file:")
else:
    summary = summary_frame()
    st.dataframe(
        summary[["system", "role", "targets", "non-targets", "spoof", "as LLRs", "source"]],
        hide_index=True,
        width="stretch",
        column_config={
            **count_columns("targets", "non-targets", "spoof"),
            "as LLRs": VERDICT_COLUMN,
        },
    )
    if any(system.source.startswith("demo:") for system in loaded.values()):
        st.caption(
            "Demo sets: ASVspoof 2019 LA organisers' ASV scores (ODC-By 1.0) and DCA-PLDA scores on FVC Australian "
            "English from Ferrer's expected_cost repository (MIT); provenance in `assets/*/SOURCE.txt`."
        )
