"""``llrcore calibrate``: train a calibration on development scores and write calibrated LLRs in the format of the
file they replace; save the calibration as JSON (``--save``), or apply a saved one with no development scores
(``--load``)."""
from __future__ import annotations

import gzip
import io
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

from ._options import add_calibration_options, digits_option, one_system, probability, scoring_rule, write_scores

if TYPE_CHECKING:
    import pandas as pd


def add_command(commands) -> None:
    calibrate_parser = commands.add_parser(
        "calibrate", help="train a calibration on development scores and write calibrated LLRs for other scores"
    )
    calibrate_parser.add_argument("dev", nargs="?", help="development score file with labels (trains the "
                                  "calibration; not with --load)")
    calibrate_parser.add_argument("--apply-to", help="score file to calibrate (labels not needed)")
    calibrate_parser.add_argument("-o", "--output", help="where to write the calibrated LLRs (with --apply-to)")
    calibrate_parser.add_argument("--save", metavar="CAL_JSON", help="also write the trained calibration as JSON "
                                  "(schema llrcore.calibrator/1), to apply it later with --load or elsewhere")
    calibrate_parser.add_argument("--load", metavar="CAL_JSON", help="apply a calibration saved with --save (or by "
                                  "the app, or to_json()) instead of training one: no development file")
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


def _check_files(args) -> None:
    """One sentence when the files given do not make a calibration to train or load, and to apply or save."""
    if (args.dev is None) == (args.load is None):
        raise ValueError("Give a development score file to train the calibration on, or --load CAL_JSON to apply a "
                         "saved one (not both).")
    if args.load and (args.save or args.quality):
        raise ValueError("--load applies a saved calibration as it is: --save and --quality are for training one.")
    if (args.apply_to is None) != (args.output is None):
        raise ValueError("Give --apply-to SCORES and -o OUTPUT together: the scores to calibrate and where to write "
                         "them.")
    if args.apply_to is None and not args.save:
        raise ValueError("Nothing to do: give --apply-to SCORES -o OUTPUT to calibrate scores, or --save CAL_JSON to "
                         "keep the calibration.")
    if args.apply_to:
        _check_output_suffix(Path(args.apply_to), Path(args.output))


#: The kinds of saved calibration that calibrate one score column, and those of them that read the trials' metadata.
ONE_COLUMN, WITH_METADATA = ("affine", "pav", "quality", "conditional"), ("quality", "conditional")


def _apply(args, calibration) -> Path:
    """Calibrate the scores of --apply-to into -o: a calibration that reads the trials' metadata (quality measures,
    conditions) takes them from the same file, line by line."""
    from ..io import rescore_file

    if calibration.KIND in WITH_METADATA:
        table = _line_order_table(Path(args.apply_to))
        transform = lambda scores: calibration.llrs(scores, table)  # noqa: E731 (one line, as rescore_file calls it)
    else:
        transform = calibration
    return write_scores(args.output, rescore_file(args.apply_to, transform, digits=args.digits))


def _outcome(args, to_json) -> str:
    """Save the calibration (its JSON text from `to_json()`) when --save asks; the lines that say what was written."""
    lines = [f"Wrote {args.output}."] if args.apply_to else []
    if args.save:
        Path(args.save).write_text(to_json(), encoding="utf-8")
        lines.append(f"Saved the calibration to {args.save} (load it with --load, or lc.load_calibrator).")
    return "\n".join(lines)


def run(args) -> str:
    _check_files(args)
    if args.load:
        return _run_loaded(args)
    from .._format import number
    from ..binary.metrics import effective_plo
    from ..calibration.analysis import calibrate_and_evaluate
    from ..calibration.problems import calibration_problems
    from ..report.words import describe_calibration

    rule, plo = scoring_rule(args), float(effective_plo(args.prior))
    dev = one_system(args.dev, args.key)
    if args.quality:
        return _run_quality(args, dev, rule, plo)
    fitted = calibrate_and_evaluate(dev, dev, args.method, rule, plo=plo, p_target=args.prior)
    # judged on the training trials alone (fitted.problems would report them a second time as evaluation trials)
    for problem in calibration_problems(fitted.calibrator, dev, rule=rule if args.method == "affine" else None):
        warnings.warn(problem, stacklevel=1)
    if args.apply_to:
        _apply(args, fitted.calibrator)
    transform = fitted.calibrator
    formula = (f": llr = {transform.scale:.6g} * score {transform.offset:+.6g}" if hasattr(transform, "scale")
               else "")
    what = f"Calibrated {Path(args.apply_to).name}" if args.apply_to else "Trained a calibration"
    return (f"{what} with {describe_calibration(args.method, rule, plo)}, trained on "
            f"{Path(args.dev).name} ({dev.tar.size:,} target and {dev.non.size:,} non-target trials){formula}.\n"
            f"On the training trials Cllr went from {number(fitted.before.cllr, 4)} to {number(fitted.after.cllr, 4)} bits.\n"
            f"{_outcome(args, fitted.calibrator_json)}")


def _run_loaded(args) -> str:
    """``llrcore calibrate --load CAL_JSON --apply-to SCORES -o OUTPUT``: a saved calibration applied."""
    from ..multiclass.loader import load_calibrator

    calibration = load_calibrator(args.load)
    if calibration.KIND not in ONE_COLUMN:
        raise ValueError(f"{Path(args.load).name} holds a {calibration.KIND} calibration; llrcore calibrate applies "
                         f"one that calibrates one score column ({', '.join(ONE_COLUMN)}).")
    _apply(args, calibration)
    return (f"Calibrated {Path(args.apply_to).name} with the {calibration.KIND} calibration of "
            f"{Path(args.load).name}.\nWrote {args.output}.")


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

    if args.method != "affine":
        raise ValueError("--quality adds quality measures to the affine calibration: use --method affine.")
    quality = [c.strip() for c in args.quality.split(",") if c.strip()]
    calibration = fit_quality_affine(dev, quality, rule=rule, plo=plo)
    if args.apply_to:
        _apply(args, calibration)
    cllr = {n: m.cllr for n, m in calibration.compare(fit_affine(dev, rule=rule, plo=plo), dev).metrics.items()}
    before, affine, ours = cllr.values()
    what = f"Calibrated {Path(args.apply_to).name}" if args.apply_to else "Trained a calibration"
    return (f"{what} with the quality measures {', '.join(quality)}, trained on "
            f"{Path(args.dev).name} ({dev.tar.size:,} target and {dev.non.size:,} non-target trials): "
            f"{calibration.formula(6)}.\nOn the training trials Cllr went from {number(before, 4)} bits to {number(ours, 4)} "
            f"(affine without the quality measures: {number(affine, 4)}).\n{_outcome(args, calibration.to_json)}")
