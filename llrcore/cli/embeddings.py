"""``llrcore embeddings``: every pair of a set of embeddings scored and counted, and the metrics of those trials."""
from __future__ import annotations

import json
from pathlib import Path

from .._choices import EMBEDDING_METRICS
from ._options import add_operating_point, add_output_formats, operating_point
from .evaluate import counts_table, shown


def add_command(commands) -> None:
    parser = commands.add_parser(
        "embeddings", help="score every pair of embeddings and print the metrics of those trials",
        description="Score every pair of the embeddings of a NumPy .npy file (one per row) in blocks, a pair of the "
                    "same label being a target trial, and print the metrics table of all the pairs (exact: the "
                    "counts of every float64 score), or, with --bins, the bounds the bins put on EER and minDCF.",
    )
    parser.add_argument("embeddings", help="a NumPy .npy file of shape (n, d), one embedding per row")
    parser.add_argument("labels", help="a text file of n lines, the speaker (class) label of each embedding")
    parser.add_argument("--metric", default="cosine", choices=EMBEDDING_METRICS, help="how two embeddings are "
                        "compared (cosine)")
    parser.add_argument("--bins", type=int, help="count the scores in this many equal bins (for 10^10 pairs "
                        "and more) and print the bounds they put on EER and minDCF")
    parser.add_argument("--scheduler", metavar="ADDRESS", help="score the blocks on the Dask cluster whose scheduler "
                        "is at ADDRESS (tcp://host:8786; 'local': a cluster of this machine's cores); pip install "
                        "'llrcore[dask]'")
    add_operating_point(parser)
    add_output_formats(parser, csv_help="print the table as CSV (with --bins: the counts of each bin)")
    parser.set_defaults(run=run, primary="SRE12")


def run(args) -> str:
    from ..scale.embeddings import BinnedScores, score_embeddings

    op = operating_point(args)
    result = score_embeddings(_embeddings(args.embeddings), _labels(args.labels), metric=args.metric, bins=args.bins,
                              engine="dask" if args.scheduler else "numpy",
                              client=None if args.scheduler == "local" else args.scheduler)
    if not isinstance(result, BinnedScores):
        return shown(counts_table(result, op, args), args, op)
    if args.csv:
        return result.to_frame().to_csv(index=False)
    if args.json:
        (eer_low, eer_high), (dcf_low, dcf_high) = result.eer_bounds(), result.min_dcf_bounds(
            p_target=op.p_target, c_miss=op.c_miss, c_fa=op.c_fa)
        return json.dumps({"EER % low": 100 * eer_low, "EER % high": 100 * eer_high, "minDCF low": dcf_low,
                           "minDCF high": dcf_high, "bins": args.bins}, indent=2)
    return result.sentence(p_target=op.p_target)


def _embeddings(path: str):
    import numpy as np

    try:
        return np.load(path, mmap_mode="r", allow_pickle=False)
    except (OSError, ValueError) as error:
        raise ValueError(f"{path}: not a NumPy .npy file of embeddings ({error}).") from None


def _labels(path: str) -> list[str]:
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    while lines and not lines[-1].strip():
        lines.pop()
    blank = next((number for number, line in enumerate(lines, 1) if not line.strip()), None)
    if blank is not None:
        raise ValueError(f"{path}, line {blank}: no label; give one label per line, one line per embedding.")
    return [line.strip() for line in lines]
