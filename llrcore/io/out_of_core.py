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
has said that something is wrong). How a file becomes DuckDB's input is :mod:`llrcore.io.duckdb_input`; the counting
query and its sentences for bad input :mod:`llrcore.io.duckdb_count`.

References: DuckDB, *CSV import*, *Parquet*, *Configuration* (``memory_limit``, ``threads``, ``temp_directory``);
the in-memory reader :func:`~llrcore.read_trials`, whose semantics this follows.
"""
from __future__ import annotations

import glob
import os
import tempfile
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ._source import LoadError, LoadWarning
from .duckdb_count import count_trials
from .duckdb_input import ScoreInput, duckdb_module
from .labels import BONAFIDE, LABELS, NONTARGET, SPOOF, TARGET

__all__ = ["ScoreTally", "count_labels", "count_scores", "score_files", "tally_labels"]

#: The values ``format=`` takes (a subset of :func:`~llrcore.read_trials`'s).
FORMATS = ("auto", "two-column", "kaldi", "asvspoof", "parquet")
#: The columns of :func:`count_labels`'s table (DuckDB's names) and the label classes of its count columns.
LABEL_COLUMNS = ("score", "n_target", "n_nontarget", "n_spoof", "n_bonafide")
LABEL_CODES = (TARGET, NONTARGET, SPOOF, BONAFIDE)


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


def count_scores(source: str | os.PathLike, key: str | os.PathLike | None = None, *, format: str = "auto",
                 name: str | None = None, memory_limit: str = "4GB", threads: int | None = None,
                 temp_directory: str | None = None, on_warning: Callable[[LoadWarning], object] | None = None,
                 progress: bool = False) -> ScoreTally:
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
    table = count_labels(source, key, format=format, memory_limit=memory_limit, threads=threads,
                         temp_directory=temp_directory, on_warning=on_warning, progress=progress)
    return tally_labels(table, [os.fspath(source)], name)


def count_labels(source: str | os.PathLike, key: str | os.PathLike | None = None, *, format: str = "auto",
                 memory_limit: str = "4GB", threads: int | None = None, temp_directory: str | None = None,
                 on_warning: Callable[[LoadWarning], object] | None = None,
                 progress: bool = False) -> tuple[np.ndarray, ...]:
    """The trials of a file counted per unique score and label word's class, whatever classes it holds: one part of
    trials spread over several files (:func:`tally_labels` says which classes the parts hold together).

    Parameters and bad input as :func:`count_scores` (a file of one class only is no error here).

    Returns
    -------
    tuple of ndarray
        :data:`LABEL_COLUMNS`: the unique scores, increasing, then the target, non-target, spoof and bona fide trials
        at each (int64): a table :func:`llrcore.binary.counts.merge_tables` merges with the tables of other parts.
    """
    if format not in FORMATS:
        raise ValueError(f"Unknown format {format!r} for read_counts: use one of {', '.join(FORMATS)}.")
    duckdb = duckdb_module()
    path = _path(source, "score file")
    key_path = None if key is None else _path(key, "key")
    spill = None
    if temp_directory is None:
        spill = tempfile.TemporaryDirectory(prefix="llrcore-duckdb-")
        temp_directory = spill.name
    try:
        for attempt in ([threads] if threads == 1 else [threads, 1]):
            try:
                rows = _run(duckdb, _config(memory_limit, attempt, temp_directory), progress, path,
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
    return _label_table(rows, path, key_path, on_warning)


def tally_labels(table: tuple[np.ndarray, ...], paths: list[str], name: str | None = None) -> ScoreTally:
    """The counts of a table of :func:`count_labels` (of the files `paths`, merged) as target and non-target trials
    named `name` (the first file's stem by default), or a sentence naming the files when the labels do not make two
    classes.

    A file labelled ``bonafide``/``spoof`` is a countermeasure's (bona fide trials are the targets); else spoof trials
    of a speaker verification file are kept apart, as :func:`~llrcore.read_trials` keeps them.
    """
    path = paths[0] if len(paths) == 1 else f"{paths[0]} and the {len(paths) - 1} other files"
    base = Path(paths[0]).name
    stem = Path(base[:-3] if base.lower().endswith(".gz") else base).stem
    unique, *columns = table
    count = dict(zip(LABEL_CODES, columns))
    total = {code: int(values.sum()) for code, values in count.items()}
    if total[BONAFIDE]:
        if total[TARGET] or total[NONTARGET]:
            raise LoadError("the label 'bonafide' is mixed with target/non-target labels; in a speaker verification "
                            "file say whether a bona fide trial is a target or a non-target trial.", path)
        positive, negative, spoof = BONAFIDE, SPOOF, 0
    else:
        positive, negative, spoof = TARGET, NONTARGET, total[SPOOF]
    if not total[positive] or not total[negative]:
        missing = "target" if not total[positive] else "non-target"
        raise LoadError(f"the {'file has' if len(paths) == 1 else 'files have'} no {missing} trials; both classes "
                        "are needed.", path)
    used = (count[positive] > 0) | (count[negative] > 0)  # a score of spoof trials only is no score of these
    return ScoreTally(unique[used], count[positive][used], count[negative][used], spoof, stem if name is None else name)


def score_files(source, key=None) -> list[tuple[str, str | None]]:
    """The score files of `source` (a path, a glob pattern or a list of paths), each with its key: the parts
    :func:`count_labels` counts one by one.

    A key is a path (one score file), a pattern or a list with one key per score file, paired in the order given
    (a pattern's matches sorted by name); any other pairing is refused in a sentence naming the files.
    """
    paths = _expand(source, "score file")
    keys = [None] * len(paths) if key is None else _expand(key, "key")
    if len(keys) != len(paths):
        raise LoadError(f"{len(paths)} score files but {len(keys)} key{'' if len(keys) == 1 else 's'}: give one key "
                        "per score file, in the same order (or patterns whose matches sort the same way).", paths[0])
    return list(zip(paths, keys))


def _expand(source, what: str) -> list[str]:
    """The paths of a path, a glob pattern (matches sorted by name) or a list of paths, each an existing file."""
    if isinstance(source, (str, os.PathLike)):
        text = os.fspath(source)
        if not os.path.exists(text) and glob.has_magic(text):
            paths = sorted(glob.glob(text))
            if not paths:
                raise LoadError(f"no {what} matches the pattern.", text)
            return [_path(path, what) for path in paths]
        return [_path(source, what)]
    if isinstance(source, (list, tuple)) and source:
        return [path for item in source for path in _expand(item, what)]
    return [_path(source, what)]  # a sentence saying what to give instead


# ----------------------------------------------------------------------------------------------------------------
# DuckDB: the connection (the inputs are .duckdb_input's, the query .duckdb_count's)


def _run(duckdb, config: dict, progress: bool, path: str, key_path: str | None, format: str) -> dict:
    """The counting query on a new DuckDB connection (in memory, spilling to the configured folder)."""
    connection = duckdb.connect(config=config)
    try:
        connection.execute(f"SET enable_progress_bar = {'true' if progress else 'false'}")
        connection.execute("CREATE TEMP TABLE label_words (word VARCHAR, code TINYINT)")
        connection.executemany("INSERT INTO label_words VALUES (?, ?)", list(LABELS.items()))
        if key_path is not None:
            inputs = [ScoreInput.open(connection, path, "kaldi-scores"),
                      ScoreInput.open(connection, key_path, "key")]
        else:
            inputs = [ScoreInput.open(connection, path, format)]
        return count_trials(connection, inputs)
    finally:
        connection.close()


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


# ----------------------------------------------------------------------------------------------------------------
# from DuckDB's rows to counts


def _label_table(rows: dict, path: str, key_path: str | None, on_warning) -> tuple[np.ndarray, ...]:
    """DuckDB's rows (in score order; the last, of NULL score, holds no trial) as a table of :data:`LABEL_COLUMNS`."""
    result = rows["result"]
    trial = ~np.ma.getmaskarray(result["score"])
    unique = np.ma.getdata(result["score"])[trial].astype(np.float64)
    columns = tuple(np.ma.getdata(result[column])[trial].astype(np.int64) for column in LABEL_COLUMNS[1:])
    if key_path is not None:
        _warn_unmatched(result, path, key_path, sum(int(column.sum()) for column in columns), on_warning)
    return (unique, *columns)


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
