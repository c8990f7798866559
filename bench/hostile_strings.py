"""The hostile heaps of strings, stacks and threads (docs/design.md §2.7): read-only calls on a real OpenJDK 17.

Run through ``python bench/fault_matrix.py --hostile strings`` (it writes the ``hostile_strings`` section of
docs/reliability.md). Two debuggees of ``fixtures/java/com/example/hostile``: ``BigStrings`` (a
30,000,000-char ``String`` and a 10,000,000-char ``StringBuilder`` in the locals of the stop) and
``DeepStacks`` (a thread 10,000 frames deep, 5,000 parked threads). Each call goes through the engine API the
MCP tools use; each row says how long it took, how many bytes its answer is as JSON, whether the app is alive
after it (process running, no ``hs_err`` file) and whether the session is (a further call answers).
"""

from __future__ import annotations

import dataclasses
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import trio

import jdwp
from jdwp.debugger import BreakpointVerified, Debugger, LogpointHit, Stopped, open_debugger
from support.hostile import answer_bytes, app_alive
from support.jvm import Debuggee, find_mark


@dataclasses.dataclass
class Row:
    heap: str
    call: str
    ms: float
    answer: int
    app_alive: bool
    session_alive: bool
    error: str | None = None


async def _next_stop(debugger: Debugger) -> Any:
    event = await debugger.events.receive()
    while isinstance(event, BreakpointVerified):
        event = await debugger.events.receive()
    assert isinstance(event, Stopped), event
    return event.stop


async def _measure(rows: list[Row], heap: str, call: str, debugger: Debugger, debuggee: Debuggee, cwd: Path,
                   thunk: Callable[[], Awaitable[Any]]) -> Any:
    started = time.perf_counter()
    result: Any = None
    error = None
    try:
        result = await thunk()
    except jdwp.JdwpError as exc:
        error = f"{type(exc).__name__}: {exc}"
    ms = (time.perf_counter() - started) * 1000
    size = answer_bytes(result) if dataclasses.is_dataclass(result) and not isinstance(result, type) else 0
    try:
        await debugger.vm.version()  # VirtualMachine.Version (1,1): the connection still answers
        session = not debugger.vm.is_closed
    except jdwp.JdwpError:
        session = False
    rows.append(Row(heap, call, ms, size, app_alive(debuggee, cwd), session, error))
    return result


async def _strings(classes: Path, java: str, rows: list[Row]) -> None:
    heap = "30M-char String, 10M-char StringBuilder"
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp)
        debuggee = Debuggee(classes, "com.example.hostile.BigStrings", java=java, extra_args=("-Xmx512m",), cwd=cwd)
        try:
            debuggee.wait_for_line("^ready$", timeout=60)
            async with jdwp.open_jdwp_tcp("127.0.0.1", debuggee.port) as vm, open_debugger(vm) as debugger:
                line = find_mark("hostile-strings")[1]
                bp = await debugger.set_breakpoint("com.example.hostile.BigStrings", line)
                stop = await _next_stop(debugger)
                frame = (await debugger.stack(stop.stop_id, stop.thread_id, limit=1)).frames[0].frame_id

                def m(call: str, thunk: Callable[[], Awaitable[Any]]) -> Awaitable[Any]:
                    return _measure(rows, heap, call, debugger, debuggee, cwd, thunk)

                found = await m("get_debugger_locals", lambda: debugger.locals(stop.stop_id, frame))
                by_name = {v.name: v for v in found.locals}
                huge, builder = by_name["huge"].object_id, by_name["builder"].object_id
                await m("get_debugger_object: string, page at 0",
                        lambda: debugger.object(stop.stop_id, huge, limit=8192))
                await m("get_debugger_object: string, page at 29,990,000",
                        lambda: debugger.object(stop.stop_id, huge, offset=29_990_000, limit=10_000))
                await m("get_debugger_object: builder, page at 5,000,000",
                        lambda: debugger.object(stop.stop_id, builder, offset=5_000_000, limit=8192))
                await m('evaluate_debugger_expression `huge == "x"`',
                        lambda: debugger.evaluate(stop.stop_id, frame, 'huge == "x"'))
                await m("evaluate_debugger_expression `huge`", lambda: debugger.evaluate(stop.stop_id, frame, "huge"))
                await debugger.remove_breakpoint(bp.breakpoint_id)
                await debugger.resume(stop.stop_id)

                async def logpoint() -> LogpointHit:
                    point = await debugger.set_breakpoint("com.example.hostile.BigStrings", line, action="log",
                                                          log_message="{huge}")
                    event = await debugger.events.receive()
                    while not isinstance(event, LogpointHit):
                        event = await debugger.events.receive()
                    await debugger.remove_breakpoint(point.breakpoint_id)
                    return event

                await m("a logpoint `{huge}` (to its first hit)", logpoint)
        finally:
            debuggee.stop()


