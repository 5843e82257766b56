"""Score files larger than memory: counts per unique score computed by DuckDB, reading the file in chunks.

Every binary metric of the sorted engine follows from the number of target and non-target trials at each unique score
(:mod:`llrcore.binary.counts`). :func:`count_scores` has DuckDB (an embedded SQL engine; its CSV and Parquet readers
stream the file, its hash aggregates and joins spill to disk beyond ``memory_limit``) compute exactly that::

    SELECT score + 0.0 AS score, code, count(*) FROM trials GROUP BY ALL ORDER BY score

(``+ 0.0`` reads ``-0.0`` as ``0.0``, as the sorted engine does; ``code`` is the label's class from the label words
of :mod:`llrcore.io.labels`). Python holds only the result: three arrays as long as the number of unique scores.

Files read
----------
- text files with a score column and a label column (``score label``, ``model test score label``, ASVspoof
  ``attack label score``, countermeasure ``utt attack label score``, CSV/TSV with a header naming ``score`` and
  ``label``; whitespace, tab, comma or semicolon separated; ``#`` comments, blank lines; ``.gz`` too);
- a Kaldi/BOSARIS score file ``model test score`` with its key ``model test label``, joined on (model, test) inside
  DuckDB: each pair is grouped once over both files, so a pair twice in a file is refused, a pair in both is a trial,
  and the pairs in one file only are counted in a :class:`LoadWarning`, as :func:`~llrcore.read_trials` counts them;
- Parquet files with a ``score`` and a ``label`` column (names as :func:`~llrcore.read_trials` takes them).

Bad input is one sentence naming the file, and the line for text files (found by scanning the file only once DuckDB
has said that something is wrong).

References: DuckDB, *CSV import*, *Parquet*, *Configuration* (``memory_limit``, ``threads``, ``temp_directory``);
the in-memory reader :func:`~llrcore.read_trials`, whose semantics this follows.
"""
from __future__ import annotations

import gzip
import os
import tempfile
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ._source import LoadError, LoadWarning
from .labels import ACCEPTED, BONAFIDE, KEY_FORMS, LABELS, NONTARGET, SPOOF, TARGET
from .text import NAN_WORDS, SCORE_NAMES, clean_name, columns_phrase, detect_separator, is_number

__all__ = ["ScoreTally", "count_scores"]

#: The values ``format=`` takes (a subset of :func:`~llrcore.read_trials`'s).
FORMATS = ("auto", "two-column", "kaldi", "asvspoof", "parquet")
_LABEL_NAMES = ("label", "labels", "target", "key", "class", "truth", "is_target")
_SAMPLE = 1 << 16  # bytes read by Python to see the layout


@dataclass(frozen=True)
class ScoreTally:
    """Counts per unique score, as DuckDB returned them: what :class:`~llrcore.binary.counts.CountedScores` reads.

    Attributes
    ----------
    unique : ndarray of float
        The unique scores, increasing.
    tar_counts, non_counts : ndarray of int64
        Target and non-target trials at each score (bona fide and spoof trials for a countermeasure's file).
    n_spoof : int
        Spoof trials of an ASV file (kept apart, as ``Trials.spoof``; no metric here uses them).
    name : str
    """

    unique: np.ndarray
    tar_counts: np.ndarray
    non_counts: np.ndarray
    n_spoof: int
    name: str


