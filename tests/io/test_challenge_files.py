"""Score files and keys read as evaluation organisers ship them: VoxCeleb/SpeechBrain trial lists, the ASVspoof 2019
protocols and 2021 keys, ASVspoof 5 TSVs (tracks 1 and 2), NIST SRE TSVs and ESPnet's ``enrol*test`` ids.

Independent references: the files' layouts as the organisers document them (ASVspoof 5 evaluation package
``util.load_cm_scores_keys``/``load_sasv_scores_keys``: tab-separated, header ``filename cm-score`` /
``filename cm-label`` and ``spk filename cm-score asv-score sasv-score`` / ``spk filename cm-label asv-label``; the
ASVspoof 2021 ``trial_metadata.txt`` keys with the column names of the 2021 evaluation package's ``config.py``
(``p_names``, ``p_names_asv``; its example line ``PA_0010 PA_E_1000001 R3 M3 d4 r1 m1 s4 c4 spoof notrim eval``);
the ASVspoof 5 protocols as the database README's section 3 lists their columns (track 1: ``SPEAKER_ID FLAC_FILE_NAME
SPEAKER_GENDER CODEC CODEC_Q CODEC_SEED ATTACK_TAG ATTACK_LABEL KEY TMP``; track 2 trial lists: ``TARGET_SPEAKER_ID
FLAC_FILE_NAME TARGET_GENDER ATTACK_LABEL ASV_KEY``); the VoxCeleb ``veri_test.txt`` lists, label first), and
the expected target/non-target/spoof scores worked out by hand from the few lines of each file. The real ASVspoof 2019
LA dev CM protocol and the LFCC-GMM baseline's scores (in protocol order, shared data) are checked against a plain
Python parse of the protocol.
"""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import llrcore as lc
from llrcore.io import LoadError, LoadWarning
import paths

ASSETS = paths.ASSETS / "asvspoof2019_la_cm"


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def read(scores: Path, key: Path) -> lc.Trials:
    with warnings.catch_warnings():
        warnings.simplefilter("error", LoadWarning)  # every trial scored exactly once: no warning
        return lc.read_trials(scores, key=key)


def assert_classes(trials: lc.Trials, tar, non, spoof=()):
    np.testing.assert_array_equal(trials.tar, tar)
    np.testing.assert_array_equal(trials.non, non)
    np.testing.assert_array_equal(trials.spoof, spoof)


# ---- 1. VoxCeleb / SpeechBrain -------------------------------------------------------------------------------

VOX_KEY = ("1 id10270/x6uYqmx31kE/00001.wav id10270/8jEAjG6SegY/00008.wav\n"
           "0 id10270/x6uYqmx31kE/00001.wav id10300/ize_eiCFEg0/00003.wav\n"
           "1 id10300/ize_eiCFEg0/00003.wav id10300/2V_8uGqTnKU/00001.wav\n")


def test_voxceleb_trial_list_is_a_key_with_kaldi_order_scores(tmp_path):
    key = write(tmp_path, "veri_test.txt", VOX_KEY)
    scores = write(tmp_path, "scores.txt",  # another order than the key's
                   "id10300/ize_eiCFEg0/00003.wav id10300/2V_8uGqTnKU/00001.wav 0.61\n"
                   "id10270/x6uYqmx31kE/00001.wav id10300/ize_eiCFEg0/00003.wav 0.05\n"
                   "id10270/x6uYqmx31kE/00001.wav id10270/8jEAjG6SegY/00008.wav 0.73\n")
    trials = read(scores, key)
    assert_classes(trials, [0.61, 0.73], [0.05])
    assert list(trials.metadata.columns) == ["model", "test"]
    assert list(trials.metadata["test"].astype(str)) == ["id10300/2V_8uGqTnKU/00001.wav",
                                                         "id10270/8jEAjG6SegY/00008.wav",
                                                         "id10300/ize_eiCFEg0/00003.wav"]


