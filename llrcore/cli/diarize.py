"""``llrcore diarize``: cluster the similarity matrix of every recording of a corpus and score it against its RTTM,
one row per recording and a TOTAL row (DER with its parts, JER, purity, coverage; see
:func:`llrcore.diarization.corpus.score_corpus`), and write the RTTMs on request."""
from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

from .._choices import CLUSTERING_METHODS as METHODS
from .._choices import DER_CONVENTIONS as CONVENTIONS
from .._choices import DIARIZATION_PRIOR_ALIASES, DIARIZATION_PRIORS
from ._options import add_output_formats, positive

UNITS = ("DER, its parts, JER, purity and coverage in %; seconds of scored reference speech; speakers in the "
         "reference and found; TOTAL accumulates seconds and speakers over recordings (pyannote.metrics' report)")


def add_command(commands) -> None:
    parser = commands.add_parser(
        "diarize", help="cluster the similarity matrices of several recordings and score them against their RTTMs",
        description="Cluster every recording (a .npz similarity matrix with arrays start and end, beside the .rttm "
                    f"of the same name) and print one row per recording and a TOTAL row. {UNITS}.",
    )
    parser.add_argument("sources", nargs="+", metavar="FOLDER_OR_FILES",
                        help="folders of <recording>.npz + <recording>.rttm, or .npz files (their .rttm beside them, "
                             "or given too)")
    parser.add_argument("--method", choices=METHODS, default="bayes", help="clustering method (bayes)")
    parser.add_argument("--n-clusters", type=int, metavar="K", help="exact number of speakers of every recording")
    prior = parser.add_mutually_exclusive_group()
    prior.add_argument("--prior", metavar="NAME_OR_JSON",
                       help="bayes: a prior file written by --learn (prior.json), or the within- and between-speaker "
                            f"score Gaussians learnt from the development corpus ({', '.join(DIARIZATION_PRIORS)}), "
                            "for scores of that kind, or 'recording': from each recording's own scores (default: by "
                            "the kind of scores, cosines or LLRs, held loosely)")
    prior.add_argument("--prior-from", nargs="+", metavar="FOLDER_OR_FILES",
                       help="bayes: learn them from these labelled recordings (.npz + .rttm) of the same kind of scores")
    prior.add_argument("--learn", action="store_true",
                       help="learn a prior from the labelled recordings given (.npz + .rttm of one embedder), print "
                            "its leave-one-out report and write it to -o prior.json (nothing is clustered otherwise)")
    parser.add_argument("-o", "--output", metavar="PRIOR_JSON", help="--learn: the prior file to write")
    parser.add_argument("--embedder", help="--learn: the embedder the scores were made with (kept in the file)")
    parser.add_argument("--windows", help="--learn: the windows, e.g. '1.5 s every 0.75 s' (kept in the file)")
    prior.add_argument("--prior-from-others", action="store_true",
                       help="bayes: cluster each recording with them learnt from all the other recordings given "
                            "(leave one out: how a learnt model does on recordings it has not seen)")
    parser.add_argument("--no-floor", action="store_true",
                        help="bayes on cosines: the block model's count of speakers alone, without NME-SC's count as "
                             "the fewest (the default keeps it: alone the model merges the closest voices)")
    parser.add_argument("--collar", type=_collar, default=0.25,
                        help="seconds not scored on each side of a reference boundary (0.25, md-eval convention)")
    parser.add_argument("--keep-overlap", action="store_true", help="score overlapped speech too")
    parser.add_argument("--convention", choices=CONVENTIONS, default="md-eval",
                        help="whose DER and JER: md-eval's and dscore's (default) or pyannote.metrics'")
    parser.add_argument("--uem", help="UEM file of the scored regions (default: from the first to the last turn)")
    parser.add_argument("--rttm-out", metavar="DIR", help="write <recording>.rttm of each hypothesis to this folder")
    add_output_formats(parser)
    parser.set_defaults(run=run)


def _collar(text: str) -> float:
    return 0.0 if float(text) == 0 else positive(text)


def _prior(name: str):
    """A preset's name (or its former name), 'recording', or the path of a prior file."""
    from ..diarization.block_prior import BlockModelPrior

    if name in DIARIZATION_PRIOR_ALIASES:
        warnings.warn(f"--prior {name} is now --prior {DIARIZATION_PRIOR_ALIASES[name]}; the old name works in this "
                      "release only.", FutureWarning, stacklevel=2)
        return DIARIZATION_PRIOR_ALIASES[name]
    if name == "recording" or name in DIARIZATION_PRIORS:
        return name
    path = Path(name)
    if not path.is_file():
        raise ValueError(f"--prior {name}: not a prior file, nor one of recording, {', '.join(DIARIZATION_PRIORS)}.")
    try:
        return BlockModelPrior.from_json(path.read_text(encoding="utf-8"))
    except ValueError as err:
        raise ValueError(f"{path}: {err}") from None


