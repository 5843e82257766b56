"""Make the real-data diarization fixture ``assets/pyannote_sample/`` from pyannote's sample file.

A developer tool, run once; NOT a dependency of llrcore (it needs torch and Resemblyzer, the project does not)::

    python -m venv /tmp/embvenv
    /tmp/embvenv/bin/pip install torch==2.13.0 resemblyzer soundfile "setuptools<81"  # the CPU build
    pip download pyannote.audio --no-deps -d /tmp/pawheel && unzip -q -o /tmp/pawheel/*.whl -d /tmp/pa
    /tmp/embvenv/bin/python tools/make_pyannote_sample_matrix.py \\
        /tmp/pa/pyannote/audio/sample/sample.wav /tmp/pa/pyannote/audio/sample/sample.rttm \\
        assets/pyannote_sample --wheel /tmp/pawheel/pyannote_audio-*.whl

What it does:

1. speech regions = union of the reference turns of the RTTM (oracle speech activity); regions < 0.5 s skipped;
2. windows of 1.5 s every 0.25 s inside each region; where the region does not end on a window end, one last,
   shorter window from (last start + 0.25 s) to the region end (kept if >= 0.5 s; VBx's convention); a region
   shorter than 1.5 s gives one window covering it;
3. each window embedded with Resemblyzer's pretrained VoiceEncoder (256-d, L2-normalised d-vector). The wav is
   read with soundfile, resampled to 16 kHz if needed and volume-normalised over the whole file as
   ``resemblyzer.preprocess_wav`` does, but WITHOUT its silence trimming (which would shift the times); each raw
   slice goes to ``VoiceEncoder.embed_utterance``;
4. S = E @ E.T (cosine similarity), float64, exactly symmetric, diagonal 1;
5. per-window reference speaker = largest overlap with the reference turns (ties -> speaker appearing first in
   the RTTM), used only for the statistics written to SOURCE.txt;
6. writes ``sample_similarity.npz`` (S, start, end), a copy of the RTTM as ``sample.rttm``, and ``SOURCE.txt``.
"""
from __future__ import annotations

import argparse
import hashlib
import re
import shlex
import shutil
import sys
import warnings
import zipfile
from pathlib import Path

import numpy as np

WINDOW = 1.5  # s
SHIFT = 0.25  # s
MIN_WINDOW = 0.5  # s
SAMPLE_RATE = 16000  # Resemblyzer's rate
_EPS = 1e-9


def read_turns(path: Path) -> list[tuple[float, float, str]]:
    """(start, end, speaker) of every SPEAKER line of an RTTM, in file order."""
    turns = []
    for line in path.read_text(encoding="utf-8").splitlines():
        fields = line.split()
        if not fields or fields[0].upper() != "SPEAKER":
            continue
        start, duration = float(fields[3]), float(fields[4])
        turns.append((start, start + duration, fields[7]))
    if not turns:
        sys.exit(f"{path}: no SPEAKER lines")
    return turns


def speech_regions(turns) -> list[tuple[float, float]]:
    """Union of the turns (overlapping or touching turns merged)."""
    regions: list[list[float]] = []
    for start, end, _ in sorted(turns):
        if regions and start <= regions[-1][1] + _EPS:
            regions[-1][1] = max(regions[-1][1], end)
        else:
            regions.append([start, end])
    return [(a, b) for a, b in regions]


def windows(regions) -> tuple[np.ndarray, np.ndarray]:
    starts, ends = [], []
    for r0, r1 in regions:
        length = r1 - r0
        if length < MIN_WINDOW - _EPS:
            continue
        if length < WINDOW - _EPS:
            starts.append(r0), ends.append(r1)
            continue
        k = 0
        while r0 + k * SHIFT + WINDOW <= r1 + _EPS:
            starts.append(r0 + k * SHIFT), ends.append(r0 + k * SHIFT + WINDOW)
            k += 1
        last_start = r0 + k * SHIFT  # the start after the last full window
        if ends[-1] < r1 - _EPS and r1 - last_start >= MIN_WINDOW - _EPS:
            starts.append(last_start), ends.append(r1)
    return np.round(np.array(starts), 6), np.round(np.array(ends), 6)


