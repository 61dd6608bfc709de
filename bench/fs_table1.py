"""FS Table 1 in full (docs/fs_table1.md): 200 runs per size, ours next to the paper's.

Friedman & Schuster (KDD 2010) §5.1.1: a single split on one of ten binary attributes, binary
class, B = 0.1, p_noise = 0.1, n = 1000 ... 5000, 200 runs per size, size bound N = 5000 for the
InfoGain sensitivity, and a non-private ID3 of unlimited depth (the slowest column). A few
minutes; ``--csv`` keeps the per-run results.

    python -m bench.fs_table1 [--quick] [--runs 50] [--no-id3] [--csv FILE] [--progress]
"""

from __future__ import annotations

from pathlib import Path

from bench.common import ROOT, Run, cli
from dpviz.data.published import FS_TABLE1_ALGORITHMS
from dpviz.experiments.reproduce_fs import fs_table1, table1_markdown


def main() -> None:
    args = cli(__doc__, runs={"type": int, "default": 200, "help": "runs per size (FS: 200)"},
               seed={"type": int, "default": 0, "help": "master random seed"},
               no_id3={"action": "store_true", "help": "skip the non-private ID3 column"},
               csv={"type": Path, "help": "write the per-run results to this CSV file"},
               progress={"action": "store_true", "help": "show a progress bar"})
    run = Run(args)
    algorithms = [a for a in FS_TABLE1_ALGORITHMS if not (args.no_id3 and a == "ID3")]
    runs = fs_table1(runs=3 if args.quick else args.runs, algorithms=algorithms,
                     random_state=args.seed, progress=args.progress)
    run.write("fs-table1", [table1_markdown(runs), "", f"Seed {args.seed}."],
              doc=ROOT / "docs" / "fs_table1.md")
    if args.csv is not None:
        runs.to_csv(args.csv, index=False)


if __name__ == "__main__":
    main()
