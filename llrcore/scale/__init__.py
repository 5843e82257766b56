"""Past one machine: trials counted per unique score in pieces, and the pieces' counts merged exactly.

- :mod:`.accumulator` — ``ScoreAccumulator``: scores and labels fed batch by batch (a training or evaluation loop),
  kept as counts per unique score, merged across processes.
- :mod:`.files` — ``lc.read_counts``: score files counted file by file (DuckDB), here or on a Dask cluster, and
  merged.
- :mod:`.embeddings` — ``lc.score_embeddings``: every pair of a set of embeddings scored in blocks and counted,
  exactly or in bins with bounds on EER and minDCF.
- :mod:`.dask_counts` — parts counted on the workers of a Dask cluster, their counts merged in a tree of tasks (the
  only module that imports Dask, ``pip install "llrcore[dask]"``).

The merge itself is :meth:`llrcore.binary.counts.CountedScores.merge` (``a + b``), which this package stands on.
"""
