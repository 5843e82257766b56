"""Score files and keys as evaluation organisers ship them, read into the
:class:`~llrcore.io.kaldi.TrialList` that :func:`~llrcore.io.kaldi.join_with_key` joins.

A Kaldi/BOSARIS list is ``model test score`` or ``model test label``; challenges ship others, and this module finds in
each file its id columns (one or two), its score or label column and the columns kept as metadata:

* VoxCeleb / SpeechBrain trial lists, label first: ``1 id10270/x.wav id10270/y.wav`` (1 target, 0 non-target);
* ASVspoof 2019 CM protocols ``LA_0079 LA_T_1138215 - - bonafide`` and the 2021 keys
  ``LA_0009 LA_E_9332881 alaw ita_tx A07 spoof notrim eval`` (LA; DF and PA alike), joined with a two-column
  ``utt score`` file on the utterance; the other columns (codec, transmission, attack, ...) are metadata;
* the ASVspoof 5 protocols ``E_0001 E_0000000001 F - - - AC3 A33 spoof -`` (no header), likewise;
* ASVspoof 5 TSVs with a header: ``filename cm-score`` with ``filename cm-label`` (track 1), and
  ``spk filename cm-score asv-score sasv-score`` with ``spk filename cm-label asv-label`` (track 2: the SASV score,
  labelled target/nontarget/spoof by ``asv-label``; the CM and ASV scores and the CM label are metadata), as the
  organisers' evaluation package reads them (``util.load_cm_scores_keys``, ``util.load_sasv_scores_keys``);
* NIST SRE TSVs with a header: trials/keys ``modelid segmentid side targettype`` and scores
  ``modelid segmentid side LLR`` (joined on model and segment; ``side`` is metadata);
* ESPnet's ``enrolid*testid score label`` (``spk_trial_scores``; also ``enrolid*testid score`` with a key): the id
  split at ``*`` into model and test.

A key is read knowing its score file (`like`): a score file of one id joins on the key's column that holds its
ids (the utterance column of an ASVspoof protocol), one of two ids on the key's first two id columns.
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pyarrow as pa

from .labels import LABELS, label_key, text_labels
from .metadata import tidy, unique_names
from .text import WHITESPACE, TextFile, clean_name, is_number

__all__ = ["SPLIT", "Layout", "find_layout", "read_list", "split_ids"]

#: Header names of the model (enrolment) id and of the test id, in order of preference.
MODEL_NAMES = ("model", "modelid", "model_id", "enrol", "enroll", "enrolment", "enrollment", "enrol_id", "enroll_id",
               "spk", "speaker", "speaker_id", "spkid")
TEST_NAMES = ("test", "testid", "test_id", "segment", "segmentid", "segment_id", "filename", "utt", "utterance",
              "utt_id", "utterance_id", "file", "trial")
#: Header names of the score column (the SASV score first: a-DCF's) and of the label column (the ASV label first:
#: target/nontarget/spoof), in order of preference.
SCORE_NAMES = ("sasv-score", "score", "llr", "scores", "llrs", "cm-score")
LABEL_NAMES = ("asv-label", "label", "labels", "key", "targettype", "target_type", "cm-label", "class")
#: Names of the columns of the ASVspoof countermeasure keys shipped without a header (labels bonafide/spoof), by their
#: number of columns: as the organisers name them in the ASVspoof 2021 evaluation package (``eval-package/config.py``,
#: ``p_names``; its ``spk``, ``trial``, ``trans`` and ``compr`` written out as speaker, utt, transmission and codec) and
#: in the ASVspoof 5 database README (section 3: ``SPEAKER_ID FLAC_FILE_NAME SPEAKER_GENDER CODEC CODEC_Q CODEC_SEED
#: ATTACK_TAG ATTACK_LABEL KEY TMP``, the reserved TMP left as ``column10``).
ASVSPOOF_NAMES = {
    5: ("speaker", "utt", "environment", "attack", "label"),  # 2019 CM protocols
    8: ("speaker", "utt", "codec", "transmission", "attack", "label", "trim", "subset"),  # 2021 LA keys
    10: ("speaker", "utt", "gender", "codec", "codec_q", "codec_seed", "attack_tag", "attack", "label"),  # ASVspoof 5
    12: ("speaker", "utt", "asv_room", "asv_mic", "dis_to_asv", "att_room", "att_mic", "att_d", "att_to_spk", "label",
         "trim", "subset"),  # 2021 PA keys
    13: ("speaker", "utt", "codec", "source", "attack", "label", "trim", "subset", "vocoder", "task", "team",
         "gender-pair", "language"),  # 2021 DF keys
}
#: Names of the columns of the ASVspoof ASV keys shipped without a header (labels target/nontarget/spoof; the claimed
#: speaker and the utterance are the model and test ids): the 2021 LA and PA ``ASV/trial_metadata.txt``
#: (``p_names_asv``, as their CM keys) and ASVspoof 5's track 2 trial lists (``TARGET_SPEAKER_ID FLAC_FILE_NAME
#: TARGET_GENDER ATTACK_LABEL ASV_KEY``).
ASVSPOOF_ASV_NAMES = {
    5: ("model", "test", "gender", "attack", "label"),  # ASVspoof 5 track 2
    8: ("model", "test", *ASVSPOOF_NAMES[8][2:]),  # 2021 LA
    12: ("model", "test", *ASVSPOOF_NAMES[12][2:]),  # 2021 PA
}
KNOWN_NAMES = {*MODEL_NAMES, *TEST_NAMES, *SCORE_NAMES, *LABEL_NAMES}
SPLIT = "*"  # ESPnet's enrol*test


class Layout:
    """Where a file's ids, value (score or label) and metadata are: columns of its data lines."""

    def __init__(self, first: int, ncols: int, value: int, ids: list[int], names: list[str], split: bool = False):
        self.first, self.ncols, self.value, self.ids, self.names, self.split = first, ncols, value, ids, names, split


