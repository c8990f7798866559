"""How many exception stops a catch-everything exception breakpoint makes on a tiny OpenJDK program.

    python bench/exception_noise.py

Runs ``com.example.debuggee.Throws`` (fixtures/java) with ``suspend=y``, sets one exception breakpoint
without a class filter, ``caught`` and ``uncaught`` (what ``set_debugger_exception_breakpoint`` with
``caught: true`` and no ``exceptionClass`` does), and resumes every stop, counting them, through four
phases: the start-up until ``main`` prints ``ready``; the ``caught`` command (the program throws and
catches one exception of its own); the ``framework`` command (logging, a date, a formatted number, a
URI, a missing resource bundle that the program catches); the ``late-isolated`` command (a new
URLClassLoader loads a class and calls it by reflection, and the class throws and catches one
exception). Each stop is sorted by whether it was thrown in the program's own code or in the JDK
(``java.``, ``javax.``, ``jdk.``, ``sun.``), and the JDK's exception types are listed. Then the same
phases run with a class filter (``java.lang.IllegalArgumentException``), and with the tool's default
(``uncaught`` only, no filter), for comparison. Prints a table;
asserts nothing.
"""

from __future__ import annotations

import collections
import functools
import sys
import tempfile
from pathlib import Path

import common  # noqa: F401 - puts src/ and tests/ on sys.path
import trio

import jdwp
from jdwp.debugger import Debugger, Stopped, open_debugger
from support.jvm import Debuggee, compile_fixtures

PROGRAM = "com.example.debuggee.Throws"
JDK = ("java.", "javax.", "jdk.", "sun.")
QUIET = 1.0  # seconds without a stop after the phase's last line: the phase is over (a bench, not a test)


async def phase(debugger: Debugger, debuggee: Debuggee, command: str | None, line: str) -> collections.Counter[str]:
    """Resume every stop until the program printed ``line`` and nothing stopped for :data:`QUIET` s."""
    seen: collections.Counter[str] = collections.Counter()
    start = len(debuggee.lines)
    if command is not None:
        debuggee.send(command)
    done = trio.Event()

    def printed() -> None:
        debuggee.wait_for_line(f"^{line}$", after=start, timeout=60)

    async def watch() -> None:
        await trio.to_thread.run_sync(printed)
        done.set()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(watch)
        while True:
            quiet = done.is_set()  # the line was printed before this wait began
            with trio.move_on_after(QUIET):
                event = await debugger.events.receive()
                if isinstance(event, Stopped):
                    stop = event.stop
                    if stop.exception is not None:
                        where = stop.exception.throw_location
                        own = where is not None and not where.class_name.startswith(JDK)
                        seen["program" if own else f"jdk {stop.exception.type}"] += 1
                    await debugger.resume(stop.stop_id)
                continue
            if quiet:
                nursery.cancel_scope.cancel()
                return seen


async def run(classes: Path, exception_class: str | None, caught: bool = True) -> dict[str, collections.Counter[str]]:
    debuggee = Debuggee(classes, PROGRAM, suspend=True)
    try:
        async with jdwp.open_jdwp_tcp("127.0.0.1", debuggee.port) as vm, open_debugger(vm) as debugger:
            await debugger.set_exception_breakpoint(exception_class, caught=caught, uncaught=True)
            # The vm_start stop is the first event: the start-up phase resumes it with the others.
            return {"start-up": await phase(debugger, debuggee, None, "ready"),
                    "caught": await phase(debugger, debuggee, "caught", "done caught"),
                    "framework": await phase(debugger, debuggee, "framework", "done framework"),
                    "late-isolated": await phase(debugger, debuggee, "late-isolated", "done late-isolated")}
    finally:
        debuggee.stop()


def report(title: str, phases: dict[str, collections.Counter[str]]) -> None:
    print(f"\n{title}")
    print(f"{'phase':<15}{'stops':>7}{'program':>9}{'jdk':>6}  jdk types")
    for name, seen in phases.items():
        jdk = {kind[4:]: n for kind, n in seen.items() if kind.startswith("jdk ")}
        types = ", ".join(f"{t} ×{n}" for t, n in sorted(jdk.items(), key=lambda kv: -kv[1]))
        print(f"{name:<15}{sum(seen.values()):>7}{seen['program']:>9}{sum(jdk.values()):>6}  {types}")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        classes = compile_fixtures(Path(tmp))
        report("caught + uncaught, no class filter", trio.run(functools.partial(run, classes, None)))
        report("caught + uncaught, exceptionClass java.lang.IllegalArgumentException",
               trio.run(functools.partial(run, classes, "java.lang.IllegalArgumentException")))
        report("uncaught only (the default), no class filter",
               trio.run(functools.partial(run, classes, None, False)))


if __name__ == "__main__":
    sys.exit(main())
