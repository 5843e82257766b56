"""The demo data a session starts with (real, public score files in assets/, each with its SOURCE.txt), read once per
server by cached loaders and shared read-only by every session: binary systems, multiclass score sets, similarity
matrices of recordings.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

import llrcore as lc
from app_pages import _state
from app_pages._registry import LoadedMatrix, LoadedScores, LoadedSystem

ASSETS = Path(__file__).resolve().parents[1] / "assets"


# ----- binary systems ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DemoSet:
    name: str
    role: str
    path: Path
    about: str
    system: str | None = None  # the system to take from a file of several
    at_start: bool = True  # loaded on a session's first visit (the others are added from the Data page)


DEMO_SETS = [
    DemoSet("ASVspoof19 LA ASV (dev)", "development",
            ASSETS / "asvspoof2019_la" / "ASVspoof2019.LA.asv.dev.gi.trl.scores.txt",
            "ASVspoof 2019 LA organisers' speaker-verification scores, development part; spoofing attacks are "
            "kept apart from the non-targets."),
    DemoSet("ASVspoof19 LA ASV (eval)", "evaluation",
            ASSETS / "asvspoof2019_la" / "ASVspoof2019.LA.asv.eval.gi.trl.scores.txt",
            "The same system on the ASVspoof 2019 LA evaluation part."),
    DemoSet("FVC-AUS DCA-PLDA", "evaluation",
            ASSETS / "fvcaus_plda" / "fvcaus_plda.npz",
            "DCA-PLDA log posterior ratios on forensic voice comparison trials (Australian English): "
            "excellent discrimination, strongly miscalibrated."),
    *(DemoSet(f"ASVspoof19 LA CM {system} ({part})", role,
              ASSETS / "asvspoof2019_la_cm" / f"ASVspoof2019.LA.cm.{part}.scores.tsv.gz",
              f"A spoofing countermeasure ({about}) on the ASVspoof 2019 LA {part} part: bona fide speech against "
              f"{attacks} kinds of attack; every trial carries its attack, to break the metrics down by.",
              system=system, at_start=False)
      for system, about in (("LFCC-GMM", "high-resolution LFCC-GMM baseline"), ("RawNet2-a", "a RawNet2 system"),
                            ("RawNet2-b", "a RawNet2 system"), ("RawNet2-c", "a RawNet2 system"))
      for part, role, attacks in (("dev", "development", 6), ("eval", "evaluation", 13))),
    *(DemoSet(f"NIST BSSR1 face matcher {letter}", "evaluation",
              ASSETS / "nist_bssr1" / "bssr1_face.tsv.gz",
              f"Commercial face recogniser \"{letter}\" (about 2002) from NIST's biometric score set BSSR1: 516 "
              "people's same-person comparisons against about 133,000 comparisons of different people. Matchers C "
              "and G scored the very same comparisons, so the two can be compared pair by pair. The scores are "
              "similarities, not likelihood ratios.",
              system=f"face-{letter}", at_start=False)
      for letter in ("C", "G")),
    DemoSet("NIST BSSR1 fingerprint (left and right)", "evaluation",
            ASSETS / "nist_bssr1" / "bssr1_fingerprint.tsv.gz",
            "NIST's fingerprint matcher on a left and a right finger of the same 517 people (BSSR1): "
            "every comparison carries its finger, to break the results down by, and its person, to resample "
            "whole people. Whole-number scores with many ties; similarities, not likelihood ratios.",
            at_start=False),
]


@_state.cached()
def load_demo(path: str, name: str, system: str | None = None) -> lc.Trials:
    """Read a demo set once per server and hour (shared by all sessions; read-only); sort and PAV it at once."""
    loaded = lc.read_trials(path, name=name)
    trials = dataclasses.replace(loaded[system], name=name) if system else loaded
    trials.sorted.pav  # noqa: B018 - warm the cache: the first Evaluate visit is then instant
    return trials


def demo_source(demo: DemoSet) -> str:
    where = f"demo: {demo.path.relative_to(ASSETS)}"
    return f"{where}, {demo.system}" if demo.system else where


def system_demo(demo: DemoSet) -> LoadedSystem:
    return LoadedSystem(load_demo(str(demo.path), demo.name, demo.system), demo_source(demo), demo.role,
                        origin={"demo": demo.name})


def demo_systems() -> dict[str, LoadedSystem]:
    """The binary systems of a session's first visit."""
    return {demo.name: system_demo(demo) for demo in DEMO_SETS if demo.at_start}


