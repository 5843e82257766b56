"""``llrcore fuse``: train a linear fusion of several systems on development scores, write the fused LLRs of the
evaluation scores, and compare the fusion with each system calibrated alone; save the fusion as JSON (``--save``)."""
from __future__ import annotations

import argparse
from pathlib import Path

from ._options import (
    RULES,
    add_operating_point,
    load_systems,
    operating_point,
    positive,
    probability,
    scoring_rule,
    write_scores,
)
from ._text import text_table

#: How the text tables print a column; other numbers with 4 decimals, counts whole.
DECIMALS = {"EER %": 2, "calibration loss %": 1}


def non_negative(text: str) -> float:
    value = float(text)
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"{text} is not a number of at least 0")
    return value


def add_command(commands) -> None:
    fuse_parser = commands.add_parser(
        "fuse", help="fuse several systems (linear fusion trained on development scores) and write the fused LLRs",
        description="Train llr = w1*s1 + ... + wK*sK + b on development scores of two or more systems (one file "
                    "per system, or one file of several systems), with a proper scoring rule weighted for --prior; "
                    "apply it to the same systems' evaluation scores; print the weights and the fusion against each "
                    "system calibrated alone by the same recipe. Trials are paired by their ids (model and test, "
                    "utt or trial), or by line order when the files have none.",
    )
    fuse_parser.add_argument("dev", nargs="+", help="development score files with labels (train the fusion)")
    fuse_parser.add_argument("--apply-to", nargs="+", required=True, metavar="EVAL",
                             help="evaluation score files of the same systems, in the same order (or one file of "
                                  "several systems with the same names)")
    fuse_parser.add_argument("-o", "--output", required=True,
                             help="where to write the fused LLRs of the evaluation trials (tab-separated text: the "
                                  "trial ids and other columns of the input, score, label; .gz compresses it)")
    fuse_parser.add_argument("--key", help="BOSARIS/Kaldi key file of the evaluation scores")
    fuse_parser.add_argument("--dev-key", help="BOSARIS/Kaldi key file of the development scores")
    fuse_parser.add_argument("--prior", type=probability, default=0.5,
                             help="P_target the fusion's objective is weighted for (0.5)")
    fuse_parser.add_argument("--rule", choices=RULES, help="proper scoring rule (logarithmic)")
    fuse_parser.add_argument("--alpha", type=positive, help="custom Beta-family rule: alpha (with --beta)")
    fuse_parser.add_argument("--beta", type=positive, help="custom Beta-family rule: beta (with --alpha)")
    fuse_parser.add_argument("--regularisation", type=non_negative, default=0.0, metavar="LAMBDA",
                             help="penalty on the weights of the standardised scores (0); needed when the systems "
                                  "together separate the development trials, 0.001 to 0.01 is mild")
    fuse_parser.add_argument("--save", metavar="FUSION_JSON",
                             help="also write the trained fusion as JSON (schema llrcore.calibrator/1), the weights "
                                  "named by system, to apply it elsewhere with lc.load_calibrator")
    add_operating_point(fuse_parser)
    fuse_parser.set_defaults(run=run)


def _development_systems(paths, key) -> dict:
    from ..io import LoadError

    try:
        return load_systems(paths, key)
    except LoadError as error:
        if error.needs_key:  # main would name --key, the evaluation files' option
            raise ValueError(f"{error} Give it with --dev-key KEY_FILE.") from error
        raise


def _table(frame) -> str:
    return text_table(frame, DECIMALS, na_rep="")


def run(args) -> str:
    from ..binary.metrics import effective_plo
    from ..calibration.fusion import fuse
    from ..report.words import describe_calibration

    rule, plo = scoring_rule(args), float(effective_plo(args.prior))
    dev = _development_systems(args.dev, args.dev_key)
    evaluation = load_systems(args.apply_to, args.key)
    op = operating_point(args)
    result = fuse(dev, evaluation, rule=rule, plo=plo, regularisation=args.regularisation, p_target=op)
    output = write_scores(args.output, result.scores_frame().to_csv(sep="\t", index=False).encode())
    saved = []
    if args.save:
        Path(args.save).write_text(result.calibrator_json(), encoding="utf-8")
        saved = [f"Saved the fusion to {args.save} (load it with lc.load_calibrator)."]
    regularised = f", regularisation {args.regularisation:g}" if args.regularisation else ""
    assert result.evaluation is not None  # (fused with the --apply-to trials)
    return "\n".join([
        f"Fused {len(result.names)} systems with {describe_calibration('affine', rule, plo)}{regularised}, trained "
        f"on the development trials ({result.dev.describe()}):",
        f"  {result.formula(6)}",
        _table(result.weights_frame().set_index("system")),
        "",
        f"On the evaluation trials ({result.evaluation.describe()}), at {op.describe()}; each system calibrated alone "
        "by the same recipe; EER in %, Cllr and minCllr in bits, DCFs normalised:",
        _table(result.to_frame()),
        "",
        result.sentence(),
        f"Wrote {output}.",
        *saved,
    ])
