"""``llrcore evaluate``: the metrics table of score files, one row per system (or per condition), with intervals."""
from __future__ import annotations

import json
import warnings

from .._choices import NIST_PRIMARY_P_TARGETS, VERDICT_RULE
from ._options import add_conditions_options, add_operating_point, add_output_formats, load_systems, operating_point
from ._text import text_table

#: The units of the columns of ``llrcore evaluate``, said in its header and its --help.
UNITS = ("EER in %; Cllr and minCllr in bits; calibration loss in % of Cllr; minDCF, actDCF, Cprimary and "
         f"minCprimary normalised (1 = no better than deciding without the system); as LLRs: {VERDICT_RULE}.")
#: The decimals of a column of the text table, as the app's Evaluate page shows it; other numbers 4, counts whole.
TEXT_DECIMALS = {"EER %": 2, "calibration loss %": 1}


def add_command(commands) -> None:
    evaluate_parser = commands.add_parser(
        "evaluate", help="print EER, minDCF, actDCF, Cllr, minCllr and Cprimary for score files",
        description=f"Print a metrics table of score files, one row per system. {UNITS} --csv and --json give the "
                    "same columns in the same units, with every digit.",
    )
    evaluate_parser.add_argument("scores", nargs="+", help="score files (any format read_trials knows)")
    evaluate_parser.add_argument("--key", help="BOSARIS/Kaldi key file for 'model test score' files")
    add_operating_point(evaluate_parser)
    evaluate_parser.add_argument("--primary", default="SRE12", choices=tuple(NIST_PRIMARY_P_TARGETS),
                                 metavar="EVALUATION", help="the NIST evaluation whose primary cost Cprimary follows: "
                                 f"{', '.join(NIST_PRIMARY_P_TARGETS)} (SRE12)")
    add_conditions_options(evaluate_parser, by_help="break down by this metadata column (repeat to cross columns)")
    evaluate_parser.add_argument("--conventions", action="store_true",
                                 help="instead, the EER and minDCF as ASVspoof, SpeechBrain, Kaldi, scikit-learn, "
                                 "voxceleb_trainer and NIST's scorer compute them, beside ours, with why they differ")
    evaluate_parser.add_argument("--scheduler", metavar="ADDRESS",
                                 help="count the score files as parts of one set of trials on the Dask cluster whose "
                                 "scheduler is at ADDRESS (tcp://host:8786; 'local': a cluster of this machine's "
                                 "cores) and evaluate the merged counts, exactly the numbers of the trials read "
                                 "whole; --key then gives one key per file (a glob pattern); pip install "
                                 "'llrcore[dask]'")
    add_output_formats(evaluate_parser)
    evaluate_parser.set_defaults(run=run)



def run(args) -> str:
    import pandas as pd

    from ..binary.metrics import evaluate
    from ..binary.tables import metrics_table
    from ..uncertainty.conditions import evaluate_by_condition
    from ..uncertainty.resampling import bootstrap

    op = operating_point(args)
    if args.scheduler:
        return shown(_on_cluster(args, op), args, op)
    systems = load_systems(args.scores, args.key, metadata=args.metadata)
    if args.conventions:
        return _conventions(systems, op, args)
    resampling = dict(n=args.bootstrap, level=args.ci, group_by=args.group_by, seed=args.seed)
    if args.by:
        frames = []
        for name, trials in systems.items():
            result = evaluate_by_condition(trials, args.by, p_target=op, primary=args.primary)
            intervals = result.bootstrap(**resampling) if args.ci else None
            frames.append(result.to_frame(eer_percent=True, intervals=intervals).assign(system=name))
            for note in result.notes():
                warnings.warn(f"{name}: {note}", stacklevel=1)
        table = pd.concat(frames).set_index(["system", *args.by])
    else:
        results = [evaluate(trials.sorted, p_target=op, name=name, primary=args.primary)
                   for name, trials in systems.items()]
        intervals = ({name: bootstrap(trials, p_target=op, primary=args.primary, **resampling)
                      for name, trials in systems.items()} if args.ci else None)
        table = metrics_table(results, eer_percent=True, verdict=True, intervals=intervals)
    return shown(table, args, op)


