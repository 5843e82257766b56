"""The ``llrcore`` command line: evaluate score files, calibrate them, write a report; multiclass costs.

    llrcore evaluate SCORES [SCORES ...] [--key KEY] [--metadata FILE] [--p-target P] [--c-miss C] [--c-fa C]
                     [--by COLUMN ...] [--ci LEVEL [--bootstrap N] [--group-by COLUMN] [--seed S]] [--json | --csv]
    llrcore evaluate --scheduler ADDRESS|local FILES... [--key KEY_PATTERN] [--p-target P] [--json | --csv]
    llrcore embeddings EMB.npy LABELS [--metric cosine|dot] [--bins B] [--scheduler ADDRESS|local] [--p-target P]
    llrcore calibrate DEV --apply-to SCORES -o OUT [--method affine|pav|cmlg] [--rule brier | --alpha A --beta B]
                      [--prior P] [--key DEV_KEY] [--digits input|all|N]
    llrcore fuse DEV [DEV ...] --apply-to EVAL [EVAL ...] -o OUT [--rule brier | --alpha A --beta B] [--prior P]
                 [--regularisation LAMBDA] [--key KEY] [--dev-key DEV_KEY] [--p-target P] [--c-miss C] [--c-fa C]
    llrcore report SCORES [SCORES ...] [--calibrate-on DEV] [--name NAME] -o report.html [--figures DIR]
                   [--metadata FILE] [--by COLUMN ...] [--ci LEVEL [--bootstrap N] [--group-by COLUMN] [--seed S]]
    llrcore multiclass SCORES [--labels LABELS] [--score-type llr|logit|log-posterior] [--calibrate-on DEV]
                       [--p-target P] [--json | --csv]
    llrcore classifier SCORES [--labels LABELS] [--score-type logit|log-posterior|probability] [--score brier|log]
                       [--bins 15] [--strategy uniform|quantile] [--html OUT] [--json | --csv]
    llrcore tdcf CM_SCORES [--key KEY] --asv ASV_SCORES [--asv-key KEY] [--formulation revised|legacy]
                 [--asv-threshold T] [--by-attack] [--json | --csv]
    llrcore sasv CM_SCORES [--key KEY] --asv ASV_SCORES [--asv-key KEY] [--cost-model asvspoof5|a-dcf-paper]
                 [--teer-convention llrcore|asvspoof5|asvspoof5-accelerated] [--by-attack] [--json | --csv]
    llrcore normalize SCORES --key KEY --enrol-cohort F --test-cohort F [--method as-norm] [--top-n N] -o OUT
    llrcore validate SCORES -o validation.html [--log10] [--calibrate-on DEV] [--method affine|pav] [--no-calibration]
                     [--criterion NAME=VALUE ...] [--by COLUMN ...] [--folds K] [--group-by COLUMN] [--name NAME]
    llrcore diarize FOLDER_OR_FILES... [--method bayes|ahc|spectral|nme-sc] [--n-clusters K] [--collar 0.25]
                    [--prior NAME | --prior-from LABELLED... | --prior-from-others]
                    [--keep-overlap] [--uem UEM] [--csv | --json] [--rttm-out DIR]
    llrcore der SYSTEM_RTTM... --reference REF... [--collar 0.25] [--collar-convention md-eval|pyannote]
                [--score-overlap] [--extent both|reference] [--uem UEM] [--average pooled|mean]
                [--ci LEVEL] [--against OTHER_RTTM...] [--bootstrap N] [--seed S] [--csv | --json]
    llrcore app [STREAMLIT_OPTIONS ...]      (the workbench of the installed package, on its demo data)
    llrcore demo [NAME]                      (the paths of the packaged demo score files)

``evaluate`` prints the metrics in the units of the app's Evaluate page: the EER in percent (column ``EER %``),
Cllr and minCllr in bits, minDCF, actDCF, Cprimary and minCprimary normalised (1 is the cost of deciding without
the system), the calibration loss in percent of Cllr. The text table says so in its header; ``--csv`` and ``--json``
have the same columns in the same units (the CSV is the app's "Metrics as CSV") with every digit. ``--by`` breaks
every system down by metadata column(s) of the score file (or of ``--metadata``), one row per condition and a pooled
row, with ``too few errors`` by the rule of 30; ``--ci`` adds bootstrap confidence intervals (``<column> lower`` and
``<column> upper``), drawing whole ``--group-by`` groups (speakers, models) where trials share them. ``report``
takes the same options: a table and a figure per condition, the intervals in words and in its tables, DET bands.
With ``--scheduler`` the files are parts of one set of trials, counted on a Dask cluster and merged
(``lc.read_counts(engine="dask")``): one row, exactly the numbers of the trials read whole. ``embeddings`` scores
every pair of the rows of a ``.npy`` file (``lc.score_embeddings``) and prints the same table for those trials, or
with ``--bins`` the bounds the bins put on EER and minDCF.

``calibrate`` writes the calibrated LLRs in the format of the file they replace (:func:`llrcore.io.rescore_file`):
every line of a text file is kept (comments, header, trial ids, labels, order) with only its score replaced, with
as many significant digits as the score it replaces (more where fewer would tie or reorder two trials;
``--digits`` chooses otherwise); an ``.npz`` score file keeps its arrays; a Parquet file its columns, both with
full float64 values. A text or Parquet file to calibrate needs no labels (a one-column score file, or a
Kaldi/BOSARIS ``model test score`` file, will do).

``multiclass`` prints the multiclass Cllr (bits) and the NIST LRE costs (Cavg and minCavg at ``--p-target``, the
LRE 2017 primary cost and its minimum, normalised) of a multiclass score file, raw and after the ``alpha * llrs +
gamma`` calibration, trained on ``--calibrate-on`` or, by default, on the scores themselves.

``diarize`` clusters the similarity matrix of every recording (``<recording>.npz`` beside ``<recording>.rttm``) and
prints one row per recording and a TOTAL row: DER with its parts, JER, purity and coverage (pyannote.metrics), the
total accumulated over recordings as pyannote.metrics' report does; ``--rttm-out`` writes the hypotheses.

Bad input ends with one sentence on stderr saying what is wrong and where, and exit status 2; never a traceback.
Warnings met on the way (part of a score file left out by its key, a degenerate calibration) are printed on
stderr, one line each, ``llrcore <command>: warning: <sentence>``, and do not change the exit status.
"""
from __future__ import annotations

