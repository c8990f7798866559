"""The reference journey through pyjdwp's MCP server, run once per (packet, fault), with every check counted.

Shared by ``tests/faults/test_fault_matrix.py`` (a sample of points) and ``bench/fault_matrix.py`` (every
point, writing docs/reliability.md).

The journey, through the SDK's in-memory client on a fresh server each run, to a real JVM behind
:class:`~faults.proxy.FaultProxy`: attach; a pending breakpoint (``Lazy``, never loaded) and a loaded one
(``Worker.step``, hit every few milliseconds); wait for the stop; stack; locals; step over; wait for the
step's stop; resume; then a pause: remove the loaded breakpoint, pause, list the threads at the pause
(thread IDs, one frame each), read the main thread's stack by its listed ID, resume; detach; read the
state. Two more journeys (docs/design.md §3.5) take the same path to and from the VM: ``condition`` (a
conditional breakpoint on ``Worker.step``, true every 40th hit: each hit is judged while only its thread is
held; two stops, stack and locals, resume) and ``logpoint`` (a logpoint on ``Worker.step`` — some 200 hits
a second, past the rate limit — with a state read while it fires, then detach while it fires); ``watch``
(docs/design.md §3.2: a read watchpoint on ``Main.running``, read some 200 times a second, stops once; a
method-exit breakpoint on ``Worker.step`` stops with its return value; then a logging read watchpoint fires
while the session detaches). A failed
call ends the journey early: it goes straight to detach and the state read. What each run counts:

- **hangs**: tool calls that took longer than their ``timeoutMs`` + 1 s (trio's clock);
- **escaped**: responses that are not an envelope, or exceptions out of the client or the server;
- **unnamed**: the session not ending in detached/disconnected/failed with a ``terminal_reason``
  (an attach that failed has no session: its error code is the outcome);
- **leaks**: after the run, the proxy still holding the server's connection open, or the JVM not printing
  heartbeats (some thread left suspended by us).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import trio
from mcp import Client

from pyjdwp_server import Config, build_server
from support.jvm import Debuggee, find_mark
from support.listings import listed_thread
from support.net import free_port

from .proxy import FaultProxy

LAZY = "com.example.debuggee.Lazy"
WORKER = "com.example.debuggee.Worker"
TERMINAL = {"detached", "disconnected", "failed"}
JOURNEYS = ("reference", "condition", "logpoint", "watch")
MAIN = "com.example.debuggee.Main"
GRACE_S = 1.0  # a call may take its timeoutMs plus this
END_DEADLINE_S = 15.0  # how long a session may take to reach a terminal state after detach returned
HEARTBEAT_TIMEOUT_S = 5.0


@dataclasses.dataclass
class Outcome:
    """What one run of the journey did."""

    point: int | None
    fault: str | None
    injected: str = ""
    calls: int = 0
    hangs: list[str] = dataclasses.field(default_factory=list)
    escaped: list[str] = dataclasses.field(default_factory=list)
    unnamed: list[str] = dataclasses.field(default_factory=list)
    leaks: list[str] = dataclasses.field(default_factory=list)
    end: str = ""
    failed_at: str = ""
    packets: int = 0
    slowest: tuple[str, float, int] = ("", 0.0, 0)  # tool, seconds, its timeoutMs

    @property
    def clean(self) -> bool:
        return not (self.hangs or self.escaped or self.unnamed or self.leaks)


class _Stop(Exception):
    """The journey cannot go on (a call failed): go to detach."""


class Journey:
    def __init__(self, client: Client, address: str, outcome: Outcome, timeout_ms: int,
                 kind: str = "reference") -> None:
        self.kind = kind
        self.client = client
        self.address = address
        self.outcome = outcome
        self.timeout_ms = timeout_ms
        self.sid: str | None = None
        self.cursor = 0

    async def call(self, tool: str, **args: Any) -> dict[str, Any]:
        """One tool call, timed and checked; returns the envelope (``{}`` if there was none)."""
        timeout_ms = args.setdefault("timeoutMs", self.timeout_ms)
        outcome = self.outcome
        outcome.calls += 1
        start = trio.current_time()
        body: dict[str, Any] = {}
        try:
            with trio.move_on_after(timeout_ms / 1000 + GRACE_S + 30):  # the harness never hangs itself
                result = await self.client.call_tool(tool, args)
                body = result.structured_content or {}
                if not _is_envelope(body) or bool(result.is_error) is bool(body.get("success")):
                    outcome.escaped.append(f"{tool}: not an envelope: {_text(result)[:200]}")
                    body = {}
        except Exception as exc:  # the SDK client raises for protocol-level errors
            outcome.escaped.append(f"{tool}: {type(exc).__name__}: {exc}"[:300])
        elapsed = trio.current_time() - start
        if elapsed > outcome.slowest[1]:
            outcome.slowest = (tool, elapsed, timeout_ms)
        if elapsed > timeout_ms / 1000 + GRACE_S:
            outcome.hangs.append(f"{tool} took {elapsed:.2f} s (timeoutMs {timeout_ms})")
        return body

    async def ok(self, tool: str, **args: Any) -> dict[str, Any]:
        body = await self.call(tool, **args)
        if not body.get("success"):
            error = body.get("error") or {}
            self.outcome.failed_at = f"{tool}: {error.get('code', 'no envelope')}"
            raise _Stop
        return body

    async def wait_stop(self, polls: int = 5, kind: str = "stopped") -> dict[str, Any]:
        for _ in range(polls):
            body = await self.ok("wait_for_debugger_event", debugSessionId=self.sid, afterSequence=self.cursor)
            self.cursor = body.get("next_cursor", self.cursor)
            for event in body.get("events", []):
                if event["kind"] == kind:
                    return event["stop"] if kind == "stopped" else event
                if event["kind"] == "terminated":
                    self.outcome.failed_at = f"wait_for_debugger_event: terminated ({event.get('reason')})"
                    raise _Stop
        self.outcome.failed_at = "wait_for_debugger_event: no stop"
        raise _Stop

    async def run(self) -> None:
        try:
            body = await self.ok("attach_debugger", platform="jvm", address=self.address)
            self.sid = body["debug_session_id"]
            if self.kind == "condition":
                await self.conditional()
            elif self.kind == "logpoint":
                await self.logpoints()
            elif self.kind == "watch":
                await self.watchpoints()
            else:
                await self.reference()
        except _Stop:
            pass
        await self.finish()

    async def conditional(self) -> None:
        bp = await self.ok("set_debugger_breakpoint", debugSessionId=self.sid, className=WORKER,
                           line=find_mark("step")[1], condition="i % 40 == 0")
        if bp["result"]["status"] != "verified":
            self.outcome.failed_at = "set_debugger_breakpoint: unexpected status"
            raise _Stop
        for _ in range(2):
            stop = await self.wait_stop()
            if stop.get("condition_error"):
                self.outcome.failed_at = f"condition_error: {stop['condition_error']}"
                raise _Stop
            stack = await self.ok("get_debugger_stack", debugSessionId=self.sid, stopId=stop["stop_id"],
                                  threadId=stop["thread_id"])
            await self.ok("get_debugger_locals", debugSessionId=self.sid, stopId=stop["stop_id"],
                          frameId=stack["result"]["frames"][0]["frame_id"])
            await self.ok("resume_debugger", debugSessionId=self.sid, stopId=stop["stop_id"])

    async def logpoints(self) -> None:
        await self.ok("set_debugger_breakpoint", debugSessionId=self.sid, className=WORKER,
                      line=find_mark("step")[1], action="log", logMessage="{i} {greeting}", maxHits=10_000)
        await self.wait_stop(kind="logpoint")
        await self.ok("get_debugger_state", debugSessionId=self.sid)
        logged = 0
        for _ in range(100):  # a storm's worth of events (a poll returns once one is there), then detach
            body = await self.ok("wait_for_debugger_event", debugSessionId=self.sid, afterSequence=self.cursor)
            self.cursor = body.get("next_cursor", self.cursor)
            logged += sum(event["kind"] == "logpoint" for event in body.get("events", []))
            if logged >= 20:
                return
        self.outcome.failed_at = f"wait_for_debugger_event: {logged} logpoint events"
        raise _Stop

    async def watchpoints(self) -> None:
        """A field read stops, a method exit stops with its value, then a logging watchpoint fires at detach."""
        sid = self.sid
        watch = await self.ok("set_debugger_watchpoint", debugSessionId=sid, className=MAIN, field="running",
                              access="read")
        stop = await self.wait_stop()
        if (stop.get("watch") or {}).get("old_value", {}).get("value") != "true":
            self.outcome.failed_at = f"watchpoint stop without the field's value: {stop.get('watch')}"
            raise _Stop
        await self.ok("get_debugger_stack", debugSessionId=sid, stopId=stop["stop_id"], threadId=stop["thread_id"])
        await self.ok("remove_debugger_breakpoint", debugSessionId=sid, breakpointId=watch["result"]["breakpoint_id"])
        await self.ok("resume_debugger", debugSessionId=sid, stopId=stop["stop_id"])
        exit_bp = await self.ok("set_debugger_breakpoint", debugSessionId=sid, className=WORKER, method="step",
                                on="exit")
        stop = await self.wait_stop()
        if (stop.get("return_value") or {}).get("kind") != "primitive":
            self.outcome.failed_at = f"method exit stop without its return value: {stop.get('return_value')}"
            raise _Stop
        await self.ok("remove_debugger_breakpoint", debugSessionId=sid,
                      breakpointId=exit_bp["result"]["breakpoint_id"])
        await self.ok("resume_debugger", debugSessionId=sid, stopId=stop["stop_id"])
        await self.ok("set_debugger_watchpoint", debugSessionId=sid, className=MAIN, field="running", access="read",
                      action="log", maxHits=10_000)
        await self.wait_stop(kind="logpoint")

    async def reference(self) -> None:
        pending = await self.ok("set_debugger_breakpoint", debugSessionId=self.sid, className=LAZY,
                                line=find_mark("lazy")[1])
        loaded = await self.ok("set_debugger_breakpoint", debugSessionId=self.sid, className=WORKER,
                               line=find_mark("step")[1])
        if pending["result"]["status"] != "pending" or loaded["result"]["status"] != "verified":
            self.outcome.failed_at = "set_debugger_breakpoint: unexpected status"
            raise _Stop
        stop = await self.wait_stop()
        stack = await self.ok("get_debugger_stack", debugSessionId=self.sid, stopId=stop["stop_id"],
                              threadId=stop["thread_id"])
        await self.ok("get_debugger_locals", debugSessionId=self.sid, stopId=stop["stop_id"],
                      frameId=stack["result"]["frames"][0]["frame_id"])
        await self.ok("step_debugger", debugSessionId=self.sid, stopId=stop["stop_id"],
                      threadId=stop["thread_id"], kind="over")
        stepped = await self.wait_stop()
        await self.ok("resume_debugger", debugSessionId=self.sid, stopId=stepped["stop_id"])
        await self.pause_and_resume(loaded["result"]["breakpoint_id"])

    async def pause_and_resume(self, breakpoint_id: str) -> None:
        """The pause leg: a stop of the whole VM that the fault may strike while it holds every thread."""
        await self.ok("remove_debugger_breakpoint", debugSessionId=self.sid, breakpointId=breakpoint_id)
        for _ in range(3):
            paused = await self.call("pause_debugger", debugSessionId=self.sid)
            if paused.get("success") or (paused.get("error") or {}).get("code") != "DEBUGGER_BUSY":
                break
            # The breakpoint was hit once more before it went: let that stop go, then pause.
            stop = await self.wait_stop()
            await self.ok("resume_debugger", debugSessionId=self.sid, stopId=stop["stop_id"])
        if not paused.get("success"):
            self.outcome.failed_at = f"pause_debugger: {(paused.get('error') or {}).get('code', 'no envelope')}"
            raise _Stop
        stop_id = paused["result"]["stop"]["stop_id"]
        listing = await self.ok("get_debugger_threads", debugSessionId=self.sid, stopId=stop_id, stackDepth=1)
        main = listed_thread(listing["result"]["threads"], "main")  # alone, or folded with similar threads
        if main is None:
            self.outcome.failed_at = "get_debugger_threads: no main thread at the pause"
            raise _Stop
        await self.ok("get_debugger_stack", debugSessionId=self.sid, stopId=stop_id, threadId=main["thread_id"])
        await self.ok("resume_debugger", debugSessionId=self.sid, stopId=stop_id)

    async def finish(self) -> None:
        outcome = self.outcome
        if self.sid is None:
            outcome.end = f"no session ({outcome.failed_at or 'attach failed'})"
            return
        await self.call("detach_debugger", debugSessionId=self.sid)
        state: dict[str, Any] = {}
        cleanup: dict[str, Any] = {}
        with trio.move_on_after(END_DEADLINE_S):
            while True:
                body = await self.call("get_debugger_state", debugSessionId=self.sid)
                state = body.get("result") or {}
                cleanup = body.get("cleanup") or {}
                if state.get("state") in TERMINAL or not body:
                    break
                await trio.sleep(0.1)  # cleanup runs on in the background; poll with a deadline
        internal = [e for e in cleanup.get("errors", []) if "internal error" in e]
        if internal:  # an exception the server caught as a bug (and logged): it escaped the code that raised it
            outcome.escaped.append(f"cleanup: {internal[0]}")
        if state.get("state") in TERMINAL and state.get("terminal_reason"):
            outcome.end = f"{state['state']} ({state['terminal_reason']})"
        else:
            outcome.unnamed.append(f"session state {state.get('state')!r}, reason {state.get('terminal_reason')!r}")
            outcome.end = str(state.get("state"))


def _is_envelope(body: Any) -> bool:
    return isinstance(body, dict) and {"success", "state", "debug_session_id", "captured_at_ms"} <= body.keys()


def _text(result: Any) -> str:
    try:
        return str(result.content[0].text)
    except (AttributeError, IndexError):
        return repr(result)


async def run_once(proxy: FaultProxy, proxy_port: int, jvm: Debuggee, point: int | None, fault: str | None, *,
                   timeout_ms: int = 1000, journey: str = "reference") -> Outcome:
    """One journey with ``fault`` at packet ``point`` (``None``: a clean run), then the leak checks."""
    stall_s = 2 * timeout_ms / 1000 + 0.5
    proxy.arm(point, fault, stall_s)
    outcome = Outcome(point, fault)
    try:
        async with Client(build_server(Config())) as client:
            await Journey(client, f"127.0.0.1:{proxy_port}", outcome, timeout_ms, journey).run()
    except Exception as exc:  # the server's lifespan (shutdown cleanup) must not raise either
        outcome.escaped.append(f"server exit: {type(exc).__name__}: {exc}"[:300])
    outcome.packets = len(proxy.seen)
    outcome.injected = (f"{proxy.injected.direction} {proxy.injected.what}" if proxy.injected else
                        "" if fault is None else "(not reached)")
    # The server has ended every session: its JDWP connection must be closed (after a stall, the proxy
    # notices only once the stall is over).
    with trio.move_on_after(stall_s + 5) as idle:
        await proxy.wait_idle()
    if idle.cancelled_caught:
        outcome.leaks.append("the server's JDWP connection is still open after the session ended")
        proxy.close_all()
        await proxy.wait_idle()
    try:
        await trio.to_thread.run_sync(lambda: jvm.wait_for_more_heartbeats(3, timeout=HEARTBEAT_TIMEOUT_S))
    except TimeoutError:
        outcome.leaks.append("the JVM printed no heartbeats after the run: left suspended")
    return outcome


def packet_points(count: int, sample: int | None = None) -> list[int]:
    """Every packet index of a clean run, or ``sample`` of them spread evenly (first and last included)."""
    if sample is None or sample >= count:
        return list(range(count))
    step = (count - 1) / (sample - 1)
    return sorted({math.floor(i * step + 0.5) for i in range(sample)})


class Bench:
    """One debuggee JVM on a fixed free port, reused run after run, behind one fault proxy.

    After a debugger leaves, the HotSpot agent listens on the same port again, so one JVM serves every
    run; a run that leaves it suspended (a leak, counted) gets it restarted so later runs start clean.
    """

    def __init__(self, classes: Any, java: str = "java") -> None:
        self.classes = classes
        self.java = java
        self.jvm: Debuggee | None = None
        self.proxy: FaultProxy | None = None
        self.proxy_port = 0
        self.restarts = 0

    def start_jvm(self) -> Debuggee:
        jvm = Debuggee(self.classes, "com.example.debuggee.Main", port=free_port(), java=self.java)
        jvm.wait_for_line("^ready$", timeout=30)
        self.jvm = jvm
        if self.proxy is not None:
            self.proxy.vm_port = jvm.port
        return jvm

    def stop(self) -> None:
        if self.jvm is not None:
            self.jvm.stop()

    async def serve(self, nursery: trio.Nursery) -> None:
        jvm = await trio.to_thread.run_sync(self.start_jvm)
        self.proxy = FaultProxy(jvm.port)
        self.proxy_port = await nursery.start(self.proxy.serve)

    async def run(self, point: int | None, fault: str | None, timeout_ms: int = 1000,
                  journey: str = "reference") -> Outcome:
        assert self.proxy is not None and self.jvm is not None
        outcome = await run_once(self.proxy, self.proxy_port, self.jvm, point, fault, timeout_ms=timeout_ms,
                                 journey=journey)
        if any("heartbeats" in leak for leak in outcome.leaks):
            self.proxy.close_all()
            await self.proxy.wait_idle()
            try:
                await trio.to_thread.run_sync(lambda: self.jvm.wait_for_more_heartbeats(3, timeout=5))  # type: ignore[union-attr]
            except TimeoutError:
                self.restarts += 1
                self.stop()
                await trio.to_thread.run_sync(self.start_jvm)
        return outcome


def summarise(outcomes: list[Outcome]) -> dict[str, Any]:
    """Totals for a list of runs (one fault, or all)."""
    slowest = max(outcomes, key=lambda o: o.slowest[1] - o.slowest[2] / 1000, default=None)
    ends: dict[str, int] = {}
    for o in outcomes:
        key = o.end.split(" (")[0] if not o.end.startswith("no session") else "attach failed"
        ends[key] = ends.get(key, 0) + 1
    return {
        "runs": len(outcomes),
        "clean": sum(o.clean for o in outcomes),
        "calls": sum(o.calls for o in outcomes),
        "hangs": sum(len(o.hangs) for o in outcomes),
        "escaped": sum(len(o.escaped) for o in outcomes),
        "unnamed": sum(len(o.unnamed) for o in outcomes),
        "leaks": sum(len(o.leaks) for o in outcomes),
        "ends": ends,
        "worst_margin_s": (slowest.slowest[2] / 1000 + GRACE_S - slowest.slowest[1]) if slowest else None,
        "worst_call": f"{slowest.slowest[0]} {slowest.slowest[1]:.3f} s of {slowest.slowest[2]} ms" if slowest else "",
    }
