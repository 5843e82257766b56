"""Read and write binary trials: score files in the formats speaker, language and forensic people use.

Every reader returns a validated :class:`~llrcore.data.Trials` (or a ``dict`` of them, one per system, for
files holding several systems) and every problem with a file is a :class:`LoadError` whose message names the
file, the line (where one applies) and the problem in a sentence, e.g.
``scores.txt, line 17: the score 'abc' is not a number.``

Formats (``format="auto"`` recognises them all)
------------------------------------------------

1. **Two columns, score and label** (``format="two-column"``): CSV, TSV, ``;``-separated or whitespace
   separated; header line optional; the columns in either order::

       score,label
       2.31,target

   Labels, in any case: ``target``/``nontarget`` (also ``non-target``, ``non_target``), ``tar``/``non``,
   ``1``/``0``, ``true``/``false``, ``genuine``/``impostor``, ``same``/``different``; ``spoof`` marks spoofing
   trials, kept apart in ``Trials.spoof``; ``bonafide`` (or ``bona-fide``) and ``spoof`` alone are a
   countermeasure's labels: bona fide trials are the targets, spoof trials the non-targets. Every other column
   (trial ids, conditions) is kept in ``Trials.metadata``: named by the header, else ``column<j>``.
   **Several systems**: with a header, one score column per system gives ``dict`` name -> Trials::

       label  sysA   sysB
       target 2.31   1.70

   and a column named ``system`` (long format) also gives one Trials per system::

       system score label
       sysA   2.31  target

   (the other columns of a several-system file are the metadata of each system's trials).

2. **Kaldi / BOSARIS** (``format="kaldi"``): a score file ``model test score`` and a key (trials) file
   ``model test target|nontarget`` given as ``key=``, joined on the (model, test) pair, in any order::

       spk017 utt_0042 -1.25        (scores)
       spk017 utt_0042 nontarget    (key)

   or the one-file form with four columns ``model test score label``. The trials in both files are read: a key
   may cover only part of the score file (the usual key of one condition) and may hold trials without a score,
   as in BOSARIS; each is counted in a :class:`LoadWarning` naming the first such trial and its line. The ids are
   the metadata columns ``model`` and ``test``. A pair
   scored twice (or twice in the key) is an error, and so is a key that leaves no trial, or no target or no
   non-target trial. **Challenge files as shipped** are joined likewise (:mod:`~llrcore.io.challenge`): VoxCeleb
   lists ``1 id10270/x.wav id10270/y.wav``, ASVspoof 2019 protocols and 2021/ASVspoof 5 keys with ``utt score``
   files (their codec, transmission, attack, ... columns kept as metadata), ASVspoof 5 and NIST SRE TSVs with their
   headers, ESPnet's ``enrol*test score``.

3. **ASVspoof ASV scores** (``format="asvspoof"``): ``<bonafide|attack-id> <target|nontarget|spoof> <score>``;
   target, non-target and spoof trials are kept apart, the first column is the metadata column ``attack``::

       bonafide target 18.20527
       A01 spoof -3.07561

   **ASVspoof 2019 CM scores** ``<utt> <attack|-> <bonafide|spoof> <score>`` (the countermeasure's bona fide
   trials are the targets, its spoof trials the non-targets; metadata ``utt`` and ``attack``, and ``speaker``
   before them in a file of five columns)::

       LA_E_2834763 A11 spoof -3.3
       LA_E_5849185 - bonafide 4.2

4. **Parquet** (``.parquet``): a score column (``score``, ``scores``, ``llr``) and a label column (``label``,
   ``labels``, ``target``, ``key``, ``class``), names in any case; a ``system`` column, or several numeric
   columns and no ``score`` column, gives one Trials per system; the other columns are metadata::

       pd.DataFrame({"score": [2.31, -0.4], "label": ["target", "nontarget"]}).to_parquet("scores.parquet")
       lc.read_trials("scores.parquet")

5. **NumPy** (``.npz``): arrays ``tar`` and ``non`` (and optionally ``spoof``); pickled (object) arrays are
   refused, never unpickled::

       np.savez("scores.npz", tar=tar, non=non)
       lc.read_trials("scores.npz")

6. **BOSARIS HDF5** (``format="bosaris-h5"``; ``.h5``/``.hdf5``, or the HDF5 signature): a Scores file of the BOSARIS
   toolkit, SIDEKIT or PyBOSARIS (model and test ids, a models x test segments score matrix and its mask) read with
   its key, a Key ``.h5`` file or a text key; a text score file may take a Key ``.h5`` file as its key. Joined as
   Kaldi/BOSARIS text files are; see :mod:`~llrcore.io.bosaris_h5` for the layouts::

       lc.read_trials("scores.h5", key="key.h5")

**Metadata** (``metadata=``): a table of conditions joined with the trials on ``model`` and/or ``test`` (say a
speaker's gender, a segment's language), or row by row; see :mod:`~llrcore.io.metadata`.

Text files may be UTF-8 (with or without a byte-order mark) or UTF-16 with a byte-order mark, have Windows
line ends, lines starting with ``#`` (comments), blank lines and extra spaces; ``.gz`` files are
decompressed. A header line is recognised as a first line holding no number.

Line numbers in messages count every line of the file from 1, the header, comments and blank lines included;
Parquet messages give 1-based row numbers.
"""
from __future__ import annotations