# ----- multiclass score sets ---------------------------------------------------------------------------------------


MULTICLASS_DIR = ASSETS / "multiclass"


@dataclass(frozen=True)
class MulticlassDemo:
    name: str
    folder: str
    score_type: str
    training_prior: str
    classes: tuple
    about: str


MULTICLASS_DEMOS = [
    MulticlassDemo(
        "IEMOCAP speech emotion (4 classes)", "iemocap_wav2vec_pt", "log-posterior", "empirical",
        ("anger", "happiness", "neutral", "sadness"),
        "wav2vec 2.0 emotion recogniser on IEMOCAP (5 folds, 5,473 utterances); log-posteriors made LLRs with the "
        "class frequencies as training prior.",
    ),
    MulticlassDemo(
        "CIFAR-10 images (10 classes)", "cifar10_resnet-20", "logit", "flat",
        ("airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck"),
        "ResNet-20 logits on the 10,000 CIFAR-10 test images (balanced training: logits are LLRs up to a constant).",
    ),
]
#: Large language models used as zero-shot classifiers: the Classifier calibration page offers them beside the demos
#: above (the Multiclass page, about recognisers' LLRs, does not load them).
LLM_DEMOS = [
    MulticlassDemo(
        "LLM: GPT-2 on SST-2 sentiment (2 classes)", "sst2_gpt2", "logit", "flat", ("negative", "positive"),
        "GPT-2 asked, with no training, whether each of 1,821 SST-2 test sentences is negative or positive: its "
        "probabilities of the two label words (Ferrer & Ramos, TMLR 2025).",
    ),
    MulticlassDemo(
        "LLM: GPT-2 on AG News topics (4 classes)", "agnews_gpt2", "logit", "flat",
        ("World", "Sports", "Business", "Sci/Tech"),
        "GPT-2 asked, with no training, the topic of each of 7,600 AG News test articles: its probabilities of the "
        "four label words (Ferrer & Ramos, TMLR 2025).",
    ),
]
CLASSIFIER_DEMOS = MULTICLASS_DEMOS + LLM_DEMOS


@_state.cached()
def load_multiclass_demo(index: int) -> lc.MulticlassScores:
    """A demo set, read once per server and hour through the public reader (shared read-only by all sessions)."""
    demo = MULTICLASS_DEMOS[index]
    folder = MULTICLASS_DIR / demo.folder
    return lc.read_multiclass(folder / "scores.npy", labels=folder / "targets.npy", score_type=demo.score_type,
                              training_prior=demo.training_prior, classes=demo.classes, name=demo.name)


def demo_score_sets() -> dict[str, LoadedScores]:
    """The multiclass score sets of a session's first visit."""
    return {demo.name: LoadedScores(load_multiclass_demo(i), f"demo: {demo.folder}", f"demo:{demo.folder}")
            for i, demo in enumerate(MULTICLASS_DEMOS)}


# ----- similarity matrices of recordings ---------------------------------------------------------------------------


#: label -> (folder in assets/, recording name, matrix, reference RTTM, a full system's RTTM on it or None)
MATRIX_DEMOS = {
    "AMI ES2005a (PLDA LLRs of 1,025 x-vector windows)":
        ("ami_ES2005a", "ES2005a", "ES2005a_similarity.npz", "ES2005a.rttm",
         "ES2005a.vbx_output_reproduced_here.rttm"),
    "pyannote sample (cosines of 74 d-vector windows)":
        ("pyannote_sample", "sample", "sample_similarity.npz", "sample.rttm", None),
}


@_state.cached()
def load_matrix_demo(folder: str, name: str, matrix_file: str, reference_file: str, system_file: str | None):
    """A demo matrix with its reference and, where there is one, a full system's output; read once per server and
    hour (shared, read-only)."""
    directory = ASSETS / folder
    matrix = lc.read_similarity(directory / matrix_file, reference=directory / reference_file, name=name)
    system = lc.read_rttm(directory / system_file) if system_file else None
    return matrix, system


def demo_matrices() -> dict[str, LoadedMatrix]:
    """The similarity matrices of a session's first visit."""
    sets = {}
    for label, files in MATRIX_DEMOS.items():
        matrix, system = load_matrix_demo(*files)
        sets[label] = LoadedMatrix(matrix, f"demo: {files[0]}", f"demo:{files[0]}", system)
    return sets
