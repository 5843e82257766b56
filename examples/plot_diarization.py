"""
Diarization: who spoke when, from a similarity matrix
=====================================================

One AMI meeting (ES2005a): the similarity matrix of its speech segments, clustered by the Bayesian block model,
which infers the number of speakers; the turns are scored against the reference RTTM (DER with a 0.25 s collar).
"""
from pathlib import Path

import llrcore as lc

# The repository, from this file (sphinx-gallery runs an example in its folder, with no __file__).
DEMO = Path(globals().get("__file__", "example.py")).resolve().parents[1] / "assets" / "ami_ES2005a"
S = lc.read_similarity(DEMO / "ES2005a_similarity.npz", reference=DEMO / "ES2005a.rttm")
result = lc.cluster_similarity(S)
turns = result.turns(S.start, S.end, S.uri)
der = lc.diarization_error_rate(S.reference_turns, turns, collar=0.25)
print(f"{S.n_segments} segments, {result.n_clusters} speakers found ({S.n_reference_speakers} in the reference), "
      f"DER {der.der:.1%}")

# %%
# The timeline, each cluster in the colour of the reference speaker it is mapped to
# ---------------------------------------------------------------------------------
lc.plots.timeline_figure(turns, S.reference_turns).show()

# %%
# How sure the model is of the number of speakers.
lc.plots.n_speakers_figure(result, reference_count=S.n_reference_speakers).show()
