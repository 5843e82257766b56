"""Past one machine (issue 44): score files counted on a Dask LocalCluster against DuckDB's read_counts and in-memory
reading, and every pair of embeddings on the numpy engine against Dask workers. Not a test.

    python bench/bench_scale.py [--trials 100000000] [--files 64] [--embeddings 20000] [--exact-embeddings 6000]

Each measurement runs in its own subprocess (``--measure NAME``), so its peak memory (``VmHWM``) is its own; the
Dask workers are processes of a LocalCluster (1 GB each), and their peaks are read on each worker (``client.run``).
The score files are Parquet files of ``score`` (Gaussian, targets N(2, 1), non-targets N(-2, 1), 10 % targets,
rounded to --decimals decimals as score files written as text are) and ``label``.
Prints a Markdown section for bench/RESULTS.md.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SEED = 44


def peak_mib() -> float:
    """This process's peak resident memory: VmHWM, which starts afresh at exec (Linux keeps ``ru_maxrss`` across
    execve, so a child's would count the parent's peak)."""
    status = Path("/proc/self/status").read_text()
    return int(next(line for line in status.splitlines() if line.startswith("VmHWM:")).split()[1]) / 1024


def write_files(folder: Path, trials: int, files: int, decimals: int) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(SEED)
    for number, rows in enumerate(np.array_split(np.arange(trials), files)):
        target = rng.random(rows.size) < 0.1
        scores = np.round(np.where(target, 2.0, -2.0) + rng.normal(size=rows.size), decimals)
        labels = pa.DictionaryArray.from_arrays(target.astype(np.int8), pa.array(["nontarget", "target"]))
        pq.write_table(pa.table({"score": scores, "label": labels}), folder / f"part-{number:03d}.parquet")


def embeddings(n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(SEED)
    labels = rng.integers(0, max(2, n // 20), n)
    return rng.normal(size=(labels.max() + 1, 192))[labels] + 1.5 * rng.normal(size=(n, 192)), labels


def cluster(workers: int):
    from distributed import Client, LocalCluster

    local = LocalCluster(n_workers=workers, threads_per_worker=1, memory_limit="1GB", dashboard_address=None)
    client = Client(local)
    client.run(_warm)  # the workers' imports are no part of the count
    return local, client


def _warm() -> None:
    import duckdb  # noqa: F401
    import llrcore.io.out_of_core  # noqa: F401
    import llrcore.scale.embeddings  # noqa: F401


def worker_peaks(client) -> list[float]:
    return sorted(client.run(peak_mib).values())


def measure(name: str, args) -> dict:
    import llrcore as lc

    folder = Path(args.folder)
    pattern = str(folder / "part-*.parquet")
    start = time.perf_counter()
    workers: list[float] = []
    if name == "memory":
        import pandas as pd

        frame = pd.read_parquet(folder)
        target = frame["label"].astype(str).to_numpy() == "target"
        result = lc.Trials(frame["score"].to_numpy()[target], frame["score"].to_numpy()[~target])
    elif name == "duckdb":
        result = lc.read_counts(pattern, memory_limit="1GB")
    elif name.startswith("dask"):
        local, client = cluster(int(name[-1]))
        start = time.perf_counter()  # the cluster's start-up is not the count's
        result = lc.read_counts(pattern, engine="dask", client=client, memory_limit="400MB")
        workers = worker_peaks(client)
        client.close(), local.close()
    else:  # embeddings: emb-numpy-N / emb-dask-N, exact or binned
        _, engine, size, bins = name.split("-")
        vectors, labels = embeddings(int(size))
        options = {"bins": int(bins)} if int(bins) else {}
        if engine == "dask":
            local, client = cluster(2)
            start = time.perf_counter()
            result = lc.score_embeddings(vectors, labels, engine="dask", client=client, **options)
            workers = worker_peaks(client)
            client.close(), local.close()
        else:
            start = time.perf_counter()
            result = lc.score_embeddings(vectors, labels, **options)
    seconds = time.perf_counter() - start
    if isinstance(result, lc.BinnedScores):
        numbers = {"eer_bounds": result.eer_bounds(), "min_dcf_bounds": result.min_dcf_bounds(p_target=0.01)}
        size = result.counts.n_tar + result.counts.n_non
    else:
        numbers = {"eer": lc.eer(result), "min_dcf": float(lc.min_dcf(result, p_target=0.01)),
                   "cllr": lc.cllr(result)}
        size = result.n_tar + result.n_non if hasattr(result, "n_tar") else result.tar.size + result.non.size
    return {"name": name, "seconds": seconds, "peak_mib": peak_mib(), "workers_mib": workers, "trials": size,
            **numbers}


def run(name: str, args) -> dict:
    done = subprocess.run([sys.executable, __file__, "--measure", name, "--folder", args.folder],
                          capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    if done.returncode:
        return {"name": name, "error": done.stderr.strip().splitlines()[-1]}
    return json.loads(done.stdout.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=100_000_000)
    parser.add_argument("--files", type=int, default=64)
    parser.add_argument("--decimals", type=int, default=4)
    parser.add_argument("--embeddings", type=int, default=20_000)
    parser.add_argument("--exact-embeddings", type=int, default=6_000)
    parser.add_argument("--bins", type=int, default=1_000_000)
    parser.add_argument("--skip-memory", action="store_true", help="leave out the in-memory reading (its RAM)")
    parser.add_argument("--measure"), parser.add_argument("--folder")
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure, args)))
        return
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as folder:
        args.folder = folder
        start = time.perf_counter()
        write_files(Path(folder), args.trials, args.files, args.decimals)
        print(f"wrote {args.trials:,} trials in {args.files} files in {time.perf_counter() - start:.0f} s",
              file=sys.stderr)
        names = [*([] if args.skip_memory else ["memory"]), "duckdb", "dask-1", "dask-2",
                 f"emb-numpy-{args.exact_embeddings}-0", f"emb-dask-{args.exact_embeddings}-0",
                 f"emb-numpy-{args.embeddings}-{args.bins}", f"emb-dask-{args.embeddings}-{args.bins}"]
        rows = []
        for name in names:
            rows.append(run(name, args))
            print(json.dumps(rows[-1]), file=sys.stderr)
    print(f"Machine: {os.cpu_count()} CPUs, {platform.platform()}, python {platform.python_version()}; "
          f"load average at the end {os.getloadavg()[0]:.2f}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n")
    print("| run | trials | wall time [s] | peak, this process [MiB] | peak per worker [MiB] | numbers |")
    print("|---|---:|---:|---:|---|---|")
    for row in rows:
        if "error" in row:
            print(f"| {row['name']} | | | | | failed: {row['error']} |")
            continue
        numbers = {key: value for key, value in row.items()
                   if key not in ("name", "seconds", "peak_mib", "workers_mib", "trials")}
        print(f"| {row['name']} | {row['trials']:,} | {row['seconds']:.1f} | {row['peak_mib']:,.0f} | "
              f"{', '.join(f'{peak:,.0f}' for peak in row['workers_mib'])} | {numbers} |")


if __name__ == "__main__":
    main()
