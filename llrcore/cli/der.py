"""``llrcore der``: score any diarization system's RTTM output against reference RTTMs, with the scoring
conventions chosen explicitly and stated (:func:`llrcore.diarization.system_scoring.score_system`)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from .._choices import COLLAR_CONVENTIONS
from .._choices import DER_AVERAGES as AVERAGES
from .._choices import DER_CONVENTIONS as CONVENTIONS
from .._choices import DER_EXTENTS as EXTENTS
from ._options import add_output_formats

if TYPE_CHECKING:
    import pandas as pd

UNITS = ("DER, its parts, JER, purity and coverage in %; seconds of scored reference speech; speakers in the "
         "reference and found by the system")


def add_command(commands) -> None:
    parser = commands.add_parser(
        "der", help="score any system's RTTM against reference RTTMs (DER, JER, speaker counts, conventions stated)",
        description="Score the speaker turns of a diarization system (RTTM files, or folders of them) against "
                    f"reference RTTMs, one row per recording and an overall row. {UNITS}.",
    )
    parser.add_argument("system", nargs="+", metavar="SYSTEM_RTTM", help="the system's RTTM files or folders of them")
    parser.add_argument("--reference", nargs="+", required=True, metavar="REF",
                        help="reference RTTM files or folders of them")
    parser.add_argument("--uem", help="UEM file of the scored regions (overrides --extent)")
    parser.add_argument("--convention", choices=CONVENTIONS, default="md-eval",
                        help="whose DER and JER: md-eval's and dscore's (a speaker's own overlapping turns merged "
                             "first; default) or pyannote.metrics' (each turn counted)")
    parser.add_argument("--collar", type=float, default=0.25, help="collar in seconds, read by --collar-convention")
    parser.add_argument("--collar-convention", choices=COLLAR_CONVENTIONS, default="md-eval",
                        help="md-eval: --collar on each side of a reference boundary (md-eval -c, dscore); "
                             "pyannote: --collar is the total width (pyannote.metrics)")
    parser.add_argument("--score-overlap", action="store_true",
                        help="score overlapped reference speech too (default: skipped, md-eval -1)")
    parser.add_argument("--extent", choices=EXTENTS, default="both",
                        help="without a UEM: score from the first to the last turn of reference and system (both, "
                             "dscore) or of the reference only")
    parser.add_argument("--average", choices=AVERAGES, default="pooled",
                        help="over recordings: all errors over all speech (pooled) or the mean of the per-recording "
                             "rates")
    parser.add_argument("--ci", type=float, metavar="LEVEL",
                        help="add percentile intervals of DER and JER at this level (e.g. 0.95), drawing recordings")
    parser.add_argument("--bootstrap", type=int, default=1000, metavar="N", help="replicates of --ci and --against")
    parser.add_argument("--seed", type=int, default=0, help="seed of the draws")
    parser.add_argument("--against", nargs="+", metavar="OTHER_RTTM",
                        help="a second system's RTTMs: is it better than SYSTEM? (paired over the same recordings)")
    add_output_formats(parser, json_help="print the summary, conventions and table as JSON")
    parser.set_defaults(run=run)


def rttm_files(sources) -> list[Path]:
    """The RTTM files named, and those (``*.rttm``) in the folders named, in order."""
    files = []
    for source in map(Path, sources):
        if source.is_dir():
            found = sorted(source.glob("*.rttm"))
            if not found:
                raise ValueError(f"The folder {source} holds no .rttm file.")
            files.extend(found)
        else:
            files.append(source)
    return files


def read_turns(sources) -> pd.DataFrame:
    import pandas as pd

    from ..io.diarization import read_rttm

    return pd.concat([read_rttm(path) for path in rttm_files(sources)], ignore_index=True)


def run(args) -> str:
    from ..diarization.bootstrap import bootstrap_diarization, compare_diarizers
    from ..diarization.system_scoring import score_system
    from ..io.diarization import read_uem

    options = dict(uem=read_uem(args.uem) if args.uem else None, collar=args.collar,
                   collar_convention=args.collar_convention, skip_overlap=not args.score_overlap,
                   extent=args.extent, average=args.average, convention=args.convention)
    scores = score_system(read_turns(args.reference), read_turns(args.system), **options)
    table, by_speakers = scores.to_frame(), scores.by_speakers()
    extra = []
    if args.ci is not None:
        extra.append(bootstrap_diarization(scores, args.bootstrap, args.ci, args.seed).paragraph())
    if args.against:
        other = score_system(read_turns(args.reference), read_turns(args.against), **options)
        comparison = compare_diarizers(scores, other, args.bootstrap, args.ci or 0.95, args.seed,
                                       names=("SYSTEM", "AGAINST"))
        extra += [comparison.sentence(m) for m in ("der", "jer")]
    if args.json:
        return json.dumps({"summary": scores.summary().to_dict(), "conventions": scores.sentences,
                           "uncertainty": extra, "recordings": table.to_dict(orient="index"),
                           "by_speakers": by_speakers.to_dict(orient="index")}, indent=2)
    if args.csv:
        return table.to_csv()
    s = scores.summary()
    headline = (f"DER {s['DER %']:.2f} %, JER {s['JER %']:.2f} % ({args.average} over {int(s['recordings'])} "
                f"recordings); right speaker count on {s['right speaker count %']:.0f} % of the recordings "
                f"(speaker-count error {int(s['speaker-count error'])})")
    formats = {c: "{:.2f}".format for c in table.columns if table[c].dtype.kind == "f"}
    by_formats = {c: "{:.2f}".format for c in ("speech (s)", "DER %", "JER %")}
    return "\n".join([headline, *extra, *scores.sentences, f"Units: {UNITS}.", table.to_string(formatters=formats),
                      "", "By number of reference speakers (pooled over the recordings of each row):",
                      by_speakers.to_string(formatters=by_formats)])
