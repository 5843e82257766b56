"""Build a diarization development corpus from synthetic speech: espeak-ng conversations, Resemblyzer cosines.

Each recording is a K-speaker conversation (K = 1..10) synthesised with espeak-ng: every speaker is an espeak-ng
voice (a language voice, a voice variant, pitch and speed varied together) reading English prose taken offline
(the standard library's ``pydoc_data.topics`` text and ``/usr/share/common-licenses``, code-like lines dropped).
The K voices are the K most distinct ones to the embedder of a pool of POOL random candidates: each candidate reads
one clean reference utterance (~6 s), embedded whole with the VoiceEncoder, and greedy farthest-point selection on
the cosine picks K (from a random first one, the candidate whose largest cosine to the chosen is smallest). Turns
last 1-8 s, speaking time is unbalanced (some recordings have one dominant speaker) and short back-channels
("mm hmm", "right", ...) come from the listeners; every speaker speaks at least MIN_SPEECH s (turns, back-channels
not counted): a speaker below it after the planned turns gets extra turns, each put at a random turn boundary not
next to one of its own, until it has. The mix goes through a short synthetic room
impulse and gets a little noise. Windows of 1.5 s every 0.75 s inside the speech regions (oracle speech activity:
the union of the turns, pauses under 0.5 s bridged; a shorter last window to the region end if >= 0.5 s) are
embedded with Resemblyzer's pretrained VoiceEncoder (as ``VoiceEncoder.embed_utterance`` does, batched), L2
normalised, and scored with the cosine ``E @ E.T``.

Written per recording (formats ``lc.read_similarity`` / ``lc.read_rttm`` read):

- ``<rec>.npz``: ``scores`` (N x N float32 cosines, symmetric, diagonal 1), ``start``/``end`` (float64, s),
  ``duration`` (scalar, s); ``numpy.savez_compressed``, no object arrays;
- ``<rec>.rttm``: the reference, from the generated turn list;

and for the corpus ``corpus.csv`` (recording, K, duration, windows, speaking-time shares) and ``SOURCE.txt``.
The audio is not kept.

Needs (for the tool only, not the project): ``apt-get install -y espeak-ng``, ``pip install torch==2.13.0``
(CPU wheel), ``pip install resemblyzer soundfile``. Usage::

    python tools/make_diarization_corpus.py --out tests/data/diarization_corpus --recordings 24 --seed 20261125

The held-out corpus (tests/data/diarization_heldout: no choice is made on it) takes other voices, ``--voices
heldout`` (:data:`PALETTES`: no language voice or variant of the development corpus's, wider pitch and speed
ranges), and another seed::

    python tools/make_diarization_corpus.py --out tests/data/diarization_heldout --recordings 16 --seed 20261127 \\
        --voices heldout --prefix held
"""
from __future__ import annotations

import argparse
import csv
import importlib.metadata
import re
import shlex
import subprocess
import sys
import tempfile
import textwrap
import time
import types
import warnings
from pathlib import Path

import numpy as np

SAMPLE_RATE = 16000  # Resemblyzer's rate
ESPEAK_RATE = 22050
WINDOW = 1.5  # s
SHIFT = 0.75  # s
MIN_WINDOW = 0.5  # s
BRIDGE = 0.5  # s: pauses shorter than this do not split a speech region
MIN_SPEECH = 10.0  # s: every speaker's synthesised turns (back-channels not counted) last at least this long
POOL = 96  # candidate voices per recording, of which the K most distinct to the embedder are used
REFERENCE_WORDS = 22  # words of a candidate's reference utterance (about 6 s at -s 165)
_EPS = 1e-9

LANGUAGES = ["en-us", "en-gb", "en-gb-scotland", "en-029", "fr-fr", "de", "nl", "it", "es", "pt", "pl", "sv",
             "da", "fi", "cs", "ro", "hu", "el"]
VARIANTS = ["m1", "m2", "m3", "m4", "m5", "m6", "m7", "f1", "f2", "f3", "f4", "f5", "klatt", "klatt2", "klatt3",
            "adam", "Alex", "Andy", "benjamin", "caleb", "david", "ed", "john", "max", "paul", "quincy", "rob",
            "victor", "Alicia", "Annie", "belinda", "linda", "steph", "shelby", "anika", "grandma", "grandpa"]