def test_voxceleb_key_with_a_bad_label_names_the_line(tmp_path):
    key = write(tmp_path, "veri_test.txt", VOX_KEY.replace("0 id10270", "2 id10270"))
    scores = write(tmp_path, "scores.txt", "id10270/x6uYqmx31kE/00001.wav id10270/8jEAjG6SegY/00008.wav 0.73\n")
    with pytest.raises(LoadError, match=r"veri_test.txt.*line 2.*'2'"):
        lc.read_trials(scores, key=key)


def test_voxceleb_key_with_a_bad_first_label_is_no_header(tmp_path):
    key = write(tmp_path, "veri_test.txt", VOX_KEY.replace("1 id10270/x6", "tgt id10270/x6"))
    scores = write(tmp_path, "scores.txt", "id10270/x6uYqmx31kE/00001.wav id10270/8jEAjG6SegY/00008.wav 0.73\n")
    with pytest.raises(LoadError, match=r"veri_test.txt, line 1: the label 'tgt'"):
        lc.read_trials(scores, key=key)


def test_speechbrain_score_file_enrol_test_label_score(tmp_path):
    scores = write(tmp_path, "scores.txt", "id10270/a.wav id10270/b.wav 1 0.81\n"
                                           "id10270/a.wav id10271/c.wav 0 -0.12\n"
                                           "id10271/c.wav id10271/d.wav 1 0.40\n")
    trials = lc.read_trials(scores)
    assert_classes(trials, [0.81, 0.40], [-0.12])
    assert list(trials.metadata.columns) == ["model", "test"]


# ---- 2. ASVspoof 2019 and 2021 -------------------------------------------------------------------------------


def test_asvspoof2019_cm_protocol_with_two_column_scores(tmp_path):
    key = write(tmp_path, "ASVspoof2019.LA.cm.train.trn.txt", "LA_0079 LA_T_1138215 - - bonafide\n"
                                                             "LA_0079 LA_T_1271820 - A01 spoof\n"
                                                             "LA_0080 LA_T_1560860 - A02 spoof\n")
    scores = write(tmp_path, "cm_scores.txt", "LA_T_1560860 -0.5\nLA_T_1138215 2.5\nLA_T_1271820 -1.5\n")
    trials = read(scores, key)
    assert_classes(trials, [2.5], [-0.5, -1.5])  # bona fide = target, spoof = non-target, file order
    meta = trials.metadata
    assert list(meta.columns) == ["utt", "speaker", "environment", "attack"]
    assert list(meta["attack"].astype(str)) == ["-", "A02", "A01"]
    assert list(meta["speaker"].astype(str)) == ["LA_0079", "LA_0080", "LA_0079"]


def test_asvspoof2021_la_key_keeps_codec_transmission_and_attack(tmp_path):
    key = write(tmp_path, "trial_metadata.txt", "LA_0009 LA_E_9332881 alaw ita_tx A07 spoof notrim eval\n"
                                               "LA_0009 LA_E_1000001 alaw ita_tx bonafide bonafide notrim eval\n"
                                               "LA_0012 LA_E_1000006 gsm pstn A19 spoof notrim progress\n")
    scores = write(tmp_path, "score.txt", "LA_E_1000006 -2.0\nLA_E_9332881 -1.0\nLA_E_1000001 3.0\n")
    trials = read(scores, key)
    assert_classes(trials, [3.0], [-2.0, -1.0])
    meta = trials.metadata
    assert list(meta.columns) == ["utt", "speaker", "codec", "transmission", "attack", "trim", "subset"]
    assert list(meta["codec"].astype(str)) == ["alaw", "gsm", "alaw"]
    assert list(meta["transmission"].astype(str)) == ["ita_tx", "pstn", "ita_tx"]
    assert list(meta["attack"].astype(str)) == ["bonafide", "A19", "A07"]
    assert list(meta["subset"].astype(str)) == ["eval", "progress", "eval"]


