"""FS Table 1 in full: 200 runs per size, ours next to the paper's, as a markdown table.

Friedman & Schuster (KDD 2010) §5.1.1: a single split on one of ten binary attributes,
binary class, B = 0.1, p_noise = 0.1, n = 1000 ... 5000, 200 runs per size, size bound
N = 5000 for the InfoGain sensitivity, and a non-private unlimited-depth ID3.

Usage::

    .venv/bin/python bench/fs_table1.py                    # prints the table
    .venv/bin/python bench/fs_table1.py --out bench/fs_table1.md --progress
    .venv/bin/python bench/fs_table1.py --runs 50 --no-id3  # quicker

The per-run results can be kept with ``--csv``. Takes a few minutes (the ID3 column is the
slowest: unlimited-depth trees on noisy rows).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from dpviz.data.published import FS_TABLE1_ALGORITHMS
from dpviz.experiments.reproduce_fs import fs_table1, table1_markdown


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200, help="runs per size (FS: 200)")
    parser.add_argument("--seed", type=int, default=0, help="master random seed")
    parser.add_argument("--no-id3", action="store_true", help="skip the non-private ID3 column")
    parser.add_argument("--out", type=Path, help="also write the markdown table to this file")
    parser.add_argument("--csv", type=Path, help="write the per-run results to this CSV file")
    parser.add_argument("--progress", action="store_true", help="show a progress bar")
    args = parser.parse_args(argv)

    algorithms = [a for a in FS_TABLE1_ALGORITHMS if not (args.no_id3 and a == "ID3")]
    start = time.perf_counter()
    runs = fs_table1(
        runs=args.runs, algorithms=algorithms, random_state=args.seed, progress=args.progress
    )
    elapsed = time.perf_counter() - start
    text = (
        "## FS Table 1: accuracy of a single split with a binary attribute and a binary class, "
        "B = 0.1\n\n"
        + table1_markdown(runs)
        + f"\n\nSeed {args.seed}; {elapsed:.0f} s. Reproduce with "
        f"`.venv/bin/python bench/fs_table1.py --runs {args.runs} --seed {args.seed}`.\n"
    )
    print(text)
    if args.out is not None:
        args.out.write_text(text, encoding="utf-8")
    if args.csv is not None:
        runs.to_csv(args.csv, index=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