import dataclasses
import re
import warnings
from collections.abc import Callable
from typing import TypedDict

import numpy as np
import pandas as pd

from ..data.trials import Trials
from ..memory import small_pages
from ._source import LoadError, LoadWarning, Source, _scan_lines, _Source, _text_bytes, check_fits_in_memory
from .bosaris_h5 import is_hdf5, read_h5_trial_list, refuse_scores_without_key
from .challenge import SPLIT, split_ids
from .columnar import read_npz, read_parquet
from .ids import LazyIds
from .kaldi import join_with_key, read_trial_list, refuse_duplicates
from .labels import ACCEPTED, BONAFIDE, KEY_FORMS, LABELS, SPOOF, label_key, renamed, text_labels, trials_from_codes
from .metadata import ID_COLUMNS, MetadataTable, attach, take_rows, tidy, unique_names
from .text import SCORE_NAMES, WHITESPACE, TextFile, clean_name, columns_phrase, is_number

__all__ = ["FORMATS", "FORMAT_ALIASES", "LoadError", "LoadWarning", "read_trials"]

#: The values ``format=`` accepts in :func:`read_trials` (``"auto"`` detects them).
#: What the scores of a file are: natural-log LLRs (or other scores), or log10 LRs.
SCALES = ("ln", "log10")
FORMATS = ("auto", "two-column", "kaldi", "asvspoof", "parquet", "npz", "bosaris-h5")
FORMAT_ALIASES = {
    "two-column": "two-column", "two_column": "two-column", "text": "two-column", "csv": "two-column",
    "tsv": "two-column", "txt": "two-column",
    "kaldi": "kaldi", "bosaris": "kaldi",
    "asvspoof": "asvspoof",
    "parquet": "parquet",
    "npz": "npz",
    "bosaris-h5": "bosaris-h5", "bosaris_h5": "bosaris-h5", "h5": "bosaris-h5", "hdf5": "bosaris-h5",
    "auto": "auto",
}

_LABEL_NAMES = {"label", "labels", "target", "key", "class", "truth", "is_target"}
_SYSTEM_NAMES = {"system", "systems", "sys"}
_MAX_LINE = 10_000  # characters; a trial line is short, even with many systems and long trial ids


class _Layout(TypedDict):
    """Which columns of a text score file hold what (:func:`_infer_layout`): 0-based column numbers."""

    label: int
    scores: list[int]
    ids: list[int]
    system: int | None


# --------------------------------------------------------------------------------------------------------------
# public functions