def test_asvspoof2021_df_key(tmp_path):
    key = write(tmp_path, "trial_metadata.txt",
                "LA_0023 DF_E_2000011 nocodec asvspoof A14 spoof notrim progress traditional_vocoder - - - -\n"
                "LA_0023 DF_E_2000012 mp3m4a vcc2018 bonafide bonafide notrim eval bonafide - - - -\n")
    scores = write(tmp_path, "score.txt", "DF_E_2000011 -2\nDF_E_2000012 1\n")
    trials = read(scores, key)
    assert_classes(trials, [1.0], [-2.0])
    assert list(trials.metadata["vocoder"].astype(str)) == ["bonafide", "traditional_vocoder"]
    assert list(trials.metadata["source"].astype(str)) == ["vcc2018", "asvspoof"]


def test_a_scored_utterance_missing_from_the_key_is_counted(tmp_path):
    key = write(tmp_path, "trial_metadata.txt", "LA_0009 LA_E_9332881 alaw ita_tx A07 spoof notrim eval\n"
                                               "LA_0009 LA_E_1000001 alaw ita_tx bonafide bonafide notrim eval\n")
    scores = write(tmp_path, "score.txt", "LA_E_9332881 -1.0\nLA_E_1000001 3.0\nLA_E_5555555 0.0\n")
    with pytest.warns(LoadWarning, match=r"score.txt.*1 of 3 scored trials is not in the key.*'LA_E_5555555' on "
                                         r"line 3"):
        trials = lc.read_trials(scores, key=key)
    assert_classes(trials, [3.0], [-1.0])


def test_an_utterance_scored_twice_is_refused(tmp_path):
    key = write(tmp_path, "trial_metadata.txt", "LA_0009 LA_E_9332881 alaw ita_tx A07 spoof notrim eval\n"
                                               "LA_0009 LA_E_1000001 alaw ita_tx bonafide bonafide notrim eval\n")
    scores = write(tmp_path, "score.txt", "LA_E_9332881 -1.0\nLA_E_1000001 3.0\nLA_E_9332881 0.0\n")
    with pytest.raises(LoadError, match=r"score.txt, line 3: the trial 'LA_E_9332881' appears a second time "
                                        r"\(first on line 1\)"):
        lc.read_trials(scores, key=key)


def test_real_asvspoof2019_dev_protocol_with_the_lfcc_baseline_scores(tmp_path):
    """The real dev part (assets/asvspoof2019_la_cm: the organisers' labels and attacks, the LFCC-GMM baseline's
    scores): its protocol written as the baseline's 4-column file ``flac utt attack label``, its scores as a
    two-column ``utt score`` file in another order."""
    table = pd.read_csv(ASSETS / "ASVspoof2019.LA.cm.dev.scores.tsv.gz", sep="\t", dtype=str)
    protocol = write(tmp_path, "ASVspoof2019.LA.cm.dev.trl.txt", "".join(
        f"flac {u} {a} {k}\n" for u, a, k in zip(table["utt"], table["attack"], table["key"])))
    values = table["LFCC-GMM"].astype(float).to_numpy()
    order = np.random.default_rng(3).permutation(len(table))  # the score file in another order than the protocol
    scores = write(tmp_path, "lfcc_dev.txt", "".join(f"{table['utt'][i]} {float(values[i])!r}\n" for i in order))
    trials = read(scores, protocol)
    bona_fide = (table["key"] == "bonafide").to_numpy()
    assert (trials.tar.size, trials.non.size) == (2548, 22296)
    np.testing.assert_array_equal(np.sort(trials.tar), np.sort(values[bona_fide]))
    np.testing.assert_array_equal(np.sort(trials.non), np.sort(values[~bona_fide]))


# ---- 3. ASVspoof 5 ---------------------------------------------------------------------------------------------