# The held-out corpus's voices share no language voice and no variant with the development corpus's (above), and
# its pitch and speed ranges are wider: no voice a choice was tuned on is heard in it.
HELDOUT_LANGUAGES = ["en-gb-x-rp", "en-us-nyc", "en-gb-x-gbclan", "en-gb-x-gbcwmd", "es-419", "pt-br", "fr-be", "ru",
                     "tr", "id", "vi", "sk", "hr", "bg", "ca", "af", "nb", "lv"]
HELDOUT_VARIANTS = ["m8", "aunty", "boris", "denis", "edward", "edward2", "gene", "gene2", "Hugo", "iven", "iven2",
                    "iven3", "iven4", "Jacky", "Lee", "Marco", "Michael", "michel", "norbert", "pablo", "travis", "zac",
                    "robert", "pedro", "miguel", "marcelo", "sandro", "gustave", "antonio", "Andrea", "Mario", "Mike",
                    "kaukovalta", "steph2", "steph3", "Storm", "Nguyen"]
PALETTES = {  # --voices: language voices, variants, pitch range, speed range (inclusive integers)
    "dev": {"languages": LANGUAGES, "variants": VARIANTS, "pitch": (20, 80), "speed": (135, 195)},
    "heldout": {"languages": HELDOUT_LANGUAGES, "variants": HELDOUT_VARIANTS, "pitch": (10, 90), "speed": (125, 205)},
}
BACKCHANNELS = ["mm hmm", "right", "yeah", "okay", "uh huh", "I see", "sure", "exactly", "really", "yes"]


# ----- text --------------------------------------------------------------------------------------------------------


def prose_words() -> list[str]:
    """Plain English words from offline prose: pydoc topics and the common licences, code-like lines dropped."""
    import pydoc_data.topics

    texts = [pydoc_data.topics.topics[k] for k in sorted(pydoc_data.topics.topics)]
    licences = Path("/usr/share/common-licenses")
    if licences.is_dir():
        texts += [p.read_text(encoding="utf-8", errors="ignore") for p in sorted(licences.iterdir()) if p.is_file()]
    words = []
    for text in texts:
        for line in text.splitlines():
            stripped = line.strip()
            if (not stripped or line.startswith((" ", "\t")) or re.search(r"[=(){}\[\]<>*_#|\\@$~`^]|::|>>>", stripped)
                    or sum(c.isalpha() for c in stripped) < 0.8 * len(stripped.replace(" ", ""))):
                continue
            words += [w for w in stripped.split() if re.fullmatch(r"[A-Za-z][A-Za-z'-]*[.,;:?!]?", w)]
    return words


class Prose:
    def __init__(self, words: list[str], rng: np.random.Generator):
        self.words, self.position = words, int(rng.integers(len(words)))

    def take(self, n: int) -> str:
        out = [self.words[(self.position + i) % len(self.words)] for i in range(n)]
        self.position = (self.position + n) % len(self.words)
        return " ".join(out)


# ----- audio -------------------------------------------------------------------------------------------------------


def synthesise(text: str, voice: dict, workdir: Path) -> np.ndarray:
    """espeak-ng speech at 16 kHz, leading and trailing silence trimmed."""
    from scipy.signal import resample_poly
    import soundfile as sf

    path = workdir / "turn.wav"
    subprocess.run(["espeak-ng", "-v", f"{voice['language']}+{voice['variant']}", "-p", str(voice["pitch"]),
                    "-s", str(voice["speed"]), "-w", str(path), text], check=True, capture_output=True)
    wav, rate = sf.read(str(path), dtype="float64")
    if wav.ndim > 1:
        wav = wav.mean(axis=1)
    if rate != ESPEAK_RATE:
        raise SystemExit(f"espeak-ng wrote {rate} Hz, expected {ESPEAK_RATE}")
    wav = resample_poly(wav, 160, 441)
    loud = np.flatnonzero(np.abs(wav) > 0.01 * max(np.abs(wav).max(), 1e-9))
    return wav[loud[0]:loud[-1] + 1] if loud.size else wav


