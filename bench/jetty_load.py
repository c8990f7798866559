"""A real server under load while the debugger judges hits on its hot line: Jetty 9, 40 clients, side by side.

    python bench/jetty_load.py                      # 4000 requests per scenario, 40 clients
    python bench/jetty_load.py --requests 2000 --clients 20

The app is ``fixtures/jetty`` (our handler on Debian's Jetty 9 and servlet API, 200 pool threads), the load a
bounded generator of client threads on 127.0.0.1 (``tests/support/jetty.py``) run in a child process of its
own, so that its threads never compete with the debugger for this process's interpreter. Scenarios, one run:

- *no debugger*: the app started without the JDWP agent;
- *attached, no breakpoint*: the app under the agent, a debugger attached (the baseline of the goals);
- *never-true condition* (``target == null``) on the handler's hot line: every request's hit is judged
  (frame 0, its locals, the comparison) and its thread released;
- *logpoint* (``{target}``): every hit counted, up to 100 a second captured (the rate limit), the rest dropped;
- *hit count* (``hitCount`` 1,000,000, never reached): every hit counted, no frame read: the floor of a
  judged hit (its event, and its release).

Then, on a JVM of their own next to its own *attached* run, two bounds measured with the library's client alone
(no engine): *reads + release only* (each hit's ``GetValues`` of ``target``, then its release: the least any
debugger judging a condition on a local does) and *release only* (each hit released as it comes).

Prints throughput (requests/s), its ratio to *attached* and p50/p99 latency per scenario; the JDWP commands per
hit; and the bound a hit's round trips put on throughput (see docs/performance.md). Asserts nothing; the goal
(issue 32): never-true condition and logpoint each ≥ 0.5 × attached.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import trio
from common import Table, machine

import jdwp
from jdwp.debugger import Debugger, open_debugger
from jdwp.frame_guess import GENERATION
from jdwp.protocol.commands import StackFrame, ThreadReference
from jdwp.protocol.commands.events import BreakpointEvent, Composite, LocationOnly
from jdwp.protocol.commands.threads import FrameGetValuesOut, FramesOut, SlotRequest, ThreadOut
from jdwp.protocol.constants import EventKind, SuspendPolicy, Tag, TypeTag
from jdwp.protocol.types import FrameId, Location, ThreadId
from support import stops
from support.jetty import JETTY_HANDLER, MAX_CLIENTS, JettyApp, Load, compile_jetty, find_jetty_mark

HOT_LINE = find_jetty_mark("jetty-hot")[1]
SCENARIOS: dict[str, dict[str, Any] | None] = {
    "attached, no breakpoint": None,
    "never-true condition": {"condition": "target == null"},
    "logpoint": {"action": "log", "log_message": "{target}", "max_hits": 10_000},
    "hit count (never reached)": {"hit_count": 1_000_000},
}


@dataclasses.dataclass
class Result:
    completed: int
    failed: int
    elapsed: float
    p50: float
    p99: float
    commands: int = 0  # JDWP commands the debugger sent during the run
    cpu: float = 0.0  # CPU seconds the debugger's process spent during the run

    @property
    def rate(self) -> float:
        return self.completed / self.elapsed if self.elapsed > 0 else 0.0


async def load(port: int, requests: int, clients: int) -> Result:
    """One bounded load run, in a child process (this script with ``--load-only``)."""
    argv = [sys.executable, __file__, "--load-only", str(port), "--requests", str(requests),
            "--clients", str(clients)]
    done = await trio.run_process(argv, capture_stdout=True, check=True)
    return Result(**json.loads(done.stdout))


def load_only(port: int, requests: int, clients: int) -> None:
    """The child's part: run the load, print its result as JSON."""
    report = Load(port, clients=clients, requests=requests, duration=120, request_timeout=60).start().wait()
    print(json.dumps({"completed": report.completed, "failed": report.failed, "elapsed": report.elapsed,
                      "p50": report.percentile(0.5), "p99": report.percentile(0.99)}))


async def drain(debugger: Debugger) -> None:
    async for _ in debugger.events:  # logpoint hits: the caller's to read; nobody waits for them here
        pass


