"""What the crash watch costs a coroutine app that throws and catches many exceptions of its own (docs/design.md §3.11).

    python bench/coroutine_noise.py

An uncaught exception breakpoint also asks the VM for *caught* throwables once coroutines are loaded (its
crash watch, :mod:`jdwp.debugger.requests.exceptions`): each comes as an event that holds its thread until the
engine has judged its catch location (one signature lookup per catching class, then none) and let it go.
Runs ``com.example.ktcrash.CrashKt`` (fixtures/coroutines) with its ``noise`` command — 20,000
``Integer.parseInt`` failures caught inside a coroutine — three times each: without a debugger, with a
debugger and no breakpoint, and with the default exception breakpoint (uncaught, every throwable). Prints
the program's own timings (medians); asserts nothing.
"""

from __future__ import annotations

import re
import statistics
import sys
import tempfile
from pathlib import Path

import common  # noqa: F401 - puts src/ and tests/ on sys.path
import trio

import jdwp
from jdwp.debugger import open_debugger
from support.coroutines import compile_coroutines, coroutines_classpath
from support.jvm import Debuggee

MAIN = "com.example.ktcrash.CrashKt"
RUNS = 3
TOOK = re.compile(r"^noise took (\d+) ms$")


def noise(debuggee: Debuggee) -> int:
    start = len(debuggee.lines)
    debuggee.send("noise")
    return int(debuggee.wait_for_line(TOOK, after=start, timeout=600).group(1))


async def attached(classpath: str, breakpoint: bool) -> list[int]:
    debuggee = Debuggee(classpath, MAIN)
    try:
        debuggee.wait_for_line("^ready$", timeout=30)
        async with jdwp.open_jdwp_tcp("127.0.0.1", debuggee.port) as vm, open_debugger(vm) as debugger:
            if breakpoint:
                await debugger.set_exception_breakpoint()
            return [await trio.to_thread.run_sync(noise, debuggee) for _ in range(RUNS)]
    finally:
        debuggee.stop()


def alone(classpath: str) -> list[int]:
    debuggee = Debuggee(classpath, MAIN)
    try:
        debuggee.wait_for_line("^ready$", timeout=30)
        return [noise(debuggee) for _ in range(RUNS)]
    finally:
        debuggee.stop()


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        classpath = coroutines_classpath(compile_coroutines(Path(tmp)))
        rows = {"agent, no debugger": alone(classpath),
                "debugger, no breakpoint": trio.run(attached, classpath, False),
                "default exception breakpoint": trio.run(attached, classpath, True)}
    print(f"\n20,000 caught exceptions in a coroutine ({RUNS} runs each, median ms)")
    for name, times in rows.items():
        print(f"{name:<32}{statistics.median(times):>8}   {times}")


if __name__ == "__main__":
    sys.exit(main())