def room_impulse(rng: np.random.Generator) -> tuple[np.ndarray, float]:
    """A short synthetic room impulse: direct path plus exponentially decaying noise (RT60 0.15-0.45 s)."""
    rt60 = float(rng.uniform(0.15, 0.45))
    n = int(0.3 * SAMPLE_RATE)
    t = np.arange(n) / SAMPLE_RATE
    tail = rng.normal(size=n) * np.exp(-6.9 * t / rt60) * 0.25
    tail[: int(0.002 * SAMPLE_RATE)] = 0.0
    tail[0] = 1.0
    return tail / np.linalg.norm(tail), rt60


# ----- conversation ------------------------------------------------------------------------------------------------


def speaker_shares(k: int, dominant: bool, rng: np.random.Generator) -> tuple[np.ndarray, int | None]:
    """Turn-taking weights and the dominant speaker (None if there is none)."""
    if k == 1:
        return np.ones(1), None
    w = rng.dirichlet(np.full(k, 1.5)) + 0.04
    leader = int(rng.integers(k)) if dominant else None
    if leader is not None:
        w[leader] += 1.2 * w.sum()
    return w / w.sum(), leader


def candidate_voices(n: int, rng: np.random.Generator, palette: dict | None = None) -> list[dict]:
    """`n` random voices of `palette` (PALETTES; the development one by default): a language voice, a variant,
    pitch and speed (uniform integers in the palette's ranges, e.g. 20-80 and 135-195)."""
    palette = PALETTES["dev"] if palette is None else palette
    (p0, p1), (s0, s1) = palette["pitch"], palette["speed"]
    return [{"language": str(rng.choice(palette["languages"])), "variant": str(rng.choice(palette["variants"])),
             "pitch": int(rng.integers(p0, p1 + 1)), "speed": int(rng.integers(s0, s1 + 1))} for _ in range(n)]


def farthest_point(cosines: np.ndarray, k: int, first: int) -> list[int]:
    """Greedy farthest-point selection: from `first`, repeatedly the candidate whose largest cosine to the chosen
    ones is smallest."""
    chosen = [first]
    while len(chosen) < k:
        closest = cosines[:, chosen].max(axis=1)
        closest[chosen] = np.inf
        chosen.append(int(np.argmin(closest)))
    return chosen


def choose_voices(k: int, rng: np.random.Generator, prose: Prose, encoder, workdir: Path, pool: int = POOL,
                  palette: dict | None = None):
    """The K most distinct voices to the embedder of `pool` random candidates and the largest reference cosine
    between two of them (nan for K = 1). Each candidate reads the same clean reference text (no room, no noise),
    embedded whole (``VoiceEncoder.embed_utterance``, L2-normalised)."""
    from resemblyzer import audio, hparams

    candidates = candidate_voices(pool, rng, palette)
    text = prose.take(REFERENCE_WORDS)
    E = []
    for voice in candidates:
        wav = synthesise(text, voice, workdir)
        wav = audio.normalize_volume(wav / (np.abs(wav).max() + 1e-9), hparams.audio_norm_target_dBFS,
                                     increase_only=True)
        E.append(encoder.embed_utterance(wav.astype(np.float32)))
    E = np.array(E, dtype=np.float64)
    E /= np.linalg.norm(E, axis=1, keepdims=True)
    cosines = E @ E.T
    chosen = farthest_point(cosines, k, int(rng.integers(pool)))
    sub = cosines[np.ix_(chosen, chosen)]
    largest = float(sub[np.triu_indices(k, 1)].max()) if k > 1 else float("nan")
    return [candidates[c] for c in chosen], largest


def next_speaker(shares: np.ndarray, current: int | None, rng: np.random.Generator) -> int:
    """The next speaker, drawn by turn-taking weight, never the current one (unless alone)."""
    p = shares.copy()
    if current is not None and shares.size > 1:
        p[current] = 0.0
    return int(rng.choice(shares.size, p=p / p.sum()))


def plan_turns(k: int, shares: np.ndarray, leader: int | None, target: float, rng: np.random.Generator):
    """(speaker, target seconds, is back-channel) of each turn until about `target` seconds of speech."""
    while True:
        turns, total, current = [], 0.0, None
        while total < target:
            if current is not None and k > 1 and rng.random() < 0.18:  # a listener's back-channel
                listener = int(rng.choice([s for s in range(k) if s != current]))
                turns.append((listener, 0.0, True))
            current = next_speaker(shares, current, rng)
            seconds = turn_seconds(current, leader, rng)  # a dominant speaker holds the floor longer
            turns.append((current, seconds, False))
            total += seconds
        if len({s for s, _, b in turns if not b}) == k:
            return turns


