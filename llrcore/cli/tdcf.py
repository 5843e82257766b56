"""``llrcore tdcf``: a spoofing countermeasure in front of a speaker verifier (ASVspoof's tandem evaluation): min t-DCF,
CM EER, ASV EER, SPF-EER and the ASV's spoof false-alarm rate, pooled and, with ``--by-attack``, per attack."""
from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

from ._options import add_output_formats, add_tandem_files, probability, replicates

if TYPE_CHECKING:
    import pandas as pd

UNITS = ("CM EER, ASV EER, SPF-EER (ASV targets vs spoofs) and ASV spoof FA (spoofs the ASV accepts at its threshold) "
         "in %, all EERs from the ROC convex hull; min t-DCF normalised (1 = no better than a CM that decides without "
         "looking).")
FORMULATIONS = {"revised": "revised t-DCF (Kinnunen et al., TASLP 2020; ASVspoof 2021 on)",
                "legacy": "legacy t-DCF (ASVspoof 2019)"}
TEXT_FORMATS = {"min t-DCF": "{:.4f}", "min t-DCF lower": "{:.4f}", "min t-DCF upper": "{:.4f}",
                "ASV threshold": "{:.4f}", "CM threshold": "{:.4g}"}

#: --csv of the tandem commands (llrcore tdcf, llrcore sasv).
PER_ATTACK_CSV = "print the table as CSV (with --by-attack: the per-attack table of every system)"


def add_command(commands) -> None:
    parser = commands.add_parser(
        "tdcf", help="print the min t-DCF and the EERs of a spoofing countermeasure in front of an ASV",
        description="The tandem evaluation of ASVspoof: a countermeasure (CM) in front of a speaker verifier (ASV). "
                    f"{UNITS} The ASV threshold is its EER point (the organisers' convention) unless "
                    "--asv-threshold is given; per attack, all bona fide trials are kept, with one attack's spoofs.",
    )
    add_tandem_files(parser)
    parser.add_argument("--formulation", choices=tuple(FORMULATIONS), default="revised",
                        help="revised (ASVspoof 2021 on; default) or legacy (ASVspoof 2019)")
    parser.add_argument("--asv-threshold", type=float, metavar="T", help="the ASV's score threshold (default: its EER "
                        "point)")
    parser.add_argument("--by-attack", action="store_true", help="add the per-attack table (both files need an "
                        "'attack' column)")
    parser.add_argument("--ci", type=probability, metavar="LEVEL", help="bootstrap confidence interval of the min "
                        "t-DCF at this level, e.g. 0.95, pooled and with --by-attack per attack (each row's trials: "
                        "the CM's and the ASV's drawn apart, the ASV threshold kept at the pooled one)")
    parser.add_argument("--bootstrap", type=replicates, default=1000, metavar="N", help="bootstrap replicates (1000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the bootstrap draws (0)")
    add_output_formats(parser, json_help="print the results as JSON", csv_help=PER_ATTACK_CSV)
    parser.set_defaults(run=run)


def _systems(path: str, key=None) -> dict:
    from ..io import read_trials

    loaded = read_trials(path, key=key)
    systems = loaded if isinstance(loaded, dict) else {loaded.name or Path(path).stem: loaded}
    for name, trials in systems.items():
        if trials.spoof.size:
            raise ValueError(f"{Path(path).name} ({name}) has spoof trials, as an ASV score file has: give the CM's "
                             "scores first (bona fide and spoof trials) and the ASV's with --asv.")
    return systems


def _asv(path: str, key=None):
    from ..io import read_trials

    loaded = read_trials(path, key=key)
    if isinstance(loaded, dict):
        raise ValueError(f"{Path(path).name} holds {len(loaded)} systems ({', '.join(loaded)}); --asv takes the file "
                         "of one speaker verifier.")
    if loaded.spoof.size == 0:
        raise ValueError(f"{Path(path).name} has no spoof trials: --asv needs the ASV's scores of target, non-target "
                         "and spoof trials (labels target, nontarget, spoof).")
    return loaded