def count_scores(source, key=None, *, format: str = "auto", name: str | None = None, memory_limit: str = "4GB",
                 threads: int | None = None, temp_directory: str | None = None,
                 on_warning: Callable[[LoadWarning], object] | None = None, progress: bool = False) -> ScoreTally:
    """Exact counts of target and non-target trials per unique score of a score file, computed by DuckDB.

    Parameters
    ----------
    source : str or os.PathLike
        The score file (text, ``.gz`` text or Parquet). A path: DuckDB reads the file itself, in chunks.
    key : str or os.PathLike, optional
        The key ``model test label`` of a Kaldi/BOSARIS score file ``model test score``.
    format : {"auto", "two-column", "kaldi", "asvspoof", "parquet"}
        As in :func:`~llrcore.read_trials`; ``"auto"`` looks at the name and the first lines.
    name : str, optional
        Name of the trials; the file's stem by default.
    memory_limit : str
        DuckDB's ``memory_limit`` (``"4GB"``, ``"500MB"``): beyond it, joins and aggregates spill to disk.
    threads : int, optional
        DuckDB's threads (default: every CPU). No count depends on it.
    temp_directory : str, optional
        Where DuckDB spills (default: a new folder in the system's temporary folder, removed afterwards).
    on_warning : callable, optional
        Called with each :class:`LoadWarning` instead of :func:`warnings.warn`.
    progress : bool
        Let DuckDB print its progress bar (to standard output) for a long query.

    Returns
    -------
    ScoreTally
        The counts. ``lc.read_counts`` (the same parameters) returns them as a
        :class:`~llrcore.binary.counts.CountedScores`, which ``lc.evaluate``, ``lc.eer``, ``lc.min_dcf``,
        ``lc.act_dcf``, ``lc.cllr``, ``lc.min_cllr``, ``lc.det_curve`` and ``lc.bayes_error_rates`` take::

            table = lc.read_counts("scores.txt", "key.txt", memory_limit="2GB")
            lc.evaluate(table, p_target=0.01)

    Raises
    ------
    LoadError
        For any problem with a file, in one sentence naming the file (and the line).
    ImportError
        When DuckDB is not installed (``pip install "llrcore[big]"``).
    """
    if format not in FORMATS:
        raise ValueError(f"Unknown format {format!r} for read_counts: use one of {', '.join(FORMATS)}.")
    duckdb = _duckdb()
    path = _path(source, "score file")
    key_path = None if key is None else _path(key, "key")
    base = Path(path).name
    stem = Path(base[:-3] if base.lower().endswith(".gz") else base).stem if name is None else name
    spill = tempfile.TemporaryDirectory(prefix="llrcore-duckdb-") if temp_directory is None else None
    try:
        for attempt in ([threads] if threads == 1 else [threads, 1]):
            try:
                rows = _run(duckdb, _config(memory_limit, attempt, temp_directory or spill.name), progress, path,
                            key_path, format)
                break
            except duckdb.OutOfMemoryException:
                # each thread's hash table spills on its own; on one thread a tight limit holds more often
                if attempt == 1:
                    raise LoadError(f"DuckDB needed more than its memory_limit of {memory_limit} even spilling to "
                                    "disk; give it more (1GB or more for tens of millions of trials), or a "
                                    "temp_directory on a disk with room.", path) from None
            except duckdb.Error as error:
                raise LoadError(f"DuckDB could not read it: {_first_line(error)}", path) from None
    finally:
        if spill is not None:
            spill.cleanup()
    return _tally(rows, path, key_path, stem, on_warning)


# ----------------------------------------------------------------------------------------------------------------
# DuckDB and its inputs


def _run(duckdb, config: dict, progress: bool, path: str, key_path: str | None, format: str) -> dict:
    """The counting query on a new DuckDB connection (in memory, spilling to the configured folder)."""
    connection = duckdb.connect(config=config)
    try:
        connection.execute(f"SET enable_progress_bar = {'true' if progress else 'false'}")
        connection.execute("CREATE TEMP TABLE label_words (word VARCHAR, code TINYINT)")
        connection.executemany("INSERT INTO label_words VALUES (?, ?)", list(LABELS.items()))
        if key_path is not None:
            inputs = [_Input.open(connection, path, "kaldi-scores"), _Input.open(connection, key_path, "key")]
        else:
            inputs = [_Input.open(connection, path, format)]
        return _count(connection, inputs)
    finally:
        connection.close()


def _duckdb():
    try:
        import duckdb
    except ImportError:  # pragma: no cover - an optional dependency
        raise ImportError('Reading files larger than memory needs DuckDB: pip install "llrcore[big]" '
                          '(or pip install duckdb).') from None
    return duckdb


def _path(source, what: str) -> str:
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(f"Give the {what} as a path: DuckDB reads the file itself, in chunks, not a "
                        f"{type(source).__name__}.")
    path = os.fspath(source)
    if not os.path.isfile(path):
        raise LoadError("the file does not exist.", path)
    return path