def turn_seconds(speaker: int, leader: int | None, rng: np.random.Generator) -> float:
    """A turn's planned length: 1-8 s, or 4-8 s for a dominant speaker and 1-4 s for the others."""
    if leader is None:
        return float(rng.uniform(1.0, 8.0))
    return float(rng.uniform(4.0, 8.0) if speaker == leader else rng.uniform(1.0, 4.0))


def speak(speaker: int, seconds: float, backchannel: bool, voice: dict, rng, prose: Prose, workdir: Path):
    """One turn's audio (peak 1): a back-channel, or prose planned for `seconds`, cut at 8 s, read on to >= 1 s."""
    if backchannel:
        text = str(rng.choice(BACKCHANNELS))
    else:
        text = prose.take(max(2, int(round(seconds * voice["speed"] / 60.0))))
    wav = synthesise(text, voice, workdir)
    if not backchannel:
        wav = wav[: int(8.0 * SAMPLE_RATE)]
        if wav.size < SAMPLE_RATE:  # at least 1 s: read on
            wav = np.concatenate([wav, synthesise(prose.take(4), voice, workdir)])[: int(8.0 * SAMPLE_RATE)]
        fade = int(0.02 * SAMPLE_RATE)
        wav[-fade:] *= np.linspace(1.0, 0.0, fade)
    return wav / (np.abs(wav).max() + 1e-9)


def insert_position(speakers: list[int], speaker: int, rng: np.random.Generator) -> int:
    """A random turn boundary (0..len) whose neighbours are not `speaker`'s (the end if there is none)."""
    allowed = [p for p in range(len(speakers) + 1)
               if (p == 0 or speakers[p - 1] != speaker) and (p == len(speakers) or speakers[p] != speaker)]
    return int(rng.choice(allowed)) if allowed else len(speakers)


def build_recording(index: int, k: int, dominant: bool, rng, prose: Prose, encoder, workdir: Path, pool: int = POOL,
                    palette: dict | None = None, prefix: str = "synth"):
    voices, reference_cosine = choose_voices(k, rng, prose, encoder, workdir, pool, palette)
    shares, leader = speaker_shares(k, dominant, rng)
    target = float(min(240.0, (50.0 + 12.0 * k + rng.uniform(0.0, 30.0)) / 0.75))  # espeak reads ~0.75x the plan
    spoken = []  # (speaker, is back-channel, audio) in conversation order
    for speaker, seconds, backchannel in plan_turns(k, shares, leader, target, rng):
        spoken.append((speaker, backchannel, speak(speaker, seconds, backchannel, voices[speaker], rng, prose,
                                                    workdir)))
    planned_turns, extra = len(spoken), 0
    while True:  # the speaking floor: extra turns for a speaker below MIN_SPEECH s, at random turn boundaries
        speech = np.zeros(k)
        for speaker, backchannel, wav in spoken:
            speech[speaker] += 0.0 if backchannel else wav.size / SAMPLE_RATE
        if speech.min() >= MIN_SPEECH:
            break
        speaker = int(np.argmin(speech))
        wav = speak(speaker, turn_seconds(speaker, leader, rng), False, voices[speaker], rng, prose, workdir)
        spoken.insert(insert_position([s for s, _, _ in spoken], speaker, rng), (speaker, False, wav))
        extra += 1
    pieces, turns, cursor = [], [], 0.3
    for speaker, _, wav in spoken:
        start = cursor
        pieces.append((int(round(start * SAMPLE_RATE)), wav))
        turns.append((start, start + wav.size / SAMPLE_RATE, speaker))
        gap = rng.uniform(0.8, 1.6) if rng.random() < 0.1 else rng.uniform(0.05, 0.4)
        cursor = start + wav.size / SAMPLE_RATE + gap
    duration = round(turns[-1][1] + 0.5, 3)
    mix = np.zeros(int(round(duration * SAMPLE_RATE)) + 1)
    for offset, wav in pieces:
        mix[offset: offset + wav.size] += wav * float(rng.uniform(0.6, 1.0))
    impulse, rt60 = room_impulse(rng)
    from scipy.signal import fftconvolve
    mix = fftconvolve(mix, impulse)[: mix.size]
    snr = float(rng.uniform(18.0, 30.0))
    power = np.mean(mix[mix != 0] ** 2)
    mix = mix + rng.normal(0.0, np.sqrt(power / 10 ** (snr / 10)), mix.size)
    return {"name": f"{prefix}{index:02d}_k{k:02d}", "k": k, "voices": voices, "turns": turns, "duration": duration,
            "wav": mix.astype(np.float32), "rt60": rt60, "snr": snr, "dominant": dominant, "speech": speech,
            "reference_cosine": reference_cosine, "planned_turns": planned_turns, "extra_turns": extra}


