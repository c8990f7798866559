"""The library's method tracer (``jdwp.open_tracer``) side by side with the same tracer written on JDI.

    python bench/tracing.py                  # 3000 rounds: 6000 calls and 6000 returns per run
    python bench/tracing.py --rounds 1000 --runs 3

The debuggee is ``com.example.debuggee.Shop`` (fixtures/java) with ``-Drounds=N``: N rounds of ``add(String,
int)`` and ``sell(String, int, double)`` as fast as it goes, started with ``suspend=y``. Each tracer attaches,
asks for method entry (the event's thread suspended while the arguments are read) and method exit (nothing
suspended, the return value in the event) on ``Shop``, resumes the VM and counts until it has seen every
call: traced calls per second, from the resume to the last call.

Two more ways bound it, made of the same requests: *reads + release only* sends each entry's ``GetValues`` and
its release and nothing else (the least any tracer that reads arguments can do), *suspend + release only* reads
nothing (the VM's suspension and resumption alone).

The JDI side is ``bench/java/JdiTrace.java``, compiled here with javac: ``frame(0).getArgumentValues()`` on
each entry, ``returnValue()`` on each exit, ``EventSet.resume()``. Runs alternate (JDI, pyjdwp, JDI, …) on
fresh JVMs; the table gives each run and the median ratio. Goal (issue 35): pyjdwp ≥ 1.5 × JDI.
"""

from __future__ import annotations

import argparse
import math
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import trio
from common import REPO, Table, java_env, java_tools, machine

import jdwp
from jdwp.frame_guess import GENERATION
from jdwp.protocol.commands import StackFrame, ThreadReference
from jdwp.protocol.commands.events import ClassMatch, Composite, MethodEntryEvent
from jdwp.protocol.commands.threads import FrameGetValuesOut, FramesOut, SlotRequest, ThreadOut
from jdwp.protocol.constants import EventKind, SuspendPolicy
from jdwp.protocol.types import FrameId
from support.jvm import Debuggee, compile_fixtures

SHOP = "com.example.debuggee.Shop"


async def trace_with_pyjdwp(port: int, calls: int) -> float:
    """Seconds from the resume to the last of ``calls`` traced calls."""
    async with jdwp.open_jdwp_tcp("127.0.0.1", port) as vm, jdwp.open_tracer(vm, [SHOP]) as tracer:
        start = time.perf_counter()
        await vm.resume()
        seen = 0
        async for event in tracer:
            if event.kind == "call":
                seen += 1
                if seen == calls:
                    break
        seconds = time.perf_counter() - start
    return seconds


async def suspend_and_release(port: int, calls: int) -> float:
    """The floor of any tracer that reads arguments: the same requests, each entry's thread suspended and
    released at once from the reader (``JdwpClient.handle_events``), nothing read. Seconds to ``calls`` calls."""
    async with jdwp.open_jdwp_tcp("127.0.0.1", port) as vm:
        for kind, policy in ((EventKind.METHOD_ENTRY, SuspendPolicy.EVENT_THREAD),
                             (EventKind.METHOD_EXIT_WITH_RETURN_VALUE, SuspendPolicy.NONE)):
            await vm.event_request.set(kind, policy, [ClassMatch(SHOP)])
        seen = [0]
        done = trio.Event()

        def take(composite: Composite | None) -> None:
            if composite is None:
                done.set()
                return
            event = composite.events[0]
            if composite.suspend_policy == SuspendPolicy.EVENT_THREAD and isinstance(event, MethodEntryEvent):
                vm.send_now(ThreadReference.Resume, ThreadOut(event.thread), on_error=lambda _: None)
                seen[0] += 1
                if seen[0] == calls:
                    done.set()

        vm.handle_events(take)
        start = time.perf_counter()
        await vm.resume()
        await done.wait()
        return time.perf_counter() - start