def counts_table(counts, op, args):
    """The metrics table of one set of trials given as counts per unique score (a CountedScores)."""
    from ..binary.metrics import evaluate
    from ..binary.tables import metrics_table

    return metrics_table([evaluate(counts, p_target=op, name=counts.name, primary=args.primary)], eer_percent=True,
                         verdict=True)


def _on_cluster(args, op):
    """``--scheduler``: the files counted on the cluster, merged, evaluated as one set of trials."""
    from ..io.out_of_core import count_labels, score_files, tally_labels
    from ..scale.files import counts_reader

    read_counts = counts_reader(score_files, count_labels, tally_labels)  # lc.read_counts, as llrcore composes it
    refused = [option for option, given in (("--by", args.by), ("--ci", args.ci), ("--metadata", args.metadata),
                                            ("--conventions", args.conventions)) if given]
    if refused:
        raise ValueError(f"--scheduler evaluates counts per unique score, which keep no metadata and no trial to "
                         f"draw: leave out {', '.join(refused)}.")
    client = None if args.scheduler == "local" else args.scheduler
    return counts_table(read_counts(args.scores, args.key, engine="dask", client=client), op, args)


def shown(table, args, op) -> str:
    """The table as the options ask: JSON, CSV, or text under a header saying the operating point and the units."""
    from ..binary.tables import METHOD_COLUMN
    from ..prior import primary_p_targets

    if args.json:  # json.dumps writes floats exactly (pandas' to_json rounds to 10 digits)
        rows = {" / ".join(map(str, k)) if isinstance(k, tuple) else k: v for k, v in
                table.to_dict(orient="index").items()}
        return json.dumps(rows, indent=2, default=_json_value)
    if args.csv:
        return table.to_csv()
    ci = (f"Intervals: bootstrap ({' / '.join(dict.fromkeys(table[METHOD_COLUMN].dropna()))}), "
          f"{args.bootstrap:,} replicates, "
          f"{'whole ' + args.group_by + ' groups' if args.group_by else 'trials one by one'}, seed {args.seed}\n"
          if getattr(args, "ci", None) else "")
    primary = ", ".join(f"{p:g}" for p in primary_p_targets(args.primary))
    header = f"Operating point: {op.describe()}; Cprimary at P_target {primary} ({args.primary})\n{ci}Units: {UNITS}\n"
    decimals = {column: TEXT_DECIMALS.get(column.removesuffix(" lower").removesuffix(" upper"), 4)
                for column in table.columns}
    return header + text_table(table, decimals)


def _conventions(systems, op, args) -> str:
    """``--conventions``: per system, one row per tool (lc.eer_conventions), the reasons listed under the table."""
    import pandas as pd

    from ..binary.conventions import eer_conventions

    results = {name: eer_conventions(trials, p_target=op) for name, trials in systems.items()}
    table = pd.concat([r.to_frame(percent=True).assign(system=name) for name, r in results.items()])
    table = table.set_index(["system", "tool"])
    if args.json:  # no number is JSON's null, not NaN
        rows = table.astype(object).where(table.notna(), None).to_dict(orient="index")
        return json.dumps({f"{s} / {tool}": row for (s, tool), row in rows.items()},
                          indent=2, default=_json_value)
    if args.csv:
        return table.to_csv()
    blocks = []
    for name, result in results.items():
        frame = result.to_frame(percent=True).set_index("tool")
        reasons = "\n".join(f"- {tool}: {why}" for tool, why in frame.pop("why").items())
        notes = "\n".join(result.notes())
        blocks.append(f"{name}\n{text_table(frame)}\n{reasons}\n{notes}")
    return "EER in %; minDCF normalised except SpeechBrain's (which is not)\n\n" + "\n\n".join(blocks)


def _json_value(value):
    import numpy as np

    return bool(value) if isinstance(value, (bool, np.bool_)) else float(value)