def test_asvspoof5_track1_cm_tsv(tmp_path):
    key = write(tmp_path, "cm_key.tsv", "filename\tcm-label\nE_0000000001\tbonafide\nE_0000000002\tspoof\n"
                                       "E_0000000003\tspoof\n")
    scores = write(tmp_path, "cm_score.tsv", "filename\tcm-score\nE_0000000003\t-0.7\nE_0000000002\t-3.1\n"
                                            "E_0000000001\t4.2\n")
    trials = read(scores, key)
    assert_classes(trials, [4.2], [-0.7, -3.1])
    assert list(trials.metadata.columns) == ["filename"]


def test_asvspoof5_track2_sasv_tsv(tmp_path):
    key = write(tmp_path, "sasv_key.tsv", "spk\tfilename\tcm-label\tasv-label\n"
                                         "E_0101\tE_0000000001\tspoof\tspoof\n"
                                         "E_0101\tE_0000000002\tbonafide\ttarget\n"
                                         "E_0102\tE_0000000002\tbonafide\tnontarget\n")
    scores = write(tmp_path, "sasv_score.tsv", "spk\tfilename\tcm-score\tasv-score\tsasv-score\n"
                                              "E_0101\tE_0000000001\t4.7\t-1.0\t1.8\n"
                                              "E_0102\tE_0000000002\t2.0\t-3.0\t-0.5\n"
                                              "E_0101\tE_0000000002\t3.0\t5.0\t4.0\n")
    trials = read(scores, key)
    assert_classes(trials, [4.0], [-0.5], [1.8])  # the SASV score, labelled by asv-label
    meta = trials.metadata
    assert list(meta.columns) == ["spk", "filename", "cm-score", "asv-score", "cm-label"]
    np.testing.assert_array_equal(meta["cm-score"], [3.0, 2.0, 4.7])
    np.testing.assert_array_equal(meta["asv-score"], [5.0, -3.0, -1.0])
    assert list(meta["cm-label"].astype(str)) == ["bonafide", "bonafide", "spoof"]


def test_asvspoof5_protocol_without_header_as_key_of_a_cm_tsv(tmp_path):
    key = write(tmp_path, "ASVspoof5.eval.track_1.tsv", "E_0001 E_0000000001 F - - - AC3 A33 spoof -\n"
                                                        "E_0001 E_0000000002 F - - - - bonafide bonafide -\n"
                                                        "E_0002 E_0000000003 M - - - AC1 A20 spoof -\n")
    scores = write(tmp_path, "cm_score.tsv", "filename\tcm-score\nE_0000000003\t-0.7\nE_0000000002\t4.2\n"
                                            "E_0000000001\t-3.1\n")
    trials = read(scores, key)
    assert_classes(trials, [4.2], [-0.7, -3.1])
    assert list(trials.metadata["filename"].astype(str)) == ["E_0000000002", "E_0000000003", "E_0000000001"]
    assert list(trials.metadata["attack"].astype(str)) == ["bonafide", "A20", "A33"]
    assert list(trials.metadata["gender"].astype(str)) == ["F", "M", "F"]


def test_asvspoof2021_pa_key_names_its_columns_as_the_evaluation_package(tmp_path):
    key = write(tmp_path, "trial_metadata.txt", "PA_0010 PA_E_1000001 R3 M3 d4 r1 m1 s4 c4 spoof notrim eval\n"
                                               "PA_0010 PA_E_1000002 R1 M2 d1 - - - - bonafide notrim progress\n")
    scores = write(tmp_path, "score.txt", "PA_E_1000002 1.5\nPA_E_1000001 -0.5\n")
    trials = read(scores, key)
    assert_classes(trials, [1.5], [-0.5])
    meta = trials.metadata
    assert list(meta.columns) == ["utt", "speaker", "asv_room", "asv_mic", "dis_to_asv", "att_room", "att_mic", "att_d",
                                  "att_to_spk", "trim", "subset"]
    assert list(meta["att_to_spk"].astype(str)) == ["-", "c4"]
    assert list(meta["asv_room"].astype(str)) == ["R1", "R3"]