# ----- windows, embeddings ------------------------------------------------------------------------------------------


def speech_regions(turns) -> list[tuple[float, float]]:
    regions: list[list[float]] = []
    for start, end, _ in sorted(turns):
        if regions and start <= regions[-1][1] + BRIDGE:
            regions[-1][1] = max(regions[-1][1], end)
        else:
            regions.append([start, end])
    return [(a, b) for a, b in regions]


def windows(regions) -> tuple[np.ndarray, np.ndarray]:
    """Windows of WINDOW s every SHIFT s inside each region; a shorter last window to the region end if it is at
    least MIN_WINDOW s; a region of MIN_WINDOW-WINDOW s is one window; shorter regions have none."""
    starts, ends = [], []
    for r0, r1 in regions:
        length = r1 - r0
        if length < MIN_WINDOW - _EPS:
            continue
        full = max(0, int(np.floor((length - WINDOW + _EPS) / SHIFT)) + 1) if length >= WINDOW - _EPS else 0
        begin = r0 + SHIFT * np.arange(full)
        stop = begin + WINDOW
        tail = r0 + full * SHIFT
        if full == 0:
            begin, stop = np.array([r0]), np.array([r1])
        elif stop[-1] < r1 - _EPS and r1 - tail >= MIN_WINDOW - _EPS:
            begin, stop = np.append(begin, tail), np.append(stop, r1)
        starts.append(begin), ends.append(stop)
    return np.round(np.concatenate(starts + [np.zeros(0)]), 6), np.round(np.concatenate(ends + [np.zeros(0)]), 6)


def import_resemblyzer():
    try:
        import pkg_resources  # noqa: F401  (webrtcvad, imported by resemblyzer, still uses it)
    except ImportError:
        stub = types.ModuleType("pkg_resources")
        stub.get_distribution = lambda name: types.SimpleNamespace(version=importlib.metadata.version(name))
        sys.modules["pkg_resources"] = stub
    warnings.filterwarnings("ignore", category=UserWarning)
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    import resemblyzer
    return resemblyzer


