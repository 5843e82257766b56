"""``llrcore demo``: where the packaged demo score files are, to try the other commands on, as the workbench does.

    llrcore evaluate "$(llrcore demo asv-eval)" --p-target 0.01
    llrcore tdcf "$(llrcore demo cm-eval)" --asv "$(llrcore demo asv-eval)" --by-attack

The files are the workbench's demo data (``assets/`` of the repository, each folder with its ``SOURCE.txt``: where it
comes from and its licence), shipped in the wheel beside the app.
"""
from __future__ import annotations

from .app import workbench_folder

#: name -> (file in assets/, what it holds)
DEMO_FILES = {
    "asv-dev": ("asvspoof2019_la/ASVspoof2019.LA.asv.dev.gi.trl.scores.txt",
                "ASVspoof 2019 LA organisers' speaker verification, development part (targets, non-targets, spoofs)"),
    "asv-eval": ("asvspoof2019_la/ASVspoof2019.LA.asv.eval.gi.trl.scores.txt",
                 "the same speaker verification, evaluation part"),
    "cm-dev": ("asvspoof2019_la_cm/ASVspoof2019.LA.cm.dev.scores.tsv.gz",
               "four spoofing countermeasures on ASVspoof 2019 LA, development part, with the attack of every trial"),
    "cm-eval": ("asvspoof2019_la_cm/ASVspoof2019.LA.cm.eval.scores.tsv.gz",
                "the same countermeasures, evaluation part"),
    "fvc": ("fvcaus_plda/fvcaus_plda.npz",
            "DCA-PLDA scores of forensic voice comparisons (Australian English): strongly miscalibrated"),
    "face": ("nist_bssr1/bssr1_face.tsv.gz", "NIST BSSR1: two commercial face matchers, similarity scores"),
    "fingerprint": ("nist_bssr1/bssr1_fingerprint.tsv.gz",
                    "NIST BSSR1: a fingerprint matcher, left and right finger, whole-number scores"),
}


def add_command(commands) -> None:
    parser = commands.add_parser(
        "demo", help="print the paths of the packaged demo score files, to try the other commands on",
        description="Print the path of a packaged demo score file (the workbench's demo data), or list them all: "
                    "`llrcore evaluate \"$(llrcore demo asv-eval)\"`.",
    )
    parser.add_argument("name", nargs="?", choices=tuple(DEMO_FILES),
                        help="the demo file whose path to print (default: list every demo file with its path)")
    parser.set_defaults(run=run)


def run(args) -> str:
    assets = workbench_folder() / "assets"
    if args.name:
        return str(assets / DEMO_FILES[args.name][0])
    width = max(map(len, DEMO_FILES))
    return "\n".join(f"{name:<{width}}  {assets / path}\n{'':<{width}}  {about}"
                     for name, (path, about) in DEMO_FILES.items())
