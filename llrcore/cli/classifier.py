"""``llrcore classifier``: whether a classifier's probabilities can be trusted: the CORP decomposition, the binned ECE
and temperature scaling of a file of logits or probabilities per class (:func:`~llrcore.classifier_calibration`),
as a table, and with ``--html`` the page with its figures."""
from __future__ import annotations

import json
from pathlib import Path

from ._options import add_output_formats

#: What the columns say, in the header and in --help.
UNITS = ("nll in nats; ece, mce, smece (smooth ECE), aurc and e_aurc as shares (0.039 = 3.9 %); mean_score = "
         "MCB - DSC + UNC, the Brier score or the log score in bits (CORP, Dimitriadis, Gneiting & Jordan 2021).")


def add_command(commands) -> None:
    parser = commands.add_parser(
        "classifier", help="print a classifier's CORP decomposition, ECE and temperature, raw and scaled",
        description=f"Classifier calibration of a file of logits or probabilities per class: CORP reliability, the "
                    f"binned ECE and temperature scaling (Guo et al. 2017), raw and scaled. {UNITS}",
    )
    parser.add_argument("scores", help="a table with one column per class and a label column, .npz (scores and "
                        "targets arrays), Parquet, or .npy with --labels")
    parser.add_argument("--labels", help="the labels of a .npy matrix (.npy or one label per line)")
    parser.add_argument("--score-type", choices=("logit", "log-posterior", "probability"), default="logit",
                        help="what the numbers are (logit)")
    parser.add_argument("--score", choices=("brier", "log"), default="brier", help="the score CORP decomposes")
    parser.add_argument("--bins", type=int, default=15, help="bins of the ECE (15)")
    parser.add_argument("--strategy", choices=("uniform", "quantile"), default="uniform",
                        help="equal-width (uniform) or equal-mass (quantile) bins")
    parser.add_argument("--html", metavar="OUT", help="also write the page with its figures (one HTML file)")
    add_output_formats(parser)
    parser.set_defaults(run=run)


def run(args) -> str:
    from ..io import read_multiclass
    from ..multiclass.classifier import classifier_calibration
    from ..report.classifier import classifier_report_html

    scores = read_multiclass(args.scores, labels=args.labels, score_type=args.score_type)
    result = classifier_calibration(scores.llrs, scores.labels, score=args.score, bins=args.bins,
                                    strategy=args.strategy)
    if args.html:
        Path(args.html).write_text(classifier_report_html(result, Path(args.scores).name), encoding="utf-8")
    table = result.to_frame().set_index("version")
    if args.json:
        return json.dumps(table.to_dict(orient="index"), indent=2)
    if args.csv:
        return table.to_csv()
    lines = [f"{Path(args.scores).name}: {len(scores.labels):,} trials of {len(scores.classes)} classes, accuracy "
             f"{100 * result.accuracy:.2f} %. {UNITS}", table.to_string(float_format=lambda v: f"{v:.4g}")]
    lines += [f"{version}: {result.corp[version].sentence()}" for version in result.corp]
    return "\n".join(lines)
