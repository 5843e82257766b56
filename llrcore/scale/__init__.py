"""Past one machine: trials counted per unique score in pieces, and the pieces' counts merged exactly.

- :mod:`.accumulator` — ``ScoreAccumulator``: scores and labels fed batch by batch (a training or evaluation loop),
  kept as counts per unique score, merged across processes.

The merge itself is :meth:`llrcore.binary.counts.CountedScores.merge` (``a + b``), which this package stands on.
"""