def test_asvspoof2021_df_key_keeps_task_team_gender_pair_and_language(tmp_path):
    key = write(tmp_path, "trial_metadata.txt",
                "LA_0023 DF_E_2000011 nocodec asvspoof A14 spoof notrim progress traditional_vocoder Task1 team1 "
                "F-F eng\nLA_0023 DF_E_2000012 mp3m4a vcc2018 bonafide bonafide notrim eval bonafide - - - -\n")
    scores = write(tmp_path, "score.txt", "DF_E_2000011 -2\nDF_E_2000012 1\n")
    meta = read(scores, key).metadata
    assert list(meta.columns[-4:]) == ["task", "team", "gender-pair", "language"]
    assert list(meta["language"].astype(str)) == ["-", "eng"]


def test_asvspoof2021_la_asv_key_with_the_asv_scores(tmp_path):
    """The ASV key (claimed speaker, utterance, ..., label target/nontarget/spoof) joins an ASV score file
    ``asv_spk trial score`` on both ids, as the evaluation package's ``s_names_asv``."""
    key = write(tmp_path, "trial_metadata.txt", "LA_0039 LA_E_1000001 alaw ita_tx bonafide target notrim eval\n"
                                               "LA_0040 LA_E_1000001 alaw ita_tx bonafide nontarget notrim eval\n"
                                               "LA_0039 LA_E_9332881 gsm pstn A07 spoof notrim progress\n")
    scores = write(tmp_path, "score.txt", "LA_0039 LA_E_9332881 0.5\nLA_0040 LA_E_1000001 -4.0\n"
                                         "LA_0039 LA_E_1000001 6.0\n")
    trials = read(scores, key)
    assert_classes(trials, [6.0], [-4.0], [0.5])
    meta = trials.metadata
    assert list(meta.columns) == ["model", "test", "codec", "transmission", "attack", "trim", "subset"]
    assert list(meta["attack"].astype(str)) == ["bonafide", "bonafide", "A07"]


def test_an_asv_key_sorted_with_its_spoofs_last_still_names_its_columns(tmp_path):
    """Sorted by label, the first 50 lines of an ASVspoof 2021 ASV key hold no spoof: the columns are named by the
    attack column (bona fide on every line of the sample) all the same. A key of the same shape whose column there
    holds other words (a session, a room) is no ASVspoof key: its columns keep their numbers."""
    lines = [f"LA_{i % 9:04d} LA_E_{i:07d} alaw ita_tx bonafide {'target' if i < 60 else 'nontarget'} notrim eval"
             for i in range(120)] + [f"LA_{i % 9:04d} LA_E_{i:07d} gsm pstn A{7 + i % 3:02d} spoof notrim eval"
                                     for i in range(120, 180)]
    key = write(tmp_path, "trial_metadata.txt", "\n".join(lines) + "\n")
    scores = write(tmp_path, "score.txt", "".join(f"LA_{i % 9:04d} LA_E_{i:07d} {i / 10}\n" for i in range(180)))
    meta = read(scores, key).metadata
    assert list(meta.columns) == ["model", "test", "codec", "transmission", "attack", "trim", "subset"]
    assert meta["attack"].astype(str).value_counts().to_dict() == {"bonafide": 120, "A07": 20, "A08": 20, "A09": 20}
    other = write(tmp_path, "other_key.txt", "\n".join(line.replace("bonafide", "session1") for line in lines) + "\n")
    assert "attack" not in read(scores, other).metadata.columns


