"""Explorer latency (section explorers): from an ε-slider move to new chart data, per notebook.

Each notebook's main explorer at its defaults: an untimed first view (it fills the in-process
caches), then ε moved to five new values, each timed to the chart's Vega-Lite JSON; the median.
``--baseline DIR`` (another checkout) times each explorer in fresh interpreters (result cache
off) for both versions, in 4 rounds alternating which goes first.

    python -m bench.explorers [--quick] [--baseline DIR --label TEXT]
"""

from __future__ import annotations

import statistics
from collections.abc import Callable

from bench.common import Run, cli, in_fresh_process, seconds, table, timed

MOVES = (0.5, 2.0, 0.3, 3.0, 0.7)  # ε relative to the default
ROUNDS = 4


def explorers() -> list[tuple[str, Callable, dict]]:
    """(notebook, callback, keyword arguments at the defaults), as the notebooks build them."""
    from dpviz.explore import audit as au
    from dpviz.explore import building_blocks as bb
    from dpviz.explore import compare, fi, fs, jpw
    from dpviz.explore import rdt_sharp as rs

    def values(controls: dict) -> dict:
        return {name: w.value for name, w in controls.items()}

    return [
        ("01_building_blocks (noise)", bb.noise_chart,
         {"epsilon": 1.0, "mechanism": bb.COUNT_MECHANISMS[0]}),
        ("02_private_random_trees", jpw.jpw_explorer_chart, values(jpw.jpw_controls())),
        ("03_private_id3", fs.fs_explorer_chart,
         values(fs.fs_controls(epsilon=0.1, criterion="max"))),
        ("04_semi_supervised_rdt_sharp", rs.rdt_sharp_explorer_chart,
         {"dataset": "mushroom", "epsilon": 0.5, "percent": 2, "n_secondary": 20}),
        ("05_dp_random_forest", fi.fi_explorer_chart,
         {"dataset": "SynthA", "epsilon": 1.0, "depth": 0, "n_trees": 100, "mechanism": "rosnam"}),
        ("06_privacy_audit", au.audit_explorer_chart,
         {"mechanism": au.SETUPS[0], "epsilon": 1.0, "n_samples": 20_000}),
        ("07_compare_all", compare.compare_explorer_chart,
         values(compare.compare_controls("nursery", epsilon=1.0, n=1000))),
    ]


def view(callback: Callable, kwargs: dict) -> dict:
    return callback(**kwargs).to_dict()


def measure(only: str | None = None, moves: tuple = MOVES) -> dict[str, list[float]]:
    """{notebook: [first view, median update]} in seconds."""
    out = {}
    for name, callback, defaults in explorers():
        if only in (None, name):
            first = timed(view, callback, defaults).best
            updates = [timed(view, callback, defaults | {"epsilon": defaults["epsilon"] * f}).best
                       for f in moves]
            out[name] = [first, statistics.median(updates)]
    return out


def fresh(where: str | None, moves: tuple) -> dict[str, list[float]]:
    """:func:`measure`, each explorer in its own interpreter, dpviz from ``where``."""
    return {k: v for name, _, _ in explorers() for k, v in in_fresh_process(
        "explorers", [name, moves], env={"DPVIZ_CACHE": "off"}, dpviz_from=where).items()}


def main() -> None:
    args = cli(__doc__, lambda job: measure(*job),
               baseline={"help": "another dpviz checkout, timed in the same run"},
               label={"default": "baseline", "help": "the baseline's name in the table"})
    run, moves = Run(args), MOVES[:2] if args.quick else MOVES
    now = measure(moves=moves)
    lines = table(["notebook", "first view", "median update"],
                  [[k, seconds(a), seconds(b)] for k, (a, b) in now.items()])
    if args.baseline:
        mine, theirs = [], []
        for i in range(2 if args.quick else ROUNDS):  # alternate which version goes first
            for where in [None, args.baseline][:: 1 - 2 * (i % 2)]:
                (theirs if where else mine).append(fresh(where, moves))
        med = {k: [statistics.median(r[k][j] for r in runs) for runs in (theirs, mine)
                   for j in (0, 1)] for k in now}
        lines += ["", f"Against {args.label}, each explorer in a fresh interpreter, result cache "
                  f"off, medians over {len(mine)} alternating rounds:", "", *table(
                      ["notebook", f"{args.label}: first", "this: first", f"{args.label}: update",
                       "this: update", "update ratio (this / baseline)"],
                      [[k, *map(seconds, (m[0], m[2], m[1], m[3])), f"{m[3] / m[1]:.2f}"]
                       for k, m in med.items()])]
    run.write("explorers", lines)


if __name__ == "__main__":
    main()