async def reads_round_trip(debugger: Debugger, app: JettyApp, clients: int, count: int = 100) -> float:
    """The round trip (median, seconds) of the reads a condition's hit needs, measured while the app serves
    load: ``ThreadReference.Frames`` (11,6) and ``StackFrame.GetValues`` (16,1) of frame 0's ``target``, in one
    write, as the engine sends them once it guesses frame 0's ID. One pool thread is held at a stop of its own
    (``suspend: "thread"``); the other threads go on serving."""
    vm = debugger.vm
    bp = await debugger.set_breakpoint(JETTY_HANDLER, HOT_LINE, suspend="thread")
    async with trio.open_nursery() as nursery:
        nursery.start_soon(load, app.http_port, 100 * count, clients)
        stop = await stops.next_stop(debugger)
        await debugger.remove_breakpoint(bp.breakpoint_id)  # the other threads' hits are let go
        threads = await vm.all_threads()
        names = await vm.request_all([(ThreadReference.Name, ThreadOut(t)) for t in threads])
        thread = next(t for t, name in zip(threads, names, strict=True)
                      if getattr(name, "thread_name", None) == stop.thread_name)
        (top,) = await vm.thread_reference.frames(thread, 0, 1)
        pair = [(ThreadReference.Frames, FramesOut(thread, 0, 1)),
                (StackFrame.GetValues, FrameGetValuesOut(thread, top.frame_id, [SlotRequest(1, Tag.OBJECT)]))]
        times = []
        for _ in range(count):
            began = time.perf_counter()
            await vm.request_all(pair)
            times.append(time.perf_counter() - began)
        await debugger.resume(stop.stop_id)
        nursery.cancel_scope.cancel()  # the load was only the background
    return statistics.median(times)


async def attached_series(app: JettyApp, requests: int, clients: int) -> tuple[dict[str, Result], float]:
    found: dict[str, Result] = {}
    async with jdwp.open_jdwp_tcp("127.0.0.1", app.jdwp_port) as vm, open_debugger(vm) as debugger:
        rtt = await reads_round_trip(debugger, app, clients)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(drain, debugger)
            await load(app.http_port, requests, clients)  # warm the JIT under the agent
            for name, options in SCENARIOS.items():
                bp = await debugger.set_breakpoint(JETTY_HANDLER, HOT_LINE, **options) if options else None
                sent, cpu = vm.statistics()["requests"], time.process_time()
                found[name] = await load(app.http_port, requests, clients)
                found[name].commands = vm.statistics()["requests"] - sent
                found[name].cpu = time.process_time() - cpu
                assert debugger.current_stop is None, f"{name}: the app stopped"
                if bp is not None:
                    await debugger.remove_breakpoint(bp.breakpoint_id)
            nursery.cancel_scope.cancel()
    return found, rtt


async def raw_series(app: JettyApp, requests: int, clients: int) -> dict[str, Result]:
    """The bounds of a judged hit, measured with the library's client alone on a JVM of their own: a breakpoint
    request on the hot line (``EventRequest.Set``, LocationOnly, the event's thread suspended) whose hits are
    handled in the client's reader (``JdwpClient.handle_events``) doing nothing else than

    - *reads + release only*: ``StackFrame.GetValues`` of ``target`` (frame 0's ID guessed from the thread's
      last one, ``ThreadReference.Frames`` when there is none or the VM refuses it), then, on its reply,
      ``ThreadReference.Resume``: the least a debugger that judges a condition on a local can do;
    - *release only*: ``ThreadReference.Resume`` as the event comes (what a hit count's hit costs at least).

    Each next to this JVM's own *attached* run (the library's client connected, no request)."""
    found: dict[str, Result] = {}
    async with jdwp.open_jdwp_tcp("127.0.0.1", app.jdwp_port) as vm:
        (handler,) = await vm.classes_by_signature("L" + JETTY_HANDLER.replace(".", "/") + ";")
        handle = next(m for m in await vm.reference_type.methods(handler.type_id) if m.name == "handle")
        lines = await vm.method.line_table(handler.type_id, handle.method_id)
        index = min(e.line_code_index for e in lines.lines if e.line_number == HOT_LINE)
        layout = await vm.stack_frame.argument_layout(handler.type_id, handle.method_id)
        target = [SlotRequest(layout.slots[layout.names.index("target")], Tag.OBJECT)]
        hot = LocationOnly(Location(TypeTag.CLASS, handler.type_id, handle.method_id, index))
        last: dict[int, int] = {}  # thread → frame 0's ID at its last hit

        def judge(thread: ThreadId, guess: int | None) -> None:
            if guess is None:
                vm.submit([(ThreadReference.Frames, FramesOut(thread, 0, 1))],
                          lambda answers: judge(thread, answers[0].frames[0].frame_id))
                return

            def values_in(answers: list[Any] | jdwp.JdwpError) -> None:
                if isinstance(answers, jdwp.JdwpError):
                    return
                if isinstance(answers[0], jdwp.JdwpError):
                    return judge(thread, None)
                last[thread] = guess
                vm.send_now(ThreadReference.Resume, ThreadOut(thread), on_error=lambda _: None)

            vm.submit([(StackFrame.GetValues, FrameGetValuesOut(thread, FrameId(guess), target))], values_in)

        def read_and_release(composite: Composite | None) -> bool:
            if composite is not None and isinstance(event := composite.events[0], BreakpointEvent):
                previous = last.get(event.thread)
                judge(event.thread, None if previous is None else previous + GENERATION)
            return True

        def release(composite: Composite | None) -> bool:
            if composite is not None and isinstance(event := composite.events[0], BreakpointEvent):
                vm.send_now(ThreadReference.Resume, ThreadOut(event.thread), on_error=lambda _: None)
            return True

        await load(app.http_port, requests, clients)  # warm the JIT under the agent
        found["attached (raw client, own JVM)"] = await load(app.http_port, requests, clients)
        for name, handler_of_sets in (("reads + release only (raw client)", read_and_release),
                                      ("release only (raw client)", release)):
            vm.handle_events(handler_of_sets)
            request_id = await vm.event_request.set(EventKind.BREAKPOINT, SuspendPolicy.EVENT_THREAD, [hot])
            sent, cpu = vm.statistics()["requests"], time.process_time()
            found[name] = await load(app.http_port, requests, clients)
            found[name].commands = vm.statistics()["requests"] - sent
            found[name].cpu = time.process_time() - cpu
            await vm.event_request.clear(EventKind.BREAKPOINT, request_id)
    return found