def find_layout(text: TextFile, is_key: bool, like=None) -> Layout | None:
    """The layout of an organiser's file, or None for a plain Kaldi/BOSARIS list ``model test value`` (or a file
    read as none of these, left to the Kaldi/BOSARIS reader and its messages)."""
    rows = text.rows
    is_value = (lambda t: label_key(t) in LABELS) if is_key else (lambda t: is_number(t, text.decimal))
    # a header names a column as the organisers do (a first line of ids with a bad label is no header)
    header = len(rows) > 1 and not any(map(is_value, rows[0])) and any(map(is_value, rows[1])) and \
        any(clean_name(t).lower() in KNOWN_NAMES for t in rows[0])
    data = rows[1:] if header else rows
    ncols = len(data[0])
    if any(len(row) != ncols for row in data) or (header and len(rows[0]) != ncols):
        return None
    # a key's label column: mostly labels (a bad one is then named with its line); a score column: all numbers
    counts = [sum(is_value(row[j]) for row in data) for j in range(ncols)]
    values = [j for j, count in enumerate(counts) if (2 * count > len(data) if is_key else count == len(data))]
    if not values:
        return None
    names = [clean_name(t).lower() for t in rows[0]] if header else None
    numbers = values if not is_key else []  # the other columns of numbers are metadata, never ids
    if not is_key and len(values) > 1:  # a 0/1 column beside the scores is a label (ESPnet's, SpeechBrain's)
        values = [j for j in values if not all(row[j] in ("0", "1") for row in data)] or values
    preferred = LABEL_NAMES if is_key else SCORE_NAMES
    value = next((names.index(n) for n in preferred if names and n in names and names.index(n) in values), values[-1])
    others = [j for j in range(ncols) if j != value and j not in numbers]
    if not others:
        return None
    split = len(others) == 1 and all(SPLIT in row[others[0]] for row in data)
    ids = _ids(names, others, value, split, like)
    if ncols == 3 and value == 2 and ids == [0, 1] and not split:
        return None  # model test value: the Kaldi/BOSARIS reader and its fast path
    return Layout(int(header), ncols, value, ids, _names(names, ncols, ids, value, split, data, is_key), split)


def _ids(names, others: list[int], value: int, split: bool, like) -> list[int]:
    """The id columns: the model and test columns a header names, else the first one or two other columns (a key
    read for a score file of one id: all its other columns, the one holding the scored ids chosen when read)."""
    if names:
        model = next((names.index(n) for n in MODEL_NAMES if n in names), None)
        test = next((names.index(n) for n in TEST_NAMES if n in names), None)
        if test is not None:
            return [test] if model is None else [model, test]
    if like is not None and len(like.names) == 1:
        return others
    if split or len(others) == 1:
        return others[:1]
    return [j for j in others if j < value][:2] or others[:2]


def _names(names, ncols: int, ids: list[int], value: int, split: bool, data, is_key: bool) -> list[str]:
    """Every column's name: the header's, else those of an ASVspoof key, else ``model``/``test`` for two ids, and
    ``column<j>`` (1-based) for the others."""
    if names:
        return unique_names(names)
    result = [f"column{j + 1}" for j in range(ncols)]
    labels = {label_key(row[value]) for row in data} if is_key else set()
    bona_fide = is_key and labels <= {"bonafide", "bona-fide", "bona_fide", "spoof"}
    if bona_fide and ncols in ASVSPOOF_NAMES:
        result[:len(ASVSPOOF_NAMES[ncols])] = ASVSPOOF_NAMES[ncols]
    elif ids == [0, 1] and _label_at(ASVSPOOF_ASV_NAMES.get(ncols)) == value and _asvspoof_asv_key(labels, data, ncols):
        result[:] = ASVSPOOF_ASV_NAMES[ncols]
    elif len(ids) == 2 and not bona_fide:
        result[ids[0]], result[ids[1]] = "model", "test"
    return result