def read_trials(source: Source, format: str = "auto", *, key: Source | None = None, name: str | None = None,
                metadata: Source | None = None, on_warning: Callable[[LoadWarning], object] | None = None,
                scale: str = "ln", progress: Callable[[int, int], object] | None = None) -> Trials | dict[str, Trials]:
    """Read binary trials from a score file.

    Parameters
    ----------
    source : str, os.PathLike or file-like
        A path, or an open binary or text file-like object (e.g. Streamlit's ``UploadedFile``); its ``.name``,
        when present, is used in messages, for format detection and as the default system name. A file-like
        object is read from its beginning.
    format : {"auto", "two-column", "kaldi", "asvspoof", "parquet", "npz", "bosaris-h5"}
        The file's format (see the module documentation); ``"auto"`` detects it from the name and the content.
    key : str, os.PathLike or file-like, optional
        The key (trials) file ``model test target|nontarget`` for a Kaldi/BOSARIS score file ``model test score``,
        or a BOSARIS Key ``.h5`` file; a BOSARIS Scores ``.h5`` file takes either; or an organiser's key (VoxCeleb,
        ASVspoof 2019/2021/5, NIST SRE, ESPnet; :mod:`~llrcore.io.challenge`). The trials found in both files are
        read; the others are left out with a :class:`LoadWarning`.
    name : str, optional
        Name of the returned Trials; by default the file's stem (``scores`` for ``scores.txt``). Files holding
        several systems are named after the systems and ignore it.
    metadata : str, os.PathLike or file-like, optional
        A metadata table (CSV, TSV, whitespace separated text with a header line, or Parquet) whose columns are
        added to ``Trials.metadata``: joined on the id columns ``model`` and/or ``test`` it shares with the trials
        (each id once in the table; every trial's id in it), or, when it has neither, matched with the trials row
        by row in file order (one row per trial). Its other columns must not repeat a column of the score file.
    on_warning : callable, optional
        Called with each :class:`LoadWarning` instead of issuing it with :func:`warnings.warn`. A server reading
        files for several users at once collects each user's warnings this way (``warnings.catch_warnings``
        changes process-wide state and is not thread-safe).
    scale : {"ln", "log10"}
        What the scores are: natural-log LLRs or any other scores (``"ln"``, the default, read as they are), or
        log10 LRs as forensic LR systems and the NFI's lir write them (``"log10"``: multiplied by ``ln 10`` into
        llrcore's natural-log LLRs).
    progress : callable, optional
        Called as ``progress(done, n)`` after each of the reading's `n` steps: 1 for one file, 3 for a score file
        and its key (the scores parsed, the key parsed, the two joined).

    Returns
    -------
    Trials or dict of str to Trials
        One Trials, or one per system (in file order) for files holding several systems. ``Trials.metadata`` holds
        every column of the file that is neither a score, the label nor the system name (words as categoricals,
        numbers as numbers), one row per trial; the ids of a Kaldi/BOSARIS file are columns ``model`` and ``test``,
        the first column of an ASVspoof ASV score file is ``attack``.

    Raises
    ------
    LoadError
        For any problem with the file(s), naming the file, the line and the problem. Its ``needs_key`` is True
        for a Kaldi/BOSARIS score file given without its key. A bad metadata table (an id missing, a column it
        cannot be joined on, an id twice, rows and trials not as many) names the file, the line and the column.

    Warns
    -----
    LoadWarning
        When a key covers only part of the score file ("4,200 of 10,000 scored trials are not in the key
        key.txt and were left out; ...") and when trials of the key have no score; BOSARIS likewise evaluates
        the trials of the key that were scored and counts the missing ones.
    """
    if scale not in SCALES:
        raise ValueError(f"scale is 'ln' (natural-log LLRs or other scores) or 'log10' (log10 LRs), not {scale!r}.")
    with small_pages():  # arrays made once and let go of soon: 2 MiB pages cost more than they save
        loaded = _read(source, format, key, name, metadata, on_warning, progress or (lambda done, n: None))
    if scale == "ln":
        return loaded
    systems = {"": loaded} if isinstance(loaded, Trials) else loaded
    scaled = {system: dataclasses.replace(trials, tar=trials.tar * np.log(10.0), non=trials.non * np.log(10.0),
                                          spoof=trials.spoof * np.log(10.0)) for system, trials in systems.items()}
    return scaled[""] if isinstance(loaded, Trials) else scaled


