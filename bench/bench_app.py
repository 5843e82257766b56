"""How long the Evaluate page takes to re-render after an operating-point change, with 1.1M uploaded trials.

Drives the real app with Streamlit's AppTest (no browser): one .npz of 100k target and 1M non-target scores is
uploaded, the Evaluate page is opened (the first render sorts and runs PAV once), then P_target is changed several
times and each rerun is timed.

    python bench/bench_app.py [--n-non 1000000] [--repeats 5]

Writes the section "## App: operating-point change" of bench/RESULTS.md. A benchmark, not a test.
"""
from __future__ import annotations

import argparse
import io
import time
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest
from _results import write_section

ROOT = Path(__file__).resolve().parents[1]
SECTION = "## App: operating-point change"


def npz_bytes(n_tar: int, n_non: int) -> bytes:
    rng = np.random.default_rng(7)
    mu = 4.0
    buffer = io.BytesIO()
    np.savez(buffer, tar=rng.normal(mu, np.sqrt(2 * mu), n_tar), non=rng.normal(-mu, np.sqrt(2 * mu), n_non))
    return buffer.getvalue()


def run(n_tar: int, n_non: int, repeats: int) -> dict:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    at.run()
    at.switch_page("app_pages/data.py").run()
    at.file_uploader(key="score_uploads").set_value(("big.npz", npz_bytes(n_tar, n_non), "application/octet-stream"))
    start = time.perf_counter()
    at.run()
    upload_seconds = time.perf_counter() - start
    assert not at.exception, [e.value for e in at.exception]
    at.switch_page("app_pages/evaluate.py")
    start = time.perf_counter()
    at.run()
    first_seconds = time.perf_counter() - start
    assert not at.exception, [e.value for e in at.exception]
    assert "big" in at.multiselect(key="eval_systems").value, "the uploaded system is not among those shown"
    at.multiselect(key="eval_systems").set_value(["big"]).run()  # the operating point's reruns: this system alone
    times = []
    for p_target in np.geomspace(0.5, 0.001, repeats):
        at.number_input(key="op_p_target").set_value(float(p_target))
        start = time.perf_counter()
        at.run()
        times.append(time.perf_counter() - start)
        assert not at.exception, [e.value for e in at.exception]
    return dict(upload=upload_seconds, first=first_seconds, reruns=times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-tar", type=int, default=100_000)
    parser.add_argument("--n-non", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    result = run(args.n_tar, args.n_non, args.repeats)
    reruns = ", ".join(f"{t:.2f}" for t in result["reruns"])
    text = f"""{SECTION}

The Evaluate page of the real app under Streamlit's AppTest (no browser), with one uploaded system of
{args.n_tar:,} target + {args.n_non:,} non-target trials (`.npz`) and the three demo systems loaded. Reproduce:
`python bench/bench_app.py`. Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.

| step | wall time [s] |
|---|---:|
| upload and parse (Data page) | {result['upload']:.2f} |
| first Evaluate render (the upload beside the demo systems: sort and PAV once, all figures of the open tab) | {result['first']:.2f} |
| rerun after changing P_target (median of {len(result['reruns'])}: {reruns}) | {float(np.median(result['reruns'])):.2f} |

Goal: a rerun after an operating-point change well under a second — nothing is re-sorted and no PAV is re-run
(the Trials objects keep their `SortedScores`); only look-ups at the new threshold and the figures are redone.
"""
    print(text)
    write_section(SECTION, text)


if __name__ == "__main__":
    main()
