"""`make audit`: run the adversarial audit suite with many samples and write the privacy-claims
table into docs/privacy.md (between its generated-block markers).

Usage: .venv/bin/python -m bench.privacy_claims [--whole N] [--mechanism M] [--out PATH]
       .venv/bin/python -m bench.privacy_claims --only 'PrivaTreeClassifier [*] (claim)'

``--only PATTERN`` (a row's ``estimator [option] (role)``, ``*`` and ``?`` its only
wildcards; repeatable) runs those rows alone, at the same sizes and seed, and splices them into
the table already in ``--out``: each replaces the line of the same estimator and option, and the
table's header says which rows were recomputed, when and at which commit (after a change to one
estimator: minutes instead of the whole run's 45).
"""

import argparse
import os
import re
import subprocess
import sys
import time

from dpviz.audit import suite as audit_suite


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--whole", type=int, default=5_000,
                        help="fits per neighbour for whole-estimator cases")
    parser.add_argument("--mechanism", type=int, default=200_000,
                        help="samples per neighbour for shipped-component cases")
    parser.add_argument("--out", default="docs/privacy.md")
    parser.add_argument("--only", action="append", metavar="PATTERN",
                        help="rerun the rows whose 'estimator [option] (role)' matches; splice")
    args = parser.parse_args()
    start = time.perf_counter()
    select = None
    if args.only:
        names = [c.name for c in audit_suite.cases()]
        chosen = {n for n in names if any(wildcard(p).fullmatch(n) for p in args.only)}
        if not chosen:
            print(f"no row matches {args.only}; rows: {names}", file=sys.stderr)
            return 2
        select = lambda case: case.name in chosen  # noqa: E731
    results = audit_suite.run_suite(args.whole, args.mechanism, select=select,
                                    processes=os.cpu_count() or 1)
    table = audit_suite.claims_table(results)
    minutes = (time.perf_counter() - start) / 60
    load = os.getloadavg()[0]
    if args.only:
        splice(args.out, table, minutes, load)
        print(table[["estimator", "option", "ε lower bound (95%)", "verdict", "power"]]
              .to_string(index=False))
        return 0 if table["as expected"].all() else 1
    header = (
        f"Produced by `make audit` on {audit_suite.machine_line()}, {os.cpu_count()} cores, "
        f"{minutes:.1f} min (load {load:.1f} at the end): at least {args.whole:,} fits per "
        "neighbour for whole estimators "
        f"(more where a row's own size is larger), {args.mechanism:,} samples per neighbour "
        "for shipped components; 20% of the samples choose the event, the rest estimate it "
        "(a whole estimator's release also read joined: events on every pairwise difference "
        "and sum of its numbers); "
        "one-sided Clopper–Pearson bounds, 95% confidence. Each claim's planted bug is "
        "audited the same way (same neighbours, events, samples and seed); *power* gives the "
        "bound at which it is caught. Where a row says \"ε read from ledger_\", the claimed ε "
        "is the fitted model's own ledger (its bug's too). `make test` runs the same cases "
        "and bugs at each row's own size (`samples` in dpviz/audit/claims.csv: for whole "
        "estimators twice the smallest size at which its planted bug is caught at five seeds, "
        "and no fewer than 1,000 fits; 50,000 for components; tests/test_audit_suite.py)."
    )
    audit_suite.write_claims(args.out, table, header)
    print(table[["estimator", "option", "role", "ε lower bound (95%)", "verdict", "power"]]
          .to_string(index=False))
    bad = table[~table["as expected"]]
    if len(bad):
        print(f"\n{len(bad)} case(s) not as expected", file=sys.stderr)
        return 1
    print(f"\nwrote {args.out} ({minutes:.1f} min)")
    return 0


def wildcard(pattern: str) -> re.Pattern[str]:
    """``pattern`` with ``*`` and ``?`` as wildcards and every other character itself."""
    return re.compile(re.escape(pattern).replace(r"\*", ".*").replace(r"\?", "."))


def splice(path: str, table, minutes: float, load: float) -> None:
    """Replace the lines of ``table``'s rows in the generated table of ``path``; say so above it."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    start = text.index(audit_suite.TABLE_START)
    end = text.index(audit_suite.TABLE_END)
    block = text[start:end].split("\n")
    fresh = audit_suite.claims_markdown(table, "").split("\n")
    for line in fresh:
        if not line.startswith("| ") or line.startswith("| estimator |"):
            continue
        key = line.split(" | ")[:2]
        hits = [i for i, old in enumerate(block) if old.split(" | ")[:2] == key]
        if len(hits) != 1:
            raise SystemExit(f"{path}: {len(hits)} lines for the row {key}: run `make audit`")
        block[hits[0]] = line
    head = next(i for i, line in enumerate(block) if line.startswith("Produced by"))
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, check=False).stdout.strip() or "unknown"
    rows = "; ".join(f"{e} [{o}]" for e, o in zip(table["estimator"], table["option"],
                                                   strict=True))
    block[head] += (f" Recomputed alone since, on {audit_suite.machine_line()} at commit "
                    f"{commit} ({minutes:.1f} min, load {load:.1f} at the end; the same sizes "
                    f"and seed, `python -m bench.privacy_claims --only`): {rows}.")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text[:start] + "\n".join(block) + text[end:])


if __name__ == "__main__":
    sys.exit(main())
