"""Debugger-engine sessions, run live to record them and against their recordings to replay them.

Like ``scenarios.py``, each scenario is ``scenario(vm, control, **options) -> summary``, but it drives the
engine (``open_debugger`` over the client) and its summary is what the engine reported — breakpoints,
events, stack pages, locals, cleanup — as plain JSON data. Recording stores it in the header's
``expected``; replay must reproduce it exactly.

The engine pipelines requests, so trio may send them in another order than when recording;
``ReplayVm`` matches those in any order. ``control`` commands go to the debuggee's control thread without
waiting for its acknowledgement: the event they cause may suspend every thread, the control thread too.
Every step waits for an engine event first, so the conversation does not depend on timing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import jdwp
from jdwp.debugger import BreakpointVerified, Debugger, EngineEvent, Stopped, open_debugger
from pyjdwp_server.answers.envelope import jsonable

Control = Callable[[str], Awaitable[None]]
LAZY = "com.example.debuggee.Lazy"


def plain(value: Any) -> Any:
    """Engine records as JSON data, exactly as the server writes them (fields left out while empty), so a
    summary equals its stored copy."""
    return jsonable(value)


def event_summary(event: EngineEvent) -> dict[str, Any]:
    return {"kind": event.kind, **plain(event)}


async def next_event(debugger: Debugger, kind: type[Any]) -> Any:
    event = await debugger.events.receive()
    if not isinstance(event, kind):
        raise AssertionError(f"expected {kind.__name__}, got {event}")
    return event


async def engine_journey(vm: jdwp.JdwpClient, control: Control, *, lazy_line: int) -> dict[str, Any]:
    """Pending breakpoint in a class loaded later; bind, stop, stack, locals, step over, resume, stop
    again, detach while paused."""
    summary: dict[str, Any] = {"events": []}
    async with open_debugger(vm) as debugger:
        bp = await debugger.set_breakpoint(LAZY, lazy_line)
        summary["set"] = plain(bp)
        await control(f"load {LAZY}")
        summary["events"].append(event_summary(await next_event(debugger, BreakpointVerified)))
        stopped = await next_event(debugger, Stopped)
        summary["events"].append(event_summary(stopped))
        stop = stopped.stop
        page = await debugger.stack(stop.stop_id, stop.thread_id, offset=0, limit=5)
        summary["stack"] = plain(page)
        summary["locals"] = plain(await debugger.locals(stop.stop_id, page.frames[0].frame_id))
        summary["caller_locals"] = plain(await debugger.locals(stop.stop_id, page.frames[1].frame_id))

        await debugger.step(stop.stop_id, stop.thread_id, "over")
        stepped = await next_event(debugger, Stopped)
        summary["events"].append(event_summary(stepped))
        stop = stepped.stop
        page = await debugger.stack(stop.stop_id, stop.thread_id, offset=0, limit=1)
        summary["stepped_locals"] = plain(await debugger.locals(stop.stop_id, page.frames[0].frame_id))

        await debugger.resume(stop.stop_id)
        again = await next_event(debugger, Stopped)  # the loop's next run of the plugin
        summary["events"].append(event_summary(again))
        summary["breakpoints"] = plain(debugger.list_breakpoints())
        summary["cleanup"] = plain(await debugger.detach())
        summary["events"].append(event_summary(await debugger.events.receive()))
        summary["state"] = debugger.state
    return summary


async def engine_two_loaders(vm: jdwp.JdwpClient, control: Control, *, lazy_line: int) -> dict[str, Any]:
    """A pending breakpoint binds in the application loader, then again in an isolated loader; both copies
    stop (told apart by their receivers); remove and detach while paused."""
    summary: dict[str, Any] = {"events": []}
    async with open_debugger(vm) as debugger:
        bp = await debugger.set_breakpoint(LAZY, lazy_line)
        summary["set"] = plain(bp)
        await control(f"load {LAZY}")
        summary["events"].append(event_summary(await next_event(debugger, BreakpointVerified)))

        receivers: list[str] = []
        binding: BreakpointVerified | None = None
        await control(f"isolated {LAZY}")  # read by the control thread once the VM runs again
        while True:
            event = await debugger.events.receive()
            summary["events"].append(event_summary(event))
            if isinstance(event, BreakpointVerified):
                binding = event
                continue
            if not isinstance(event, Stopped):
                raise AssertionError(f"unexpected {event}")
            stop = event.stop
            page = await debugger.stack(stop.stop_id, stop.thread_id, offset=0, limit=1)
            result = await debugger.locals(stop.stop_id, page.frames[0].frame_id)
            assert result.this is not None and result.this.object_id is not None
            if result.this.object_id not in receivers:
                receivers.append(result.this.object_id)
            if binding is not None and len(receivers) == 2:
                break  # stay paused in the second copy
            await debugger.resume(stop.stop_id)
        summary["receivers"] = receivers
        await debugger.remove_breakpoint(bp.breakpoint_id)
        await debugger.remove_breakpoint(bp.breakpoint_id)
        summary["breakpoints"] = plain(debugger.list_breakpoints())
        summary["cleanup"] = plain(await debugger.detach())
        summary["events"].append(event_summary(await debugger.events.receive()))
        summary["state"] = debugger.state
    return summary


async def engine_kotlin(vm: jdwp.JdwpClient, control: Control, *, square_line: int, lambda_line: int,
                        cube_line: int) -> dict[str, Any]:
    """The Kotlin debuggee (``fixtures/kotlin``): a line of an inline function of Inline.kt binds where App.kt
    inlined it, stops there (stack and stop in Inline.kt, ``inlined``; locals without Kotlin's markers); a
    lambda class's captured variables; a line only a class loaded later inlines (rejected, then verified by
    that class's map); detach while paused."""
    summary: dict[str, Any] = {"events": []}
    async with open_debugger(vm) as debugger:
        inline = await debugger.set_breakpoint(file="app/src/main/kotlin/com/example/kt/Inline.kt", line=square_line)
        summary["set_inline"] = plain(inline)
        stopped = await next_event(debugger, Stopped)
        summary["events"].append(event_summary(stopped))
        stop = stopped.stop
        page = await debugger.stack(stop.stop_id, stop.thread_id, offset=0, limit=3)
        summary["inline_stack"] = plain(page)
        summary["inline_locals"] = plain(await debugger.locals(stop.stop_id, page.frames[0].frame_id))
        await debugger.remove_breakpoint(inline.breakpoint_id)

        lambda_bp = await debugger.set_breakpoint(file="App.kt", line=lambda_line)
        summary["set_lambda"] = plain(lambda_bp)
        await debugger.resume(stop.stop_id)
        stopped = await next_event(debugger, Stopped)
        summary["events"].append(event_summary(stopped))
        stop = stopped.stop
        page = await debugger.stack(stop.stop_id, stop.thread_id, offset=0, limit=1)
        summary["lambda_locals"] = plain(await debugger.locals(stop.stop_id, page.frames[0].frame_id))
        await debugger.remove_breakpoint(lambda_bp.breakpoint_id)

        cube = await debugger.set_breakpoint(file="Inline.kt", line=cube_line)
        summary["set_cube"] = plain(cube)
        await debugger.resume(stop.stop_id)
        await control("load com.example.kt.Late")
        summary["events"].append(event_summary(await next_event(debugger, BreakpointVerified)))
        stopped = await next_event(debugger, Stopped)
        summary["events"].append(event_summary(stopped))
        page = await debugger.stack(stopped.stop.stop_id, stopped.stop.thread_id, offset=0, limit=2)
        summary["late_stack"] = plain(page)
        summary["breakpoints"] = plain(debugger.list_breakpoints())
        summary["cleanup"] = plain(await debugger.detach())
        summary["events"].append(event_summary(await debugger.events.receive()))
        summary["state"] = debugger.state
    return summary


DEBUGGER_SCENARIOS = {"engine_journey": engine_journey, "engine_two_loaders": engine_two_loaders,
                      "engine_kotlin": engine_kotlin}
# Each scenario's options, given as the ``// MARK:`` names of the lines it needs (see record_fixtures.py).
MARKS = {"engine_journey": {"lazy_line": "lazy"}, "engine_two_loaders": {"lazy_line": "lazy"},
         "engine_kotlin": {"square_line": "kt-square-body", "lambda_line": "kt-lambda", "cube_line": "kt-cube-body"}}
#: Scenarios that run another debuggee than the Java ``Main``: (its language, its main class).
DEBUGGEES = {"engine_kotlin": ("kotlin", "com.example.kt.AppKt")}
