"""``llrcore calibrate``: train a calibration on development scores and write calibrated LLRs in the format of the
file they replace."""
from __future__ import annotations

import gzip
import io
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

from ._options import add_calibration_options, digits_option, one_system, probability, scoring_rule

if TYPE_CHECKING:
    import pandas as pd


def add_command(commands) -> None:
    calibrate_parser = commands.add_parser(
        "calibrate", help="train a calibration on development scores and write calibrated LLRs for other scores"
    )
    calibrate_parser.add_argument("dev", help="development score file with labels (trains the calibration)")
    calibrate_parser.add_argument("--apply-to", required=True, help="score file to calibrate (labels not needed)")
    calibrate_parser.add_argument("-o", "--output", required=True, help="where to write the calibrated LLRs")
    calibrate_parser.add_argument("--key", help="BOSARIS/Kaldi key file of the development scores")
    calibrate_parser.add_argument("--prior", type=probability, default=0.5,
                                  help="P_target the affine calibration is weighted for (0.5)")
    calibrate_parser.add_argument(
        "--digits", type=digits_option, default="input", metavar="input|all|N",
        help="significant digits of each calibrated score in a text file: 'input' as many as the score it replaces "
             "(default), 'all' every digit of the float, or N; more where fewer would tie or reorder two trials",
    )
    calibrate_parser.add_argument(
        "--quality", metavar="COLUMNS", help="comma-separated numeric metadata columns (e.g. duration,snr) added to "
        "the affine calibration as features (QMF); both files need a header naming them")
    add_calibration_options(calibrate_parser)
    calibrate_parser.set_defaults(run=run)


def _check_output_suffix(source: Path, output: Path) -> None:
    binary = {".npz": ".npz", ".parquet": ".parquet", ".h5": "BOSARIS .h5", ".hdf5": "BOSARIS .h5"}
    src_kind = binary.get(source.suffix.lower(), "text")
    out_kind = binary.get(output.suffix.lower(), "text")
    if src_kind != out_kind:
        raise ValueError(f"The calibrated scores keep the format of {source.name} ({src_kind}); name the output "
                         f"file accordingly, not {output.name}.")


def run(args) -> str:
    from .._format import number
    from ..binary.metrics import effective_plo
    from ..calibration.analysis import calibrate_and_evaluate
    from ..calibration.problems import calibration_problems
    from ..io import rescore_file
    from ..report.words import describe_calibration

    rule, plo = scoring_rule(args), float(effective_plo(args.prior))
    _check_output_suffix(Path(args.apply_to), Path(args.output))
    dev = one_system(args.dev, args.key)
    if args.quality:
        return _run_quality(args, dev, rule, plo)
    fitted = calibrate_and_evaluate(dev, dev, args.method, rule, plo=plo, p_target=args.prior)
    # judged on the training trials alone (fitted.problems would report them a second time as evaluation trials)
    for problem in calibration_problems(fitted.calibrator, dev, rule=rule if args.method == "affine" else None):
        warnings.warn(problem, stacklevel=1)
    data = rescore_file(args.apply_to, fitted.calibrator, digits=args.digits)
    output = Path(args.output)
    output.write_bytes(gzip.compress(data) if output.suffix.lower() == ".gz" else data)
    transform = fitted.calibrator
    formula = (f": llr = {transform.scale:.6g} * score {transform.offset:+.6g}" if hasattr(transform, "scale")
               else "")
    return (f"Calibrated {Path(args.apply_to).name} with {describe_calibration(args.method, rule, plo)}, trained on "
            f"{Path(args.dev).name} ({dev.tar.size:,} target and {dev.non.size:,} non-target trials){formula}.\n"
            f"On the training trials Cllr went from {number(fitted.before.cllr, 4)} to {number(fitted.after.cllr, 4)} bits.\n"
            f"Wrote {output}.")


def _line_order_table(path: Path) -> pd.DataFrame:
    """The columns of a score file with a header, one row per data line in the file's order (the order in which
    :func:`~llrcore.io.rescore_file` hands its scores over), for the quality measures of each line."""
    import pandas as pd

    from ..io.text import detect_separator

    if path.suffix.lower() == ".parquet":
        return pd.read_parquet(path)
    text = (gzip.decompress(path.read_bytes()) if path.suffix.lower() == ".gz" else path.read_bytes()).decode()
    lines = [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    sep, decimal = detect_separator(lines[:50])
    sep = sep if sep in ("\t", ";", ",", "|") else r"\s+"
    return pd.read_csv(io.StringIO("\n".join(lines)), sep=sep, decimal=decimal)


def _run_quality(args, dev, rule, plo) -> str:
    """``llrcore calibrate --quality``: an affine calibration with the quality measures of the trials' metadata."""
    from .._format import number
    from ..calibration.affine_kinds import fit_quality_affine
    from ..calibration.fit import fit_affine
    from ..io import rescore_file

    if args.method != "affine":
        raise ValueError("--quality adds quality measures to the affine calibration: use --method affine.")
    quality = [c.strip() for c in args.quality.split(",") if c.strip()]
    calibration = fit_quality_affine(dev, quality, rule=rule, plo=plo)
    table = _line_order_table(Path(args.apply_to))
    data = rescore_file(args.apply_to, lambda scores: calibration.llrs(scores, table), digits=args.digits)
    output = Path(args.output)
    output.write_bytes(gzip.compress(data) if output.suffix.lower() == ".gz" else data)
    cllr = {n: m.cllr for n, m in calibration.compare(fit_affine(dev, rule=rule, plo=plo), dev).metrics.items()}
    before, affine, ours = cllr.values()
    return (f"Calibrated {Path(args.apply_to).name} with the quality measures {', '.join(quality)}, trained on "
            f"{Path(args.dev).name} ({dev.tar.size:,} target and {dev.non.size:,} non-target trials): "
            f"{calibration.formula(6)}.\nOn the training trials Cllr went from {number(before, 4)} bits to {number(ours, 4)} "
            f"(affine without the quality measures: {number(affine, 4)}).\nWrote {output}.")