def _read(source, format, key, name, metadata, on_warning, progress) -> Trials | dict[str, Trials]:
    """:func:`read_trials` as the file gives the scores."""
    fmt = FORMAT_ALIASES.get(str(format).lower())
    if fmt is None:
        raise ValueError(f"Unknown format {format!r}: use one of {', '.join(FORMATS)}.")
    src = _Source.open(source, mapped=True)  # a file's pages as the system caches them: no copy (see _mapped)
    table = None if metadata is None else MetadataTable.read(metadata)
    if fmt == "auto":
        fmt = _detect_format(src, key)
    if key is not None and fmt not in ("kaldi", "bosaris-h5"):
        raise ValueError(f"key= is only used with Kaldi/BOSARIS score files, not with format {fmt!r}.")
    if fmt == "parquet":
        return _done(read_parquet(src, name, table), progress)
    if fmt == "npz":
        return _done(read_npz(src, src.stem if name is None else name, table), progress)
    if fmt != "bosaris-h5":
        check_fits_in_memory(src)
    if key is not None:
        # one file after the other, each let go of once parsed: reading both at once on two threads was no faster on
        # two busy CPUs and held both files' bytes and tables at once (280 MB more for 5M-line files)
        scores = read_h5_trial_list(src, False) if fmt == "bosaris-h5" else read_trial_list(src, False)
        src.forget_bytes()
        progress(1, 3)
        key_src = _Source.open(key, mapped=True)
        if not is_hdf5(key_src):
            check_fits_in_memory(key_src)
        key_list = _key_list(key_src, scores)
        key_src.forget_bytes()
        progress(2, 3)
        trials, notes = join_with_key(scores, key_list, src.stem if name is None else name, table)
        progress(3, 3)
        for note in notes:
            if on_warning is None:
                warnings.warn(note, stacklevel=3)
            else:
                on_warning(note)
        return trials
    if fmt == "bosaris-h5":
        refuse_scores_without_key(src)
    return _done(_read_text(src, fmt, name, table), progress)


def _done(loaded, progress):
    """`loaded`, after telling `progress` that the reading's one step is done."""
    progress(1, 1)
    return loaded


def _key_list(src: _Source, scores=None):
    """The (model, test) pairs and labels of a key: a BOSARIS Key .h5 file or a text key (read knowing the score
    file `scores`, whose ids say which of an organiser's key columns to join on)."""
    return read_h5_trial_list(src, is_key=True) if is_hdf5(src) else read_trial_list(src, is_key=True, like=scores)


# --------------------------------------------------------------------------------------------------------------
# sources and format detection


def _detect_format(src: _Source, key) -> str:
    if is_hdf5(src):
        return "bosaris-h5"
    if key is not None:
        return "kaldi"
    head = src.data[:8]
    if src.suffix in (".parquet", ".pq") or head[:4] == b"PAR1":
        return "parquet"
    if src.suffix == ".npz" or head[:4] == b"PK\x03\x04":
        return "npz"
    if head[:6] == b"\x93NUMPY":
        raise src.error("this is a .npy file, which holds a single array; save the target and non-target scores "
                        "together with np.savez(path, tar=tar, non=non).")
    return "auto"


# --------------------------------------------------------------------------------------------------------------
# text files


