"""What the commands share: reading score files, the validators of option values, and the groups of options that
several commands take (the operating point, conditions and bootstrap, calibration)."""
from __future__ import annotations

import argparse
import gzip
import re
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..calibration.rules import BetaRule
    from ..prior import OperatingPoint

#: The named scoring rules of ``--rule``: each a class method of :class:`~llrcore.BetaRule` (imported when a command
#: runs, not when the parser is built).
RULES = ("logarithmic", "brier", "boosting", "asymmetric")


def load_systems(paths, key, sources: dict | None = None, metadata=None):
    """Read every score file; a multi-system file contributes one entry per system. `sources`, when given, is
    filled with the file name of each system."""
    from ..io import read_trials

    systems = {}
    for path in paths:
        loaded = read_trials(path, key=key, metadata=metadata)
        items = loaded.items() if isinstance(loaded, dict) else [(loaded.name or Path(path).stem, loaded)]
        for name, trials in items:
            if name in systems:
                raise ValueError(f"Two systems are named {name!r}; rename one of the files.")
            systems[name] = trials
            if sources is not None:
                sources[name] = Path(path).name
    return systems


def write_scores(path: str | Path, data: bytes) -> Path:
    """Write the bytes of a score file a command made, gzip-compressed when the name ends in ``.gz`` (at gzip's own
    default level: level 9 took 2.3x as long for a file 0.6 % smaller, bench/bench_calibrate_cli.py)."""
    output = Path(path)
    output.write_bytes(gzip.compress(data, compresslevel=6) if output.suffix.lower() == ".gz" else data)
    return output


def one_system(path, key):
    """The trials of a file that must hold one system (a development set)."""
    from ..io import read_trials

    loaded = read_trials(path, key=key)
    if isinstance(loaded, dict):
        names = ", ".join(loaded)
        raise ValueError(f"{Path(path).name} holds {len(loaded)} systems ({names}); calibration trains on one: "
                         "give a file with a single system.")
    return loaded


def scoring_rule(args) -> BetaRule:
    from ..calibration.rules import BetaRule

    if (args.alpha is None) != (args.beta is None):
        raise ValueError("Give both --alpha and --beta for a custom scoring rule.")
    if args.alpha is not None:
        if args.rule is not None:
            raise ValueError("Give either --rule or --alpha/--beta, not both.")
        return BetaRule(args.alpha, args.beta)
    return getattr(BetaRule, args.rule or "logarithmic")()


def quote(argument: str) -> str:
    return argument if re.fullmatch(r"[\w./:=+,-]+", argument) else "'" + argument.replace("'", "'\\''") + "'"


def positive(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text} is not a positive number")
    return value


def probability(text: str) -> float:
    value = float(text)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a probability strictly between 0 and 1")
    return value


def replicates(text: str) -> int:
    if not text.isdigit() or int(text) < 2:
        raise argparse.ArgumentTypeError(f"{text} is not a whole number of replicates of at least 2")
    return int(text)


def digits_option(text: str) -> str | int | None:
    if text in ("input", "all"):
        return None if text == "all" else text
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text} is not 'input', 'all' or a number of digits of at least 1")
    return int(text)


def add_operating_point(parser) -> None:
    parser.add_argument("--p-target", type=probability, default=0.01, help="prior of a target (0.01)")
    parser.add_argument("--c-miss", type=positive, default=1.0, help="cost of a miss (1)")
    parser.add_argument("--c-fa", type=positive, default=1.0, help="cost of a false alarm (1)")


def operating_point(args) -> OperatingPoint:
    """The operating point of the options of :func:`add_operating_point`."""
    from ..prior import OperatingPoint

    return OperatingPoint(args.p_target, args.c_miss, args.c_fa)


def add_conditions_options(parser, *, by_help: str) -> None:
    """--metadata, --by, and the bootstrap's --ci, --bootstrap, --group-by and --seed."""
    parser.add_argument("--metadata", help="a table of trial conditions joined on the model/test ids (or row by row): "
                        "CSV, TSV or Parquet")
    parser.add_argument("--by", action="append", metavar="COLUMN", help=by_help)
    parser.add_argument("--ci", type=probability, metavar="LEVEL",
                        help="bootstrap confidence intervals at this level, e.g. 0.95")
    parser.add_argument("--bootstrap", type=replicates, default=1000, metavar="N", help="bootstrap replicates (1000)")
    parser.add_argument("--group-by", metavar="COLUMN",
                        help="resample whole groups of this metadata column (e.g. speaker, model)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the bootstrap draws (0)")


def add_calibration_options(parser) -> None:
    parser.add_argument("--method", choices=("affine", "pav", "cmlg"), default="affine",
                        help="affine (trained with a proper scoring rule), pav (monotone) or cmlg (Gaussian)")
    parser.add_argument("--rule", choices=RULES, help="scoring rule of the affine calibration (logarithmic)")
    parser.add_argument("--alpha", type=positive, help="custom Beta-family rule: alpha (with --beta)")
    parser.add_argument("--beta", type=positive, help="custom Beta-family rule: beta (with --alpha)")


def add_tandem_files(parser, *, sasv_file: bool = False) -> None:
    """The two files of a tandem evaluation (``llrcore tdcf``, ``llrcore sasv``) and their keys: the CM's scores
    (``--key``) and the ASV's (``--asv``, ``--asv-key``), as ASVspoof 2021 ships score files and keys apart; with
    `sasv_file`, ``--asv`` may be left out for an ASVspoof 5 SASV file holding both, labelled by ``--key``."""
    parser.add_argument("scores", metavar="CM_SCORES", help="the CM's score file: bona fide trials as targets, spoofs "
                        "as non-targets (several systems in one file are evaluated one by one)" + (
                            "; or, without --asv, an ASVspoof 5 SASV score file (spk filename cm-score asv-score "
                            "sasv-score) with its key" if sasv_file else ""))
    parser.add_argument("--key", metavar="KEY", help="the key of CM_SCORES when it holds scores only (e.g. ASVspoof "
                        "2021's CM trial_metadata.txt for an 'utt score' file" + (
                            ", or ASVspoof 5's spk filename cm-label asv-label for an SASV file" if sasv_file else "")
                        + ")")
    parser.add_argument("--asv", required=not sasv_file, metavar="ASV_SCORES", help="the ASV's score file with target, "
                        "non-target and spoof trials (e.g. the organisers' ASVspoof ASV scores)")
    parser.add_argument("--asv-key", metavar="KEY", help="the key of ASV_SCORES when it holds scores only (e.g. "
                        "ASVspoof 2021's ASV trial_metadata.txt for a 'speaker utt score' file)")


def add_output_formats(parser, *, json_help: str = "print the table as JSON",
                       csv_help: str = "print the table as CSV") -> None:
    """``--json`` or ``--csv`` (one of them at most): what a command prints instead of its text table."""
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help=json_help)
    output.add_argument("--csv", action="store_true", help=csv_help)
