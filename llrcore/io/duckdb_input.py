"""A score file as DuckDB reads it: its layout seen on a sample (separator, header, which column holds the score, the
label and the ids) and the SQL relation of its text fields (:class:`ScoreInput`), for
:func:`~llrcore.io.out_of_core.count_scores`.

Python reads only the first :data:`_SAMPLE` bytes; DuckDB streams the rest. Text files become ``read_csv`` of all
fields as text (or, on the careful path, of whole lines split in SQL, so that a line of another width can be
named); Parquet files ``read_parquet``.

References: DuckDB, *CSV import* and *Parquet*; the in-memory reader :func:`~llrcore.read_trials`, whose layouts
these are.
"""
from __future__ import annotations

import gzip
from dataclasses import dataclass

from ._source import LoadError
from .labels import ACCEPTED, BONAFIDE, KEY_FORMS, LABELS
from .text import SCORE_NAMES, clean_name, columns_phrase, detect_separator, is_number

__all__ = ["ScoreInput", "duckdb_module", "fields_sql", "split_fields"]

_LABEL_NAMES = ("label", "labels", "target", "key", "class", "truth", "is_target")
_SAMPLE = 1 << 16  # bytes read by Python to see the layout


def duckdb_module():
    try:
        import duckdb
    except ImportError:  # pragma: no cover - an optional dependency
        raise ImportError('Reading files larger than memory needs DuckDB: pip install "llrcore[big]" '
                          '(or pip install duckdb).') from None
    return duckdb


def _sql_text(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


@dataclass
class ScoreInput:
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
    def open(cls, connection, path: str, format: str) -> ScoreInput:
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
        fields = [split_fields(line, sep) for _, line in data]
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
        return cls(path, fields_sql(path, sep, ncols, skip, columns, careful=False), role, True, sep, columns,
                   ncols, skip, reference)


def _head(path: str) -> bytes:
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as file:
        return file.read(_SAMPLE)


def split_fields(line: str, sep: str | None) -> list[str]:
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


def fields_sql(path, sep, ncols, skip, columns, *, careful: bool) -> str:
    """The file's rows as (raw score, score, label, m, t, width). Fast path: DuckDB's CSV reader on the one-character
    separator (a whitespace file split on single spaces); it refuses a line of another width, and
    :func:`~llrcore.io.duckdb_count.count_trials` then takes the careful path: each line one string, split on runs of
    blanks, its width counted."""
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


def _parquet(connection, path: str) -> ScoreInput:
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
    return ScoreInput(path, relation, "labelled", False)
