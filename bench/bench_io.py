"""Reading a 20M-trial score file: llrcore.read_trials against pandas on the same file, CSV and Parquet.

    python bench/bench_io.py [--rows 20000000] [--folder /tmp]

Each reader runs in its own subprocess (best of 2, peak resident memory of that process). pandas is the floor: it only parses the columns,
while read_trials also detects the format, validates every score and label and builds the Trials. Writes the
section "## Reading a 20M-row score file" of bench/RESULTS.md. A benchmark, not a test.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from _results import write_section

ROOT = Path(__file__).resolve().parents[1]
SECTION = "## Reading a 20M-row score file"

READERS = {
    "llrcore.read_trials": "import llrcore as lc; result = lc.read_trials(path)",
    "pandas.read_csv": "import pandas as pd; result = pd.read_csv(path)",
    "pandas.read_parquet": "import pandas as pd; result = pd.read_parquet(path)",
}

# Peak memory from VmHWM: ru_maxrss would carry over the parent's peak (it survives exec on Linux).
CHILD = """
import json, sys, time
path = sys.argv[1]
times = []
for _ in range(2):
    start = time.perf_counter()
    {code}
    times.append(time.perf_counter() - start)
    del result
peak_kib = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps(dict(times=times, peak_mib=peak_kib / 1024)))
"""


def make_files(rows: int, folder: Path) -> dict[str, Path]:
    csv, parquet = folder / f"scores_{rows}.csv", folder / f"scores_{rows}.parquet"
    if not (csv.exists() and parquet.exists()):
        rng = np.random.default_rng(3)
        labels = rng.random(rows) < 0.1
        scores = np.where(labels, rng.normal(4, 2.8, rows), rng.normal(-4, 2.8, rows)).round(6)
        frame = pd.DataFrame({"score": scores, "label": np.where(labels, "target", "nontarget")})
        frame.to_csv(csv, index=False)
        frame.to_parquet(parquet, index=False)
    return {"csv": csv, "parquet": parquet}


def measure(reader: str, path: Path) -> dict:
    output = subprocess.run([sys.executable, "-c", CHILD.format(code=READERS[reader]), str(path)],
                            capture_output=True, text=True, check=True).stdout
    return json.loads(output.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20_000_000)
    parser.add_argument("--folder", type=Path, default=Path("/tmp"))
    args = parser.parse_args()
    files = make_files(args.rows, args.folder)
    rows = []
    for kind, peer in (("csv", "pandas.read_csv"), ("parquet", "pandas.read_parquet")):
        ours, theirs = measure("llrcore.read_trials", files[kind]), measure(peer, files[kind])
        ratio = min(ours["times"]) / min(theirs["times"])
        size = files[kind].stat().st_size / 2**20
        rows.append(f"| {kind} ({size:,.0f} MiB) | {min(ours['times']):.2f} | {ours['peak_mib']:,.0f} | "
                    f"{peer} | {min(theirs['times']):.2f} | {theirs['peak_mib']:,.0f} | {ratio:.2f}x |")
    text = f"""{SECTION}

{args.rows:,} trials (`score,label`, 10 % targets, 6 decimals), written once; each reader in its own subprocess,
best of 2, peak resident memory (VmHWM) of that process. Reproduce: `python bench/bench_io.py`. Measured
{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.

| file | read_trials [s] | read_trials peak [MiB] | peer | peer [s] | peer peak [MiB] | read_trials / peer |
|---|---:|---:|---|---:|---:|---:|
{chr(10).join(rows)}

Goal: read_trials within 2x of the pandas reader of the same file (it also validates every value and builds the
Trials: float64 target and non-target arrays).
"""
    print(text)
    write_section(SECTION, text)


if __name__ == "__main__":
    main()