async def run(requests: int, clients: int) -> Table:
    with tempfile.TemporaryDirectory() as tmp:
        classes = compile_jetty(Path(tmp))
        plain = JettyApp(classes, agent=False)
        try:
            await load(plain.http_port, requests, clients)  # warm the JIT before the baseline
            series = {"no debugger": await load(plain.http_port, requests, clients)}
        finally:
            plain.stop()
        app = JettyApp(classes)
        try:
            attached, rtt = await attached_series(app, requests, clients)
        finally:
            app.stop()
        app = JettyApp(classes)  # the agent listens on a new port after a debugger leaves: a JVM of its own
        try:
            raw = await raw_series(app, requests, clients)
        finally:
            app.stop()
    series.update(attached)
    series.update(raw)
    base = series["attached, no breakpoint"].rate
    raw_base = raw["attached (raw client, own JVM)"].rate
    rows = []
    for name, result in series.items():
        judged = name not in ("no debugger", "attached, no breakpoint", "attached (raw client, own JVM)")
        per_hit = result.commands / result.completed if judged and result.completed else None
        base = raw_base if name in raw else series["attached, no breakpoint"].rate
        rows.append([name, f"{result.rate:,.0f}", f"{result.rate / base:.2f}" if base else "n/a",
                     f"{result.p50 * 1000:.1f}", f"{result.p99 * 1000:.1f}", f"{result.completed}",
                     f"{result.failed}", f"{per_hit:.1f}" if per_hit is not None else "-"])
    notes = [f"{label}: {value}" for label, value in machine()[:4]]
    notes.append(f"{clients} clients (threads of a child process), {requests} requests per scenario, 127.0.0.1")
    # The bound of the round trip per hit: a never-true condition's hit is a hit count's (its event and its
    # release) plus one round trip of reads. By Little's law a closed loop of C clients at R requests/s spends
    # C/R per request; the condition can at best add the reads' round trip to what the hit count spends.
    floor = series["hit count (never reached)"]
    condition = series["never-true condition"]
    if floor.rate and condition.completed:
        bound = clients / (clients / floor.rate + rtt)
        notes.append(f"a condition's reads (Frames + GetValues, one write) under load: {rtt * 1000:.2f} ms a round "
                     f"trip; the hit count's {floor.rate:,.0f}/s plus that round trip per request bounds the "
                     f"never-true condition at {bound:,.0f}/s ({bound / base:.2f} × attached)")
        notes.append(f"never-true condition: {condition.rate:,.0f}/s = {condition.rate / bound:.2f} of that bound; "
                     f"the debugger's CPU per hit {condition.cpu / condition.completed * 1000:.2f} ms")
    raw_bound = raw["reads + release only (raw client)"]
    if raw_bound.rate and raw_base and condition.completed:
        engine_ratio = condition.rate / series["attached, no breakpoint"].rate
        notes.append(f"the raw client's rows are measured against its own JVM's attached run; reads + release "
                     f"only, the least a judged condition on a local costs: {raw_bound.rate / raw_base:.2f} × "
                     f"attached ({raw_bound.rate:,.0f}/s); "
                     f"the never-true condition, {engine_ratio:.2f} × attached, is at "
                     f"{engine_ratio / (raw_bound.rate / raw_base):.2f} of it")
    notes.append("goal (issue 32): never-true condition ≥ 0.5 × attached, logpoint ≥ 0.5 × attached")
    return Table("Jetty under load: throughput and latency per scenario",
                 ["scenario", "req/s", "vs attached", "p50 ms", "p99 ms", "completed", "failed",
                  "commands/hit"], rows, notes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=4000, help="requests per scenario")
    parser.add_argument("--clients", type=int, default=40, help=f"client threads (at most {MAX_CLIENTS})")
    parser.add_argument("--load-only", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not 1 <= args.clients <= MAX_CLIENTS:
        sys.exit(f"--clients must be 1..{MAX_CLIENTS}")
    if args.load_only is not None:
        load_only(args.load_only, args.requests, args.clients)
        return
    print(trio.run(run, args.requests, args.clients).text())


if __name__ == "__main__":
    main()
