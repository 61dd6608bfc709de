"""`make audit`: run the adversarial audit suite with many samples and write the privacy-claims
table into docs/privacy.md (between its generated-block markers).

Usage: .venv/bin/python bench/privacy_claims.py [--whole N] [--mechanism M] [--out PATH]
"""

import argparse
import os
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
    args = parser.parse_args()
    start = time.perf_counter()
    results = audit_suite.run_suite(args.whole, args.mechanism, processes=os.cpu_count() or 1)
    table = audit_suite.claims_table(results)
    minutes = (time.perf_counter() - start) / 60
    load = os.getloadavg()[0]
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


if __name__ == "__main__":
    sys.exit(main())