import argparse
import os
import sys
import warnings
from pathlib import Path

from .._version import __version__
from . import (
    app,
    calibrate,
    classifier,
    demo,
    der,
    diarize,
    embeddings,
    evaluate,
    fuse,
    multiclass,
    normalize,
    report,
    sasv,
    tdcf,
    validate,
)

EXIT_BAD_INPUT = 2
#: The commands, in the order --help lists them; each module adds its parser and the function that runs it.
COMMANDS = (evaluate, embeddings, calibrate, fuse, report, multiclass, classifier, tdcf, sasv, normalize, validate,
            diarize, der, app, demo)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="llrcore", description="Likelihood-ratio evaluation from the command line.")
    parser.add_argument("--version", action="version", version=f"llrcore {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.add_command(commands)
    return parser


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser()
    args, forwarded = parser.parse_known_args(argv)  # options of another program: `llrcore app` passes Streamlit's on
    if forwarded and not getattr(args, "forwards_options", False):
        parser.error(f"unrecognized arguments: {' '.join(forwarded)}")  # as parse_args would
    args.argv, args.forwarded = argv, forwarded
    from ..io import LoadError  # after the parser: `llrcore --help` imports no analysis

    with warnings.catch_warnings(record=True) as caught:
        try:
            result = args.run(args)
        except (LoadError, ValueError, KeyError, OSError) as error:
            result = error
    for warning in caught:  # as Python's filters let them through, but one line each and no source line
        print(f"llrcore {args.command}: warning: {' '.join(str(warning.message).split())}", file=sys.stderr)
    if isinstance(result, Exception):
        print(f"llrcore {args.command}: {_with_instruction(result, args)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if isinstance(result, int):
        return result
    try:
        print(result, flush=True)
    except BrokenPipeError:  # `llrcore ... | head`: the reader has what it wanted; Python's recipe, no traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def _with_instruction(error: Exception, args) -> str:
    """The error's sentence, and for a score file that needs its key the option that gives it."""
    from ..io import LoadError

    if isinstance(error, KeyError):  # its str() would quote the sentence
        return str(error.args[0])
    if not (isinstance(error, LoadError) and error.needs_key):
        return str(error)
    # the option of the file that needs it: the development file's (calibrate), the ASV's (tdcf, sasv) or the scores'
    files = {"--dev-key": getattr(args, "calibrate_on", None), "--asv-key": getattr(args, "asv", None)}
    option = next((option for option, path in files.items() if path and error.path and Path(error.path) == Path(path)),
                  "--key")
    return f"{error} Give it with {option} KEY_FILE."