async def read_and_release(port: int, calls: int) -> float:
    """The bound of any tracer that reads each call's arguments: the same requests, and for each entry nothing
    but ``StackFrame.GetValues`` of its arguments and ``ThreadReference.Resume``. Frame 0's ID is guessed from
    the thread's last one (``ThreadReference.Frames`` for a thread's first entry, or when the VM refuses a
    guess); once a thread's guess has held, its release goes out right after the read, as the library's tracer
    sends it. No trace events made, no order kept. Seconds to ``calls`` calls."""
    async with jdwp.open_jdwp_tcp("127.0.0.1", port) as vm:
        for kind, policy in ((EventKind.METHOD_ENTRY, SuspendPolicy.EVENT_THREAD),
                             (EventKind.METHOD_EXIT_WITH_RETURN_VALUE, SuspendPolicy.NONE)):
            await vm.event_request.set(kind, policy, [ClassMatch(SHOP)])
        slots: dict[tuple[int, int], list[SlotRequest]] = {}
        last: dict[int, int] = {}  # thread → frame 0's ID at its last entry
        seen = [0]
        done = trio.Event()
        unknown_send, unknown = trio.open_memory_channel[MethodEntryEvent](math.inf)

        def read(event: MethodEntryEvent, guess: int | None) -> None:
            thread, asked = event.thread, slots[(event.location.class_id, event.location.method_id)]
            if guess is None:
                vm.submit([(ThreadReference.Frames, FramesOut(thread, 0, 1))],
                          lambda answers: read(event, answers[0].frames[0].frame_id))
                return

            steady = last.get(thread) == guess - GENERATION

            def values_in(answers: list[Any] | jdwp.JdwpError) -> None:
                if isinstance(answers, jdwp.JdwpError):
                    return
                if isinstance(answers[0], jdwp.JdwpError):
                    if steady:
                        sys.exit("a guess was refused after its thread was released")
                    return read(event, None)
                last[thread] = guess
                if not steady:
                    vm.send_now(ThreadReference.Resume, ThreadOut(thread), on_error=lambda _: None)
                seen[0] += 1
                if seen[0] == calls:
                    done.set()

            vm.submit([(StackFrame.GetValues, FrameGetValuesOut(thread, FrameId(guess), asked))], values_in)
            if steady:  # the guess has held for this thread: its release goes out with the read
                last[thread] = guess
                vm.send_now(ThreadReference.Resume, ThreadOut(thread), on_error=lambda _: None)

        def take(composite: Composite | None) -> None:
            if composite is None:
                done.set()
                return
            event = composite.events[0]
            if isinstance(event, MethodEntryEvent):
                if (event.location.class_id, event.location.method_id) not in slots:
                    unknown_send.send_nowait(event)
                else:
                    previous = last.get(event.thread)
                    read(event, None if previous is None else previous + GENERATION)

        async def learn() -> None:  # a method's first entry: its argument slots, read once
            async for event in unknown:
                key = (event.location.class_id, event.location.method_id)
                if key not in slots:
                    layout = await vm.stack_frame.argument_layout(*key)
                    slots[key] = layout.requests()
                read(event, None)

        vm.handle_events(take)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(learn)
            start = time.perf_counter()
            await vm.resume()
            await done.wait()
            seconds = time.perf_counter() - start
            nursery.cancel_scope.cancel()
        return seconds


def shop(classes: Path, rounds: int, threads: int) -> Debuggee:
    return Debuggee(classes, SHOP, suspend=True, extra_args=(f"-Drounds={rounds}", f"-Dthreads={threads}"))


def run_pyjdwp(classes: Path, rounds: int, threads: int) -> tuple[float, float]:
    """Traced calls per second, and this process's CPU seconds per traced call (its call and its return)."""
    calls = 2 * rounds * threads
    debuggee = shop(classes, rounds, threads)
    try:
        cpu = time.process_time()
        rate = calls / trio.run(trace_with_pyjdwp, debuggee.port, calls)
        return rate, (time.process_time() - cpu) / calls
    finally:
        debuggee.stop()


def run_bare(way: Callable[[int, int], Awaitable[float]], classes: Path, rounds: int, threads: int) -> float:
    """Calls per second of a bare client's ``way`` (:func:`read_and_release`, :func:`suspend_and_release`)."""
    calls = 2 * rounds * threads
    debuggee = shop(classes, rounds, threads)
    try:
        return calls / trio.run(way, debuggee.port, calls)
    finally:
        debuggee.stop()


