"""The counting query of :func:`~llrcore.io.out_of_core.count_scores`: target and non-target trials (or bona fide and
spoof) per unique score, computed by DuckDB (:func:`count_trials`), and when the input is bad the sentence for its
first problem, with the line found by scanning the file only then.

Scores alone are grouped by score; a score file with its key is joined on (model, test) inside DuckDB, each pair
grouped once over both files, so that a pair twice in a file is refused and the pairs in one file only are counted.

References: DuckDB, *Aggregate functions* (``FILTER``), *GROUP BY*; the in-memory reader
:func:`~llrcore.read_trials`, whose semantics this follows.
"""
from __future__ import annotations

import gzip

from ._source import LoadError
from .duckdb_input import ScoreInput, duckdb_module, fields_sql, split_fields
from .labels import ACCEPTED
from .text import NAN_WORDS, columns_phrase

__all__ = ["count_trials"]


def _coded(item: ScoreInput, side: int) -> str:
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


def count_trials(connection, inputs: list[ScoreInput]) -> dict:
    """Run the counting query; when DuckDB's reader refuses a line of another width, or a whitespace file read on
    single spaces shows a problem (a run of blanks makes an empty field), run it again on the careful path, which
    names a line of another width first."""
    duckdb = duckdb_module()
    try:
        return _query(connection, inputs)
    except (duckdb.InvalidInputException, LoadError) as error:
        if isinstance(error, LoadError) and not any(item.text and item.sep == r"\s+" for item in inputs):
            raise
        for item in inputs:
            if item.text:
                item.relation = fields_sql(item.path, item.sep, item.ncols, item.skip, item.columns, careful=True)
        _check_widths(connection, inputs)
        return _query(connection, inputs)


def _query(connection, inputs: list[ScoreInput]) -> dict:
    label_side = 1 if len(inputs) == 2 else 0
    rows = " UNION ALL ".join(_coded(item, side) for side, item in enumerate(inputs))
    paired = len(inputs) == 2 or inputs[0].columns is not None and inputs[0].columns.get("m") is not None
    sql = (_PAIRED.format(rows=rows, label_side=label_side, key_needed=1 if len(inputs) == 2 else 0, counts=_COUNTS)
           if paired else _GROUPS.format(rows=rows, counts=_COUNTS))
    result = connection.execute(sql).fetchnumpy()
    if not (result["n_bad_score"].sum() or result["n_bad_label"].sum() or result["n_repeated"].sum()):
        return {"result": result, "inputs": inputs}
    raise _bad_input(connection, inputs, result)


def _check_widths(connection, inputs: list[ScoreInput]) -> None:
    for item in inputs:
        if not item.text:
            continue
        found = connection.execute(f"SELECT width FROM {item.relation} WHERE width <> {item.ncols} LIMIT 1").fetchall()
        if found:
            line = _find_line(item, lambda fields, ncols=item.ncols: len(fields) != ncols)
            raise LoadError(f"this line has {columns_phrase(found[0][0])} but line {item.reference} has {item.ncols}; "
                            "every line must have the same columns.", item.path, line)


def _bad_input(connection, inputs: list[ScoreInput], result) -> LoadError:
    """The sentence for the first problem DuckDB counted, with its line found by scanning the file."""
    scores, labels = inputs[0], inputs[-1]
    if result["n_bad_score"].sum():
        (raw,) = connection.execute(f"SELECT raw FROM {scores.relation} WHERE score IS NULL OR isnan(score) "
                                    "LIMIT 1").fetchone()
        raw = "" if raw is None else raw
        columns = scores.columns  # (a text input's)
        line = _find_line(scores, lambda f: f[columns["score"]] == raw) if columns is not None else None
        problem = ("the score is missing (empty)." if not raw else f"the score {raw!r} is missing (NaN)."
                   if raw.lower() in NAN_WORDS else f"the score {raw!r} is not a number.")
        return LoadError(problem + (" Every trial needs a number." if "missing" in problem else ""), scores.path,
                         line, "line" if scores.text else "row")
    if result["n_bad_label"].sum():
        (raw,) = connection.execute(
            f"SELECT r.label FROM {labels.relation} r LEFT JOIN label_words w "
            f"ON w.word = lower(trim(trim(r.label), '\"')) WHERE w.code IS NULL LIMIT 1").fetchone()
        raw = "" if raw is None else raw
        columns = labels.columns
        line = _find_line(labels, lambda f: f[columns["label"]] == raw) if columns is not None else None
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


def _find_line(item: ScoreInput, test, second: bool = False) -> int | None:
    """The number of the first line (the second, with `second`) whose fields pass `test` (comments and blank lines
    counted, the header too): a scan by Python, run only to place a problem DuckDB found."""
    opener = gzip.open if item.path.endswith(".gz") else open
    found = 0
    with opener(item.path, "rt", encoding="utf-8", errors="replace", newline=None) as file:
        for lineno, line in enumerate(file, 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            try:
                if test(split_fields(line.lstrip("\ufeff").rstrip("\r\n"), item.sep)):
                    found += 1
                    if found == (2 if second else 1):
                        return lineno
            except IndexError:
                continue
    return None
