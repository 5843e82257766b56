"""``llrcore sasv``: ASVspoof 5's SASV metrics of a countermeasure in front of a speaker verifier, beside the t-DCF:
the concurrent t-EER of the tandem and the min a-DCF of the ASV alone, pooled and, with ``--by-attack``, per attack;
from one ASVspoof 5 track 2 SASV file (``--key``, no ``--asv``) also the tandem's own min a-DCF of its SASV scores."""
from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from ._options import add_output_formats, add_tandem_files
from .tdcf import PER_ATTACK_CSV, _asv, _json_value, _systems

if TYPE_CHECKING:
    import pandas as pd

    from ..data.trials import Trials

UNITS = ("t-EER: concurrent tandem EER of the CM and the ASV (Kinnunen et al., IEEE TPAMI 2023) in %; min a-DCF "
         "(ASV): the ASV's own scores taken as SASV scores (no CM), normalised (1 = no better than accepting or "
         "rejecting everything; Shim et al., Odyssey 2024); min t-DCF: revised, the ASV at its EER threshold.")
SASV_UNITS = (" min a-DCF: of the SASV scores (ASVspoof 5's primary metric). CM: the cm-score of the target and "
              "non-target trials (bona fide) and of the spoofs; ASV: the asv-score, as the organisers' "
              "calculate_aDCF_tdcf_tEER; their min t-DCF takes their own ASV's error rates instead of yours.")
#: The a-DCF cost models (the keys of :data:`~llrcore.spoofing.adcf.A_DCF_PRESETS`) and the t-EER conventions
#: (:data:`~llrcore.TEER_CONVENTIONS`), each with its words: the choices of --cost-model and --teer-convention, known
#: without importing the analyses (tests/project/test_startup.py holds them equal to the library's).
PRESETS = {"asvspoof5": "ASVspoof 5's", "a-dcf-paper": "the a-DCF paper's (a-DCF1)"}
TEER_WORDS = {"llrcore": "llrcore's operating points (tied scores never split; --teer-convention asvspoof5 for "
                         "ASVspoof 5's compute_teer)",
              "asvspoof5": "ASVspoof 5's compute_teer (one operating point per trial, tie blocks split)",
              "asvspoof5-accelerated": "ASVspoof 5's compute_teer_accelerated (the evaluation package's figure)"}


def add_command(commands) -> None:
    parser = commands.add_parser(
        "sasv", help="print the t-EER and the a-DCF (ASVspoof 5's SASV metrics) beside the min t-DCF",
        description="ASVspoof 5's spoofing-aware speaker verification metrics for a countermeasure (CM) in front of "
                    f"a speaker verifier (ASV). {UNITS} Per attack, all bona fide trials are kept, with one attack's "
                    "spoofs.",
    )
    add_tandem_files(parser, sasv_file=True)
    parser.add_argument("--cost-model", choices=tuple(PRESETS), default="asvspoof5",
                        help="the a-DCF's priors and costs: asvspoof5 (default) or a-dcf-paper")
    parser.add_argument("--teer-convention", choices=tuple(TEER_WORDS), default="llrcore",
                        help="the t-EER's operating points: llrcore (default: those a threshold reaches, tied scores "
                        "never split), asvspoof5 (ASVspoof 5's compute_teer: one per trial, tie blocks split) or "
                        "asvspoof5-accelerated (its compute_teer_accelerated, the evaluation package's figure); they "
                        "differ only on tied scores")
    parser.add_argument("--by-attack", action="store_true", help="add the per-attack table (both files need an "
                        "'attack' column)")
    add_output_formats(parser, json_help="print the results as JSON", csv_help=PER_ATTACK_CSV)
    parser.set_defaults(run=run)


def _frames(results: dict, args, sasv=None) -> dict[str, pd.DataFrame]:
    """Each CM's rows (attacks, then pooled) with min t-DCF, t-EER %, min a-DCF (ASV) and, from an SASV file, min
    a-DCF; the ASV's side of the tables (its t-EER points and min a-DCF per attack) made once for all the CMs."""
    from ..spoofing.sasv import sasv_table, tandem_asv

    side = tandem_asv(next(iter(results.values())), cost_model=args.cost_model, teer_convention=args.teer_convention)
    frames = {}
    for name, evaluation in results.items():
        table = sasv_table(evaluation, sasv=sasv, cost_model=args.cost_model, teer_convention=args.teer_convention,
                           asv=side)
        frames[name] = evaluation.to_frame()[["attack", "min t-DCF"]].merge(table, on="attack", sort=False)
    return frames


