"""``llrcore diarize --learn REC... -o prior.json`` and ``--prior prior.json`` (issue 46).

Independent references: the library's :func:`lc.fit_diarization_prior`, :func:`lc.cluster_recordings`,
:func:`lc.cluster_similarity` (``options["count_sure"]``) and :func:`lc.score_corpus` called directly on the same
recordings of the development corpus (tests/data/diarization_corpus, its reference RTTMs).
"""
from __future__ import annotations

import json

import numpy as np
import pandas as pd

import llrcore as lc
from llrcore.cli import main
from paths import ROOT

DEV = ROOT / "tests" / "data" / "diarization_corpus"
LABELLED = [str(DEV / f"{name}.npz") for name in ("synth03_k02", "synth04_k02", "synth06_k03")]
NEW = [str(DEV / "synth07_k04.npz")]


def test_learn_writes_the_prior_and_prints_its_leave_one_out_report(tmp_path, capsys):
    path = tmp_path / "prior.json"
    assert main(["diarize", "--learn", *LABELLED, "-o", str(path), "--embedder", "Resemblyzer"]) == 0
    printed = capsys.readouterr().out
    expected = lc.fit_diarization_prior(lc.read_corpus(LABELLED), embedder="Resemblyzer")
    written = lc.diarization.BlockModelPrior.from_json(path.read_text())
    assert written == expected and written.learnt_on.embedder == "Resemblyzer"
    assert expected.report.sentence() in printed
    assert f"written to {path}" in printed

    assert main(["diarize", *NEW, "--prior", str(path), "--csv"]) == 0
    table = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out), index_col="uri")
    matrices = lc.read_corpus(NEW)
    library = lc.score_corpus(matrices, lc.cluster_recordings(matrices, "bayes", prior=expected)).to_frame()
    np.testing.assert_allclose(table["DER %"], library["DER %"])
    assert list(table["found"]) == list(library["found"])


def test_learn_needs_an_output_and_a_bad_prior_file_gets_a_sentence(tmp_path, capsys):
    assert main(["diarize", "--learn", *LABELLED]) == 2
    assert "-o prior.json" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"kind": "other"}))
    assert main(["diarize", *NEW, "--prior", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "bad.json" in err and "not a prior file" in err and "Traceback" not in err
    assert main(["diarize", *NEW, "--prior", "no-such-prior"]) == 2
    assert "resemblyzer-1.5s-espeak" in capsys.readouterr().err


def test_the_old_preset_name_still_works(capsys):
    assert main(["diarize", *NEW, "--prior", "synthetic-cosine"]) == 0
    printed = capsys.readouterr()
    assert "prior: synthetic-cosine" in printed.out
    assert ("warning: --prior synthetic-cosine is now --prior resemblyzer-1.5s-espeak; the old name works in this "
            "release only.") in printed.err


def test_the_default_call_names_the_recordings_whose_count_is_unsure(capsys):
    """synth08_k04's count is unsure (NME-SC's largest eigengap 1.27 times the next), synth03_k02's sure: the
    library's ``result.options["count_sure"]`` on each."""
    paths = [str(DEV / "synth03_k02.npz"), str(DEV / "synth08_k04.npz")]
    assert [lc.cluster_similarity(m).options["count_sure"] for m in lc.read_corpus(paths)] == [True, False]
    assert main(["diarize", *paths]) == 0
    header = capsys.readouterr().out.splitlines()[0]
    assert ("the number of speakers is unsure on synth08_k04: learn a prior from a few labelled recordings of your "
            "embedder with --learn") in header