def reference_labels(start, end, turns) -> np.ndarray:
    speakers = list(dict.fromkeys(s for _, _, s in turns))  # order of first appearance
    overlap = np.zeros((start.size, len(speakers)))
    for t0, t1, s in turns:
        overlap[:, speakers.index(s)] += np.clip(np.minimum(end, t1) - np.maximum(start, t0), 0.0, None)
    return np.array(speakers)[np.argmax(overlap, axis=1)]  # argmax: first maximum = earlier speaker


def load_audio(path: Path) -> np.ndarray:
    import soundfile as sf
    from resemblyzer import audio as ra, hparams

    wav, rate = sf.read(str(path), dtype="float32", always_2d=True)
    wav = wav.mean(axis=1)
    if rate != hparams.sampling_rate:
        import librosa
        wav = librosa.resample(wav, orig_sr=rate, target_sr=hparams.sampling_rate)
    # as resemblyzer.preprocess_wav, without trim_long_silences
    return ra.normalize_volume(wav, hparams.audio_norm_target_dBFS, increase_only=True).astype(np.float32)


def pair_stats(S, labels, start, non_overlapping: bool):
    i, j = np.triu_indices(S.shape[0], k=1)
    if non_overlapping:
        keep = np.abs(start[i] - start[j]) >= WINDOW - _EPS
        i, j = i[keep], j[keep]
    same = labels[i] == labels[j]
    within, between = S[i[same], j[same]], S[i[~same], j[~same]]
    return within, between


