"""Parts of a data set counted on a Dask cluster and their counts merged in a tree, never on one machine's memory.

Each part (a score file with its key, a block of pairs of embeddings) is one task: a worker counts its trials per
unique score into a table ``(unique, counts...)`` and keeps it; :func:`llrcore.binary.counts.merge_tables` then merges
the tables :data:`SPLIT_EVERY` at a time, in tasks that depend on the tables they merge, level after level, until one
is left (Dask's tree reduction of futures: ``client.submit`` of a merge on futures, the scheduler's own placement, no
scheduler of ours). Counts are integers, so any grouping or order of the merges gives the same table, the one the
trials of every part read together give.

Memory: a worker holds the part it counts (what its counting takes) and the tables it keeps or merges, as long as the
unique scores of those parts; the client holds the final table only.

References: Dask, *distributed: Futures* (``Client.map``, ``Client.submit`` on futures, ``Future.status``,
``KilledWorker``) and *LocalCluster*; the tree reduction of ``dask.bag.Bag.reduction`` (``split_every``).
"""
from __future__ import annotations

import contextlib
import importlib
from collections.abc import Callable, Iterator, Sequence

from ..binary.counts import merge_tables

__all__ = ["SPLIT_EVERY", "cluster_client", "count_on_cluster"]

#: Tables merged by one task of the tree (Dask's ``split_every`` of its reductions is 8 too).
SPLIT_EVERY = 8
#: What to do when a worker died: most often of memory, for the tables it held or merged.
MEMORY_ADVICE = ("a worker that dies, most often of memory, loses the counts it holds: a table of counts takes 24 "
                 "bytes per unique score (about one per trial for continuous scores), so give the workers more memory, "
                 "smaller parts, or fewer unique scores (bins=, scores rounded to the digits they have).")


def distributed_module():
    """``dask.distributed``, or a sentence saying how to install it."""
    try:
        return importlib.import_module("distributed")
    except ImportError:
        raise ImportError('engine="dask" needs Dask\'s distributed scheduler: pip install "llrcore[dask]".') from None


@contextlib.contextmanager
def cluster_client(client=None) -> Iterator:
    """The client to run on: `client` itself (a ``distributed.Client``), a client of the scheduler at an address
    (``"tcp://host:8786"``), or, for ``None``, one of a new LocalCluster of threads (counting runs in DuckDB and numpy,
    which release the GIL) closed afterwards."""
    distributed = distributed_module()
    if isinstance(client, distributed.Client):
        yield client
    elif isinstance(client, str):
        with distributed.Client(client) as own:
            yield own
    elif client is None:
        with distributed.LocalCluster(processes=False, dashboard_address=None) as cluster, \
                distributed.Client(cluster) as own:
            yield own
    else:
        raise TypeError(f"client must be a distributed.Client or a scheduler's address, not a {type(client).__name__}.")


def count_on_cluster(count: Callable, parts: Sequence, names: Sequence[str], *, client=None,
                     shared: dict | None = None) -> tuple:
    """The merged table of the parts, each counted by ``count(part)`` on a worker.

    Parameters
    ----------
    count : callable
        ``count(part) -> (table, notes)``: a part's table ``(unique, counts...)`` and what to tell about it (a list,
        e.g. of warnings). It runs on the workers, which import it by its module and name.
    parts : sequence
        The parts (file names, blocks), each the argument of one call.
    names : sequence of str
        What names each part in a sentence (its file).
    client : distributed.Client or str, optional
        As :func:`cluster_client`.
    shared : dict, optional
        Data every part needs (the embeddings), sent to each worker once and given to `count` as keyword arguments.

    Returns
    -------
    tuple
        ``(table, notes)``: the tables merged, and every part's notes in the order of the parts.

    Raises
    ------
    ValueError
        A part that could not be counted (the worker's own sentence when it gave one, e.g. a LoadError naming the
        file), or whose worker died, named.
    """
    with cluster_client(client) as running:
        sent = {name: running.scatter(value, broadcast=True, hash=False) for name, value in (shared or {}).items()}
        counted = running.map(count, list(parts), pure=False, **sent)
        level = counted
        while len(level) > 1:
            level = [running.submit(_merge, *level[start:start + SPLIT_EVERY], pure=False)
                     for start in range(0, len(level), SPLIT_EVERY)]
        try:
            return level[0].result()
        except Exception as error:
            raise _named(error, counted, names) from None


def _merge(*counted: tuple) -> tuple:
    """Tables and their notes merged into one table and the notes in order."""
    return merge_tables([table for table, _ in counted]), [note for _, notes in counted for note in notes]


def _named(error: BaseException, counted: Sequence, names: Sequence[str]) -> BaseException:
    """The error of the first part that failed, as a sentence naming it (the part's own sentence when it is one)."""
    for future, name in zip(counted, names):
        if future.status == "error":
            failure = future.exception()
            if isinstance(failure, ValueError):  # a sentence naming the file already (LoadError is one)
                return failure
            return ValueError(f"{name}: the worker counting this part failed ({type(failure).__name__}: "
                              f"{failure}); {MEMORY_ADVICE}")
    lost = next((name for future, name in zip(counted, names) if future.status in ("cancelled", "lost")), None)
    where = f"{lost}: the counts of this part were lost" if lost else "The counts of the parts were lost"
    return ValueError(f"{where} on the cluster ({type(error).__name__}: {error}); {MEMORY_ADVICE}")
