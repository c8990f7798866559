"""The differential test against jdb (issues 23 and 38), a small set: breakpoints in kotlinc's, Guava's,
Gson's and javac's real classes that a run hits (javac's with our default step filters, which exclude its
``com.sun.*``, against jdb's ``exclude none``: a step that starts in filtered code runs without filters), the
stop's line and the next three step-overs' lines, through pyjdwp's engine and through ``jdb -attach`` on fresh
JVMs — they must agree; and step-overs of Kotlin inline library calls (``withLock``, ``select``) against jdb's
landings with IntelliJ's rule applied; in Gson, frame 0's primitive and string variables as jdb's ``locals``
prints them. ``bench/jdb_diff.py`` runs a few dozen
(the figure in docs/reliability.md); how cases are chosen and traced: ``tests/support/jdb_diff.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support.jdb_diff import (
    GSON_ENTRIES,
    GSON_VALUE_CASES,
    GUAVA_ENTRIES,
    JAVAC_ENTRIES,
    KOTLINC_ENTRIES,
    PIPELINE_PROBES,
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
from support.real_programs import have_jdb


@pytest.mark.live
@pytest.mark.parametrize(("program", "walk", "want"), [("kotlinc", 40, 6), ("guava", 40, 6), ("javac", 40, 8)])
def test_lines_and_steps_agree_with_jdb(program: str, walk: int, want: int, tmp_path: Path) -> None:
    jdb = have_jdb()
    if program == "kotlinc":
        start, entries, prefix = kotlinc_start(tmp_path), KOTLINC_ENTRIES[:1] + KOTLINC_ENTRIES[2:], "org.jetbrains."
    elif program == "guava":
        start, entries, prefix = guava_start(tmp_path), GUAVA_ENTRIES, "com.google.common."
    else:  # inside javac (com.sun.*, filtered): our default filters against jdb's `exclude none` (IntelliJ's rule)
        start, entries, prefix = javac_start(tmp_path), JAVAC_ENTRIES, "com.sun.tools.javac."
    cases = discover_cases(start, entries, prefix, walk=walk, want=want)
    assert len(cases) >= 3, cases
    outcome = compare(start, jdb, cases, exclude_none=program == "javac")
    assert len(outcome.compared) >= 3, outcome.report()
    assert outcome.agreed == outcome.compared, outcome.report()


@pytest.mark.live
def test_gson_lines_steps_and_values_agree_with_jdb(tmp_path: Path) -> None:
    """Gson's real code (Debian's gson.jar) reading and writing fixtures/gson's graph: lines and step-overs as
    above, and at each case's stop frame 0's primitive and string variables as jdb's ``locals`` prints them."""
    jdb = have_jdb()
    start = gson_start(tmp_path)
    cases = discover_cases(start, GSON_ENTRIES, "com.google.gson.", walk=40, want=8)
    assert len(cases) >= 3, cases
    outcome = compare(start, jdb, cases)
    assert len(outcome.compared) >= 3, outcome.report()
    assert outcome.agreed == outcome.compared, outcome.report()
    inside = [c for c in cases if c.class_name.startswith("com.google.gson.") and c not in GSON_VALUE_CASES]
    values = compare_values(start, jdb, GSON_VALUE_CASES + inside)
    assert all(c in values.compared for c in GSON_VALUE_CASES) and values.variables >= 9, values.report()
    assert not values.differing, values.report()


def test_kotlin_inline_library_step_overs_agree_with_intellijs_rule_on_jdbs_landings(tmp_path: Path) -> None:
    """A step over ``mutex.withLock {`` and ``select<String> {`` (kotlinx-coroutines' inline functions) through
    our engine, against jdb's ``next``s (``exclude none``) with IntelliJ's rule applied: the first landing on a
    line of the user's file outside the statement."""
    outcome = compare_inline(pipeline_start(tmp_path), have_jdb(), PIPELINE_PROBES, "run")
    assert outcome.agreed == outcome.cases, outcome.report()
