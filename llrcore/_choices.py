"""The named choices of the analyses (methods, conventions, presets) and the verdict's rule, as plain data.

The command line builds its options from them (``choices=``, help texts) without importing the analyses, so that
``llrcore --help`` answers in a fraction of a second (issue 45); the analyses import them from here. A module of
the bottom layer that imports nothing.
"""

#: The target priors whose normalised actual DCFs (``C_miss = C_fa = 1``) a NIST SRE's primary cost averages, by
#: evaluation (and track). SRE18's are those of NIST's SRE18 scoring software (``configuration = {'cmn2': [0.01,
#: 0.005], 'vast': [0.05]}``); the others are those of the evaluation plans listed in :mod:`llrcore.prior`. From
#: SRE16 on, the costs are equalised over partitions of the trials (:func:`~llrcore.cprimary` with ``partition_by``).
NIST_PRIMARY_P_TARGETS = {
    "SRE12": (0.01, 0.001),
    "SRE16": (0.01, 0.005),
    "SRE18 CMN2": (0.01, 0.005),
    "SRE18 VAST": (0.05,),
    "SRE19 CTS": (0.01, 0.005),
    "SRE19 AV": (0.05,),
    "SRE21": (0.01, 0.05),
}

#: Calibration may lose at most this share of Cllr (in %) for the scores to be "good" likelihood ratios.
GOOD_LOSS_PERCENT = 10.0
#: Cllr (bits) of the neutral LLR 0, i.e. of no system: scores that cost this much or more are not usable as LLRs.
USELESS_CLLR = 1.0
#: The rule in one sentence, for tables' help texts and the command line.
VERDICT_RULE = (f"good when Cllr < {USELESS_CLLR:g} bit and calibration loss is at most {GOOD_LOSS_PERCENT:g} % of "
                f"Cllr; not usable as likelihood ratios when Cllr ≥ {USELESS_CLLR:g} bit (worse than no system); "
                "otherwise needs recalibration")

#: The ``method=`` of :func:`~llrcore.normalize_scores`: Z-norm (the enrolment side's cohort statistics), T-norm (the
#: test side's), S-norm (the mean of both) and AS-norm (S-norm over each side's top-N cohort scores, Matejka et al.
#: 2017); the formulas are WeSpeaker's and SpeechBrain's.
NORMALIZATION_METHODS = ("z-norm", "t-norm", "s-norm", "as-norm")

#: The ``method=`` of :func:`~llrcore.cluster_similarity`: the Bayesian block model, average-linkage AHC, spectral
#: clustering (Ng, Jordan & Weiss) and NME-SC (Park et al., IEEE Signal Processing Letters 2020).
CLUSTERING_METHODS = ("bayes", "ahc", "spectral", "nme-sc")
#: The block model's learnt priors by name (:data:`llrcore.diarization.block_prior.PRESETS`): the embedder and the
#: windows of the scores they were learnt on.
DIARIZATION_PRIORS = ("resemblyzer-1.5s-espeak", "simulated-plda-1.5s")
#: Their names before issue 46, still accepted.
DIARIZATION_PRIOR_ALIASES = {"synthetic-cosine": "resemblyzer-1.5s-espeak", "simulated-plda": "simulated-plda-1.5s"}
#: Whose DER: NIST md-eval / dscore (each speaker's own overlapping turns merged) or pyannote.metrics (counted each).
DER_CONVENTIONS = ("md-eval", "pyannote")
#: How ``collar`` seconds are read: NIST md-eval ``-c`` / dscore ``--collar`` forgive them on EACH side of a reference
#: boundary, pyannote.metrics' ``collar`` is the TOTAL width (0.25 s md-eval = 0.5 s pyannote.metrics).
COLLAR_CONVENTIONS = ("md-eval", "pyannote")
#: The region scored without a UEM: from the first to the last turn of reference and system together (dscore's
#: generated UEM), or of the reference alone (system speech outside it is then no false alarm).
DER_EXTENTS = ("both", "reference")
#: DER over recordings: pooled, all errors over all scored speech (md-eval, dscore's OVERALL row, pyannote.metrics'
#: ``abs(metric)``), or the mean of the per-recording rates, each recording weighing the same.
DER_AVERAGES = ("pooled", "mean")

#: How ``score_embeddings`` compares two embeddings (the cosine of their angle, or their dot product).
EMBEDDING_METRICS = ("cosine", "dot")