def _label_at(names) -> int | None:
    return names.index("label") if names else None


#: What an ASVspoof key's attack column holds: bona fide, or an attack's id (A07, ..., A19 of 2019-2021; ASVspoof 5's
#: A01-A32, and AA/AB-style ids).
ATTACK_ID = re.compile(r"bona[-_]?fide|-|[A-Z]{1,2}\d{1,3}", re.IGNORECASE)


def _asvspoof_asv_key(labels: set, data, ncols: int) -> bool:
    """Whether a key of target/nontarget/spoof labels in the columns of an ASVspoof ASV key is one: its sample of
    lines holds a spoof, or, a key sorted with its spoofs further down, its attack column says bona fide or names an
    attack on every line of the sample."""
    attack = ASVSPOOF_ASV_NAMES[ncols].index("attack")
    return "spoof" in labels or (labels <= {"target", "nontarget", "spoof"} and
                                 all(ATTACK_ID.fullmatch(row[attack]) for row in data))


def read_list(text: TextFile, layout: Layout, is_key: bool, like=None, *, trial_list):
    """The trial list of a file of layout `layout`, every line read, made by `trial_list` (the class
    :class:`~llrcore.io.kaldi.TrialList`, passed in by the module that imports this one)."""
    src, first, ncols = text.src, layout.first, layout.ncols
    reference = text.sample[first][0]
    words = [j for j in range(ncols) if j != layout.value]
    frame, lines = text.read(first, ncols, [layout.value] if is_key else [], reference,
                             numbers=[] if is_key else [layout.value], strings=words)
    values = text_labels(text, frame[layout.value], lines, ncols, reference) if is_key else \
        text.scores(frame[layout.value], lines, ncols, reference)
    ids = layout.ids
    if is_key and like is not None and len(like.names) == 1 and len(ids) > 1:
        ids = [_column_holding(frame, ids, like)]
    names: tuple[str, ...]  # the ids' metadata columns (TrialList.names)
    if layout.split:
        parts = split_ids(frame[ids[0]])
        models, tests = _strings(parts["model"]), _strings(parts["test"])
        names = ("model", "test")
    elif len(ids) == 2:
        models, tests = frame[ids[0]], frame[ids[1]]
        names = (layout.names[ids[0]], layout.names[ids[1]])
    else:
        tests = frame[ids[0]]
        models = pd.Series(pd.arrays.ArrowExtensionArray(pa.chunked_array([pa.repeat("", len(tests))])), copy=False)
        name = layout.names[ids[0]]
        names = ("utt" if name.startswith("column") else name,)  # an ASVspoof utterance id, or ESPnet's
    extra_columns = [j for j in range(ncols) if j != layout.value and j not in ids]
    extra = None
    if extra_columns:
        extra = frame[extra_columns].copy()
        extra.columns = [layout.names[j] for j in extra_columns]
        extra = tidy(extra.astype({c: str for c in extra.columns}))
        for column in extra.columns:  # numbers (the CM and ASV scores of a SASV file) as numbers
            as_numbers = pd.to_numeric(extra[column].astype(str), errors="coerce")
            if not as_numbers.isna().any():
                extra[column] = as_numbers.to_numpy(np.float64)
    return trial_list(src, models, tests, values, lines, spaced=text.sep != WHITESPACE, names=names, extra=extra)


def split_ids(column: pd.Series) -> pd.DataFrame:
    """ESPnet's trial ids ``enrolid*testid`` as the columns ``model`` and ``test``."""
    parts = pd.Series(column, copy=False).astype(str).str.partition(SPLIT)
    return pd.DataFrame({"model": parts[0], "test": parts[2]})


def _strings(column: pd.Series) -> pd.Series:
    return pd.Series(pd.arrays.ArrowExtensionArray(pa.chunked_array([pa.array(column.to_numpy(object),
                                                                              type=pa.string())])), copy=False)


def _column_holding(frame: pd.DataFrame, candidates: list[int], like) -> int:
    """Of a key's columns, the one holding most of the first ids of the score file `like` (the utterance column of
    an ASVspoof protocol, whatever its place); the second candidate on a tie (ASVspoof keys put the speaker first)."""
    wanted = set(like.tests.iloc[:1000].astype(str))
    hits = [int(frame[j].astype(str).isin(wanted).sum()) for j in candidates]
    best = max(hits)
    if hits[min(1, len(hits) - 1)] == best:
        return candidates[min(1, len(candidates) - 1)]
    return candidates[hits.index(best)]
