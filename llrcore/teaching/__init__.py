"""Teaching Bayes decisions: the numbers behind the app's teaching pages.

- :mod:`.decisions` — out of 100 trials, how many errors (or what cost) at a prior and costs.
- :mod:`.fixed_threshold` — what a threshold fixed for a false-alarm rate costs at other operating points.
- :mod:`.gaussian` — calibrated Gaussian LLRs: EER, d', Cllr and straight DET lines of one number, mu (the closed
  forms in :mod:`.gaussian_closed_form`).

Stands on :mod:`llrcore.binary` and :mod:`llrcore.calibration`. This face gathers nothing.
"""
