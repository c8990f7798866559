"""The differential test against jdb, at scale: a few dozen breakpoints in kotlinc's, Guava's, Gson's and javac's
real classes that a run hits (javac's, in ``com.sun.*``, with our default step filters against jdb's ``exclude
none``: IntelliJ's rule where a step starts in filtered code); the stop's line and the lines of the next three
step-overs, through pyjdwp's engine and through ``jdb -attach``; in Gson, also frame 0's primitive and string
variables at each stop as jdb's ``locals`` prints them. Prints ``K/N agree`` per program and in all, and every
case that differs.

    python bench/jdb_diff.py [--walk 150] [--cases 24] [--programs kotlinc,guava,gson,javac,pipeline]

How cases are chosen and traced: ``tests/support/jdb_diff.py`` (the live test ``tests/live/test_jdb_diff_live.py``
runs a smaller set). Needs OpenJDK 17 (java, javac and its jdk.compiler, jdb), kotlinc, Debian's guava.jar and
gson.jar (``scripts/test`` installs them). Asserts nothing; the figure goes into docs/reliability.md.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import common
from reliability_doc import machine, write_section

from support.jdb_diff import (
    GSON_ENTRIES,
    GSON_VALUE_CASES,
    GUAVA_ENTRIES,
    JAVAC_ENTRIES,
    KOTLINC_ENTRIES,
    PIPELINE_PROBES,
    Outcome,
    ValueOutcome,
    compare,
    compare_inline,
    compare_values,
    discover_cases,
    gson_start,
    guava_start,
    javac_start,
    kotlinc_start,
    pipeline_start,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--walk", type=int, default=150, help="step-intos from each entry line to find cases")
    parser.add_argument("--cases", type=int, default=24, help="cases per program (about)")
    parser.add_argument("--programs", default="kotlinc,guava,gson,javac,pipeline",
                        help="which programs, comma-separated (--write needs them all)")
    parser.add_argument("--write", action="store_true", help="write the figure into docs/reliability.md")
    args = parser.parse_args()
    _, _, jdb = common.java_tools()
    outcomes: list[tuple[str, Outcome]] = []
    values: ValueOutcome | None = None
    with tempfile.TemporaryDirectory(prefix="jdb-diff-") as scratch:
        work = Path(scratch)
        programs = [("kotlinc", kotlinc_start(work), KOTLINC_ENTRIES, "org.jetbrains.kotlin."),
                    ("guava", guava_start(work), GUAVA_ENTRIES, "com.google.common."),
                    ("gson", gson_start(work), GSON_ENTRIES, "com.google.gson."),
                    ("javac", javac_start(work), JAVAC_ENTRIES, "com.sun.tools.javac.")]
        wanted = set(args.programs.split(","))
        if args.write and wanted != {name for name, *_ in programs} | {"pipeline"}:
            parser.error("--write needs every program")
        for name, start, entries, prefix in programs:
            if name not in wanted:
                continue
            began = time.monotonic()
            cases = discover_cases(start, entries, prefix, walk=args.walk, want=args.cases)
            outcome = compare(start, jdb, cases, exclude_none=name == "javac")
            outcomes.append((name, outcome))
            print(f"{name}: {outcome.report()}  ({len(cases)} cases chosen, {time.monotonic() - began:.0f} s)")
            if name == "gson":  # values too: at each case inside Gson, and at the fixed ones with many variables
                inside = [c for c in cases if c.class_name.startswith(prefix) and c not in GSON_VALUE_CASES]
                values = compare_values(start, jdb, GSON_VALUE_CASES + inside)
                print(f"gson values: {values.report()}")
        inline = None
        if "pipeline" in wanted:  # Kotlin inline library calls: one step over each, against IntelliJ's rule
            inline = compare_inline(pipeline_start(work), jdb, PIPELINE_PROBES, "run")
            print(f"pipeline (Kotlin inline calls): {inline.report()}")
    agreed = sum(len(o.agreed) for _, o in outcomes)
    compared = sum(len(o.compared) for _, o in outcomes)
    print(f"all: {agreed}/{compared} agree")
    if args.write and inline is not None:
        write_section("jdb_diff", section(outcomes, agreed, compared, args, values) + inline_section(inline))


def inline_section(outcome: Outcome) -> str:
    rows = [f"| `{p}` | {outcome.engine.get(p)} | {outcome.jdb.get(p)} |" for p in outcome.cases]
    return "\n".join([
        "",
        "### Kotlin inline library calls, against IntelliJ's rule",
        "",
        "fixtures/coroutines' `Pipeline.kt` on kotlinx-coroutines 1.0.1: one step over each statement that calls a "
        "library inline function, through our engine (default filters), against jdb's `next`s (`exclude none`) "
        "with IntelliJ's rule applied: the first landing on a line of the user's file outside the statement "
        "(jdb stops in the inlined `Mutex.kt`/`Select.kt` lines and the lambda's lines on the way).",
        "",
        "| statement | pyjdwp | jdb + IntelliJ's rule |",
        "|---|---|---|",
        *rows,
        "",
        f"**{len(outcome.agreed)}/{len(outcome.cases)} agree.**",
    ]) + "\n"


def section(outcomes: list[tuple[str, Outcome]], agreed: int, compared: int, args: argparse.Namespace,
            values: ValueOutcome | None = None) -> str:
    rows = [f"| {name} | {len(o.cases)} | {len(o.compared)} | {len(o.agreed)} |" for name, o in outcomes]
    differing = [f"- {name} `{case}`: pyjdwp {o.engine.get(case)}, jdb {o.jdb.get(case)}"
                 for name, o in outcomes for case in o.differing]
    return "\n".join([
        "## Lines and steps against jdb",
        "",
        f"`python bench/jdb_diff.py --walk {args.walk} --cases {args.cases} --write` ({machine()}).",
        "",
        "Breakpoints in kotlinc's own classes (kotlinc 1.3.31 compiling a small file; Debian's kotlin-compiler.jar), "
        "Guava's (Debian's guava.jar, called by fixtures/guava), Gson's (Debian's gson.jar, called by fixtures/gson) "
        "and javac's (JDK 17's `com.sun.tools.javac` "
        "compiling fixtures/javac; our default step filters exclude `com.sun.*`, so a step there starts in "
        "filtered code and runs without them, as IntelliJ's: jdb runs with `exclude none`), chosen from lines a run "
        "stops at (step-intos from a few entry lines, through our engine) whose breakpoint binds at one code index. "
        "Per case: the "
        "breakpoint's stop and the next three step-overs, `Class.method:line`, through pyjdwp's engine and through "
        "`jdb -attach` on fresh JVMs; a case agrees when all four places are equal. Compared: the cases either tool "
        "reached (a case whose line the steps of an earlier case ran is spent in both).",
        "",
        "| program | cases chosen | compared | agree |",
        "|---|---|---|---|",
        *rows,
        "",
        f"**{agreed}/{compared} agree.**" + ("" if not differing else " Differing:"),
        *differing,
        *([] if not differing else [
            "",
            "Why they differ, by design (docs/tools.md, step_debugger): our step filters are on, as IntelliJ's are. "
            "A step that lands in a synthetic method (the bridge `compare(Object, Object)` javac writes for "
            "`NaturalOrdering.compare(Comparable, Comparable)`, at the class's line) steps on to the real caller; "
            "jdb stops in the bridge. "
            "jdb's own exclusions (`java.*`, `javax.*`, `sun.*`, `com.sun.*`, `jdk.*`) we share."]),
        *([] if values is None else [
            "",
            f"Values in Gson: at each case's first hit inside Gson (and two fixed lines of `JsonReader` with many "
            f"variables), frame 0's primitive and string variables through our engine and jdb's `locals`: "
            f"**{len(values.compared) - len(values.differing)}/{len(values.compared)} stops agree on "
            f"{values.variables} variables.**",
            *[f"- `{case}`: pyjdwp {values.engine.get(case)}, jdb {values.jdb.get(case)}"
              for case in values.differing]]),
        "",
        "The CI-sized version is `tests/live/test_jdb_diff_live.py` (6 to 8 cases a program, all must agree; "
        "Gson's values too).",
    ]) + "\n"


if __name__ == "__main__":
    main()