def wheel_info(wheel: Path | None, wav: Path, rttm: Path) -> dict:
    """pyannote.audio version, LICENSE copyright line and the paths of the sample files inside the wheel."""
    info = {"version": "unknown", "copyright": "unknown", "wav_member": "pyannote/audio/sample/sample.wav",
            "rttm_member": "pyannote/audio/sample/sample.rttm", "identical": None}
    if wheel is None:
        return info
    match = re.match(r"pyannote_audio-([^-]+)-", wheel.name)
    info["version"] = match.group(1) if match else "unknown"
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        licence = next((n for n in names if n.endswith(".dist-info/licenses/LICENSE") or
                        n.endswith(".dist-info/LICENSE")), None)
        if licence:
            line = next((ln for ln in z.read(licence).decode().splitlines() if "copyright" in ln.lower()), None)
            info["copyright"] = line.strip() if line else "unknown"
        same = []
        for key, local in (("wav_member", wav), ("rttm_member", rttm)):
            member = next((n for n in names if n.endswith("/sample/" + local.name)), None)
            if member:
                info[key] = member
                same.append(z.read(member) == local.read_bytes())
        info["identical"] = bool(same) and all(same)
    return info


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("wav", type=Path, help="sample.wav of the pyannote.audio wheel")
    parser.add_argument("rttm", type=Path, help="sample.rttm of the pyannote.audio wheel (reference)")
    parser.add_argument("output", type=Path, help="output folder, e.g. assets/pyannote_sample")
    parser.add_argument("--wheel", type=Path, default=None,
                        help="the pyannote.audio wheel the files came from (for the version, licence, checksum)")
    args = parser.parse_args(argv)

    warnings.filterwarnings("ignore", category=UserWarning)  # pkg_resources / scipy deprecation notes
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    import resemblyzer
    import torch
    from importlib.metadata import version

    torch.manual_seed(0)
    turns = read_turns(args.rttm)
    regions = speech_regions(turns)
    start, end = windows(regions)
    labels = reference_labels(start, end, turns)

    wav = load_audio(args.wav)
    encoder = resemblyzer.VoiceEncoder(device="cpu", verbose=False)
    encoder.eval()
    E = np.stack([encoder.embed_utterance(wav[int(round(s * SAMPLE_RATE)):int(round(e * SAMPLE_RATE))])
                  for s, e in zip(start, end)]).astype(np.float64)
    E /= np.linalg.norm(E, axis=1, keepdims=True)
    S = E @ E.T
    S = 0.5 * (S + S.T)
    np.fill_diagonal(S, 1.0)

    args.output.mkdir(parents=True, exist_ok=True)
    npz = args.output / "sample_similarity.npz"
    np.savez_compressed(npz, S=S, start=start.astype(np.float64), end=end.astype(np.float64))
    rttm_copy = args.output / "sample.rttm"
    shutil.copyfile(args.rttm, rttm_copy)

    speakers = list(dict.fromkeys(s for _, _, s in turns))
    counts = {s: int((labels == s).sum()) for s in speakers}
    wheel = wheel_info(args.wheel, args.wav, args.rttm)
    rows = []
    for title, non_overlapping in (("non-overlapping pairs (|start_i - start_j| >= 1.5 s)", True),
                                   ("all pairs i < j", False)):
        within, between = pair_stats(S, labels, start, non_overlapping)
        rows.append(f"  {title}:\n"
                    f"    within-speaker:  n = {within.size:5d}, mean = {within.mean():.4f}, sd = {within.std(ddof=1):.4f}\n"
                    f"    between-speaker: n = {between.size:5d}, mean = {between.mean():.4f}, sd = {between.std(ddof=1):.4f}")
    command = ("/tmp/embvenv/bin/python tools/make_pyannote_sample_matrix.py "
               + " ".join(shlex.quote(str(a)) for a in (args.wav, args.rttm, args.output))
               + (f" --wheel {shlex.quote(str(args.wheel))}" if args.wheel else ""))
    skipped = [(a, b) for a, b in regions if b - a < MIN_WINDOW - _EPS]
    text = f"""\
Real speaker-similarity matrix with a known reference: pyannote.audio's sample recording, Resemblyzer d-vectors
==============================================================================================================

Files
  sample_similarity.npz  arrays S ({S.shape[0]} x {S.shape[1]} float64, cosine similarities), start, end (float64, s);
                         numpy.savez_compressed, no object arrays (loads with allow_pickle=False)
  sample.rttm            the reference, an unchanged copy of the wheel's sample.rttm
  SOURCE.txt             this file

Audio and reference
  From the pyannote.audio wheel, version {wheel['version']} (pyannote_audio-{wheel['version']}-py3-none-any.whl, PyPI),
  paths inside the wheel: {wheel['wav_member']} and {wheel['rttm_member']}
  (files byte-identical to the wheel's: {wheel['identical']}).
  Licence: MIT; "{wheel['copyright']}" (the wheel's LICENSE file).
  sample.wav: 30 s, 16 kHz mono, 2 speakers (speaker90, speaker91); sha256 {sha256(args.wav)}
  sample.rttm: sha256 {sha256(args.rttm)}
  The audio itself is NOT stored in the project, only the matrix and the RTTM: nothing in the project reads
  the audio, the wheel or the network.

Embeddings
  Resemblyzer {version('resemblyzer')} (Apache-2.0, Copyright 2019 Resemble AI), its pretrained VoiceEncoder
  (resemblyzer.VoiceEncoder(device="cpu")), torch {torch.__version__}, CPU.

How the matrix was made
  1. Speech regions = union of the reference turns (oracle speech activity, the usual convention for
     clustering-only evaluation, as in VBx's AMI oracle-VAD setup): {', '.join(f'{a:.2f}-{b:.2f}' for a, b in regions)} s;
     regions shorter than {MIN_WINDOW} s skipped: {', '.join(f'{a:.2f}-{b:.2f}' for a, b in skipped) or 'none'}.
  2. Windows of {WINDOW} s every {SHIFT} s inside each region; where a region does not end on a window end, one
     last shorter window from (last full window start + {SHIFT} s) to the region end, kept if >= {MIN_WINDOW} s
     (regions of {MIN_WINDOW}-{WINDOW} s would give one window covering them).
  3. The wav read with soundfile (16 kHz already, no resampling), volume-normalised over the whole file to
     -30 dBFS (increase only) as resemblyzer.preprocess_wav does, but without its silence trimming (which would
     move the times); each window's raw samples embedded with VoiceEncoder.embed_utterance (defaults), giving a
     256-d L2-normalised d-vector.
  4. S = E @ E.T, the cosine similarity, float64, symmetric, diagonal 1.
  5. Reference speaker of each window (for the numbers below; a reader gets the same from sample.rttm with
     llrcore's labels_from_turns): the speaker with the most time inside the window (ties -> earlier speaker).

Numbers
  windows: {S.shape[0]}; per reference speaker: {', '.join(f'{s} {c}' for s, c in counts.items())}
  cosine scores, mean and sd (ddof=1):
{chr(10).join(rows)}

Regenerate (see the tool's docstring for the venv and the wheel)
  {command}
"""
    (args.output / "SOURCE.txt").write_text(text, encoding="utf-8")
    print(text)
    print(f"{npz}: {npz.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