def test_asvspoof5_track2_trial_list_without_header_as_key_of_a_sasv_tsv(tmp_path):
    key = write(tmp_path, "ASVspoof5.eval.track_2.trial.tsv", "E_0101 E_0000000001 F A11 spoof\n"
                                                              "E_0101 E_0000000002 F bonafide target\n"
                                                              "E_0102 E_0000000002 M bonafide nontarget\n")
    scores = write(tmp_path, "sasv_score.tsv", "spk\tfilename\tcm-score\tasv-score\tsasv-score\n"
                                              "E_0102\tE_0000000002\t2.0\t-3.0\t-0.5\n"
                                              "E_0101\tE_0000000001\t4.7\t-1.0\t1.8\n"
                                              "E_0101\tE_0000000002\t3.0\t5.0\t4.0\n")
    trials = read(scores, key)
    assert_classes(trials, [4.0], [-0.5], [1.8])
    meta = trials.metadata
    assert list(meta["gender"].astype(str)) == ["F", "M", "F"]
    assert list(meta["attack"].astype(str)) == ["bonafide", "bonafide", "A11"]


# ---- 4. NIST SRE -----------------------------------------------------------------------------------------------


def test_nist_sre_tsv_key_and_scores(tmp_path):
    key = write(tmp_path, "sre16_eval_trial_key.tsv", "modelid\tsegment\tside\ttargettype\n"
                                                     "1001_sre16\tnzgg_sre16\ta\ttarget\n"
                                                     "1001_sre16\tnzhv_sre16\ta\tnontarget\n"
                                                     "1002_sre16\tnzhv_sre16\ta\tnontarget\n")
    scores = write(tmp_path, "sre16_scores.tsv", "modelid\tsegment\tside\tLLR\n"
                                                "1002_sre16\tnzhv_sre16\ta\t-4.25\n"
                                                "1001_sre16\tnzhv_sre16\ta\t-1.5\n"
                                                "1001_sre16\tnzgg_sre16\ta\t2.5\n")
    trials = read(scores, key)
    assert_classes(trials, [2.5], [-4.25, -1.5])
    assert list(trials.metadata.columns) == ["modelid", "segment", "side"]


def test_nist_sre21_scores_with_the_header_the_scorer_takes(tmp_path):
    """The SRE21 score file's header ``modelid segmentid side LLR`` as Hyperion's recipe writes it for NIST's
    ``sre21_submission_scorer.py`` (egs/sre21-av-v1, local/format_sre_scores.awk)."""
    key = write(tmp_path, "sre21_audio_dev_trial_key.tsv", "modelid\tsegmentid\tside\ttargettype\n"
                                                          "1001_sre21\tabcd_sre21.flac\ta\tnontarget\n"
                                                          "1001_sre21\tefgh_sre21.flac\ta\ttarget\n")
    scores = write(tmp_path, "sre21_scores.tsv", "modelid\tsegmentid\tside\tLLR\n1001_sre21\tefgh_sre21.flac\ta\t3\n"
                                                "1001_sre21\tabcd_sre21.flac\ta\t-2\n")
    trials = read(scores, key)
    assert_classes(trials, [3.0], [-2.0])
    assert list(trials.metadata.columns) == ["modelid", "segmentid", "side"]


# ---- 5. ESPnet -------------------------------------------------------------------------------------------------


def test_espnet_enrol_star_test_ids_are_split(tmp_path):
    scores = write(tmp_path, "spk_trial_scores", "id10270-5r0dWxy17C8-00001*id10270-x6uYqmx31kE-00001 0.55\n"
                                                 "id10270-5r0dWxy17C8-00001*id10271-1gtz-CUIygI-00001 -0.05\n")
    key = write(tmp_path, "trial_label", "id10270-5r0dWxy17C8-00001*id10271-1gtz-CUIygI-00001 0\n"
                                         "id10270-5r0dWxy17C8-00001*id10270-x6uYqmx31kE-00001 1\n")
    trials = read(scores, key)
    assert_classes(trials, [0.55], [-0.05])
    meta = trials.metadata
    assert list(meta.columns) == ["model", "test"]
    assert list(meta["model"].astype(str)) == ["id10270-5r0dWxy17C8-00001"] * 2
    assert list(meta["test"].astype(str)) == ["id10270-x6uYqmx31kE-00001", "id10271-1gtz-CUIygI-00001"]