def _config(memory_limit, threads, temp_directory) -> dict:
    config = {"memory_limit": str(memory_limit), "preserve_insertion_order": False,
              "temp_directory": str(temp_directory)}
    if threads is not None:
        config["threads"] = int(threads)
    return config


def _first_line(error) -> str:
    text = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return text if text.endswith(".") else text + "."


def _sql_text(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


@dataclass
class _Input:
    """One file as a DuckDB relation of text fields (``f0``, ``f1``, ...), with where its score, label and ids are."""

    path: str
    relation: str  # SQL: a subquery with columns score (DOUBLE or NULL), label (VARCHAR), ids m and t (or NULL)
    role: str  # "labelled", "kaldi-scores" or "key"
    text: bool
    sep: str | None = None
    columns: dict | None = None  # field index of score, label, m, t
    ncols: int = 0
    skip: int = 0  # lines before the data: the header line and those above it
    reference: int = 0  # the first data line

    @classmethod
    def open(cls, connection, path: str, format: str) -> _Input:
        head = _head(path)
        if format == "parquet" or (format == "auto" and (path.endswith((".parquet", ".pq")) or head[:4] == b"PAR1")):
            return _parquet(connection, path)
        text = head.decode("utf-8", errors="replace").lstrip("\ufeff")
        pieces = text.split("\n")
        if len(head) == _SAMPLE and len(pieces) > 1:
            pieces = pieces[:-1]  # the sample's last line may be cut
        lines = [(i + 1, line.rstrip("\r")) for i, line in enumerate(pieces)]
        data = [(i, line) for i, line in lines if line.strip() and not line.lstrip().startswith("#")]
        if not data:
            raise LoadError("the file holds no trials.", path)
        sep, decimal = detect_separator([line for _, line in data[:50]])
        if decimal != ".":
            raise LoadError("this path reads scores with a decimal point; convert decimal commas first (or use "
                            "read_trials, which reads them).", path)
        fields = [_split(line, sep) for _, line in data]
        header = None if _is_data(fields[0], format) else [clean_name(f).lower() for f in fields[0]]
        rows = fields[1:] if header else fields
        if not rows:
            raise LoadError("the file has a header line but no trials after it.", path, data[0][0])
        ncols = len(rows[0])
        reference = data[1 if header else 0][0]
        for (lineno, _), row in zip(data[1 if header else 0:], rows):
            if len(row) != ncols:
                raise LoadError(f"this line has {columns_phrase(len(row))} but line {reference} has {ncols}; every "
                                "line must have the same columns.", path, lineno)
        columns = _layout(path, format, header, rows, ncols, reference)
        skip = data[0][0] if header else 0
        role = format if format in ("kaldi-scores", "key") else "labelled"
        return cls(path, _fields_sql(path, sep, ncols, skip, columns, careful=False), role, True, sep, columns,
                   ncols, skip, reference)


def _head(path: str) -> bytes:
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as file:
        return file.read(_SAMPLE)


def _split(line: str, sep: str) -> list[str]:
    return line.split() if sep == r"\s+" else [field.strip() for field in line.split(sep)]


def _layout(path, format, header, rows, ncols, lineno) -> dict:
    """Field index of score, label and ids (model, test) from the format, the header or the sample's content."""
    if format == "kaldi-scores":
        if ncols != 3:
            raise LoadError(f"a Kaldi/BOSARIS score file read with a key needs 3 columns 'model test score'; this "
                            f"line has {ncols}.", path, lineno)
        return {"score": 2, "label": None, "m": 0, "t": 1}
    if format == "key":
        if ncols != 3:
            raise LoadError(f"a key (trials) file needs 3 columns 'model test label'; this line has {ncols}.",
                            path, lineno)
        return {"score": None, "label": 2, "m": 0, "t": 1}
    if format == "kaldi" or (format == "auto" and header is None and ncols == 4
                             and not is_number(rows[0][0]) and is_number(rows[0][2])
                             and not any(LABELS.get(r[1].lower()) is not None for r in rows)):
        if ncols == 3 and format == "kaldi":
            raise LoadError("a Kaldi/BOSARIS score file 'model test score' needs its key (trials) file.", path, lineno)
        if ncols != 4:
            raise LoadError(f"a Kaldi/BOSARIS file needs 4 columns 'model test score label'; this line has {ncols}.",
                            path, lineno)
        return {"score": 2, "label": 3, "m": 0, "t": 1}
    if format == "asvspoof":
        return {"score": 2, "label": 1, "m": None, "t": None}
    names = header or [""] * ncols
    named_label = [j for j, n in enumerate(names) if n in _LABEL_NAMES]
    named_score = [j for j, n in enumerate(names) if n in SCORE_NAMES]
    share = [sum(r[j].strip('"').lower() in LABELS for r in rows) / len(rows) for j in range(ncols)]
    strict = [sum(LABELS.get(r[j].strip('"').lower(), BONAFIDE) != BONAFIDE for r in rows) / len(rows)
              for j in range(ncols)]
    numeric = [sum(is_number(r[j]) for r in rows) >= 0.5 * len(rows) for j in range(ncols)]
    words = [j for j in range(ncols) if share[j] > 0 and not numeric[j]]
    binary = [j for j in range(ncols) if share[j] == 1 and numeric[j]]
    label = (max(named_label or words, key=lambda j: (strict[j], share[j], j)) if named_label or words
             else binary[-1] if binary and sum(numeric) >= 2 else None)
    if label is None:
        if ncols == 3 and numeric == [False, False, True]:
            raise LoadError("no column of labels: this looks like a Kaldi/BOSARIS or VoxCeleb score file 'model test "
                            f"score'; it needs its key (trials) file: {KEY_FORMS}.", path, lineno)
        raise LoadError(f"no column of labels found; accepted labels are {ACCEPTED}.", path, lineno)
    scores = [j for j in (named_score or range(ncols)) if j != label and (named_score or numeric[j])]
    if len(scores) != 1:
        raise LoadError("no column of scores (numbers) found; each line needs a score and a label." if not scores
                        else "several columns hold numbers, so which one is the score is ambiguous; add a header "
                        "line naming the score column 'score'.", path, lineno)
    return {"score": scores[0], "label": label, "m": None, "t": None}


def _is_data(fields: list[str], format: str) -> bool:
    """Whether a first line is a trial, not a header: it holds a number (a key's line: a label word third)."""
    if format == "key":
        return len(fields) > 2 and clean_name(fields[2]).lower() in LABELS
    return any(is_number(f) for f in fields)


def _fields_sql(path, sep, ncols, skip, columns, *, careful: bool) -> str:
    """The file's rows as (raw score, score, label, m, t, width). Fast path: DuckDB's CSV reader on the one-character
    separator (a whitespace file split on single spaces); it refuses a line of another width, and :func:`_count` then
    takes the careful path: each line one string, split on runs of blanks, its width counted."""
    source = _sql_text(path)
    if careful:
        lines = (f"read_csv({source}, columns={{'line': 'VARCHAR'}}, delim='\\x1f', quote='', escape='', "
                 f"header=false, auto_detect=false, skip={skip}, strict_mode=false)")
        split = "string_split_regex(trim(line), '\\s+')" if sep == r"\s+" else f"string_split(line, {_sql_text(sep)})"
        body = f"(SELECT {split} AS f FROM {lines} WHERE trim(line) <> '' AND NOT starts_with(ltrim(line), '#'))"
        field, width = (lambda j: f"trim(f[{j + 1}])"), "len(f)"
    else:
        delim, quote = (" ", "''") if sep == r"\s+" else (sep, "'\"'")  # CSV fields may be quoted
        types = ", ".join(f"'f{j}': 'VARCHAR'" for j in range(ncols))
        body = (f"read_csv({source}, columns={{{types}}}, delim={_sql_text(delim)}, quote={quote}, escape='', "
                f"header=false, auto_detect=false, skip={skip}, comment='#')")
        field, width = (lambda j: f"trim(f{j})"), str(ncols)
    score, label, model, test = ("NULL::VARCHAR" if columns[k] is None else field(columns[k])
                                 for k in ("score", "label", "m", "t"))
    return (f"(SELECT {score} AS raw, TRY_CAST({score} AS DOUBLE) + 0.0 AS score, {label} AS label, "
            f"{model} AS m, {test} AS t, {width} AS width FROM {body})")


def _parquet(connection, path: str) -> _Input:
    source = f"read_parquet({_sql_text(path)})"
    names = [row[0] for row in connection.execute(f"DESCRIBE SELECT * FROM {source}").fetchall()]
    lower = {n.lower(): n for n in names}
    score = next((lower[n] for n in ("score", "scores", "llr", "llrs") if n in lower), None)
    label = next((lower[n] for n in _LABEL_NAMES if n in lower), None)
    if score is None or label is None:
        raise LoadError(f"a Parquet file needs a score column ('score' or 'llr') and a label column ('label'); its "
                        f"columns are {', '.join(names)}.", path)
    q = lambda n: '"' + n.replace('"', '""') + '"'
    relation = (f"(SELECT CAST({q(score)} AS VARCHAR) AS raw, CAST({q(score)} AS DOUBLE) + 0.0 AS score, "
                f"CAST({q(label)} AS VARCHAR) AS label, NULL::VARCHAR AS m, NULL::VARCHAR AS t, 0 AS width "
                f"FROM {source})")
    return _Input(path, relation, "labelled", False)


# ----------------------------------------------------------------------------------------------------------------
# the query


def _coded(item: _Input, side: int) -> str:
    """(score, code, m, t, side, raw, label) of one input; the label words as in :mod:`llrcore.io.labels`."""
    return (f"SELECT r.score, w.code, r.m, r.t, {side} AS side, r.raw, r.label FROM {item.relation} r "
            f"LEFT JOIN label_words w ON w.word = lower(trim(trim(r.label), '\"'))")


#: The counts of each class, and of the problems, per unique score (NULL: the rows that are no trial); 4 bytes each
#: (a score held by more than 4e9 trials would be a DuckDB error, never a wrong count) for half the memory.
_COUNTS = """
    count(*) FILTER (WHERE kept AND code = 1)::UINTEGER AS n_target,
    count(*) FILTER (WHERE kept AND code = 0)::UINTEGER AS n_nontarget,
    count(*) FILTER (WHERE kept AND code = 2)::UINTEGER AS n_spoof,
    count(*) FILTER (WHERE kept AND code = 3)::UINTEGER AS n_bonafide,
    count(*) FILTER (WHERE bad_score)::UINTEGER AS n_bad_score,
    count(*) FILTER (WHERE bad_label)::UINTEGER AS n_bad_label,
    count(*) FILTER (WHERE n_score > 1 OR n_key > 1)::UINTEGER AS n_repeated,
    count(*) FILTER (WHERE n_score = 1 AND n_key = 0)::UINTEGER AS n_scored_only,
    count(*) FILTER (WHERE n_score = 0 AND n_key = 1)::UINTEGER AS n_key_only
"""

_GROUPS = """
WITH rows AS ({rows}),
checked AS (SELECT score, code, score IS NULL OR isnan(score) AS bad_score, code IS NULL AS bad_label,
                   1 AS n_score, 0 AS n_key FROM rows),
trials AS (SELECT *, NOT bad_score AND NOT bad_label AS kept FROM checked)
SELECT CASE WHEN kept THEN score END AS score, {counts}
FROM trials GROUP BY 1 ORDER BY 1 NULLS LAST
"""

_PAIRED = """
WITH rows AS ({rows}),
pairs AS (
    SELECT count(*) FILTER (WHERE side = 0) AS n_score, count(*) FILTER (WHERE side = 1) AS n_key,
           max(score) FILTER (WHERE side = 0) AS score, max(code) FILTER (WHERE side = {label_side}) AS code,
           bool_or(side = 0 AND (score IS NULL OR isnan(score))) AS bad_score,
           bool_or(side = {label_side} AND code IS NULL) AS bad_label
    FROM rows GROUP BY m, t
),
trials AS (SELECT *, n_score = 1 AND n_key = {key_needed} AND NOT bad_score AND NOT bad_label AS kept FROM pairs)
SELECT CASE WHEN kept THEN score END AS score, {counts}
FROM trials GROUP BY 1 ORDER BY 1 NULLS LAST
"""


def _count(connection, inputs: list[_Input]) -> dict:
    """Run the counting query; when DuckDB's reader refuses a line of another width, or a whitespace file read on
    single spaces shows a problem (a run of blanks makes an empty field), run it again on the careful path, which
    names a line of another width first."""
    duckdb = _duckdb()
    try:
        return _query(connection, inputs)
    except (duckdb.InvalidInputException, LoadError) as error:
        if isinstance(error, LoadError) and not any(item.text and item.sep == r"\s+" for item in inputs):
            raise
        for item in inputs:
            if item.text:
                item.relation = _fields_sql(item.path, item.sep, item.ncols, item.skip, item.columns, careful=True)
        _check_widths(connection, inputs)
        return _query(connection, inputs)


def _query(connection, inputs: list[_Input]) -> dict:
    label_side = 1 if len(inputs) == 2 else 0
    rows = " UNION ALL ".join(_coded(item, side) for side, item in enumerate(inputs))
    paired = len(inputs) == 2 or inputs[0].columns is not None and inputs[0].columns.get("m") is not None
    sql = (_PAIRED.format(rows=rows, label_side=label_side, key_needed=1 if len(inputs) == 2 else 0, counts=_COUNTS)
           if paired else _GROUPS.format(rows=rows, counts=_COUNTS))
    result = connection.execute(sql).fetchnumpy()
    if not (result["n_bad_score"].sum() or result["n_bad_label"].sum() or result["n_repeated"].sum()):
        return {"result": result, "inputs": inputs}
    raise _bad_input(connection, inputs, result)


def _check_widths(connection, inputs: list[_Input]) -> None:
    for item in inputs:
        if not item.text:
            continue
        found = connection.execute(f"SELECT width FROM {item.relation} WHERE width <> {item.ncols} LIMIT 1").fetchall()
        if found:
            line = _find_line(item, lambda fields, ncols=item.ncols: len(fields) != ncols)
            raise LoadError(f"this line has {columns_phrase(found[0][0])} but line {item.reference} has {item.ncols}; "
                            "every line must have the same columns.", item.path, line)


def _bad_input(connection, inputs: list[_Input], result) -> LoadError:
    """The sentence for the first problem DuckDB counted, with its line found by scanning the file."""
    scores, labels = inputs[0], inputs[-1]
    if result["n_bad_score"].sum():
        (raw,) = connection.execute(f"SELECT raw FROM {scores.relation} WHERE score IS NULL OR isnan(score) "
                                    "LIMIT 1").fetchone()
        raw = "" if raw is None else raw
        line = _find_line(scores, lambda f: f[scores.columns["score"]] == raw) if scores.text else None
        problem = ("the score is missing (empty)." if not raw else f"the score {raw!r} is missing (NaN)."
                   if raw.lower() in NAN_WORDS else f"the score {raw!r} is not a number.")
        return LoadError(problem + (" Every trial needs a number." if "missing" in problem else ""), scores.path,
                         line, "line" if scores.text else "row")
    if result["n_bad_label"].sum():
        (raw,) = connection.execute(
            f"SELECT r.label FROM {labels.relation} r LEFT JOIN label_words w "
            f"ON w.word = lower(trim(trim(r.label), '\"')) WHERE w.code IS NULL LIMIT 1").fetchone()
        raw = "" if raw is None else raw
        line = _find_line(labels, lambda f: f[labels.columns["label"]] == raw) if labels.text else None
        if not raw.strip():
            return LoadError(f"the label is empty; accepted labels are {ACCEPTED}.", labels.path, line)
        return LoadError(f"the label {raw!r} is not one of the accepted labels: {ACCEPTED}.", labels.path, line)
    for item in inputs:  # the score file first, then the key
        found = connection.execute(f"SELECT m, t FROM {item.relation} GROUP BY m, t HAVING count(*) > 1 "
                                   "LIMIT 1").fetchone()
        if found:
            m, t = found
            what = "key entry" if item.role == "key" else "trial"
            line = _find_line(item, lambda f, pair=(m, t): (f[0], f[1]) == pair, second=True)
            return LoadError(f"the {what} '{m} {t}' appears a second time; each (model, test) pair may appear only "
                             "once.", item.path, line)
    raise AssertionError("no problem found")  # pragma: no cover


def _find_line(item: _Input, test, second: bool = False) -> int | None:
    """The number of the first line (the second, with `second`) whose fields pass `test` (comments and blank lines
    counted, the header too): a scan by Python, run only to place a problem DuckDB found."""
    opener = gzip.open if item.path.endswith(".gz") else open
    found = 0
    with opener(item.path, "rt", encoding="utf-8", errors="replace", newline=None) as file:
        for lineno, line in enumerate(file, 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            try:
                if test(_split(line.lstrip("\ufeff").rstrip("\r\n"), item.sep)):
                    found += 1
                    if found == (2 if second else 1):
                        return lineno
            except IndexError:
                continue
    return None


# ----------------------------------------------------------------------------------------------------------------
# from DuckDB's rows to counts


def _tally(rows: dict, path: str, key_path: str | None, name: str, on_warning) -> ScoreTally:
    """The counts per unique score (DuckDB's rows, in score order; the last, of NULL score, holds no trial)."""
    result = rows["result"]
    trial = ~np.ma.getmaskarray(result["score"])
    unique = np.ma.getdata(result["score"])[trial].astype(np.float64)
    count = {code: np.ma.getdata(result[column])[trial].astype(np.int64) for code, column in
             ((TARGET, "n_target"), (NONTARGET, "n_nontarget"), (SPOOF, "n_spoof"), (BONAFIDE, "n_bonafide"))}
    total = {code: int(values.sum()) for code, values in count.items()}
    if key_path is not None:
        _warn_unmatched(result, path, key_path, sum(total.values()), on_warning)
    if total[BONAFIDE]:
        if total[TARGET] or total[NONTARGET]:
            raise LoadError("the label 'bonafide' is mixed with target/non-target labels; in a speaker verification "
                            "file say whether a bona fide trial is a target or a non-target trial.", path)
        positive, negative, spoof = BONAFIDE, SPOOF, 0
    else:
        positive, negative, spoof = TARGET, NONTARGET, total[SPOOF]
    if not total[positive] or not total[negative]:
        missing = "target" if not total[positive] else "non-target"
        raise LoadError(f"the file has no {missing} trials; both classes are needed.", path)
    used = (count[positive] > 0) | (count[negative] > 0)  # a score of spoof trials only is no score of these
    return ScoreTally(unique[used], count[positive][used], count[negative][used], spoof, name)


def _warn_unmatched(result, path: str, key_path: str, matched: int, on_warning) -> None:
    """The pairs in one file only, counted in the words of :func:`~llrcore.read_trials`."""
    scored_only, key_only = int(result["n_scored_only"].sum()), int(result["n_key_only"].sum())
    n_scored, n_keyed = matched + scored_only, matched + key_only
    key_name = Path(key_path).name
    if matched == 0:
        raise LoadError(f"none of its {n_scored:,} scored trials is in the key {key_name}: no (model, test) pair is "
                        "in both files. Is it the key of this score file?", path)
    notes = []
    if scored_only:
        notes.append(LoadWarning(f"{scored_only:,} of {n_scored:,} scored trials {'is' if scored_only == 1 else 'are'}"
                                 f" not in the key {key_name} and {'was' if scored_only == 1 else 'were'} left out.",
                                 path))
    if key_only:
        notes.append(LoadWarning(f"{key_only:,} of the {n_keyed:,} trials of the key "
                                 f"{'has' if key_only == 1 else 'have'} no score in {Path(path).name}.", key_path))
    for note in notes:
        if on_warning is None:
            warnings.warn(note, stacklevel=4)
        else:
            on_warning(note)