async def _stacks(classes: Path, java: str, rows: list[Row]) -> None:
    heap = "10,000-frame stack, 5,000 threads"
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp)
        debuggee = Debuggee(classes, "com.example.hostile.DeepStacks", java=java, extra_args=("-Xmx256m",), cwd=cwd)
        try:
            debuggee.wait_for_line("^ready$", timeout=60)
            async with jdwp.open_jdwp_tcp("127.0.0.1", debuggee.port) as vm, open_debugger(vm) as debugger:
                bp = await debugger.set_breakpoint("com.example.hostile.DeepStacks", find_mark("hostile-deep")[1])
                stop = await _next_stop(debugger)

                def m(call: str, thunk: Callable[[], Awaitable[Any]]) -> Awaitable[Any]:
                    return _measure(rows, heap, call, debugger, debuggee, cwd, thunk)

                top = await m("get_debugger_stack: frames 0-19",
                              lambda: debugger.stack(stop.stop_id, stop.thread_id, limit=20))
                await m("get_debugger_stack: frames 900-999",
                        lambda: debugger.stack(stop.stop_id, stop.thread_id, offset=900, limit=100))
                await m("get_debugger_locals (frame 1)", lambda: debugger.locals(stop.stop_id, top.frames[1].frame_id))
                await m("get_debugger_threads at the stop, stackDepth 5",
                        lambda: debugger.threads(stop.stop_id, stack_depth=5))
                await debugger.remove_breakpoint(bp.breakpoint_id)
                await debugger.resume(stop.stop_id)
                paused = await m("pause_debugger", debugger.pause)
                await m("get_debugger_threads at the pause", lambda: debugger.threads(paused.stop_id))
                await debugger.resume(paused.stop_id)
                await m("get_debugger_threads while running", debugger.threads)
        finally:
            debuggee.stop()


async def run(classes: Path, java: str) -> list[Row]:
    rows: list[Row] = []
    await _strings(classes, java, rows)
    await _stacks(classes, java, rows)
    return rows


def report(rows: list[Row], machine: str, elapsed: float) -> str:
    ok = all(r.app_alive and r.session_alive and r.error is None for r in rows)
    lines = [
        "## Hostile heaps: strings, stacks and threads",
        "",
        f"Regenerate: `python bench/fault_matrix.py --hostile strings` ({elapsed:.0f} s here). Machine: {machine}.",
        "",
        "Read-only calls through the engine API the MCP tools use, on `fixtures/java/com/example/hostile` "
        "(`BigStrings` -Xmx512m, `DeepStacks` -Xmx256m). *App* alive: the process runs and wrote no `hs_err` "
        "file; *session* alive: a further command is answered on the same connection. Answer: the result as "
        "JSON, in bytes.",
        "",
        f"**{'Every call: app alive, session alive.' if ok else 'Some calls failed: see the table.'}**",
        "",
        "What bounds them: a string is read from its `value`/`coder` fields, only the units shown, at most 4,096 "
        "elements per `ArrayReference.GetValues` (its whole `StringReference.Value` would be a 90 MB reply); a "
        "`StringBuilder` page reads its slice of the backing array; a stack page asks `ThreadReference.Frames` "
        "for its own frames; a thread listing shows at most 1,000 threads and 2,000 frames in all. Where a VM "
        "can only send a string whole (ART's `StringReference.Value`), a reply over the 64 MiB packet limit "
        "fails that request alone: the framing skips its body as it arrives, never holding it, and the value "
        "is shown `truncated` with `length` from the object's `count` field and a `note`. That path is tested "
        "with a byte-faithful fake VM (`tests/replay/test_string_bounds.py`, `tests/replay/test_client_faults.py`) "
        "and sans-IO (`tests/unit/test_oversized_packets.py`); it was not run on a real ART device here.",
        "",
        "| heap | call | ms | answer bytes | app alive | session alive | error |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(f"| {r.heap} | {r.call} | {r.ms:.0f} | {r.answer:,} | {'yes' if r.app_alive else '**no**'} | "
                     f"{'yes' if r.session_alive else '**no**'} | {r.error or ''} |")
    return "\n".join(lines) + "\n"


def measure(classes: Path, java: str, machine: str) -> tuple[str, bool]:
    started = time.monotonic()
    rows = trio.run(run, classes, java)
    ok = all(r.app_alive and r.session_alive and r.error is None for r in rows)
    return report(rows, machine, time.monotonic() - started), ok
