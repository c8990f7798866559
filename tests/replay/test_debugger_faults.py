"""The debugger engine against a scripted VM: behaviour HotSpot does not show on demand.

- A stop that arrives while another is current is queued (HotSpot's agent holds further events after a
  suspend-all set until Resume, so live it never queues; ART and other agents may).
- An event set whose handling fails still has its suspension released; when the VM stops answering
  meanwhile, the connection is closed (its agent then releases what we suspended).
- An empty variable table is ``unknown`` (ART reports this when it cannot tell "absent" from "none").
- A VM that refuses source-name filters, gives a malformed source map, or cannot give maps at all.

The scripted VM answers each command by name from a table of handlers and records what it was sent.
Every test runs under ``trio.fail_after``; in-memory streams let ``wait_all_tasks_blocked`` say "settled".
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest
import trio
import trio.testing

import jdwp
from jdwp.debugger import Debugger, Locals, StaleReference, Stopped, Terminated, open_debugger
from jdwp.protocol.commands._base import Empty
from jdwp.protocol.commands.events import (
    BreakpointEvent,
    ClassMatch,
    ClassPrepareEvent,
    SetOut,
    SetReply,
    SourceNameMatch,
)
from jdwp.protocol.commands.reftypes import (
    ClassLoaderReply,
    LineEntry,
    LineTableReply,
    MethodInfo,
    MethodsReply,
    SignatureReply,
    SourceDebugExtensionReply,
    SourceFileReply,
    VariableTableReply,
)
from jdwp.protocol.commands.threads import (
    Frame,
    FrameCountReply,
    FramesReply,
    SuspendCountReply,
    ThisObjectReply,
    ThreadNameReply,
    ThreadStatusReply,
)
from jdwp.protocol.commands.vm import (
    AllClassesReply,
    CapabilitiesNewReply,
    ClassesBySignatureReply,
    ClassInfo,
    ClassRef,
    ThreadsReply,
)
from jdwp.protocol.constants import ErrorCode, SuspendPolicy, Tag, TypeTag
from jdwp.protocol.types import Location
from jdwp.protocol.values import Value
from jdwp.protocol.wire import CommandPacket
from support.fakevm import Handler, ScriptedVm

CLASS = "com.example.Q"
CLASS_ID, METHOD_ID, LOADER = 0x10, 0x20, 0x99
THREADS = {0x100: "one", 0x200: "two"}
LOCATION = Location(TypeTag.CLASS, CLASS_ID, METHOD_ID, 4)

def class_handlers(vm_ref: list[ScriptedVm], *, loaded: bool = True) -> dict[str, Handler]:
    """One class ``com.example.Q`` with one method whose line 5 starts at code index 4."""
    return {
        "EventRequest.Set": lambda out: SetReply(vm_ref[0].next_request_id()),
        "EventRequest.Clear": lambda out: Empty(),
        "VirtualMachine.ClassesBySignature": lambda out: ClassesBySignatureReply(
            [ClassRef(TypeTag.CLASS, CLASS_ID, 7)] if loaded else []),
        "VirtualMachine.AllClasses": lambda out: AllClassesReply(
            [ClassInfo(TypeTag.CLASS, CLASS_ID, "Lcom/example/Q;", 7)] if loaded else []),
        "ReferenceType.Signature": lambda out: SignatureReply("Lcom/example/Q;"),
        "ReferenceType.SourceFile": lambda out: SourceFileReply("Q.java"),
        "ReferenceType.Methods": lambda out: MethodsReply([MethodInfo(METHOD_ID, "run", "()V", 1)]),
        "ReferenceType.ClassLoader": lambda out: ClassLoaderReply(LOADER),
        "Method.LineTable": lambda out: LineTableReply(0, 9, [LineEntry(0, 4), LineEntry(4, 5)]),
        "ThreadReference.Name": lambda out: ThreadNameReply(THREADS[out.thread]),
        "ThreadReference.FrameCount": lambda out: FrameCountReply(1),
        "ThreadReference.Frames": lambda out: FramesReply([Frame(0x7000 + out.thread, LOCATION)]),
        "VirtualMachine.Resume": lambda out: Empty(),
        "VirtualMachine.AllThreads": lambda out: ThreadsReply(list(THREADS)),
        "ThreadReference.SuspendCount": lambda out: SuspendCountReply(0),
        "ThreadReference.Status": lambda out: ThreadStatusReply(1, 0),  # running, not suspended
        "VirtualMachine.Dispose": lambda out: Empty(),
    }


@asynccontextmanager
async def scripted(handlers: Callable[[list[ScriptedVm]], dict[str, Handler]], vm_class: type[ScriptedVm] = ScriptedVm,
                   **open_options: Any) -> AsyncIterator[tuple[ScriptedVm, Debugger]]:
    """A debugger over a scripted VM of ``vm_class`` answering with ``handlers`` (given the VM once made);
    ``open_options`` go to ``jdwp.open_jdwp``."""
    client_end, vm_end = trio.testing.memory_stream_pair()
    vm_ref: list[ScriptedVm] = []
    fake = vm_class(vm_end, handlers(vm_ref))
    vm_ref.append(fake)
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(fake.serve)
            async with jdwp.open_jdwp(client_end, **open_options) as client, open_debugger(client) as debugger:
                yield fake, debugger
            nursery.cancel_scope.cancel()


def hit(request_id: int, thread: int) -> BreakpointEvent:
    return BreakpointEvent(request_id, thread, LOCATION)


async def locals_at_a_hit(vm: ScriptedVm, debugger: Debugger) -> tuple[str, Locals]:
    """Set the breakpoint at ``CLASS``:5, hit it, and read the top frame's locals: the stop's id and them."""
    await debugger.set_breakpoint(CLASS, 5)
    await vm.event(hit(vm._request_ids, 0x100))
    stopped = await debugger.events.receive()
    assert isinstance(stopped, Stopped)
    page = await debugger.stack(stopped.stop.stop_id, stopped.stop.thread_id)
    return stopped.stop.stop_id, await debugger.locals(stopped.stop.stop_id, page.frames[0].frame_id)


async def test_a_stop_arriving_during_another_is_queued_then_current_after_resume() -> None:
    async with scripted(class_handlers) as (vm, debugger):
        bp = await debugger.set_breakpoint(CLASS, 5)
        assert bp.status == "verified" and bp.locations[0].class_loader_id == f"{LOADER:#x}"
        request_id = vm._request_ids  # the breakpoint request came last
        await vm.event(hit(request_id, 0x100))
        await vm.event(hit(request_id, 0x200))
        first = await debugger.events.receive()
        assert isinstance(first, Stopped) and first.stop.thread_name == "one"
        await trio.testing.wait_all_tasks_blocked()  # the second event set is handled: queued
        with pytest.raises(trio.WouldBlock):
            debugger.events.receive_nowait()
        assert debugger.current_stop == first.stop and vm.count("VirtualMachine.Resume") == 0

        await debugger.resume(first.stop.stop_id)
        assert vm.count("VirtualMachine.Resume") == 1  # exactly the first stop's suspension
        second = debugger.events.receive_nowait()  # published by the resume itself
        assert isinstance(second, Stopped) and second.stop.thread_name == "two"
        assert second.stop.stop_id == "stop-2" and debugger.current_stop == second.stop
        with pytest.raises(StaleReference):
            await debugger.stack(first.stop.stop_id, first.stop.thread_id)
        page = await debugger.stack(second.stop.stop_id, second.stop.thread_id)
        assert page.frames[0].line == 5 and page.frames[0].source == "Q.java"

        await debugger.resume(second.stop.stop_id)
        assert vm.count("VirtualMachine.Resume") == 2 and debugger.state == "running"
        cleanup = await debugger.detach()
        assert (cleanup.status, cleanup.execution_state) == ("complete", "running")
        assert vm.count("VirtualMachine.Resume") == 2  # nothing left to release: no Resume we do not own


async def test_an_event_set_whose_handling_fails_is_still_released() -> None:
    def handlers(vm_ref: list[ScriptedVm]) -> dict[str, Handler]:
        table = class_handlers(vm_ref, loaded=False)
        table["Method.LineTable"] = lambda out: ErrorCode.INVALID_METHODID
        return table

    async with scripted(handlers) as (vm, debugger):
        bp = await debugger.set_breakpoint(CLASS, 5)
        assert bp.status == "pending"
        prepare_id = vm._request_ids
        await vm.event(ClassPrepareEvent(prepare_id, 0x100, TypeTag.CLASS, CLASS_ID, "Lcom/example/Q;", 7))
        await trio.testing.wait_all_tasks_blocked()
        assert vm.sent[-1] == "VirtualMachine.Resume"  # the class-prepare suspension was released
        assert debugger.terminal is None and debugger.state == "running"


async def test_an_empty_variable_table_is_unknown_not_unavailable() -> None:
    def handlers(vm_ref: list[ScriptedVm]) -> dict[str, Handler]:
        table = class_handlers(vm_ref)
        table["Method.VariableTable"] = lambda out: VariableTableReply(0, [])
        table["StackFrame.ThisObject"] = lambda out: ThisObjectReply(Value(Tag.OBJECT, 0))
        return table

    async with scripted(handlers) as (vm, debugger):
        stop_id, result = await locals_at_a_hit(vm, debugger)
        assert result.availability == "unknown" and result.reason == "EMPTY_OR_UNAVAILABLE_VARIABLE_METADATA"
        assert result.locals == () and result.this is None
        await debugger.resume(stop_id)


async def test_thread_policy_event_sets_are_released_per_thread() -> None:
    """An EVENT_THREAD set (another agent's choice, e.g. a VM start) is released with ThreadReference.Resume."""

    def handlers(vm_ref: list[ScriptedVm]) -> dict[str, Handler]:
        table = class_handlers(vm_ref)
        table["ThreadReference.Resume"] = lambda out: Empty()
        return table

    async with scripted(handlers) as (vm, debugger):
        await debugger.set_breakpoint(CLASS, 5)
        await vm.event(hit(vm._request_ids, 0x200), policy=SuspendPolicy.EVENT_THREAD)
        stopped = await debugger.events.receive()
        assert isinstance(stopped, Stopped) and stopped.stop.thread_name == "two"
        await debugger.resume(stopped.stop.stop_id)
        assert vm.count("ThreadReference.Resume") == 1 and vm.count("VirtualMachine.Resume") == 0


def capabilities(source_debug_extension: bool) -> CapabilitiesNewReply:
    flags = [False] * len(dataclasses.fields(CapabilitiesNewReply))
    names = [f.name for f in dataclasses.fields(CapabilitiesNewReply)]
    flags[names.index("can_get_source_debug_extension")] = source_debug_extension
    return CapabilitiesNewReply(*flags[:-1], [False] * 11)


async def test_a_vm_that_refuses_source_name_filters_gets_class_patterns_and_a_second_listing() -> None:
    """A file breakpoint's request goes out with SourceNameMatch before the VM's capabilities are known; a
    VM that refuses it (ART may) gets class patterns instead, then the classes are listed again, so that a
    class loaded in between is not missed."""
    sets: list[list[object]] = []

    def handlers(vm_ref: list[ScriptedVm]) -> dict[str, Handler]:
        table = class_handlers(vm_ref, loaded=False)

        def set_request(out: SetOut) -> object:
            sets.append(list(out.modifiers))
            if any(isinstance(m, SourceNameMatch) for m in out.modifiers):
                return ErrorCode.NOT_IMPLEMENTED
            return SetReply(vm_ref[0].next_request_id())

        table["EventRequest.Set"] = set_request
        return table

    async with scripted(handlers) as (vm, debugger):
        bp = await debugger.set_breakpoint(file="src/main/java/com/example/Q.java", line=5)
        assert bp.status == "pending"
        patterns = [m.class_pattern for modifiers in sets[1:] for m in modifiers if isinstance(m, ClassMatch)]
        assert isinstance(sets[0][0], SourceNameMatch) and "com.example.*" in patterns and "*.Q" in patterns
        assert vm.count("VirtualMachine.AllClasses") == 2
        later = await debugger.set_breakpoint(file="Q.java", line=5)  # known now: no source-name filter tried
        assert later.status == "pending" and not any(isinstance(m, SourceNameMatch) for m in sets[-1])


async def test_a_malformed_source_map_is_ignored_and_the_class_binds_by_its_own_lines(
        caplog: pytest.LogCaptureFixture) -> None:
    def handlers(vm_ref: list[ScriptedVm]) -> dict[str, Handler]:
        table = class_handlers(vm_ref)
        table["VirtualMachine.CapabilitiesNew"] = lambda out: capabilities(True)
        table["ReferenceType.SourceDebugExtension"] = lambda out: SourceDebugExtensionReply("SMAP\nQ.kt\n*L\n")
        return table

    with caplog.at_level(logging.INFO, logger="jdwp.debugger"):
        async with scripted(handlers) as (vm, debugger):
            bp = await debugger.set_breakpoint(CLASS, 5)
            assert bp.status == "verified" and bp.locations[0].line == 5 and not bp.locations[0].inlined
            assert vm.count("ReferenceType.SourceDebugExtension") == 1
    assert "ignoring the source map of" in caplog.text


async def test_no_source_map_is_asked_of_a_vm_that_cannot_give_one() -> None:
    def handlers(vm_ref: list[ScriptedVm]) -> dict[str, Handler]:
        table = class_handlers(vm_ref)
        table["VirtualMachine.CapabilitiesNew"] = lambda out: capabilities(False)
        return table

    async with scripted(handlers) as (vm, debugger):
        bp = await debugger.set_breakpoint(CLASS, 5)
        assert bp.status == "verified"
        assert vm.count("ReferenceType.SourceDebugExtension") == 0 and vm.count("VirtualMachine.CapabilitiesNew") == 1


class SilentVm(ScriptedVm):
    """Stands for an agent wedged by a torn packet: once ``silent``, it reads every command and answers none
    (a random length read as a header makes it wait for hundreds of megabytes that never come)."""

    silent = False

    async def answer(self, packet: CommandPacket) -> None:
        if not self.silent:
            await super().answer(packet)


async def test_a_vm_that_stops_answering_while_an_event_holds_its_threads_is_let_go() -> None:
    """The hit's threads stay suspended until something releases them, and no release can be confirmed:
    the engine closes the connection (a JDWP agent resumes what a debugger suspended when it goes) and says
    why, instead of leaving the app suspended behind a session that looks attached."""
    async with scripted(class_handlers, SilentVm) as (vm, debugger):
        assert isinstance(vm, SilentVm)
        await debugger.set_breakpoint(CLASS, 5)
        debugger.vm.request_timeout = 0.2
        vm.silent = True
        await vm.event(hit(vm._request_ids, 0x100))
        event = await debugger.events.receive()
        while not isinstance(event, Terminated):
            event = await debugger.events.receive()
        assert event.reason == "disconnected" and "stopped answering" in event.message
        assert debugger.vm.is_closed
