"""Score files counted file by file, on this machine or on a Dask cluster, and merged: ``lc.read_counts``.

Each score file (with its key) is one part: the io layer's DuckDB reader counts its trials per unique score and label
class (a file of one class only is a part like any other), the parts' tables are merged
(:func:`llrcore.binary.counts.merge_tables`: integer counts added per score), and only the merged table is told
which classes the labels make. The trials of many files therefore give exactly the table, and every metric exactly
the float, of the same trials in one file: the grouping into files, the engine and the order of the merges change
no count.

The io layer does not import the engines and the engines do not import a reader (docs/architecture.md):
``llrcore/__init__.py`` composes the public reader, :func:`counts_reader` of the io layer's functions.

Reference: N. Brümmer and J. du Preez, "Application-independent evaluation of speaker detection", Computer Speech
and Language 20, 2006 (every metric is a function of the target and non-target counts at each unique score).
"""
from __future__ import annotations

import functools
import os
import warnings
from collections.abc import Callable, Sequence

from ..binary.counts import CountedScores, merge_tables

__all__ = ["ENGINES", "counts_reader"]

#: Where ``read_counts`` counts: DuckDB on this machine, or each file on a worker of a Dask cluster.
ENGINES = ("duckdb", "dask")


def counts_reader(score_files: Callable, count_labels: Callable, tally_labels: Callable) -> Callable:
    """The public ``read_counts`` made of the io layer's functions: `score_files` (the parts of a path, pattern or
    list, with their keys), `count_labels` (one part's table per label class) and `tally_labels` (a table as target
    and non-target counts, or a sentence)."""

    def read_counts(source: str | os.PathLike | Sequence[str | os.PathLike],
                    key: str | os.PathLike | Sequence[str | os.PathLike] | None = None, *, format: str = "auto",
                    name: str | None = None, engine: str = "duckdb", client: object = None,
                    memory_limit: str = "4GB", threads: int | None = None,
                    temp_directory: str | None = None, on_warning: Callable | None = None,
                    progress: bool = False) -> CountedScores:
        """Exact counts of target and non-target trials per unique score of score files larger than memory.

        Parameters
        ----------
        source : str, os.PathLike or list of them
            A score file (text, ``.gz`` text or Parquet), a glob pattern (``"scores/part-*.parquet"``, matches
            sorted by name) or a list of files: the trials of all of them, counted file by file (DuckDB reads each
            in chunks) and merged.
        key : str, os.PathLike or list of them, optional
            The key ``model test label`` of Kaldi/BOSARIS score files ``model test score``: one key per score file
            (a pattern or a list in the same order), each joined with its own score file.
        format : {"auto", "two-column", "kaldi", "asvspoof", "parquet"}
            As in :func:`~llrcore.read_trials`; ``"auto"`` looks at each file's name and first lines.
        name : str, optional
            Name of the trials; the file's stem by default (of the first file, for several).
        engine : {"duckdb", "dask"}
            ``"duckdb"`` counts the files one after the other on this machine; ``"dask"`` counts each on a worker
            of a Dask cluster and merges the counts in a tree of tasks (``pip install "llrcore[dask]"``; the
            workers need llrcore and DuckDB). No count depends on it.
        client : distributed.Client or str, optional
            With ``engine="dask"``: the cluster's client, or its scheduler's address (``"tcp://host:8786"``); by
            default a LocalCluster of this machine's cores, closed afterwards.
        memory_limit : str
            DuckDB's ``memory_limit`` for each file (``"4GB"``, ``"500MB"``): beyond it, joins and aggregates spill
            to disk. On a cluster each task of a worker has this much: give workers ``threads x memory_limit``.
        threads : int, optional
            DuckDB's threads per file (default: every CPU here, 1 per task on a cluster, whose workers run several
            tasks). No count depends on it.
        temp_directory : str, optional
            Where DuckDB spills (default: a new folder in the system's temporary folder, removed afterwards).
        on_warning : callable, optional
            Called with each :class:`~llrcore.LoadWarning` (a key's pairs without a score, say) instead of
            :func:`warnings.warn`.
        progress : bool
            Let DuckDB print its progress bar (to standard output) for a long query (on this machine only).

        Returns
        -------
        CountedScores
            The counts of every trial of every file, which ``lc.evaluate``, ``lc.eer``, ``lc.min_dcf``,
            ``lc.act_dcf``, ``lc.cllr``, ``lc.min_cllr``, ``lc.det_curve`` and ``lc.bayes_error_rates`` take: their
            numbers are those of the same trials read whole by :func:`~llrcore.read_trials`, to the last bit::

                table = lc.read_counts("scores/part-*.parquet", engine="dask", client="tcp://scheduler:8786")
                lc.evaluate(table, p_target=0.01)

        Raises
        ------
        LoadError
            For any problem with a file, in one sentence naming the file (and the line); a label of neither class,
            a file without a score column.
        ValueError
            A worker that died counting a file, naming the file.
        ImportError
            When DuckDB (``llrcore[big]``) or, for ``engine="dask"``, Dask (``llrcore[dask]``) is not installed.
        """
        if engine not in ENGINES:
            raise ValueError(f"Unknown engine {engine!r} for read_counts: use one of {', '.join(ENGINES)}.")
        parts = score_files(source, key)
        options = {"format": format, "memory_limit": memory_limit, "temp_directory": temp_directory}
        if engine == "duckdb":
            table = merge_tables([count_labels(path, key_path, threads=threads, on_warning=on_warning,
                                               progress=progress, **options) for path, key_path in parts])
        else:
            from .dask_counts import count_on_cluster

            count = functools.partial(_count_part, count_labels, {**options, "threads": threads or 1})
            table, notes = count_on_cluster(count, parts, [path for path, _ in parts], client=client)
            for note in notes:
                if on_warning is None:
                    warnings.warn(note, stacklevel=2)
                else:
                    on_warning(note)
        return CountedScores.of(tally_labels(table, [path for path, _ in parts], name))

    return read_counts


def _count_part(count_labels: Callable, options: dict, part: tuple) -> tuple:
    """One file counted on a worker: its table and its warnings (sent back to be told by the caller)."""
    notes: list = []
    path, key_path = part
    return count_labels(path, key_path, on_warning=notes.append, **options), notes

