"""``llrcore normalize``: Z-, T-, S- or adaptive S-norm of a ``model test score`` file against cohort score files,
written in the file's own format, with the metrics before and after."""
from __future__ import annotations

from pathlib import Path

from .._choices import NORMALIZATION_METHODS as METHODS
from ._options import add_operating_point, digits_option, one_system, operating_point, write_scores
from ._text import text_table

#: The columns printed before and after: normalised scores are not LLRs, so the discrimination metrics.
SHOWN = ["EER %", "minDCF", "minCllr"]


def add_command(commands) -> None:
    parser = commands.add_parser(
        "normalize", help="Z-, T-, S- or adaptive S-norm of a 'model test score' file against cohort scores",
        description="Normalise the scores of a 'model test score' file with the statistics of each side's cohort "
                    "scores (files 'model cohort score' and 'test cohort score'), write them in the file's format "
                    "and print EER, minDCF and minCllr before and after. Standard deviation with ddof 0 as "
                    "WeSpeaker (--ddof 1: SpeechBrain's).")
    parser.add_argument("scores", help="score file 'model test score', one trial per line")
    parser.add_argument("--key", required=True, help="key file of the trials (model test target|nontarget)")
    parser.add_argument("--enrol-cohort", help="'model cohort score' file: every model against the cohort")
    parser.add_argument("--test-cohort", help="'test cohort score' file: every test segment against the cohort")
    parser.add_argument("--method", choices=METHODS, default="as-norm",
                        help="z-norm (model side), t-norm (test side), s-norm (both) or as-norm (both, top N) "
                             "(as-norm)")
    parser.add_argument("--top-n", type=int, help="keep each side's N highest cohort scores (as-norm: 300)")
    parser.add_argument("--ddof", type=int, choices=(0, 1), default=0,
                        help="standard deviation: 0 as numpy/WeSpeaker (default), 1 as torch/SpeechBrain")
    parser.add_argument("-o", "--output", required=True, help="where to write the normalised scores")
    parser.add_argument("--digits", type=digits_option, default=6, metavar="input|all|N",
                        help="significant digits of each new score: N (6; more where fewer would tie or reorder "
                             "two trials), 'all', or 'input' as many as the score it replaces")
    add_operating_point(parser)
    parser.set_defaults(run=run)


def run(args) -> str:
    import numpy as np

    from ..binary.metrics import evaluate
    from ..binary.tables import metrics_table
    from ..io import rescore_file
    from ..io.cohort import read_cohort_scores, read_score_pairs
    from ..normalization import normalize_pairs, normalize_scores

    enrol = read_cohort_scores(args.enrol_cohort) if args.enrol_cohort else None
    test = (enrol if args.test_cohort == args.enrol_cohort else read_cohort_scores(args.test_cohort)) \
        if args.test_cohort else None
    options = dict(method=args.method, top_n=args.top_n, ddof=args.ddof)
    before = one_system(args.scores, args.key)
    after = normalize_scores(before, enrol, test, **options)  # warns of leakage and one-sided norms
    pairs = read_score_pairs(args.scores)  # the file's lines in order, to rewrite each with its own score

    def transform(scores: np.ndarray) -> np.ndarray:
        if scores.shape != pairs["score"].shape or not np.array_equal(scores, pairs["score"].to_numpy()):
            raise ValueError(f"{Path(args.scores).name} must be a 'model test score' file with one trial a line.")
        return normalize_pairs(pairs["model"], pairs["test"], scores, enrol, test, **options)

    output = write_scores(args.output, rescore_file(args.scores, transform, digits=args.digits))
    op = operating_point(args)
    results = [evaluate(t.sorted, p_target=op, name=label) for label, t in (("before", before), ("after", after))]
    table = metrics_table(results, eer_percent=True)[SHOWN]
    return (f"Normalised {Path(args.scores).name} ({before.tar.size:,} target and {before.non.size:,} non-target "
            f"trials) with {after.name.split('(')[-1].rstrip(')') if '(' in after.name else args.method}.\n"
            f"Operating point: {op.describe()}; EER in %, minDCF normalised, minCllr in bits.\n"
            f"{text_table(table)}\nWrote {output}.")
