"""Evaluate's panel "Why do my numbers differ from other tools?": one system's EER and minDCF as ASVspoof, SpeechBrain,
Kaldi, scikit-learn, voxceleb_trainer and NIST's scorer compute them, beside ours (``lc.eer_conventions``)."""
from __future__ import annotations

import streamlit as st

import llrcore as lc

TITLE = "Why do my numbers differ from other tools?"
COLUMNS = {
    "tool": st.column_config.TextColumn(width="medium"),
    **{column: st.column_config.TextColumn(alignment="right") for column in ("EER %", "minDCF − ours")},
    "EER % − ours": st.column_config.TextColumn(help="In percentage points.", alignment="right"),
    "minDCF": st.column_config.TextColumn(help="—: the tool computes none.", alignment="right"),
    "threshold": st.column_config.TextColumn(help="The score the tool reports with its EER (—: none).",
                                             alignment="right"),
}
#: Display formats; a tool without the number shows a dash (a NaN would show as "None").
FORMATS = {"EER %": "{:.4f}", "EER % − ours": "{:+.4f}", "minDCF": "{:.4f}", "minDCF − ours": "{:+.4f}",
           "threshold": "{:.4f}"}


def shown(table):
    """The numbers as text in their formats, a dash where a tool has none (Streamlit writes a missing number as
    "None", and ignores a Styler's ``na_rep``)."""
    return table.assign(**{column: [("—" if v != v else form.format(v)) for v in table[column]]
                           for column, form in FORMATS.items()})


def show(chosen: dict[str, lc.Trials], op: lc.OperatingPoint) -> None:
    """The panel, folded; computed only while open (the expander reruns the page when it opens)."""
    with st.expander(TITLE, icon=":material/compare_arrows:", key="conventions_expander",
                     on_change="rerun") as panel:
        if not panel.open:
            return
        names = list(chosen)
        name = names[0] if len(names) == 1 else st.selectbox("System", names, key="conventions_system")
        result = lc.eer_conventions(chosen[name].sorted, p_target=op)
        st.caption(f"**{lc.report.escape_markdown(name)}**: the same scores, the EER and minDCF as each tool's "
                   "published code computes them. Ours is the ROC convex hull (as BOSARIS and PYLLR); EER in %.")
        table = result.to_frame(percent=True)
        st.dataframe(shown(table.drop(columns="why")), hide_index=True, width="stretch", column_config=COLUMNS)
        st.markdown("\n".join(f"- **{lc.report.escape_markdown(tool)}**: {lc.report.escape_markdown(why)}"
                               for tool, why in zip(table["tool"], table["why"])))
        for note in result.notes():
            st.caption(lc.report.escape_markdown(note))
