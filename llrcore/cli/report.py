"""``llrcore report``: a self-contained HTML report for non-specialists, and its figures on request."""
from __future__ import annotations

import sys
import warnings
from pathlib import Path

from ._options import (
    add_calibration_options,
    add_conditions_options,
    add_operating_point,
    load_systems,
    operating_point,
    probability,
    quote,
    scoring_rule,
)

EXIT_PARTLY_DONE = 1  # the report was written but its figures could not be exported


def add_command(commands) -> None:
    report_parser = commands.add_parser("report", help="write a self-contained HTML report for non-specialists")
    report_parser.add_argument("scores", nargs="+", help="evaluation score files")
    report_parser.add_argument("-o", "--output", required=True, help="the HTML file to write")
    report_parser.add_argument("--key", help="BOSARIS/Kaldi key file of the evaluation scores")
    report_parser.add_argument("--calibrate-on", help="development scores to train the calibration on (default: "
                               "5-fold cross-validation on the evaluation scores)")
    report_parser.add_argument("--dev-key", help="BOSARIS/Kaldi key file of the development scores")
    report_parser.add_argument("--no-calibration", action="store_true", help="leave out what calibration changes")
    report_parser.add_argument("--calibration-prior", type=probability,
                               help="P_target the affine calibration is weighted for (default: the operating point's)")
    report_parser.add_argument("--name", help="name of the system (one score file)")
    report_parser.add_argument("--title", help="title of the report")
    report_parser.add_argument("--target-name", default="target", help="word for target trials ('target')")
    report_parser.add_argument("--non-target-name", default="non-target",
                               help="word for non-target trials ('non-target')")
    report_parser.add_argument("--figures", help="also export every figure into this folder (needs Chromium)")
    report_parser.add_argument("--figure-format", choices=("png", "svg", "pdf"), default="png",
                               help="format of the exported figures (png)")
    add_conditions_options(report_parser,
                            by_help="a table per value of this metadata column (repeat to cross columns)")
    add_operating_point(report_parser)
    add_calibration_options(report_parser)
    report_parser.set_defaults(run=run)


def run(args):
    from ..io import read_trials
    from ..plots import export
    from ..report import build_report

    sources: dict[str, str] = {}  # each system's file name
    systems = load_systems(args.scores, args.key, sources, metadata=args.metadata)
    if args.name:
        if len(systems) != 1:
            raise ValueError(f"--name renames one system, but the files hold {len(systems)}.")
        systems = {args.name: next(iter(systems.values()))}
        sources = {args.name: next(iter(sources.values()))}
    calibrate_on = None
    if args.calibrate_on:
        loaded = read_trials(args.calibrate_on, key=args.dev_key)
        calibrate_on = loaded if not isinstance(loaded, dict) else _matching_development_sets(loaded, systems)
    report = build_report(
        systems, p_target=operating_point(args), calibrate_on=calibrate_on,
        calibrate=not args.no_calibration, method=args.method, rule=scoring_rule(args),
        calibration_prior=args.calibration_prior, sources=sources,
        class_names=(args.target_name, args.non_target_name), title=args.title,
        command="llrcore " + " ".join(quote(a) for a in args.argv), by=args.by, ci=args.ci,
        bootstrap=args.bootstrap, group_by=args.group_by, seed=args.seed,
    )
    report.write(args.output)
    for summary in report.summaries:
        for problem in summary.calibration.problems if summary.calibration else ():
            warnings.warn(f"{summary.name}: {problem}", stacklevel=1)
    lines = [report.summary_text(), "", f"Wrote {args.output}."]
    if args.figures:
        folder = Path(args.figures)
        folder.mkdir(parents=True, exist_ok=True)
        try:
            for key, item in report.figures.items():
                path = export.write_figure(item.figure, folder / f"{key}.{args.figure_format}")
                lines.append(f"Wrote {path}.")
        except export.ExportUnavailable as error:
            print("\n".join(lines))
            print(f"llrcore report: the report was written but the figures were not: {error}", file=sys.stderr)
            return EXIT_PARTLY_DONE
    return "\n".join(lines)


def _matching_development_sets(loaded: dict, systems: dict) -> dict:
    missing = [name for name in systems if name not in loaded]
    if missing:
        raise ValueError(f"The development file holds several systems ({', '.join(loaded)}) but none named "
                         f"{missing[0]!r}; give one development set, or one per system with the same names.")
    return {name: loaded[name] for name in systems}