def _read_text(src: _Source, fmt: str, name: str | None, table: MetadataTable | None = None) \
        -> Trials | dict[str, Trials]:
    data = _text_bytes(src)
    _scan_lines(src, data, _MAX_LINE, "a score file")
    text = TextFile(src, data, skippable=None)  # skippable lines looked for when needed
    rows, sample = text.rows, text.sample
    number = lambda token: is_number(token, text.decimal)

    # ---- header and column layout ---------------------------------------------------------------------------------
    expected = {"kaldi": 4, "asvspoof": 3}.get(fmt)
    if expected:
        has_header = len(rows[0]) == expected and not number(rows[0][2])
    else:
        has_header = not any(number(t) for t in rows[0])
    first = 1 if has_header else 0
    if first >= len(rows):
        raise src.error("the file has a header line but no trials after it.", sample[0][0])
    reference, ncols = sample[first][0], len(rows[first])
    mix = text.mixed_separators() if ncols < 2 or any(len(row) != ncols for row in rows) else None
    if mix:
        raise src.error(*mix)
    if has_header and len(rows[0]) != ncols:
        raise src.error(f"this line has {columns_phrase(ncols)} but the header (line {sample[0][0]}) has "
                        f"{columns_phrase(len(rows[0]))}; every line must have the same columns.", reference)
    for (lineno, *_), row in zip(sample[first:], rows[first:]):
        if len(row) != ncols:
            raise src.error(f"this line has {columns_phrase(len(row))} but line {reference} has {ncols}; every line must "
                            "have the same columns.", lineno)
    header = [clean_name(t) for t in rows[0]] if has_header else None

    if fmt == "kaldi":
        if ncols != 4:
            raise src.error(f"a Kaldi/BOSARIS file needs 4 columns 'model test score label', or 3 columns "
                            f"'model test score' and its key (trials) file; this line has {ncols}.", reference,
                            needs_key=ncols == 3)
        layout = _Layout(label=3, scores=[2], ids=[0, 1], system=None)
    elif fmt == "asvspoof":
        if ncols != 3:
            raise src.error("an ASVspoof score file needs 3 columns '<attack-id> <target|nontarget|spoof> <score>', "
                            f"but this line has {ncols}.", reference)
        layout = _Layout(label=1, scores=[2], ids=[0], system=None)
    else:
        layout = _infer_layout(src, header, rows[first:], ncols, reference, number)
        if header is not None and not _header_plausible(header, layout):  # (a header read: has_header)
            # e.g. 'abc target' on the first line: a bad score, not a header
            has_header, first, header, reference = False, 0, None, sample[0][0]
            layout = _infer_layout(src, None, rows, ncols, reference, number)

    # the other columns are the trials' metadata: ids and words as categoricals, a column of numbers as numbers
    ids = layout["ids"]
    # 'model test score label', or SpeechBrain's 'enrol test 1|0 score'
    speechbrain = layout["scores"] == [3] and all(row[2] in ("0", "1") for row in rows[first:])
    kaldi = fmt == "kaldi" or (header is None and ncols == 4 and ids == [0, 1]
                               and (layout["scores"] == [2] or speechbrain))
    names = ["attack"] if fmt == "asvspoof" else _metadata_names(header, layout, kaldi, rows[first:])
    words = [j for j, n in zip(ids, names) if n in ID_COLUMNS or not all(number(row[j]) for row in rows[first:])]
    # the ids of a Kaldi/BOSARIS file stay Arrow strings: their categoricals are built when first looked at
    strings = ids if kaldi and layout["system"] is None and words == ids else []
    categorical = [layout["label"], *[j for j in words if j not in strings]] + \
        ([] if layout["system"] is None else [layout["system"]])
    few_words = [layout["label"]] + ([] if layout["system"] is None else [layout["system"]])
    frame, lines = text.read(first, ncols, categorical, reference, numbers=layout["scores"], strings=strings,
                             labels=few_words)
    labels = text_labels(text, frame[layout["label"]], lines, ncols, reference)
    score_columns = {j: text.scores(frame[j], lines, ncols, reference) for j in layout["scores"]}
    if layout["system"] is None:  # every value is checked: no message below quotes a line of the file
        del data
        text.forget_bytes()
    if kaldi:
        # Kaldi/BOSARIS one-file form 'model test score label': each pair once
        refuse_duplicates(src, frame[ids[0]], frame[ids[1]], lines, spaced=text.sep != WHITESPACE)
    meta: pd.DataFrame | LazyIds
    if strings:
        meta = LazyIds({n: frame[j] for n, j in zip(names, ids)})
        meta = meta if table is None else attach(table, meta.materialize(), src, lines)
    else:
        meta = frame[ids]
        meta.columns = names
        if header is None and len(ids) == 1 and all(SPLIT in row[ids[0]] for row in rows[first:]):
            meta = split_ids(meta.iloc[:, 0])  # ESPnet's 'enrol*test score label'
        meta = attach(table, tidy(meta), src, lines)

    # ---- one Trials per system -----------------------------------------------------------------------------------
    if layout["system"] is not None:
        (values,) = score_columns.values()
        systems = frame[layout["system"]]
        codes = systems.cat.codes.to_numpy()
        empty = [i for i, c in enumerate(systems.cat.categories) if not str(c).strip()]
        if empty:
            at = int(np.argmax(codes == empty[0]))
            text.check_width(int(lines[at]), ncols, reference)
            raise src.error("the system name is empty.", int(lines[at]))
        order = pd.unique(codes)
        result = {}
        for code in order:
            system = str(systems.cat.categories[int(code)]).strip()
            mask = codes == code
            result[system] = trials_from_codes(src, values[mask], labels[mask], system, f"system {system!r}",
                                               _rows(meta, mask), _rows(lines, mask))
        if len(result) == 1:
            (system, trials), = result.items()
            return renamed(trials, system if name is None else name)
        return result
    if len(score_columns) == 1:
        (values,) = score_columns.values()
        return trials_from_codes(src, values, labels, src.stem if name is None else name, metadata=meta, lines=lines)
    assert header is not None  # several score columns: _infer_layout refused them without a header naming each
    names = [header[j] for j in score_columns]
    if len(set(names)) != len(names):
        duplicate = next(n for n in names if names.count(n) > 1)
        raise src.error(f"two score columns are both named {duplicate!r}; give each system its own name.",
                        sample[0][0])
    return {header[j]: trials_from_codes(src, values, labels, header[j], f"system {header[j]!r}", meta, lines)
            for j, values in score_columns.items()}


