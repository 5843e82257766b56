"""``llrcore validate``: the forensic validation report of an LR method (the validation matrix, one HTML file)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ._options import add_calibration_options, quote, scoring_rule

if TYPE_CHECKING:
    from ..data.trials import Trials


def add_command(commands) -> None:
    parser = commands.add_parser(
        "validate", help="validate an LR method as the forensic guideline proposes: one self-contained HTML report")
    parser.add_argument("scores", help="validation scores with labels (same source = target, different = non-target)")
    parser.add_argument("-o", "--output", required=True, help="the HTML file to write")
    parser.add_argument("--log10", action="store_true", help="the scores are log10 LRs (default: natural-log LLRs)")
    parser.add_argument("--key", help="BOSARIS/Kaldi key file of the scores")
    parser.add_argument("--metadata", help="a table of trial conditions joined on the model/test ids (or row by row)")
    parser.add_argument("--calibrate-on", metavar="DEV", help="development scores to train the calibration on "
                        "(default: 5-fold cross-validation on the validation scores)")
    parser.add_argument("--dev-key", help="BOSARIS/Kaldi key file of the development scores")
    parser.add_argument("--no-calibration", action="store_true", help="judge the LRs as given only")
    add_calibration_options(parser)
    parser.add_argument("--folds", type=int, default=5, help="cross-validation folds (5)")
    parser.add_argument("--group-by", metavar="COLUMN", help="keep the trials of each value of this column (e.g. "
                        "speaker) in one fold")
    parser.add_argument("--seed", type=int, default=0, help="seed of the fold assignment (0)")
    parser.add_argument("--criterion", action="append", default=[], metavar="NAME=VALUE",
                        help="a validation criterion (an upper limit), e.g. cllr=0.3, eer=0.05 (or 5%%), min_cllr=0.2, "
                        "cllr_cal=0.1, devpav=0.5, misleading_same_source=0.05, misleading_different_source=0.05, "
                        "condition_cllr=0.5 (these are the examples used when none is given; 'none' leaves one "
                        "unjudged). The criteria are the laboratory's decision: set them")
    parser.add_argument("--by", action="append", metavar="COLUMN", help="robustness: the largest Cllr of any value "
                        "of this metadata column (repeat to cross columns)")
    parser.add_argument("--name", help="name of the LR method")
    parser.add_argument("--title", help="title of the report")
    parser.add_argument("--description", default="", help="the method and the data in a few words")
    parser.add_argument("--units", choices=("log10", "ln"), default="log10",
                        help="how LR values are written in the report (log10)")
    parser.set_defaults(run=run)


def run(args):
    from ..forensic.validation import ValidationCriteria, validate_lr_method
    from ..io import read_trials
    from ..report.validation import build_validation_report, validation_paragraphs

    criteria = ValidationCriteria.parse(args.criterion)
    scale = "log10" if args.log10 else "ln"
    trials = read_trials(args.scores, key=args.key, metadata=args.metadata, name=args.name, scale=scale)
    if isinstance(trials, dict):
        raise ValueError(  # noqa: TRY004 - a sentence for the user (exit 2), not a programming error
            f"{args.scores} holds {len(trials)} systems ({', '.join(trials)}); validate one LR method "
            "at a time: give a file with a single system.")
    development: Trials | None = None
    if args.calibrate_on:
        read = read_trials(args.calibrate_on, key=args.dev_key, scale=scale)
        if isinstance(read, dict):
            raise ValueError(f"{args.calibrate_on} holds {len(read)} systems; the calibration trains on one.")
        development = read
    validation = validate_lr_method(
        trials, calibrate=None if args.no_calibration else args.method, calibrate_on=development,
        criteria=criteria, by=args.by, folds=args.folds, group_by=args.group_by, seed=args.seed,
        rule=scoring_rule(args) if args.method == "affine" else None,
    )
    report = build_validation_report(validation, title=args.title, source=args.scores, description=args.description,
                                     units=args.units, command="llrcore " + " ".join(quote(a) for a in args.argv))
    report.write(args.output)
    table = validation.to_frame(args.units).drop(columns=["figure", "value", "limit"])
    return "\n".join([table.to_string(index=False), "", validation_paragraphs(validation)["conclusion"], "",
                      f"Wrote {args.output}."])
