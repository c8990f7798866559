"""Hostile containers (docs/design.md §2.7) on a real OpenJDK 17 JVM: pages and key lookups of 1,000,000-entry
maps and sets, a 1,000,000-element ``Object[]``/``ArrayList`` and a 10,000,000-element ``int[]``
(``com.example.hostile.BigContainers``, run with ``-Xmx1g``), with the app's and the session's health after.

    python bench/hostile_containers.py                 # every row, printed
    python bench/roundtrips.py                         # prints the HashMap / ConcurrentHashMap page rows
    python bench/fault_matrix.py --hostile-containers  # every row, written to docs/reliability.md

Each row is one read through the engine (what ``get_debugger_object`` and ``evaluate_debugger_expression``
call) straight on loopback (a relaying proxy would cost more than the VM: about 250 µs a packet): the calls it
took (a deep hash map page answers "not located yet" after :data:`jdwp.debugger.reading.hashscan.PAGE_BUDGET` and is
asked again, the walk kept for the stop), the writes the client sent them in (at least the round trips:
commands sent together from several tasks are several writes in one round trip; bench/roundtrips.py's proxy
counts rounds), the commands and the wall time. Asserts nothing about time.
"""

from __future__ import annotations

import dataclasses
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import trio

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import jdwp
from jdwp.debugger import Debugger, Stopped, open_debugger
from support.jvm import Debuggee, compile_fixtures, find_mark

BIG = "com.example.hostile.BigContainers"
#: (label, local, offset) of the page rows; the first four are bench/roundtrips.py's.
PAGES = (("HashMap, 1,000,000 entries", "hashMap", 0), ("", "hashMap", 900_000), ("", "hashMap", 900_100),
         ("ConcurrentHashMap, 1,000,000 entries", "concurrentMap", 0), ("", "concurrentMap", 900_000),
         ("", "concurrentMap", 900_100),
         ("HashSet, 1,000,000 elements", "hashSet", 0), ("", "hashSet", 900_000),
         ("LinkedHashMap, 1,000,000 entries", "linkedMap", 0), ("", "linkedMap", 900_000),
         ("Object[], 1,000,000 elements", "objects", 0), ("", "objects", 900_000),
         ("ArrayList, 1,000,000 elements", "list", 0), ("", "list", 900_000),
         ("int[], 10,000,000 elements", "ints", 0), ("", "ints", 9_000_000))
LOOKUPS = ('hashMap["k69999"]', 'linkedMap["k999999"]', 'concurrentMap["k123456"]', "byNumber[42]")


@dataclasses.dataclass
class Row:
    label: str
    calls: int
    writes: int
    commands: int
    ms: float
    answer: str


@dataclasses.dataclass
class Health:
    process_alive: bool
    hs_err: bool
    session_alive: bool


async def measure(classes: Path, pages: tuple[tuple[str, str, int], ...] = PAGES,
                  lookups: tuple[str, ...] = LOOKUPS) -> tuple[list[Row], Health]:
    with tempfile.TemporaryDirectory() as cwd:
        debuggee = Debuggee(classes, BIG, java=shutil.which("java") or "java", extra_args=("-Xmx1g",),
                            cwd=Path(cwd))
        try:
            debuggee.wait_for_line("^ready$", timeout=180)
            async with jdwp.open_jdwp_tcp("127.0.0.1", debuggee.port) as vm, open_debugger(vm) as debugger:
                rows, session_alive = await _rows(debugger, pages, lookups)
                await debugger.detach()
            health = Health(debuggee.process.poll() is None, bool(list(Path(cwd).glob("hs_err*"))), session_alive)
        finally:
            debuggee.stop()
    return rows, health


async def _rows(debugger: Debugger, pages: tuple[tuple[str, str, int], ...],
                lookups: tuple[str, ...]) -> tuple[list[Row], bool]:
    await debugger.set_breakpoint(BIG, find_mark("big-containers")[1])
    event = await debugger.events.receive()
    while not isinstance(event, Stopped):
        event = await debugger.events.receive()
    stop = event.stop
    frame = (await debugger.stack(stop.stop_id, stop.thread_id, limit=1)).frames[0].frame_id
    by_name = {local.name: local for local in (await debugger.locals(stop.stop_id, frame)).locals}
    rows = []
    label = ""
    for written, name, offset in pages:
        label = written or label
        before = debugger.vm.statistics()
        start = time.perf_counter()
        calls, page = 0, None
        while calls < 50:
            calls += 1
            page = await debugger.object(stop.stop_id, by_name[name].object_id, offset=offset, limit=100)
            if page.note is None or "not located yet" not in page.note:
                break
        assert page is not None
        items: Any = page.entries if page.entries is not None else page.elements
        rows.append(_row(f"{label}: page of 100 at {offset:,}", calls, debugger, before, start,
                         f"{len(items or ())} items of {page.total:,}"))
    for expression in lookups:
        before = debugger.vm.statistics()
        start = time.perf_counter()
        summary = await debugger.evaluate(stop.stop_id, frame, expression)
        rows.append(_row(f"lookup {expression}", 1, debugger, before, start,
                         f"{summary.kind} {summary.value or summary.runtime_type}"))
    again = await debugger.locals(stop.stop_id, frame)  # the session still answers
    await debugger.resume(stop.stop_id)
    return rows, bool(again.locals)


def _row(label: str, calls: int, debugger: Debugger, before: dict[str, int], start: float, answer: str) -> Row:
    after = debugger.vm.statistics()
    return Row(label, calls, after["writes"] - before["writes"], after["requests"] - before["requests"],
               (time.perf_counter() - start) * 1000, answer)


def table(rows: list[Row], health: Health) -> str:
    lines = ["| read | calls | writes (≥ round trips) | commands | ms | answer |", "|---|---:|---:|---:|---:|---|"]
    lines += [f"| {r.label} | {r.calls} | {r.writes:,} | {r.commands:,} | {r.ms:,.0f} | {r.answer} |" for r in rows]
    lines += ["", f"After every read: the JVM process {'alive' if health.process_alive else 'DEAD'}, "
              f"{'an hs_err file written' if health.hs_err else 'no hs_err file'}, the session "
              f"{'answering' if health.session_alive else 'NOT answering'}."]
    return "\n".join(lines) + "\n"


def main() -> None:
    if not shutil.which("java") or not shutil.which("javac"):
        sys.exit("bench/hostile_containers.py needs java and javac (OpenJDK 17) on PATH")
    with tempfile.TemporaryDirectory() as tmp:
        classes = compile_fixtures(Path(tmp), javac=shutil.which("javac") or "javac")
        rows, health = trio.run(measure, classes)
    print(table(rows, health))


if __name__ == "__main__":
    main()