def learn(args, matrices) -> str:
    """``--learn``: fit the prior, write it, and return its leave-one-out report."""
    from ..diarization.learn import fit_diarization_prior

    if not args.output:
        raise ValueError("--learn writes the prior to a file: give -o prior.json.")
    prior = fit_diarization_prior(matrices, embedder=args.embedder, windows=args.windows,
                                  data=" ".join(args.sources))
    Path(args.output).write_text(prior.to_json(), encoding="utf-8")
    report = prior.report
    lines = [f"Prior learnt on {len(matrices)} recordings, written to {args.output}."]
    if report is not None:
        lines += [report.sentence(), report.to_frame().to_string(formatters={"DER %": "{:.2f}".format})]
    return "\n".join(lines)


def run(args) -> str:
    from ..diarization.block_prior import BlockModelPrior
    from ..diarization.corpus import cluster_recordings, score_corpus
    from ..io.diarization import read_uem, write_rttm
    from ..io.diarization_corpus import read_corpus

    if args.learn:
        return learn(args, read_corpus(args.sources))
    if args.output or args.embedder or args.windows:
        raise ValueError("-o, --embedder and --windows go with --learn.")
    if args.n_clusters is not None and args.n_clusters < 1:
        raise ValueError(f"--n-clusters must be at least 1, not {args.n_clusters}.")
    matrices = read_corpus(args.sources)
    uems = read_uem(args.uem) if args.uem else None

    def progress(done, total, uri):  # on a terminal only: a log or a pipe gets the table alone
        if sys.stderr.isatty():
            print(f"llrcore diarize: {done}/{total} recordings clustered ({uri})", file=sys.stderr, flush=True)

    if (args.prior or args.prior_from or args.prior_from_others or args.no_floor) and args.method != "bayes":
        raise ValueError(f"--prior, --prior-from, --prior-from-others and --no-floor are for --method bayes, "
                         f"not {args.method}.")
    options = {} if args.n_clusters is None else {"n_clusters": args.n_clusters}
    if args.prior or args.prior_from:
        options["prior"] = _prior(args.prior) if args.prior else \
            BlockModelPrior.from_recordings(read_corpus(args.prior_from))
    options["prior_from_others"] = args.prior_from_others
    if args.no_floor:
        options["eigengap_floor"] = False
    unsure: list[str] = []

    def note(uri, result):  # the default call's count unsure: learning a prior may help
        if result.options.get("count_sure") is False and "prior" not in options:
            unsure.append(uri)

    hypotheses = cluster_recordings(matrices, args.method, progress=progress, on_result=note, **options)
    table = score_corpus(matrices, hypotheses, uems=uems, collar=args.collar,
                         skip_overlap=not args.keep_overlap, convention=args.convention).to_frame()
    if args.rttm_out:
        folder = Path(args.rttm_out)
        folder.mkdir(parents=True, exist_ok=True)
        for uri, turns in hypotheses.groupby("uri", sort=False):
            write_rttm(folder / f"{uri}.rttm", turns)
    if args.json:
        return json.dumps(table.to_dict(orient="index"), indent=2)
    if args.csv:
        return table.to_csv()
    overlap = "overlapped speech scored" if args.keep_overlap else "overlapped speech not scored"
    learnt = ""
    if args.prior_from_others:
        learnt = " (prior: learnt from the other recordings, leave one out)"
    elif "prior" in options:
        learnt = f" (prior: {args.prior or 'learnt from ' + ' '.join(args.prior_from)})"
    elif args.method == "bayes" and args.n_clusters is None:
        learnt = " (prior: by the kind of scores)"
    if unsure:
        learnt += (f"; the number of speakers is unsure on {', '.join(unsure)}: learn a prior from a few labelled "
                   "recordings of your embedder with --learn")
    whose = ("DER as md-eval, JER as dscore" if args.convention == "md-eval" else "DER and JER as pyannote.metrics")
    header = (f"Method: {args.method}{learnt}; {whose}; collar {args.collar:g} s on each side of a reference boundary, "
              f"{overlap}\n"
              f"Units: {UNITS}.\n")
    formats = {c: "{:.2f}".format for c in table.columns if table[c].dtype.kind == "f"}
    return header + table.to_string(formatters=formats)
