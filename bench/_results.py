"""What every benchmark shares: timing a callable and writing its own section of bench/RESULTS.md."""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Self

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"


def best_time(function, repeats: int) -> tuple[float, list[float], object]:
    """Run `function` `repeats` times: (best wall time, all times, the last result)."""
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return min(times), times, result


def sort_seconds() -> float:
    """CPU seconds of one ``np.sort`` of 11M float64 on one thread here (seed 0, best of 3): the yardstick by which
    figures of different CPUs are read side by side (a CPU with AVX-512 sorts about 5x faster than one without)."""
    import numpy as np

    values = np.random.default_rng(0).normal(size=11_000_000)
    times = []
    for _ in range(3):
        start = time.process_time()
        np.sort(values)
        times.append(time.process_time() - start)
    return min(times)


def machine_line() -> str:
    """The CPU, its count and its sort speed, as every section of RESULTS.md states them."""
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), "an unnamed CPU") if Path("/proc/cpuinfo").exists() else "a CPU"
    return (f"This machine: {cpu}, {os.cpu_count()} CPUs; its `np.sort` of 11M float64 on one thread: "
            f"{sort_seconds():.2f} s (the yardstick for figures measured on other CPUs).")


class OtherJobs:
    """The share of the machine's CPUs that other processes used while the ``with`` block ran (:attr:`share`, 0-1):
    all CPU time the system counted (``/proc/stat``) less this process's and its waited-for children's. A benchmark's
    own load raises the load average it reads at its end; this tells whether anything else ran."""

    share: float = 0.0

    @staticmethod
    def _now() -> tuple[float, float, float]:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        busy = (sum(fields) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")  # all but idle and iowait
        own = sum(getattr(resource.getrusage(who), field) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
                  for field in ("ru_utime", "ru_stime"))
        return busy, own, time.perf_counter()

    def __enter__(self) -> Self:
        self.start = self._now()
        return self

    def __exit__(self, *exc) -> None:
        (busy0, own0, wall0), (busy1, own1, wall1) = self.start, self._now()
        self.share = max(0.0, (busy1 - busy0) - (own1 - own0)) / max((wall1 - wall0) * (os.cpu_count() or 1), 1e-9)

    def words(self) -> str:
        """What the share says of the times."""
        if self.share < 0.1:
            return f"other processes used {100 * self.share:.0f} % of the CPUs meanwhile (a quiet machine)"
        return (f"other processes used {100 * self.share:.0f} % of the CPUs meanwhile (the times are noisy, their "
                "ratio less so)")


def write_section(heading: str, text: str) -> None:
    """Replace the section starting with the line `heading` in RESULTS.md by `text`, keeping the other sections
    (the file is read just before writing, so benchmarks run one after another do not undo each other). A section
    that does not state the machine's sort speed gets :func:`machine_line` at its end."""
    if "np.sort" not in text:
        text = text.rstrip("\n") + "\n\n" + machine_line() + "\n"
    old = RESULTS.read_text() if RESULTS.exists() else "# Benchmark results\n"
    lines = old.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.rstrip() == heading), None)
    if start is None:
        new = old.rstrip("\n") + "\n\n" + text.rstrip("\n") + "\n"
    else:
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
        new = "".join(lines[:start]) + text.rstrip("\n") + "\n" + ("\n" + "".join(lines[end:]) if end < len(lines) else "")
    RESULTS.write_text(new)


def publish(heading: str, text: str, args) -> None:
    """Print a run's section and write it into RESULTS.md: at full size, or at any size with ``--write``, never with
    ``--no-write``."""
    print()
    print(text)
    if not args.no_write and (args.size == "full" or args.write):
        write_section(heading, text)
        print(f"written to {RESULTS.relative_to(RESULTS.parents[1])}")


def before_after_arguments(doc: str, reps: int) -> argparse.Namespace:
    """The command line of a before/after benchmark: the revision before the change, ``--reps``, ``--no-write``."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("rev", help="the git revision before the change")
    parser.add_argument("--reps", type=int, default=reps)
    parser.add_argument("--no-write", action="store_true")
    return parser.parse_args()


def run_in_tree(tree: Path, code: str, **env: str) -> dict:
    """The JSON that `code` prints last, run in a fresh process with `tree` first on the path (and `env`)."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tree, check=True,
                          env={**os.environ, "PYTHONPATH": str(tree), **env})
    return json.loads(done.stdout.strip().splitlines()[-1])


def before_and_after(rev: str, measure) -> tuple[dict, dict, str]:
    """``measure(tree)`` of the git revision `rev` (exported with ``git archive`` into a temporary folder) and of
    this working tree, and the short name of HEAD."""
    root = RESULTS.parents[1]
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=root,
                          check=True).stdout.strip()
    with tempfile.TemporaryDirectory() as folder:
        archive = subprocess.run(["git", "archive", rev], capture_output=True, cwd=root, check=True).stdout
        subprocess.run(["tar", "-x", "-C", folder], input=archive, check=True)
        before = measure(Path(folder))
    return before, measure(root), head


def ratio_rows(before: dict, after: dict) -> str:
    """One table row per workload: ``| `name` | before | after | after / before |``."""
    return "\n".join(f"| `{name}` | {before[name]:.3f} | {after[name]:.3f} | {after[name] / before[name]:.2f} |"
                     for name in before)
