"""The ``llrcore`` command line: batch evaluation of score files.

    llrcore evaluate SCORES [SCORES ...] [--key KEY] [--p-target P] [--c-miss C] [--c-fa C] [--json | --csv]

Bad input ends with one sentence on stderr saying what is wrong and where, and exit status 2; never a traceback.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from . import __version__
from .io import LoadError, read_trials
from .metrics import evaluate, metrics_table

EXIT_BAD_INPUT = 2


def _load_systems(paths, key):
    """Read every score file; a multi-system file contributes one entry per system."""
    systems = {}
    for path in paths:
        loaded = read_trials(path, key=key)
        for name, trials in (loaded.items() if isinstance(loaded, dict) else [(loaded.name or Path(path).stem, loaded)]):
            if name in systems:
                raise ValueError(f"Two systems are named {name!r}; rename one of the files.")
            systems[name] = trials
    return systems


def _evaluate_command(args) -> str:
    systems = _load_systems(args.scores, args.key)
    results = [
        evaluate(trials.sorted, p_target=args.p_target, c_miss=args.c_miss, c_fa=args.c_fa, name=name)
        for name, trials in systems.items()
    ]
    table = metrics_table(results)
    if args.json:  # json.dumps writes floats exactly (pandas' to_json rounds to 10 digits)
        return json.dumps(table.to_dict(orient="index"), indent=2, default=float)
    if args.csv:
        return table.to_csv()
    header = f"Operating point: P_target={args.p_target:g}, C_miss={args.c_miss:g}, C_fa={args.c_fa:g}\n"
    return header + table.to_string(float_format=lambda value: f"{value:.4f}")


def _positive(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text} is not a positive number")
    return value


def _probability(text: str) -> float:
    value = float(text)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a probability strictly between 0 and 1")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="llrcore", description="Likelihood-ratio evaluation from the command line.")
    parser.add_argument("--version", action="version", version=f"llrcore {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    evaluate_parser = commands.add_parser(
        "evaluate", help="print EER, minDCF, actDCF, Cllr, minCllr and Cprimary for score files"
    )
    evaluate_parser.add_argument("scores", nargs="+", help="score files (any format read_trials knows)")
    evaluate_parser.add_argument("--key", help="BOSARIS/Kaldi key file for 'model test score' files")
    evaluate_parser.add_argument("--p-target", type=_probability, default=0.01, help="prior of a target (0.01)")
    evaluate_parser.add_argument("--c-miss", type=_positive, default=1.0, help="cost of a miss (1)")
    evaluate_parser.add_argument("--c-fa", type=_positive, default=1.0, help="cost of a false alarm (1)")
    output = evaluate_parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print the table as JSON")
    output.add_argument("--csv", action="store_true", help="print the table as CSV")
    evaluate_parser.set_defaults(run=_evaluate_command)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        print(args.run(args))
    except (LoadError, ValueError, OSError) as error:
        print(f"llrcore {args.command}: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    return 0


if __name__ == "__main__":
    sys.exit(main())
