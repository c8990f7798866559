"""Debugger sessions, written once, run both live (to record them) and against recordings (to replay them).

A scenario is a coroutine ``scenario(vm, control) -> summary``: it drives a ``JdwpClient`` and returns a
JSON-able summary of everything it decoded (``repr`` of the decoded records). Recording stores that
summary in the recording's header; replay runs the same scenario against the recording and must produce
the same summary. ``control`` sends a command to the live debuggee's control thread; during replay it
does nothing, since the recording already holds what the debuggee did.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from debugger_scenarios import DEBUGGER_SCENARIOS

import jdwp
from jdwp.protocol.commands.threads import SlotRequest
from jdwp.protocol.constants import EventKind, StepDepth, StepSize, SuspendPolicy, Tag

Control = Callable[[str], Awaitable[None]]
WORKER = "Lcom/example/debuggee/Worker;"
LAZY = "com.example.debuggee.Lazy"


async def basics(vm: jdwp.JdwpClient, control: Control) -> dict[str, Any]:
    """Version, ID sizes, threads and their names, capabilities, class paths; then Dispose."""
    summary: dict[str, Any] = {"version": repr(vm.version_info), "id_sizes": repr(vm.id_sizes)}
    threads = await vm.all_threads()
    summary["threads"] = sorted([await vm.thread_reference.name(t) for t in threads])
    summary["capabilities"] = repr(await vm.capabilities_new())
    (worker,) = await vm.classes_by_signature(WORKER)
    summary["worker"] = repr(worker)
    await vm.dispose()
    return summary


def _line_index(table: Any, line: int) -> int:
    return min(e.line_code_index for e in table.lines if e.line_number == line)


async def breakpoint_journey(vm: jdwp.JdwpClient, control: Control, *, lazy_line: int) -> dict[str, Any]:
    """Pending breakpoint in a class loaded later: class prepare, bind, hit, inspect, step, resume, dispose."""
    summary: dict[str, Any] = {"version": repr(vm.version_info)}
    prepare_id = await vm.event_request.set(EventKind.CLASS_PREPARE, SuspendPolicy.ALL, [jdwp.ClassMatch(LAZY)])
    await control(f"load {LAZY}")
    prepared = await vm.receive_event()
    summary["prepared"] = repr(prepared)
    (event,) = prepared.events
    assert isinstance(event, jdwp.ClassPrepareEvent)
    await vm.event_request.clear(EventKind.CLASS_PREPARE, prepare_id)

    methods = await vm.reference_type.methods(event.type_id)
    summary["methods"] = repr(methods)
    summary["source"] = await vm.reference_type.source_file(event.type_id)
    run = next(m for m in methods if m.name == "run")
    table = await vm.method.line_table(event.type_id, run.method_id)
    variables = await vm.method.variable_table(event.type_id, run.method_id)
    summary["lines"] = repr(table)
    summary["variables"] = repr(variables)
    location = jdwp.Location(jdwp.TypeTag.CLASS, event.type_id, run.method_id, _line_index(table, lazy_line))
    breakpoint_id = await vm.event_request.set(EventKind.BREAKPOINT, SuspendPolicy.ALL,
                                               [jdwp.LocationOnly(location)])
    await vm.resume()  # release the class-prepare suspension

    hit_set = await vm.receive_event()
    summary["hit"] = repr(hit_set)
    (hit,) = hit_set.events
    await vm.event_request.clear(EventKind.BREAKPOINT, breakpoint_id)
    summary["frame_count"] = await vm.thread_reference.frame_count(hit.thread)
    frames = await vm.thread_reference.frames(hit.thread, 0, min(3, summary["frame_count"]))
    summary["frames"] = repr(frames)
    this = await vm.stack_frame.this_object(hit.thread, frames[0].frame_id)
    summary["this_type"] = repr(await vm.object_reference.reference_type(this.value))

    # Step over the marked line, so `label` is live, then read the locals.
    step_id = await vm.event_request.set(EventKind.SINGLE_STEP, SuspendPolicy.ALL, [
        jdwp.Step(hit.thread, StepSize.LINE, StepDepth.OVER), jdwp.Count(1)])
    await vm.resume()
    stepped = await vm.receive_event()
    summary["stepped"] = repr(stepped)
    (step_event,) = stepped.events
    await vm.event_request.clear(EventKind.SINGLE_STEP, step_id)
    frames = await vm.thread_reference.frames(hit.thread, 0, 1)
    index = step_event.location.index
    live = [v for v in variables.slots if v.code_index <= index < v.code_index + v.length]
    values = await vm.stack_frame.get_values(hit.thread, frames[0].frame_id,
                                             [SlotRequest(v.slot, ord(v.signature[0])) for v in live])
    summary["locals"] = {v.name: repr(value) for v, value in zip(live, values, strict=True)}
    for variable, value in zip(live, values, strict=True):
        if value.tag == Tag.STRING and not value.is_null:
            summary["string:" + variable.name] = await vm.string_reference.value(value.value)
        if value.tag == Tag.ARRAY and not value.is_null:
            summary["length:" + variable.name] = await vm.array_reference.length(value.value)
    await vm.resume()
    await vm.dispose()
    return summary


SCENARIOS = {"basics": basics, "breakpoint_journey": breakpoint_journey}


async def art_session(vm: jdwp.JdwpClient, control: Control) -> dict[str, Any]:
    """The synthetic ART session: what a debugger does at a breakpoint in an app's activity."""
    summary: dict[str, Any] = {"id_sizes": vm.id_sizes, "version": vm.version_info}
    (activity,) = await vm.classes_by_signature("Lcom/example/app/MainActivity;")
    methods = await vm.reference_type.methods(activity.type_id)
    compute = next(m for m in methods if m.name == "compute")
    table = await vm.method.line_table(activity.type_id, compute.method_id)
    index = next(e.line_code_index for e in table.lines if e.line_number == 11)
    location = jdwp.Location(jdwp.TypeTag.CLASS, activity.type_id, compute.method_id, index)
    request_id = await vm.event_request.set(EventKind.BREAKPOINT, SuspendPolicy.ALL, [jdwp.LocationOnly(location)])
    (hit,) = (await vm.receive_event()).events
    frames = await vm.thread_reference.frames(hit.thread)
    variables = await vm.method.variable_table(activity.type_id, compute.method_id)
    live = [v for v in variables.slots if v.code_index <= index < v.code_index + v.length and v.name != "this"]
    values = await vm.stack_frame.get_values(hit.thread, frames[0].frame_id,
                                             [SlotRequest(v.slot, ord(v.signature[0])) for v in live])
    texts = [await vm.string_reference.value(v.value) for v in values if v.tag == Tag.STRING]
    await vm.event_request.clear(EventKind.BREAKPOINT, request_id)
    await vm.resume()
    await vm.dispose()
    summary.update(methods=methods, location=location, hit=hit, frames=frames, values=values, text=texts[0],
                   texts=texts, request_id=request_id)
    return summary


async def art_launch(vm: jdwp.JdwpClient, control: Control) -> dict[str, Any]:
    """The synthetic launch: hold the waiting app at once, name its main thread, let it go, read STAG."""
    await vm.suspend()
    (thread,) = await vm.all_threads()
    name = await vm.thread_reference.name(thread)
    await vm.resume()
    chunks = [await vm.receive_ddm(), await vm.receive_ddm()]
    await vm.dispose()
    return {"id_sizes": vm.id_sizes, "thread_name": name, "ddm": [c.type_name for c in chunks],
            "stage": chunks[-1].data}


SCENARIOS["art_session"] = art_session
SCENARIOS["art_launch"] = art_launch


# Sessions through the debugger engine (their recordings replay through the same table).
SCENARIOS.update(DEBUGGER_SCENARIOS)
