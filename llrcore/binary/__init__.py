"""Binary evaluation: target against non-target scores, sorted once and pooled by PAV once.

- :mod:`.rates` — :class:`~llrcore.binary.rates.SortedScores`: sort once, PAV once; miss and false-alarm rates,
  the ROC convex hull, re-weighted replicates for the bootstrap.
- :mod:`.merge` — the parallel merge of the sorted classes into unique scores with class counts.
- :mod:`.pav` — PAV over runs of one target fraction: the blocks, their optimal LLRs, the ROCCH's vertices.
- :mod:`.costs` — Cllr's cost kernels: each LLR's cost in bits, their means without overflow.
- :mod:`.verdict` — whether scores can be used as likelihood ratios as they are, from Cllr and minCllr.
- :mod:`.metrics` — EER (ROCCH), minDCF and actDCF, Cllr and minCllr, Cprimary, Bayes error rates; ``evaluate``.
- :mod:`.curves` — the numbers a DET, APE or Bayes-error figure draws, as results.
- :mod:`.histograms` — score histograms per class, as results.
- :mod:`.conventions` — the EER and minDCF as other tools compute them (ASVspoof, SpeechBrain, Kaldi, scikit-learn,
  NIST), with why each differs: ``eer_conventions``.

Imports flow down only: this package stands on the data layer, ``llrcore.prior`` and ``llrcore.parallel``, and
every analysis above stands on it. This face gathers nothing (``llrcore`` gathers the public API).
"""
