"""Every event request the engine makes is narrow (issue 32; the table in docs/reliability.md).

A journey through every kind of request on the ``Main`` debuggee — line breakpoints by class, by file and on a
class not loaded yet, an exception breakpoint on every throwable, method entry and exit, a watchpoint, a run
to a line and a step — with every ``EventRequest.Set`` (15,1) the client sends recorded on the way: each one
names a class (``ClassMatch``, ``ClassOnly``, ``SourceNameMatch``, ``ExceptionOnly`` of a class,
``FieldOnly``), a location (``LocationOnly``), a thread (``Step``, ``ThreadOnly``) or an instance
(``InstanceOnly`` of an object), and none asks for thread, class-unload, method-entry or monitor events.
"""

from __future__ import annotations

from typing import Any

import trio

import jdwp
from jdwp.debugger import RunTo, open_debugger
from jdwp.protocol.commands import EventRequest
from jdwp.protocol.commands.events import (
    ClassMatch,
    ClassOnly,
    ExceptionOnly,
    FieldOnly,
    InstanceOnly,
    LocationOnly,
    SetOut,
    SourceNameMatch,
    Step,
    ThreadOnly,
)
from jdwp.protocol.constants import EventKind
from support.jvm import Debuggee, find_mark
from support.stops import next_stop

WORKER = "com.example.debuggee.Worker"
MAIN = "com.example.debuggee.Main"

#: Kinds the engine never asks for: floods an app makes at will (threads, class unloads, every method, monitors).
NEVER = {EventKind.THREAD_START, EventKind.THREAD_DEATH, EventKind.CLASS_UNLOAD, EventKind.METHOD_ENTRY,
         EventKind.MONITOR_CONTENDED_ENTER, EventKind.MONITOR_CONTENDED_ENTERED, EventKind.MONITOR_WAIT,
         EventKind.MONITOR_WAITED}


def narrows(modifier: Any) -> bool:
    """Whether a modifier names one class (or a pattern the user's name made), a location, a thread or an
    instance."""
    if isinstance(modifier, ExceptionOnly):
        return modifier.exception_or_null != 0
    if isinstance(modifier, InstanceOnly):
        return modifier.instance != 0
    if isinstance(modifier, ClassMatch):
        return modifier.class_pattern.strip("*.") != ""
    return isinstance(modifier, ClassOnly | SourceNameMatch | FieldOnly | LocationOnly | Step | ThreadOnly)


def record_requests(vm: jdwp.JdwpClient) -> list[SetOut]:
    """Every ``EventRequest.Set`` ``vm`` sends from now on, whichever of its methods sends it."""
    sent: list[SetOut] = []
    request, request_all = vm.request, vm.request_all

    def note(command: Any, out: Any, fields: dict[str, Any]) -> None:
        if command is EventRequest.Set:
            sent.append(out if out is not None else SetOut(**fields))

    async def spy_request(command: Any, out: Any = None, /, **kwargs: Any) -> Any:
        note(command, out, {k: v for k, v in kwargs.items() if k != "timeout"})
        return await request(command, out, **kwargs)

    async def spy_request_all(requests: Any, /, **kwargs: Any) -> Any:
        for command, out in requests:
            note(command, out, {})
        return await request_all(requests, **kwargs)

    vm.request = spy_request  # type: ignore[method-assign]
    vm.request_all = spy_request_all  # type: ignore[method-assign]
    return sent


async def test_every_request_of_every_kind_names_a_class_location_thread_or_instance(debuggee: Debuggee) -> None:
    with trio.fail_after(90):
        async with jdwp.open_jdwp_tcp("127.0.0.1", debuggee.port) as vm:
            sent = record_requests(vm)
            async with open_debugger(vm) as debugger:
                await debugger.set_exception_breakpoint()  # every throwable, uncaught
                await debugger.set_exception_breakpoint("java.lang.IllegalStateException", caught=True)
                await debugger.set_breakpoint(file="Nest.java", line=find_mark("nest-inner")[1])
                await debugger.set_breakpoint("com.example.debuggee.Lazy", find_mark("lazy")[1])  # not loaded
                await debugger.set_breakpoint(MAIN, method="heartbeat")
                await debugger.set_watchpoint(MAIN, "running", "write")  # written only by "quit"
                exit_bp = await debugger.set_breakpoint(WORKER, method="step", on="exit")
                stop = await next_stop(debugger)
                assert exit_bp.breakpoint_id in stop.breakpoint_ids
                await debugger.remove_breakpoint(exit_bp.breakpoint_id)
                line_bp = await debugger.set_breakpoint(WORKER, find_mark("step")[1])
                await debugger.resume(stop.stop_id, run_to=RunTo(find_mark("main-loop")[1], class_name=MAIN))
                stop = await next_stop(debugger)
                assert stop.thread_id is not None
                await debugger.remove_breakpoint(line_bp.breakpoint_id)
                await debugger.step(stop.stop_id, stop.thread_id, "into")
                stepped = await next_stop(debugger)
                assert stepped.location is not None and stepped.location.class_name == WORKER
                await debugger.step(stepped.stop_id, stepped.thread_id or "", "out")
                back = await next_stop(debugger)
                assert back.location is not None and back.location.class_name == MAIN
    kinds = {request.event_kind for request in sent}
    assert {EventKind.CLASS_PREPARE, EventKind.BREAKPOINT, EventKind.EXCEPTION, EventKind.SINGLE_STEP,
            EventKind.FIELD_MODIFICATION} <= kinds
    assert EventKind.METHOD_EXIT_WITH_RETURN_VALUE in kinds
    assert not kinds & NEVER
    for request in sent:
        assert any(narrows(m) for m in request.modifiers), request