def _rows(table, mask: np.ndarray):
    """The rows of a table (DataFrame) or of line numbers (array or range) where `mask` is True."""
    if isinstance(table, pd.DataFrame):
        return take_rows(table, np.flatnonzero(mask)) if table.shape[1] else table.iloc[:int(mask.sum())]
    return np.asarray(table)[mask]


_ATTACK = re.compile(r"-|bona-?fide|[A-Za-z]{1,3}_?\d{1,3}", re.IGNORECASE)


def _metadata_names(header: list[str] | None, layout: _Layout, kaldi: bool, rows: list[list[str]]) -> list[str]:
    """The names of the metadata columns (the id columns of `layout`): the header's, else ``model``/``test`` for
    Kaldi/BOSARIS ids, ``attack`` for an ASVspoof attack column (``A11``, ``-``, ``bonafide``), ``utt`` and
    ``speaker``/``utt`` for the columns before it in a countermeasure file, ``column<j>`` (1-based) otherwise."""
    ids = layout["ids"]
    if header is not None:
        return unique_names([header[j] for j in ids])
    if kaldi:
        return ["model", "test"]
    spoofing = any(LABELS.get(label_key(row[layout["label"]])) in (SPOOF, BONAFIDE) for row in rows)
    names = [f"column{j + 1}" for j in ids]
    for i, j in enumerate(ids):
        values = [row[j] for row in rows]
        if all(_ATTACK.fullmatch(v) for v in values) and \
                (spoofing or any(v == "-" or v.lower().startswith("bona") for v in values)):
            names[i] = "attack"
            before = list(range(i))
            if len(before) in (1, 2) and spoofing:
                for k, word in zip(before, ["utt"] if len(before) == 1 else ["speaker", "utt"]):
                    names[k] = word
            break
    return unique_names(names)


def _header_plausible(header: list[str], layout: _Layout) -> bool:
    """A first line without numbers is a header unless it reads like a trial with a bad score: a label value over
    the labels (``abc target``) and no score name (``score``, ``llr``) over the scores."""
    word = header[layout["label"]].lower()
    named_score = any(header[j].lower() in SCORE_NAMES for j in layout["scores"])
    return named_score or not (word in LABELS and word not in ("label", "labels"))