def run_jdi(classes: Path, tracer: Path, rounds: int, threads: int) -> float:
    want = 2 * rounds * threads
    debuggee = shop(classes, rounds, threads)
    try:
        out = subprocess.run(["java", "-cp", str(tracer), "JdiTrace", str(debuggee.port), SHOP, str(want)],
                             capture_output=True, text=True, timeout=600, env=java_env(), check=True).stdout
    finally:
        debuggee.stop()
    words = out.split()
    calls, seconds = int(words[words.index("calls") + 1]), float(words[words.index("seconds") + 1])
    if calls != want:
        sys.exit(f"JdiTrace saw {calls} calls, not {want}: {out}")
    return calls / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3000, help="rounds of each debuggee thread (2 calls each)")
    parser.add_argument("--runs", type=int, default=3, help="runs of each tracer, for each program")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 4],
                        help="the programs: one per count of threads calling at once")
    args = parser.parse_args()
    _, javac, _ = java_tools()
    with tempfile.TemporaryDirectory() as tmp:
        classes = compile_fixtures(Path(tmp) / "classes", javac=javac)
        tracer = Path(tmp) / "jdi"
        subprocess.run([javac, "-d", str(tracer), str(REPO / "bench" / "java" / "JdiTrace.java")], check=True)
        for threads in args.threads:
            print(measure(classes, tracer, args.rounds, threads, args.runs).text(), flush=True)


def measure(classes: Path, tracer: Path, rounds: int, threads: int, runs: int) -> Table:
    jdi: list[float] = []
    ours: list[float] = []
    cpu: list[float] = []
    floor: list[float] = []
    bound: list[float] = []
    for _ in range(runs):
        jdi.append(run_jdi(classes, tracer, rounds, threads))
        rate, seconds = run_pyjdwp(classes, rounds, threads)
        ours.append(rate)
        cpu.append(seconds)
        bound.append(run_bare(read_and_release, classes, rounds, threads))
        floor.append(run_bare(suspend_and_release, classes, rounds, threads))
    ratios = [o / j for o, j in zip(ours, jdi, strict=True)]
    shape = "one thread" if threads == 1 else f"{threads} threads calling at once"
    table = Table(f"Method tracing, {shape}: traced calls per second ({2 * rounds * threads} calls a run, "
                  "arguments and return values)", ["run", "JDI (JdiTrace.java)", "pyjdwp (jdwp.open_tracer)",
                                                   "pyjdwp / JDI", "pyjdwp CPU ms/call", "reads + release only",
                                                   "bound / JDI", "suspend + release only", "floor / JDI"],
                  [[str(i + 1), f"{j:,.0f}", f"{o:,.0f}", f"{r:.2f}x", f"{c * 1000:.2f}", f"{b:,.0f}", f"{b / j:.2f}x",
                    f"{f:,.0f}", f"{f / j:.2f}x"]
                   for i, (j, o, r, c, b, f) in enumerate(zip(jdi, ours, ratios, cpu, bound, floor, strict=True))])
    table.notes.append(f"median ratio {statistics.median(ratios):.2f}x (goal ≥ 1.5x); the bound's median "
                       f"{statistics.median(b / j for b, j in zip(bound, jdi, strict=True)):.2f}x; pyjdwp at "
                       f"{statistics.median(o / b for o, b in zip(ours, bound, strict=True)):.2f} of the bound and "
                       f"{statistics.median(o / f for o, f in zip(ours, floor, strict=True)):.2f} of the floor")
    table.notes.append("pyjdwp CPU ms/call: the tracer's process (user + system) per traced call, its entry's "
                       "reads and release and its return's event included")
    table.notes.append("reads + release only: the same requests and the same reads, nothing else (no trace "
                       "events, no order kept): the bound of any tracer that reads every call's arguments")
    table.notes.append("suspend + release only: the same requests, each entry's thread released at once from "
                       "the reader, no argument read: what the VM's suspension and resumption alone allow, the "
                       "ceiling of any tracer that reads arguments")
    table.notes += [f"{key}: {value}" for key, value in machine()]
    return table


if __name__ == "__main__":
    main()
