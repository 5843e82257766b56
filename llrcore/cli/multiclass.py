"""``llrcore multiclass``: multiclass Cllr and the NIST LRE costs of a multiclass score file, before and after the
multiclass calibration (the table of the language-recognition seed paper, with Cavg and the LRE 2017 primary cost)."""
from __future__ import annotations

import json
from pathlib import Path

from ._options import add_output_formats, probability
from ._text import text_table

#: The columns and their units, said in the header and in --help.
UNITS = ("Cllr in bits (log2 N is a system that says nothing); Cavg, minCavg, Cprimary and minCprimary normalised as "
         "in the NIST LRE 2017 plan (1 = rejecting every detection); Cprimary is the mean of Cavg at P_target 0.5 "
         "and 0.1.")
COLUMNS = {"cllr": "Cllr", "cavg": "Cavg", "min_cavg": "minCavg", "cprimary": "Cprimary",
           "min_cprimary": "minCprimary"}


def add_command(commands) -> None:
    parser = commands.add_parser(
        "multiclass", help="print multiclass Cllr, Cavg and the LRE primary cost, before and after calibration",
        description=f"Multiclass Cllr and the NIST LRE detection costs of a multiclass score file, raw and after "
                    f"the alpha*llrs + gamma calibration. {UNITS}",
    )
    parser.add_argument("scores", help="multiclass score file: a table with one column per class and a label column, "
                        ".npz, Parquet, or .npy with --labels")
    parser.add_argument("--labels", help="the labels of a .npy score matrix (.npy or one label per line)")
    parser.add_argument("--score-type", choices=("llr", "logit", "log-posterior"), default="llr",
                        help="what the scores are (llr); logits and log-posteriors lose the flat training prior")
    parser.add_argument("--calibrate-on", metavar="DEV", help="development scores to train the calibration on "
                        "(default: the scores themselves, an optimistic 'after')")
    parser.add_argument("--dev-labels", help="the labels of a .npy development matrix")
    parser.add_argument("--p-target", type=probability, default=0.5, help="P_target of Cavg and minCavg (0.5)")
    add_output_formats(parser)
    parser.set_defaults(run=run)


def run(args) -> str:
    import pandas as pd

    from ..io import read_multiclass
    from ..multiclass import cavg_table, fit_multiclass_affine, multiclass_cllr

    scores = read_multiclass(args.scores, labels=args.labels, score_type=args.score_type)
    development = (read_multiclass(args.calibrate_on, labels=args.dev_labels, score_type=args.score_type)
                   if args.calibrate_on else scores)
    if development.classes != scores.classes:
        raise ValueError(f"{Path(args.calibrate_on).name} has the classes {', '.join(development.classes)}, but "
                         f"{Path(args.scores).name} has {', '.join(scores.classes)}: the calibration needs the same "
                         "classes in the same order.")
    calibration = fit_multiclass_affine(development)
    calibrated = calibration(scores.llrs)
    table = cavg_table(scores, calibrated, p_target=args.p_target)
    table.insert(0, "cllr", [multiclass_cllr(scores), multiclass_cllr(calibrated, scores.labels)])
    table = table.rename(columns=COLUMNS)
    if args.json:
        return json.dumps(table.to_dict(orient="index"), indent=2)
    if args.csv:
        return table.to_csv()
    trained = Path(args.calibrate_on).name if args.calibrate_on else "the scores themselves"
    header = (f"{Path(args.scores).name}: {scores.llrs.shape[0]:,} trials of {len(scores.classes)} classes; "
              f"Cavg and minCavg at P_target {args.p_target:g}.\n"
              f"Calibration alpha * llrs + gamma trained on {trained}: alpha = {calibration.scale:.4g}.\n"
              f"Units: {UNITS}\n")
    return header + text_table(pd.DataFrame(table))