def _tandems(args) -> tuple[dict[str, Trials], Trials, Trials | None]:
    """``({name: CM trials}, ASV trials, SASV trials or None)``: two files, or one ASVspoof 5 SASV file split."""
    from ..io import read_trials
    from ..spoofing.sasv import sasv_parts

    if args.asv is not None:
        return _systems(args.scores, args.key), _asv(args.asv, args.asv_key), None
    if args.asv_key is not None:
        raise ValueError("--asv-key is the key of the ASV's score file: give that file with --asv too (an ASVspoof 5 "
                         "SASV file holding both scores takes its key with --key).")
    sasv = read_trials(args.scores, key=args.key)
    if isinstance(sasv, dict):
        raise ValueError(f"{Path(args.scores).name} holds {len(sasv)} systems ({', '.join(sasv)}); without --asv it "
                         "must be one ASVspoof 5 SASV file (spk filename cm-score asv-score sasv-score).")
    try:
        cm, asv = sasv_parts(sasv)
    except ValueError as error:
        raise ValueError(f"{error} Without --asv, {Path(args.scores).name} must be an ASVspoof 5 SASV file.") from None
    return {sasv.name or Path(args.scores).stem: cm}, asv, sasv


def run(args) -> str:
    import pandas as pd

    from ..spoofing.adcf import a_dcf_cost_model
    from ..spoofing.tandem import NO_ATTACKS, evaluate_tandem

    systems, asv, sasv = _tandems(args)
    by = "attack" if args.by_attack else None
    try:
        results = {name: evaluate_tandem(trials, asv, by=by, name=name) for name, trials in systems.items()}
    except ValueError as error:  # said with this command's option
        raise ValueError(str(error).replace(NO_ATTACKS, "without --by-attack: the pooled numbers only")) from None
    frames = _frames(results, args, sasv)
    summary = pd.DataFrame.from_records([{"system": name, **frame.iloc[-1].drop("attack").to_dict()}
                                         for name, frame in frames.items()]).set_index("system")
    attacks = (pd.concat([frame.assign(system=n) for n, frame in frames.items()]).set_index(["system", "attack"])
               if by else None)
    units = UNITS + (SASV_UNITS if sasv is not None else "")
    if args.json:
        document = {"a_dcf_cost_model": a_dcf_cost_model(args.cost_model), "teer_convention": args.teer_convention,
                    "units": units,
                    "systems": {name: {**dict(summary.loc[name].items()),
                                       **({"attacks": frames[name].to_dict(orient="records")} if by else {})}
                                for name in results}}
        return json.dumps(document, indent=2, default=_json_value)
    if args.csv:
        return (summary if attacks is None else attacks).to_csv()
    model = ", ".join(f"{k} {v:g}" for k, v in a_dcf_cost_model(args.cost_model).items())
    files = (f"CM: {Path(args.scores).name}; ASV: {Path(args.asv).name}" if sasv is None else
             f"SASV: {Path(args.scores).name} (its cm-score and asv-score)")
    text = (f"{files} ({asv.tar.size:,} targets, {asv.non.size:,} non-targets, {asv.spoof.size:,} spoofs)\n"
            f"a-DCF cost model ({PRESETS[args.cost_model]}): {model}\nt-EER: {TEER_WORDS[args.teer_convention]}\n"
            f"Units: {units}\n" + _text(summary))
    if attacks is not None:  # (by attack)
        text += "\n\nPer attack (every bona fide trial, one attack's spoofs):\n" + _text(attacks)
    return text


def _text(table: pd.DataFrame) -> str:
    """The costs with 4 decimals, the t-EER (%) with 2."""
    return table.to_string(formatters={column: ("{:.4f}" if "DCF" in column else "{:.2f}").format
                                       for column in table.columns})
