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
   trials, kept apart in ``Trials.spoof``. Extra columns of words (trial ids) are ignored.
   **Several systems**: with a header, one score column per system gives ``dict`` name -> Trials::

       label  sysA   sysB
       target 2.31   1.70

   and a column named ``system`` (long format) also gives one Trials per system::

       system score label
       sysA   2.31  target

2. **Kaldi / BOSARIS** (``format="kaldi"``): a score file ``model test score`` and a key (trials) file
   ``model test target|nontarget`` given as ``key=``, joined on the (model, test) pair, in any order::

       spk017 utt_0042 -1.25        (scores)
       spk017 utt_0042 nontarget    (key)

   or the one-file form with four columns ``model test score label``. The trials in both files are read: a key
   may cover only part of the score file (the usual key of one condition) and may hold trials without a score,
   as in BOSARIS; each is counted in a :class:`LoadWarning` naming the first such trial and its line. A pair
   scored twice (or twice in the key) is an error, and so is a key that leaves no trial, or no target or no
   non-target trial.

3. **ASVspoof ASV scores** (``format="asvspoof"``): ``<bonafide|attack-id> <target|nontarget|spoof> <score>``;
   target, non-target and spoof trials are kept apart::

       bonafide target 18.20527
       A01 spoof -3.07561

4. **Parquet** (``.parquet``): a score column (``score``, ``scores``, ``llr``) and a label column (``label``,
   ``labels``, ``target``, ``key``, ``class``), names in any case; a ``system`` column, or several numeric
   columns and no ``score`` column, gives one Trials per system::

       pd.DataFrame({"score": [2.31, -0.4], "label": ["target", "nontarget"]}).to_parquet("scores.parquet")
       lc.read_trials("scores.parquet")

5. **NumPy** (``.npz``): arrays ``tar`` and ``non`` (and optionally ``spoof``); pickled (object) arrays are
   refused, never unpickled::

       np.savez("scores.npz", tar=tar, non=non)
       lc.read_trials("scores.npz")

Text files may be UTF-8 (with or without a byte-order mark) or UTF-16 with a byte-order mark, have Windows
line ends, lines starting with ``#`` (comments), blank lines and extra spaces; ``.gz`` files are
decompressed. A header line is recognised as a first line holding no number.