def embed(encoder, wav: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """VoiceEncoder.embed_utterance of each window's raw samples, the partials of all windows in one batch."""
    import torch
    from resemblyzer import audio

    mels, owner = [], []
    for i, (s, e) in enumerate(zip(start, end)):
        piece = wav[int(round(s * SAMPLE_RATE)): int(round(e * SAMPLE_RATE))]
        wav_slices, mel_slices = encoder.compute_partial_slices(len(piece), rate=1.3, min_coverage=0.75)
        if wav_slices[-1].stop >= len(piece):
            piece = np.pad(piece, (0, wav_slices[-1].stop - len(piece)))
        mel = audio.wav_to_mel_spectrogram(piece)
        for sl in mel_slices:
            mels.append(mel[sl]), owner.append(i)
    owner = np.array(owner)
    out = []
    with torch.no_grad():
        for b in range(0, len(mels), 256):
            out.append(encoder(torch.from_numpy(np.array(mels[b:b + 256])).float()).cpu().numpy())
    partial = np.concatenate(out).astype(np.float64)
    E = np.zeros((start.size, partial.shape[1]))
    np.add.at(E, owner, partial)
    return E / np.linalg.norm(E, axis=1, keepdims=True)


def window_labels(start, end, turns) -> np.ndarray:
    """Speaker at each window's centre (-1 in a pause)."""
    centre = 0.5 * (start + end)
    labels = np.full(centre.size, -1)
    for t0, t1, s in turns:
        labels[(centre >= t0) & (centre < t1)] = s
    return labels


def write_recording(folder: Path, name: str, scores: np.ndarray, start, end, duration: float, turns, k: int) -> dict:
    """``<name>.npz`` (float32 scores, times, duration) and ``<name>.rttm`` (speakers spk01..); the index row."""
    np.savez_compressed(folder / f"{name}.npz", scores=scores.astype(np.float32), start=np.asarray(start, float),
                        end=np.asarray(end, float), duration=np.float64(duration))
    (folder / f"{name}.rttm").write_text(
        "".join(f"SPEAKER {name} 1 {t0:.3f} {t1 - t0:.3f} <NA> <NA> spk{s + 1:02d} <NA> <NA>\n"
                for t0, t1, s in sorted(turns)), encoding="utf-8")
    return {"recording": name, "K": k, "duration": f"{duration:.3f}", "windows": len(start),
            "shares": ";".join(f"{x:.4f}" for x in shares_of(turns, k))}


def write_index(folder: Path, rows: list[dict], source: str) -> float:
    """``corpus.csv`` and ``SOURCE.txt``; the folder's size in MB."""
    with open(folder / "corpus.csv", "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=["recording", "K", "duration", "windows", "shares"])
        writer.writeheader()
        writer.writerows(rows)
    (folder / "SOURCE.txt").write_text(source, encoding="utf-8")
    return sum(p.stat().st_size for p in folder.glob("*") if p.is_file()) / 1e6


def shares_of(turns, k: int) -> np.ndarray:
    time_ = np.zeros(k)
    for t0, t1, s in turns:
        time_[s] += t1 - t0
    return time_ / time_.sum()


# ----- main --------------------------------------------------------------------------------------------------------


def design(recordings: int, rng: np.random.Generator) -> list[tuple[int, bool]]:
    """K of each recording: every K of 1..10 twice first (once if there are fewer than 20 recordings), then the rest
    spread over 2..10; about a third dominant."""
    ks = [k for k in range(1, 11) for _ in range(2 if recordings >= 20 else 1)]
    ks += [int(k) for k in rng.integers(2, 11, max(0, recordings - len(ks)))]
    ks = ks[:recordings]
    dominant = [(i % 3 == 1) and k > 1 for i, k in enumerate(ks)]
    return list(zip(ks, dominant))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("tests/data/diarization_corpus"))
    parser.add_argument("--recordings", type=int, default=24, help="number of recordings (>= 20 covers K=1..10 twice)")
    parser.add_argument("--seed", type=int, default=20261125)
    parser.add_argument("--pool", type=int, default=POOL, help="candidate voices per recording")
    parser.add_argument("--voices", choices=sorted(PALETTES), default="dev",
                        help="voice palette: 'heldout' shares no language voice or variant with 'dev'")
    parser.add_argument("--prefix", default="synth", help="recording names: <prefix><index>_k<K>")
    args = parser.parse_args(argv)
    palette = PALETTES[args.voices]

    resemblyzer = import_resemblyzer()
    import torch

    torch.manual_seed(args.seed)
    torch.set_num_threads(1)  # one thread: as fast on small batches, no stall when the machine is busy
    rng = np.random.default_rng(args.seed)
    prose = Prose(prose_words(), rng)
    encoder = resemblyzer.VoiceEncoder(device="cpu", verbose=False)
    encoder.eval()
    espeak = subprocess.run(["espeak-ng", "--version"], capture_output=True, text=True).stdout.strip()
    args.out.mkdir(parents=True, exist_ok=True)

    rows, described = [], []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for index, (k, dominant) in enumerate(design(args.recordings, rng), start=1):
            rec = build_recording(index, k, dominant, rng, prose, encoder, Path(tmp), args.pool, palette, args.prefix)
            name, turns = rec["name"], rec["turns"]
            start, end = windows(speech_regions(turns))
            from resemblyzer import audio, hparams
            wav = audio.normalize_volume(rec["wav"], hparams.audio_norm_target_dBFS, increase_only=True)
            E = embed(encoder, wav, start, end)
            S = E @ E.T
            S = 0.5 * (S + S.T)
            np.fill_diagonal(S, 1.0)
            rows.append(write_recording(args.out, name, S, start, end, rec["duration"], turns, k))
            speaker_names = [f"spk{s + 1:02d}" for s in range(k)]
            shares = shares_of(turns, k)
            labels = window_labels(start, end, turns)
            i, j = np.triu_indices(start.size, 1)
            ok = (labels[i] >= 0) & (labels[j] >= 0)
            same = labels[i] == labels[j]
            within = S[i[ok & same], j[ok & same]].mean()
            between = S[i[ok & ~same], j[ok & ~same]].mean() if k > 1 else float("nan")
            extra = f" ({rec['extra_turns']} added for the speaking floor)" if rec["extra_turns"] else ""
            described.append(
                f"  {name}: K = {k}, {rec['duration']:.1f} s, {start.size} windows, {len(turns)} turns{extra}, "
                f"{'one dominant speaker, ' if dominant else ''}RT60 {rec['rt60']:.2f} s, SNR {rec['snr']:.1f} dB, "
                f"cosine within {within:.3f} / between {between:.3f}, largest reference cosine between its voices "
                + (f"{rec['reference_cosine']:.3f}\n" if k > 1 else "-\n")
                + "".join(f"      {speaker_names[s]}: {v['language']}+{v['variant']} -p {v['pitch']} -s {v['speed']}"
                          f"  ({100 * shares[s]:.1f} % of speech, {rec['speech'][s]:.1f} s of turns)\n"
                          for s, v in enumerate(rec["voices"])))
            print(f"[{index:2d}/{args.recordings}] {name}: K={k} {rec['duration']:.0f} s, {start.size} windows, "
                  f"within {within:.3f} between {between:.3f}, reference cosine {rec['reference_cosine']:.3f}, "
                  f"least speech {rec['speech'].min():.1f} s, {rec['extra_turns']} extra turns "
                  f"({time.perf_counter() - started:.0f} s)", flush=True)

    ks = [r["K"] for r in rows]
    versions = (f"espeak-ng: {espeak}\n  Resemblyzer {importlib.metadata.version('resemblyzer')}, "
                f"torch {torch.__version__} (CPU)")
    options = ("" if args.pool == POOL else f" --pool {args.pool}") + (
        "" if args.voices == "dev" else f" --voices {args.voices}") + (
        "" if args.prefix == "synth" else f" --prefix {shlex.quote(args.prefix)}")
    (p0, p1), (s0, s1) = palette["pitch"], palette["speed"]
    title = ("Diarization development corpus" if args.voices == "dev" else
             "Diarization HELD-OUT corpus (no method or default was chosen on it)")
    listed = textwrap.fill(f"Voices (\"--voices {args.voices}\"): language voices {', '.join(palette['languages'])}; "
                           f"variants {', '.join(palette['variants'])}; pitch -p {p0}-{p1}, speed -s {s0}-{s1}.",
                           width=116, subsequent_indent="  ")
    palette_words = ("" if args.voices == "dev" else f"""
{listed} None of these language voices and variants is used by the development
  corpus (tests/data/diarization_corpus: the tool's LANGUAGES and VARIANTS, pitch 20-80, speed 135-195).
""")
    text = f"""\
{title}: synthetic espeak-ng conversations scored with Resemblyzer cosines
{'=' * (len(title) + 67)}

Made by tools/make_diarization_corpus.py, seed {args.seed}, {args.recordings} recordings:
  python tools/make_diarization_corpus.py --out {shlex.quote(str(args.out))} \\
      --recordings {args.recordings} --seed {args.seed}{options}
  {versions}
  (the recipe of /work/shared/RECIPES.md, "A diarization development corpus from synthetic speech")
{palette_words}
Files
  <rec>.npz    scores (N x N float32 cosine similarities, symmetric, diagonal 1), start, end (float64, s),
               duration (s); numpy.savez_compressed, no object arrays. lc.read_similarity(npz, reference=rttm).
  <rec>.rttm   the reference: the generated turn list (speakers spk01..spkKK), lc.read_rttm.
  corpus.csv   recording, K, duration (s), windows, shares (speaking-time share of spk01;spk02;..., from the RTTM)
  plda/        PLDA-style LLR matrices simulated from a two-covariance model (tools/simulate_plda_matrices.py,
               its own SOURCE.txt)
  The audio is not kept.

Two rules make every speaker countable. An earlier version of this corpus took each recording's voices as the
first K of random permutations and let the turn-taking decide how long each speaker spoke: in many recordings
some pairs of voices were not distinct to the embedder (a pair's mean between-speaker cosine as high as, or
higher than, one speaker's own within-speaker mean) and some speakers had 1-4 windows of speech, so no method
could find those speakers and the corpus could not measure K. Now:
  - distinct voices: for each recording {args.pool} candidate voices are drawn (language voice and variant from the
    lists in the tool, pitch -p uniform {p0}-{p1}, speed -s uniform {s0}-{s1} words/min, integers); each reads the same
    clean reference text ({REFERENCE_WORDS} words of the prose below, about 6 s; no room, no noise), embedded whole
    with VoiceEncoder.embed_utterance (volume-normalised, L2-normalised); the K voices are picked by greedy
    farthest-point selection on the cosine (a random first candidate, then repeatedly the candidate whose largest
    cosine to the chosen ones is smallest): the K most distinct voices of the pool, no threshold. The largest
    reference cosine between a recording's voices is given below.
  - a speaking floor: every speaker's turns (back-channels not counted) last at least {MIN_SPEECH:g} s of
    synthesised speech. A speaker below it after the planned turns gets extra turns (planned as its other turns),
    each put at a random turn boundary not next to one of its own, until it has {MIN_SPEECH:g} s; the recording
    gets longer by them. (Redrawing the plan until every speaker reached the floor cannot work in the dominant-
    speaker design: for K >= 6 the others' turns at the planned length leave too little time for all of them.)

How a recording is made
  - K speakers, each an espeak-ng voice (chosen as above): a language voice + a variant, pitch (-p, {p0}-{p1}) and
    speed (-s, {s0}-{s1} words/min) varied together, all reading English prose (pydoc_data.topics and
    /usr/share/common-licenses, code-like lines dropped); 22,050 Hz resampled to 16 kHz (resample_poly).
  - Turn-taking weights: Dirichlet(1.5) + 0.04, renormalised; in "dominant" recordings one speaker takes
    about every other turn, its turns planned 4-8 s and the others' 1-4 s. Turns of 1-8 s (a target drawn
    uniformly, text of that length, cut at 8 s, read on to >= 1 s), speakers alternate (the next speaker
    drawn by weight, never the current one); with probability 0.18 a
    listener's back-channel ({', '.join(BACKCHANNELS)}) comes between turns. Pauses 0.05-0.4 s,
    one in ten 0.8-1.6 s; no overlapping speech. Planned speech (50 + 12 K + U(0, 30)) / 0.75 s, capped at 240 s
    (espeak-ng reads the planned text in about 0.75 of the planned time), then the speaking floor's extra turns.
  - Turn levels x U(0.6, 1), a synthetic room impulse (direct path + exponentially decaying noise, RT60
    0.15-0.45 s, 0.3 s long), white noise at 18-30 dB SNR.
  - Speech regions = union of the turns, pauses < {BRIDGE} s bridged (oracle speech activity). Windows of {WINDOW} s
    every {SHIFT} s inside each region; a last shorter window to the region end if >= {MIN_WINDOW} s; regions of
    {MIN_WINDOW}-{WINDOW} s give one window.
  - The recording volume-normalised as resemblyzer.preprocess_wav does (no silence trimming); each window's raw
    samples embedded as VoiceEncoder.embed_utterance does (its partials, padded, batched), L2-normalised;
    S = E @ E.T, symmetrised, diagonal set to 1, stored as float32.

Corpus
  {len(rows)} recordings; K: {', '.join(f'{k}: {ks.count(k)}' for k in sorted(set(ks)))}
  total {sum(float(r['duration']) for r in rows) / 60:.1f} min, {sum(r['windows'] for r in rows):,} windows.
  Per recording (voices as espeak-ng -v <language>+<variant> -p <pitch> -s <speed>; cosine means over window
  pairs labelled by the speaker at each window centre; the largest cosine between the reference embeddings of
  the recording's voices; per speaker its share of speech (back-channels included, as corpus.csv) and the seconds
  of its turns (back-channels not counted, the floor's measure)):
{''.join(described)}"""
    size = write_index(args.out, rows, text)
    print(f"{args.out}: {len(rows)} recordings, {size:.1f} MB ({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