def run(args) -> str:
    import pandas as pd

    from ..binary.tables import METHOD_COLUMN
    from ..spoofing.tandem import NO_ATTACKS, evaluate_tandem, tandem_table
    from ..spoofing.tdcf import tdcf_cost_model
    from ..uncertainty.intervals import DEFAULT_METHOD, interval_words

    systems, asv = _systems(args.scores, args.key), _asv(args.asv, args.asv_key)
    by = "attack" if args.by_attack else None
    if by:
        lacking = [Path(p).name for p, columns in ((args.scores, next(iter(systems.values())).conditions),
                                                  (args.asv, asv.conditions)) if by not in columns]
        if lacking:
            raise ValueError(f"{' and '.join(lacking)} {'have' if len(lacking) > 1 else 'has'} no 'attack' column, "
                             "so there is no per-attack table: leave out --by-attack.")
    try:
        results = {name: evaluate_tandem(trials, asv, formulation=args.formulation, asv_threshold=args.asv_threshold,
                                         by=by, name=name) for name, trials in systems.items()}
    except ValueError as error:  # said with this command's option
        raise ValueError(str(error).replace(NO_ATTACKS, "without --by-attack: the pooled numbers only")) from None
    for name, result in results.items():
        for note in result.notes():
            warnings.warn(f"{name}: {note}", stacklevel=1)
    summary = tandem_table(results).set_index("system")
    ranges = {name: result.bootstrap(args.bootstrap, args.ci, args.seed) for name, result in results.items()
              if args.ci}
    if ranges:
        position = list(summary.columns).index("min t-DCF") + 1
        for offset, (column, values) in enumerate(zip(("min t-DCF lower", "min t-DCF upper"),
                                                      zip(*(ranges[name].interval() for name in results)))):
            summary.insert(position + offset, column, values)
        summary[METHOD_COLUMN] = [ranges[name].interval_words.removesuffix(" bootstrap interval") for name in results]
    frames = {name: ranges.get(name, result).to_frame() for name, result in results.items()}  # per attack
    attacks = (pd.concat([frame.assign(system=n) for n, frame in frames.items()]).set_index(["system", "attack"])
               if by else None)
    if args.json:  # json.dumps writes floats exactly
        first = next(iter(results.values()))
        document = {"formulation": args.formulation, "cost_model": dict(first.tdcf.cost_model),
                    "asv_threshold": first.asv_threshold, "units": UNITS,
                    "systems": {name: {**dict(summary.loc[name].items()),
                                       **({"attacks": frames[name].to_dict(orient="records")} if by else {})}
                                for name in results}}
        return json.dumps(document, indent=2, default=_json_value)
    if args.csv:
        return (summary if attacks is None else attacks).to_csv()
    first = next(iter(results.values()))
    model = ", ".join(f"{k} {v:g}" for k, v in first.tdcf.cost_model.items())
    default = " (the organisers')" if dict(first.tdcf.cost_model) == tdcf_cost_model(args.formulation) else ""
    threshold = "given" if args.asv_threshold is not None else "its EER point"
    header = (f"CM: {Path(args.scores).name}; ASV: {Path(args.asv).name} ({asv.tar.size:,} targets, {asv.non.size:,} "
              f"non-targets, {asv.spoof.size:,} spoofs), threshold {first.asv_threshold:.4f} ({threshold})\n"
              f"{FORMULATIONS[args.formulation]}; cost model{default}: {model}\nUnits: {UNITS}\n"
              + (f"Intervals: {interval_words(args.ci, DEFAULT_METHOD)}s of the min t-DCF"
                 f"{', pooled and per attack' * bool(by)}, "
                 f"{args.bootstrap:,} replicates, seed {args.seed}, the CM's and the ASV's trials drawn apart, the ASV "
                 "threshold kept\n" if args.ci else ""))
    text = header + _text(summary.drop(columns="formulation"))
    if attacks is not None:  # (by attack)
        text += "\n\nPer attack (every bona fide trial, one attack's spoofs; the ASV threshold stays the pooled one):\n"
        text += _text(attacks)
    return text


def _text(table: pd.DataFrame) -> str:
    formats = {c: TEXT_FORMATS.get(c, "{:.2f}").format for c in table.columns if table[c].dtype.kind == "f"}
    return table.to_string(formatters=formats)


def _json_value(value):
    return value.item() if hasattr(value, "item") else str(value)
