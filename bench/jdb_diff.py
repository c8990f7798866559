"""The differential test against jdb, at scale: a few dozen breakpoints in kotlinc's and Guava's real classes
that a run hits; the stop's line and the lines of the next three step-overs, through pyjdwp's engine and through
``jdb -attach``. Prints ``K/N agree`` per program and in all, and every case that differs.

    python bench/jdb_diff.py [--walk 150] [--cases 24]

How cases are chosen and traced: ``tests/support/jdb_diff.py`` (the live test ``tests/live/test_jdb_diff_live.py``
runs a smaller set). Needs OpenJDK 17 (java, javac, jdb), kotlinc and Debian's guava.jar (``scripts/test``
installs them). Asserts nothing; the figure goes into docs/reliability.md.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import common

from support.jdb_diff import (
    GUAVA_ENTRIES,
    KOTLINC_ENTRIES,
    Outcome,
    compare,
    discover_cases,
    guava_start,
    kotlinc_start,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--walk", type=int, default=150, help="step-intos from each entry line to find cases")
    parser.add_argument("--cases", type=int, default=24, help="cases per program (about)")
    args = parser.parse_args()
    _, _, jdb = common.java_tools()
    outcomes: list[tuple[str, Outcome]] = []
    with tempfile.TemporaryDirectory(prefix="jdb-diff-") as scratch:
        work = Path(scratch)
        programs = [("kotlinc", kotlinc_start(work), KOTLINC_ENTRIES, "org.jetbrains.kotlin."),
                    ("guava", guava_start(work), GUAVA_ENTRIES, "com.google.common.")]
        for name, start, entries, prefix in programs:
            began = time.monotonic()
            cases = discover_cases(start, entries, prefix, walk=args.walk, want=args.cases)
            outcome = compare(start, jdb, cases)
            outcomes.append((name, outcome))
            print(f"{name}: {outcome.report()}  ({len(cases)} cases chosen, {time.monotonic() - began:.0f} s)")
    agreed = sum(len(o.agreed) for _, o in outcomes)
    compared = sum(len(o.compared) for _, o in outcomes)
    print(f"all: {agreed}/{compared} agree")
    sys.exit(0)


if __name__ == "__main__":
    main()