def test_espnet_scores_with_a_kaldi_key(tmp_path):
    scores = write(tmp_path, "spk_trial_scores", "a*b 0.5\na*c -0.5\n")
    key = write(tmp_path, "trials", "a c nontarget\na b target\n")
    assert_classes(read(scores, key), [0.5], [-0.5])


# the first lines of ESPnet's own test file test_utils/spk_trial_scores ('enrol*test score label', as spk.sh writes it)
ESPNET_SCORES = ("id10270/x6uYqmx31kE/00001*id10270/8jEAjG6SegY/00008 -0.9235963821411133 1\n"
                 "id10270/x6uYqmx31kE/00001*id10300/ize_eiCFEg0/00003 -1.3697408437728882 0\n"
                 "id10270/x6uYqmx31kE/00001*id10270/GWXujl-xAVM/00017 -0.8784666657447815 1\n")


def test_espnet_spk_trial_scores_one_file(tmp_path):
    trials = lc.read_trials(write(tmp_path, "spk_trial_scores", ESPNET_SCORES))
    assert_classes(trials, [-0.9235963821411133, -0.8784666657447815], [-1.3697408437728882])
    meta = trials.metadata
    assert list(meta.columns) == ["model", "test"]
    assert list(meta["model"].astype(str)) == ["id10270/x6uYqmx31kE/00001"] * 3
    assert list(meta["test"].astype(str)) == ["id10270/8jEAjG6SegY/00008", "id10270/GWXujl-xAVM/00017",
                                              "id10300/ize_eiCFEg0/00003"]


def test_espnet_spk_trial_scores_with_a_voxceleb_key_use_the_score_not_the_label(tmp_path):
    key = write(tmp_path, "veri_test.txt", "1 id10270/x6uYqmx31kE/00001 id10270/8jEAjG6SegY/00008\n"
                                          "0 id10270/x6uYqmx31kE/00001 id10300/ize_eiCFEg0/00003\n"
                                          "1 id10270/x6uYqmx31kE/00001 id10270/GWXujl-xAVM/00017\n")
    trials = read(write(tmp_path, "spk_trial_scores", ESPNET_SCORES), key)
    assert_classes(trials, [-0.9235963821411133, -0.8784666657447815], [-1.3697408437728882])


@pytest.mark.parametrize("text", ["LA_E_9332881 -1.0\nLA_E_1000001 3.0\n",
                                  "filename\tcm-score\nE_0000000001\t4.2\nE_0000000002\t-3.1\n"])
def test_a_score_file_of_ids_and_scores_alone_asks_for_its_key(tmp_path, text):
    with pytest.raises(LoadError, match="needs its key") as info:
        lc.read_trials(write(tmp_path, "scores.txt", text))
    assert info.value.needs_key


def test_asvspoof5_full_key_headers_name_speaker_and_trial_as_the_organisers_rename_them(tmp_path):
    """The organisers' full keys head the speaker and trial columns ``tar_spk_anon`` and ``trial_anon`` (their
    evaluation-package/util.py renames them to spk and filename before joining on both): read as the first two
    columns, joined on both, the key's other columns kept."""
    key = write(tmp_path, "full_key.txt", "tar_spk_anon trial_anon codec cm-label asv-label\n"
                                         "E_0101 E_000001 - bonafide target\nE_0202 E_000002 mp3 spoof spoof\n"
                                         "E_2918 E_000003 - bonafide nontarget\n")
    scores = write(tmp_path, "sasv.tsv", "spk\tfilename\tcm-score\tasv-score\tsasv-score\n"
                                        "E_2918\tE_000003\t1.0\t-2.0\t-0.5\nE_0101\tE_000001\t2.0\t3.0\t0.04\n"
                                        "E_0202\tE_000002\t-3.0\t1.0\t0.05\n")
    trials = read(scores, key)
    assert (list(trials.tar), list(trials.non), list(trials.spoof)) == ([0.04], [-0.5], [0.05])
    assert "codec" in trials.metadata.columns