Line numbers in messages count every line of the file from 1, the header, comments and blank lines included;
Parquet messages give 1-based row numbers.
"""
from __future__ import annotations

import io
import re
import warnings
from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd

from ..data.trials import Trials
from ._source import LoadError, LoadWarning, _load_numpy, _npz_array, _scan_lines, _Source, _text_bytes
from .text import NAN_WORDS, SCORE_NAMES, TextFile, clean_name, columns_phrase, is_number

__all__ = ["FORMATS", "LoadError", "LoadWarning", "read_trials", "write_trials"]

#: The values ``format=`` accepts in :func:`read_trials` (``"auto"`` detects them).
FORMATS = ("auto", "two-column", "kaldi", "asvspoof", "parquet", "npz")
_FORMAT_ALIASES = {
    "two-column": "two-column", "two_column": "two-column", "text": "two-column", "csv": "two-column",
    "tsv": "two-column", "txt": "two-column",
    "kaldi": "kaldi", "bosaris": "kaldi",
    "asvspoof": "asvspoof",
    "parquet": "parquet",
    "npz": "npz",
    "auto": "auto",
}

TARGET, NONTARGET, SPOOF = 1, 0, 2
_LABELS = {
    **dict.fromkeys(("target", "tar", "1", "1.0", "true", "genuine", "same"), TARGET),
    **dict.fromkeys(("nontarget", "non-target", "non_target", "non", "0", "0.0", "false", "impostor", "imposter",
                     "different"), NONTARGET),
    "spoof": SPOOF,
}
_ACCEPTED = ("target/nontarget, tar/non, 1/0, true/false, genuine/impostor or same/different (any case), "
             "and spoof for spoofing trials")
_LABEL_NAMES = {"label", "labels", "target", "key", "class", "truth", "is_target"}
_SYSTEM_NAMES = {"system", "systems", "sys"}
_MAX_LINE = 10_000  # characters; a trial line is short, even with many systems and long trial ids


# --------------------------------------------------------------------------------------------------------------
# public functions


def read_trials(source, format: str = "auto", *, key=None, name: str | None = None,
                on_warning: Callable[[LoadWarning], object] | None = None) -> Trials | dict[str, Trials]:
    """Read binary trials from a score file.

    Parameters
    ----------
    source : str, os.PathLike or file-like
        A path, or an open binary or text file-like object (e.g. Streamlit's ``UploadedFile``); its ``.name``,
        when present, is used in messages, for format detection and as the default system name. A file-like
        object is read from its beginning.
    format : {"auto", "two-column", "kaldi", "asvspoof", "parquet", "npz"}
        The file's format (see the module documentation); ``"auto"`` detects it from the name and the content.
    key : str, os.PathLike or file-like, optional
        The key (trials) file ``model test target|nontarget`` for a Kaldi/BOSARIS score file ``model test score``.
        The trials found in both files are read; the others are left out with a :class:`LoadWarning`.
    name : str, optional
        Name of the returned Trials; by default the file's stem (``scores`` for ``scores.txt``). Files holding
        several systems are named after the systems and ignore it.
    on_warning : callable, optional
        Called with each :class:`LoadWarning` instead of issuing it with :func:`warnings.warn`. A server reading
        files for several users at once collects each user's warnings this way (``warnings.catch_warnings``
        changes process-wide state and is not thread-safe).

    Returns
    -------
    Trials or dict of str to Trials
        One Trials, or one per system (in file order) for files holding several systems.

    Raises
    ------
    LoadError
        For any problem with the file(s), naming the file, the line and the problem. Its ``needs_key`` is True
        for a Kaldi/BOSARIS score file given without its key.

    Warns
    -----
    LoadWarning
        When a key covers only part of the score file ("4,200 of 10,000 scored trials are not in the key
        key.txt and were left out; ...") and when trials of the key have no score; BOSARIS likewise evaluates
        the trials of the key that were scored and counts the missing ones.
    """
    fmt = _FORMAT_ALIASES.get(str(format).lower())
    if fmt is None:
        raise ValueError(f"Unknown format {format!r}: use one of {', '.join(FORMATS)}.")
    src = _Source.open(source)
    if fmt == "auto":
        fmt = _detect_format(src, key)
    if key is not None and fmt != "kaldi":
        raise ValueError(f"key= is only used with Kaldi/BOSARIS score files, not with format {fmt!r}.")
    if fmt == "parquet":
        return _read_parquet(src, name)
    if fmt == "npz":
        return _read_npz(src, src.stem if name is None else name)
    if fmt == "kaldi" and key is not None:
        trials, notes = _read_kaldi_pair(src, _Source.open(key), src.stem if name is None else name)
        for note in notes:
            if on_warning is None:
                warnings.warn(note, stacklevel=2)
            else:
                on_warning(note)
        return trials
    return _read_text(src, fmt, name)


def write_trials(path, trials: Trials | Mapping[str, Trials], format: str = "two-column") -> None:
    """Write trials so that :func:`read_trials` reads back exactly the same scores.

    Parameters
    ----------
    path : str, os.PathLike or binary file-like
        Where to write.
    trials : Trials or mapping of str to Trials
        One system, or several (written in long form with a ``system`` column; two-column format only).
    format : {"two-column", "npz"}
        ``"two-column"``: a header ``score label`` then one trial per line, labels ``target``, ``nontarget``
        (and ``spoof``), scores with all their digits. ``"npz"``: arrays ``tar``, ``non`` (and ``spoof``).
    """
    fmt = _FORMAT_ALIASES.get(str(format).lower())
    if fmt not in ("two-column", "npz"):
        raise ValueError(f"write_trials writes format 'two-column' or 'npz', not {format!r}.")
    if fmt == "npz":
        if not isinstance(trials, Trials):
            raise ValueError("format 'npz' holds one system: pass one Trials, not several.")
        arrays = {"tar": np.asarray(trials.tar), "non": np.asarray(trials.non)}
        if trials.spoof.size:
            arrays["spoof"] = np.asarray(trials.spoof)
        with _open_for_writing(path) as out:
            np.savez(out, **arrays)
        return
    if isinstance(trials, Trials):
        text = "score label\n" + _lines(trials, "")
    else:
        blocks = ["system\tscore\tlabel\n"]
        for system, one in trials.items():
            system = str(system)
            if re.search(r"[\t\r\n]", system) or not system.strip() or system != system.strip():
                raise ValueError(f"The system name {system!r} cannot be written: it is empty, has spaces at an end or "
                                 "holds a tab or a line break.")
            blocks.append(_lines(one, system + "\t", "\t"))
        if len(blocks) == 1:
            raise ValueError("There are no systems to write.")
        text = "".join(blocks)
    with _open_for_writing(path) as out:
        out.write(text.encode("utf-8"))


def _lines(trials: Trials, prefix: str, sep: str = " ") -> str:
    """One line per trial, ``<prefix><score><sep><label>``; ``repr`` gives the shortest exact decimal form."""
    blocks = []
    for scores, label in ((trials.tar, "target"), (trials.non, "nontarget"), (trials.spoof, "spoof")):
        if scores.size:
            end = f"{sep}{label}\n"
            blocks.append(prefix + (end + prefix).join(map(repr, scores.tolist())) + end)
    return "".join(blocks)


class _open_for_writing:
    def __init__(self, path):
        self.path = path
        self.file = None

    def __enter__(self):
        if hasattr(self.path, "write"):
            return self.path
        self.file = open(self.path, "wb")
        return self.file

    def __exit__(self, *exc):
        if self.file is not None:
            self.file.close()


# --------------------------------------------------------------------------------------------------------------
# sources and format detection


def _detect_format(src: _Source, key) -> str:
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


def _text_labels(text: TextFile, column: pd.Series, lines: np.ndarray, ncols: int, reference: int) -> np.ndarray:
    """The binary label codes of a text column; a LoadError names the line of the first label not accepted."""
    codes, _ = _label_codes(column)
    bad = codes < 0
    if bad.any():
        row = int(np.argmax(bad))
        lineno = int(lines[row])
        text.check_width(lineno, ncols, reference)
        raw = str(column.iloc[row]).strip()
        if not raw:
            raise text.src.error(f"the label is empty; accepted labels are {_ACCEPTED}.", lineno)
        raise text.src.error(f"the label {raw!r} is not one of the accepted labels: {_ACCEPTED}.", lineno)
    return codes


def _label_codes(column: pd.Series) -> tuple[np.ndarray, list]:
    """Codes TARGET/NONTARGET/SPOOF per value, -1 where the value is not an accepted label."""
    if not isinstance(column.dtype, pd.CategoricalDtype):
        column = column.astype("category")
    categories = list(column.cat.categories)
    lut = np.array([_LABELS.get(_label_key(c), -1) for c in categories] + [-1], dtype=np.int8)
    codes = column.cat.codes.to_numpy()
    return lut[codes], categories


def _label_key(value) -> str:
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        value = int(value)
    return str(value).strip().strip('"').strip().lower()


def _read_text(src: _Source, fmt: str, name: str | None) -> Trials | dict[str, Trials]:
    data = _text_bytes(src)
    text = TextFile(src, data, skippable=_scan_lines(src, data, _MAX_LINE, "a score file"))
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
        layout = dict(label=3, scores=[2], ids=[0, 1], system=None)
    elif fmt == "asvspoof":
        if ncols != 3:
            raise src.error("an ASVspoof score file needs 3 columns '<attack-id> <target|nontarget|spoof> <score>', "
                            f"but this line has {ncols}.", reference)
        layout = dict(label=1, scores=[2], ids=[0], system=None)
    else:
        layout = _infer_layout(src, header, rows[first:], ncols, reference, number)
        if has_header and not _header_plausible(header, layout):
            # e.g. 'abc target' on the first line: a bad score, not a header
            has_header, first, header, reference = False, 0, None, sample[0][0]
            layout = _infer_layout(src, None, rows, ncols, reference, number)

    categorical = [layout["label"], *layout["ids"]] + ([] if layout["system"] is None else [layout["system"]])
    frame, lines = text.read(first, ncols, categorical, reference)
    labels = _text_labels(text, frame[layout["label"]], lines, ncols, reference)
    score_columns = {j: text.scores(frame[j], lines, ncols, reference) for j in layout["scores"]}
    if fmt == "kaldi" or (header is None and ncols == 4 and layout["ids"] == [0, 1] and layout["scores"] == [2]):
        # Kaldi/BOSARIS one-file form 'model test score label': each pair once
        _refuse_duplicates(src, frame[layout["ids"][0]], frame[layout["ids"][1]], lines)

    # ---- one Trials per system -----------------------------------------------------------------------------------
    if layout["system"] is not None:
        (values,) = score_columns.values()
        systems = frame[layout["system"]]
        codes = systems.cat.codes.to_numpy()
        empty = [i for i, c in enumerate(systems.cat.categories) if not str(c).strip()]
        if empty:
            row = int(np.argmax(codes == empty[0]))
            text.check_width(int(lines[row]), ncols, reference)
            raise src.error("the system name is empty.", int(lines[row]))
        order = pd.unique(codes)
        result = {}
        for code in order:
            system = str(systems.cat.categories[code]).strip()
            mask = codes == code
            result[system] = _trials(src, values[mask], labels[mask], system, f"system {system!r}")
        if len(result) == 1:
            (system, trials), = result.items()
            return _renamed(trials, system if name is None else name)
        return result
    if len(score_columns) == 1:
        (values,) = score_columns.values()
        return _trials(src, values, labels, src.stem if name is None else name)
    names = [header[j] for j in score_columns]
    if len(set(names)) != len(names):
        duplicate = next(n for n in names if names.count(n) > 1)
        raise src.error(f"two score columns are both named {duplicate!r}; give each system its own name.",
                        sample[0][0])
    return {header[j]: _trials(src, values, labels, header[j], f"system {header[j]!r}")
            for j, values in score_columns.items()}


def _renamed(trials: Trials, name: str) -> Trials:
    return Trials(trials.tar, trials.non, name=name, spoof=trials.spoof)


def _header_plausible(header: list[str], layout: dict) -> bool:
    """A first line without numbers is a header unless it reads like a trial with a bad score: a label value over
    the labels (``abc target``) and no score name (``score``, ``llr``) over the scores."""
    word = header[layout["label"]].lower()
    named_score = any(header[j].lower() in SCORE_NAMES for j in layout["scores"])
    return named_score or not (word in _LABELS and word not in ("label", "labels"))


def _infer_layout(src, header, rows, ncols, reference, number) -> dict:
    """Which column holds the labels, which the scores, which a system name; the rest (ids) are ignored."""
    if ncols < 2:
        raise src.error("each line has only one column; a score and a label are needed on every line.", reference)
    names = [h.lower() for h in header] if header else [""] * ncols
    columns = [[row[j] for row in rows] for j in range(ncols)]
    # a column is numeric when most of its first values are numbers (a bad value is then reported precisely)
    numeric = [bool(col) and sum(map(number, col)) >= 0.5 * len(col) for col in columns]
    label_share = [sum(_label_key(t) in _LABELS for t in col) / max(len(col), 1) for col in columns]

    system = next((j for j in range(ncols) if names[j] in _SYSTEM_NAMES), None)
    named = [j for j in range(ncols) if names[j] in _LABEL_NAMES and j != system]
    if named:
        label = max(named, key=lambda j: (label_share[j], j))
    else:
        words = [j for j in range(ncols) if not numeric[j] and label_share[j] > 0 and j != system]
        binary = [j for j in range(ncols) if numeric[j] and label_share[j] == 1 and j != system]
        if words:
            label = max(words, key=lambda j: (label_share[j], j))
        elif binary and sum(numeric) >= 2:
            label = binary[-1]
        else:
            if ncols == 3 and numeric == [False, False, True]:
                raise src.error("no column of labels: this looks like a Kaldi/BOSARIS score file "
                                "'model test score'; it needs its key (trials) file 'model test target|nontarget'.",
                                reference, needs_key=True)
            raise src.error(f"no column of labels found; accepted labels are {_ACCEPTED}.", reference)
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
    return dict(label=label, scores=scores, ids=ids, system=system)


def _refuse_duplicates(src: _Source, models: pd.Series, tests: pd.Series, lines: np.ndarray,
                       what: str = "trial") -> None:
    pairs = pd.DataFrame({"m": models, "t": tests})
    duplicated = pairs.duplicated().to_numpy()
    if duplicated.any():
        row = int(np.argmax(duplicated))
        m, t = models.iloc[row], tests.iloc[row]
        first = int(np.argmax(((models == m) & (tests == t)).to_numpy()))
        raise src.error(f"the {what} '{m} {t}' appears a second time (first on line {int(lines[first])}); each "
                        "(model, test) pair may appear only once.", int(lines[row]))


def _trials(src: _Source, scores: np.ndarray, labels: np.ndarray, name: str, who: str = "the file") -> Trials:
    tar, non, spoof = scores[labels == TARGET], scores[labels == NONTARGET], scores[labels == SPOOF]
    if tar.size == 0 or non.size == 0:
        missing, present = ("target", "non-target") if tar.size == 0 else ("non-target", "target")
        raise src.error(f"{who} has {present} trials but no {missing} trials; both classes are needed.")
    return Trials(tar, non, name=name, spoof=spoof)


# --------------------------------------------------------------------------------------------------------------
# Kaldi / BOSARIS: score file plus key file


def _read_key_or_scores(src: _Source, is_key: bool):
    text = TextFile(src, _text_bytes(src))
    rows, sample = text.rows, text.sample
    kind = "key file 'model test target|nontarget'" if is_key else "Kaldi/BOSARIS score file 'model test score'"
    if is_key:
        has_header = len(rows[0]) == 3 and _label_key(rows[0][2]) not in _LABELS
    else:
        has_header = len(rows[0]) == 3 and not is_number(rows[0][2], text.decimal)
    first = 1 if has_header else 0
    if first >= len(rows):
        raise src.error("the file has a header line but no trials after it.", sample[0][0])
    reference = sample[first][0]
    for (lineno, *_), row in zip(sample, rows):
        if len(row) != 3:
            raise src.error(f"a {kind} needs 3 columns, but this line has {len(row)}.", lineno)
    frame, lines = text.read(first, 3, [0, 1] + ([2] if is_key else []), reference)
    values = _text_labels(text, frame[2], lines, 3, reference) if is_key else text.scores(frame[2], lines, 3, reference)
    _refuse_duplicates(src, frame[0], frame[1], lines, "key entry" if is_key else "trial")
    return frame[0], frame[1], values, lines


def _read_kaldi_pair(src: _Source, key_src: _Source, name: str) -> tuple[Trials, list[LoadWarning]]:
    """The trials of a score file that are in its key, and a LoadWarning for each file's trials the other lacks.

    BOSARIS evaluates the trials of the key that have a score and counts the others ("3 of 100 targets missing",
    ``Scores.align_with_ndx``); scores of trials outside the key are not used. Here both are counted, with the
    first such trial and its line, so that a key of one condition reads a score file of several. Trials in one file
    only are no error unless nothing, or only one class, is left.
    """
    models, tests, scores, lines = _read_key_or_scores(src, is_key=False)
    key_models, key_tests, labels, key_lines = _read_key_or_scores(key_src, is_key=True)
    model_ids, key_model_ids = _shared_codes(models, key_models)
    test_ids, key_test_ids = _shared_codes(tests, key_tests)
    width = int(max(test_ids.max(initial=0), key_test_ids.max(initial=0))) + 1
    where = pd.Index(key_model_ids * width + key_test_ids).get_indexer(model_ids * width + test_ids)
    in_key = where >= 0
    scored = np.zeros(len(key_models), bool)
    scored[where[in_key]] = True
    key_name = key_src.name if key_src.path else "file"  # "the key trials.txt", or "the key file"
    row, key_row = int(np.argmin(in_key)), int(np.argmin(scored))  # the first trial missing from the other file
    trial = f"'{models.iloc[row]} {tests.iloc[row]}' on line {int(lines[row])}"
    key_trial = f"'{key_models.iloc[key_row]} {key_tests.iloc[key_row]}' on line {int(key_lines[key_row])}"
    if not in_key.any():
        raise src.error(f"none of its {_count(len(in_key), 'scored trial')} is in the key {key_name}: no (model, test) "
                        f"pair is in both files. Is it the key of this score file? The first scored trial is {trial}; "
                        f"the key's first is {key_trial}.")
    kept = labels[where[in_key]]
    _refuse_a_missing_class(src, key_name, labels, kept, len(in_key))
    notes = []
    if not in_key.all():
        out = int((~in_key).sum())
        notes.append(src.warning(
            f"{out:,} of {len(in_key):,} scored trials {'is' if out == 1 else 'are'} not in the key {key_name} and "
            f"{'was' if out == 1 else 'were'} left out{_first(out, trial)}"))
    if not scored.all():
        unscored = int((~scored).sum())
        by_class = ", ".join(f"{word}: {int(((labels == code) & ~scored).sum()):,} of {int((labels == code).sum()):,}"
                             for code, word in ((TARGET, "targets"), (NONTARGET, "non-targets"), (SPOOF, "spoof"))
                             if (labels == code).any())
        notes.append(key_src.warning(
            f"{unscored:,} of the {len(scored):,} trials of the key {'has' if unscored == 1 else 'have'} no score in "
            f"{src.name if src.path else 'the score file'} ({by_class}){_first(unscored, key_trial)}"))
    return _trials(src, scores[in_key], kept, name), notes


def _count(n: int, noun: str) -> str:
    """``1 trial``, ``2 trials``, ``4,200 trials``."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def _first(count: int, trial: str) -> str:
    """The end of a sentence that counted `count` trials: the one, or the first one, with its line."""
    return f": {trial}." if count == 1 else f"; the first is {trial}."


def _refuse_a_missing_class(src: _Source, key_name: str, labels: np.ndarray, kept: np.ndarray, n_scored: int):
    """LoadError when the key has target and non-target trials but those with a score are all of one class."""
    for code, word in ((TARGET, "target"), (NONTARGET, "non-target")):
        in_key = int((labels == code).sum())
        if in_key and not (kept == code).any():
            raise src.error(f"none of the {_count(in_key, word + ' trial')} of the key {key_name} has a score in this "
                            f"file ({kept.size:,} of its {_count(n_scored, 'scored trial')} "
                            f"{'is' if kept.size == 1 else 'are'} in the key); both target and non-target trials are "
                            "needed.")


def _shared_codes(a: pd.Series, b: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes of two categorical columns in one shared numbering (equal strings, equal codes)."""
    categories = pd.Index(a.cat.categories.astype(str)).append(pd.Index(b.cat.categories.astype(str))).str.strip()
    shared, _ = pd.factorize(categories)
    n = len(a.cat.categories)
    return shared[:n][a.cat.codes.to_numpy()].astype(np.int64), shared[n:][b.cat.codes.to_numpy()].astype(np.int64)


# --------------------------------------------------------------------------------------------------------------
# Parquet and npz


def _read_parquet(src: _Source, name: str | None) -> Trials | dict[str, Trials]:
    try:
        frame = pd.read_parquet(io.BytesIO(src.data))
    except Exception as exc:  # pyarrow raises many kinds for damaged files
        raise src.error(f"the file is not a readable Parquet file ({type(exc).__name__}: {exc}).") from None
    if len(frame) == 0:
        raise src.error("the Parquet file has no rows.")
    lower = {str(c).lower(): c for c in reversed(list(frame.columns))}
    columns = ", ".join(repr(str(c)) for c in frame.columns)
    label = next((lower[n] for n in ("label", "labels", "target", "key", "class", "truth", "is_target")
                  if n in lower), None)
    if label is None:
        raise src.error(f"there is no label column (named label, labels, target, key or class); the columns are "
                        f"{columns}.")
    system = next((lower[n] for n in ("system", "systems", "sys") if n in lower), None)
    score = next((lower[n] for n in ("score", "scores", "llr", "llrs") if n in lower), None)
    labels = _parquet_labels(src, frame[label])
    if score is not None:
        score_columns = [score]
    else:
        score_columns = [c for c in frame.columns if c not in (label, system) and
                         (pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c]))]
        if not score_columns:
            raise src.error(f"there is no score column (named score, scores or llr, or any column of numbers); the "
                            f"columns are {columns}.")
        if system is not None and len(score_columns) > 1:
            raise src.error("with a system column there must be one score column; name it 'score'.")
    values = {c: _parquet_scores(src, frame[c], str(c)) for c in score_columns}
    if system is not None:
        systems = frame[system].astype(str)
        (column,) = score_columns
        result = {}
        for value in pd.unique(systems):
            mask = (systems == value).to_numpy()
            result[value] = _trials(src, values[column][mask], labels[mask], value, f"system {value!r}")
        if len(result) == 1:
            (value, trials), = result.items()
            return _renamed(trials, value if name is None else name)
        return result
    if len(score_columns) == 1:
        return _trials(src, values[score_columns[0]], labels, src.stem if name is None else name)
    return {str(c): _trials(src, values[c], labels, str(c), f"system {str(c)!r}") for c in score_columns}


def _parquet_labels(src: _Source, column: pd.Series) -> np.ndarray:
    if pd.api.types.is_bool_dtype(column) and not column.isna().any():
        return np.where(column.to_numpy(dtype=bool), TARGET, NONTARGET).astype(np.int8)
    codes, _ = _label_codes(column)
    bad = codes < 0
    if bad.any():
        row = int(np.argmax(bad))
        value = column.iloc[row]
        problem = "the label is missing" if pd.isna(value) else f"the label {str(value)!r} is not an accepted label"
        raise src.error(f"{problem}; accepted labels are {_ACCEPTED}.", row + 1, unit="row")
    return codes


def _parquet_scores(src: _Source, column: pd.Series, what: str) -> np.ndarray:
    if not (pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column)):
        converted = pd.to_numeric(column, errors="coerce")
        values = np.asarray(converted, dtype=np.float64)
    else:
        values = column.to_numpy(dtype=np.float64, na_value=np.nan)
    bad = np.isnan(values)
    if bad.any():
        row = int(np.argmax(bad))
        raw = column.iloc[row]
        if pd.isna(raw) or str(raw).strip().lower() in NAN_WORDS:
            raise src.error(f"the score in column {what!r} is missing (NaN).", row + 1, unit="row")
        raise src.error(f"the score {str(raw)!r} in column {what!r} is not a number.", row + 1, unit="row")
    return values


def _read_npz(src: _Source, name: str) -> Trials:
    archive = _load_numpy(src, ".npz archive")
    if not isinstance(archive, np.lib.npyio.NpzFile):
        raise src.error("the file holds a single array; save the target and non-target scores together with "
                        "np.savez(path, tar=tar, non=non).")
    with archive:
        found = list(archive.files)
        if "tar" not in found or "non" not in found:
            listed = ", ".join(repr(f) for f in found) or "none"
            raise src.error(f"a .npz score file needs arrays named 'tar' and 'non' (and optionally 'spoof'); it "
                            f"holds {listed}.")
        arrays = {}
        for what in ("tar", "non", "spoof"):
            if what not in found:
                continue
            array = _npz_array(src, archive, what)
            if array.dtype.kind not in "fiub":
                raise src.error(f"the array {what!r} holds {array.dtype} values, not numbers.")
            if array.ndim > 1:
                raise src.error(f"the array {what!r} has shape {array.shape}; a flat list of scores is needed.")
            array = array.reshape(-1).astype(np.float64)
            bad = np.isnan(array)
            if bad.any():
                raise src.error(f"element {int(np.argmax(bad))} (counting from 0) of the array {what!r} is NaN; "
                                "every trial needs a number.")
            arrays[what] = array
    for what, word in (("tar", "target"), ("non", "non-target")):
        if arrays[what].size == 0:
            raise src.error(f"the array {what!r} is empty: there are no {word} trials.")
    return Trials(arrays["tar"], arrays["non"], name=name, spoof=arrays.get("spoof", np.empty(0)))