def _infer_layout(src, header, rows, ncols, reference, number) -> _Layout:
    """Which column holds the labels, which the scores, which a system name; the rest (ids) are ignored."""
    if ncols < 2:
        raise src.error("each line has only one column; a score and a label are needed on every line.", reference)
    names = [h.lower() for h in header] if header else [""] * ncols
    columns = [[row[j] for row in rows] for j in range(ncols)]
    # a column is numeric when most of its first values are numbers (a bad value is then reported precisely)
    numeric = [bool(col) and sum(map(number, col)) >= 0.5 * len(col) for col in columns]
    label_share = [sum(label_key(t) in LABELS for t in col) / max(len(col), 1) for col in columns]
    # 'bonafide' is a label in a countermeasure file, an attack id in an ASV file beside its target/nontarget labels
    strict_share = [sum(LABELS.get(label_key(t), BONAFIDE) != BONAFIDE for t in col) / max(len(col), 1)
                    for col in columns]

    system = next((j for j in range(ncols) if names[j] in _SYSTEM_NAMES), None)
    named = [j for j in range(ncols) if names[j] in _LABEL_NAMES and j != system]
    if named:
        label = max(named, key=lambda j: (strict_share[j], label_share[j], j))
    else:
        words = [j for j in range(ncols) if not numeric[j] and label_share[j] > 0 and j != system]
        binary = [j for j in range(ncols) if numeric[j] and label_share[j] == 1 and j != system]
        if words:
            label = max(words, key=lambda j: (strict_share[j], label_share[j], j))
        elif binary and sum(numeric) >= 2:
            # '0 0.0' lines: both columns read as labels; the labels are the one holding both classes (else the last)
            label = max(binary, key=lambda j: (len({LABELS[label_key(t)] for t in columns[j]}) > 1, j))
        else:
            if ncols == 3 and numeric == [False, False, True]:
                raise src.error("no column of labels: this looks like a Kaldi/BOSARIS or VoxCeleb score file "
                                f"'model test score'; it needs its key (trials) file: {KEY_FORMS}.",
                                reference, needs_key=True)
            if not numeric[0] and any(numeric):  # 'utt score', ASVspoof 5's 'filename cm-score', SRE's LLR files
                raise src.error("no column of labels: this looks like a score file of trial ids and scores; it needs "
                                "its key (an ASVspoof protocol or key, a VoxCeleb, NIST SRE or Kaldi trial list).",
                                reference, needs_key=True)
            raise src.error(f"no column of labels found; accepted labels are {ACCEPTED}.", reference)
    named_scores = [j for j in range(ncols) if names[j] in SCORE_NAMES and j not in (label, system)]
    if named_scores:
        scores = named_scores[:1] if system is not None or len(named_scores) == 1 else named_scores
    else:
        scores = [j for j in range(ncols) if numeric[j] and j not in (label, system)]
    if not scores:
        if ncols == 3 and label == 2 and not numeric[0] and not numeric[1]:
            # a key's first line has no number either, so it passed for a header: the sentence is about the file
            raise src.error("no column of scores: this looks like a Kaldi/BOSARIS key (trials) file "
                            "'model test target|nontarget'; give it as the key of its score file 'model test score'.")
        raise src.error("no column of scores (numbers) found; each line needs a score and a label.", reference)
    if system is not None and len(scores) > 1:
        raise src.error(f"with a '{header[system]}' column there must be one score column (name it 'score').",
                        reference)
    if len(scores) > 1 and header is None:
        listed = ", ".join(str(j + 1) for j in scores)
        raise src.error(f"columns {listed} all hold numbers, so which one is the score is ambiguous; add a header "
                        "line naming the score column 'score' (or one name per system; 'model test score label' for "
                        "a Kaldi/BOSARIS file).", reference)
    ids = [j for j in range(ncols) if j not in scores and j not in (label, system)]
    return _Layout(label=label, scores=scores, ids=ids, system=system)


# --------------------------------------------------------------------------------------------------------------
# Kaldi / BOSARIS: score file plus key file


# --------------------------------------------------------------------------------------------------------------
# Parquet and npz


