"""Round trips of the journey's hot path, counted as waves against a scripted VM that answers only once
the debugger waits (issue 10: no needless round trips at attach, set_breakpoint or detach).

A wave is every command sent before the debugger needs an answer; a regression that serialises two
independent requests adds one.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import trio.testing
from test_debugger_faults import CLASS, LOCATION, class_handlers, hit, scripted

from jdwp.debugger import FIRST_REQUESTS, Capture, Debugger, Stopped
from jdwp.protocol.commands.objects import ArrayLengthReply, ReferenceTypeReply, StringValueReply
from jdwp.protocol.commands.reftypes import SignatureReply, ValuesReply, VariableSlot, VariableTableReply
from jdwp.protocol.commands.threads import Frame, FramesReply, ThisObjectReply
from jdwp.protocol.commands.vm import VersionReply
from jdwp.protocol.constants import Tag, TypeTag
from jdwp.protocol.types import HOTSPOT_64, FrameId
from jdwp.protocol.values import Value
from support.fakevm import FAKE_VERSION, Handler, ScriptedVm, WaveVm


def wave_handlers(vm_ref: list[ScriptedVm]) -> dict[str, Handler]:
    handlers = class_handlers(vm_ref)
    handlers["VirtualMachine.IDSizes"] = lambda out: HOTSPOT_64
    handlers["VirtualMachine.Version"] = lambda out: FAKE_VERSION
    return handlers


@asynccontextmanager
async def waves() -> AsyncIterator[tuple[WaveVm, Debugger]]:
    async with scripted(wave_handlers, WaveVm) as (fake, debugger):
        assert isinstance(fake, WaveVm)
        yield fake, debugger


async def test_attach_is_two_waves() -> None:
    async with waves() as (vm, debugger):
        assert debugger.vm.version_info == FAKE_VERSION
        assert vm.waves == [["VirtualMachine.IDSizes", "VirtualMachine.Version"],
                            ["VirtualMachine.ClassesBySignature"]]  # is the launcher loaded (a running VM)
        assert debugger.vm.statistics()["writes"] == 2  # a wave is one write


async def test_attach_with_the_engines_first_requests_is_one_wave() -> None:
    async with scripted(wave_handlers, WaveVm, first_requests=FIRST_REQUESTS) as (vm, debugger):
        assert isinstance(vm, WaveVm)
        assert vm.waves == [["VirtualMachine.IDSizes", "VirtualMachine.Version", "VirtualMachine.ClassesBySignature"]]
        assert debugger.vm.statistics()["writes"] == 1
        assert debugger.state == "running"  # the launcher is loaded: no VM_START is waited for


def android_handlers(vm_ref: list[ScriptedVm]) -> dict[str, Handler]:
    handlers = wave_handlers(vm_ref)
    # What ART's back end answers: java.vm.name is "Dalvik" (libcore's System.initUnchangeableSystemProperties)
    handlers["VirtualMachine.Version"] = lambda out: VersionReply("Android Runtime", 1, 8, "2.1.0", "Dalvik")
    return handlers


async def test_an_android_vm_is_attached_in_one_wave() -> None:
    """An app's process was forked running from the zygote: no VM_START is due, so nothing is looked up."""
    async with scripted(android_handlers, WaveVm) as (vm, _):
        assert isinstance(vm, WaveVm)
        assert vm.waves == [["VirtualMachine.IDSizes", "VirtualMachine.Version"]]


async def test_a_breakpoint_in_a_loaded_class_is_four_waves() -> None:
    async with waves() as (vm, debugger):
        before, writes = len(vm.waves), debugger.vm.statistics()["writes"]
        bp = await debugger.set_breakpoint(CLASS, 5)
        assert bp.status == "verified" and bp.locations[0].source == "Q.java"
        assert [sorted(wave) for wave in vm.waves[before:]] == [
            # the capabilities (first breakpoint of a session), the class-prepare requests (Q, Q$*), the listing
            ["EventRequest.Set", "EventRequest.Set", "VirtualMachine.AllClasses", "VirtualMachine.CapabilitiesNew"],
            ["ReferenceType.Methods", "ReferenceType.SourceFile"],  # its signature came with the listing
            ["Method.LineTable"],
            ["EventRequest.Set", "ReferenceType.ClassLoader"],  # the breakpoint, and its class's loader
        ]
        assert debugger.vm.statistics()["writes"] - writes == 4  # a wave is one write
        # the watches go out before the listing, so a class is listed or reported (never neither)
        listed = vm.sent.index("VirtualMachine.AllClasses")
        assert vm.sent[listed - 2:listed + 1] == ["EventRequest.Set", "EventRequest.Set", "VirtualMachine.AllClasses"]


async def test_detach_from_a_stop_clears_every_request_in_one_wave() -> None:
    async with waves() as (vm, debugger):
        await debugger.set_breakpoint(CLASS, 5)
        await vm.event(hit(vm._request_ids, 0x100))  # the breakpoint request came last
        assert isinstance(await debugger.events.receive(), Stopped)
        before = len(vm.waves)
        cleanup = await debugger.detach()
        assert (cleanup.status, cleanup.execution_state) == ("complete", "running")
        assert vm.waves[before:] == [
            # the breakpoint's and the class-prepare requests (Q, Q$*), then the stop's release (the VM runs them
            # in order: no event of ours comes after it) and the thread list, in one write
            ["EventRequest.Clear"] * 3 + ["VirtualMachine.Resume", "VirtualMachine.AllThreads"],
            ["ThreadReference.Status"] * 2,
            ["VirtualMachine.Dispose"],
        ]


STRING_TYPE, OBJECTS_TYPE = 0x70, 0x71


def with_locals(vm_ref: list[ScriptedVm]) -> dict[str, Handler]:
    """Frame locals of three kinds at the breakpoint: a string, an ``int[]`` and an ``Object[]`` (which holds
    a ``String[]``)."""
    handlers = wave_handlers(vm_ref)
    handlers["Method.VariableTable"] = lambda out: VariableTableReply(0, [
        VariableSlot(0, "label", "Ljava/lang/String;", 9, 0), VariableSlot(0, "window", "[I", 9, 1),
        VariableSlot(0, "items", "[Ljava/lang/Object;", 9, 2)])
    handlers["StackFrame.GetValues"] = lambda out: ValuesReply(
        [Value(Tag.STRING, 0x501), Value(Tag.ARRAY, 0x502), Value(Tag.ARRAY, 0x503)])
    handlers["StackFrame.ThisObject"] = lambda out: ThisObjectReply(Value(Tag.OBJECT, 0))
    handlers["StringReference.Value"] = lambda out: StringValueReply("round")
    handlers["ArrayReference.Length"] = lambda out: ArrayLengthReply(3)
    handlers["ObjectReference.ReferenceType"] = lambda out: ReferenceTypeReply(TypeTag.ARRAY, OBJECTS_TYPE)
    handlers["ReferenceType.Signature"] = lambda out: SignatureReply(
        "[Ljava/lang/String;" if out.ref_type == OBJECTS_TYPE else "Lcom/example/Q;")
    return handlers


async def test_locals_ask_texts_lengths_and_types_in_one_write_but_not_a_primitive_arrays_type() -> None:
    """An ``int[]`` can only hold an ``int[]``: its type is not asked. The ``Object[]``'s is (it holds a
    ``String[]``), with the string's text and both lengths, in one write; its signature follows, with
    the ``int[]``'s first elements for its preview (docs/design.md §3.7; an array of objects has none)."""
    async with scripted(with_locals, WaveVm) as (vm, debugger):
        assert isinstance(vm, WaveVm)
        await debugger.set_breakpoint(CLASS, 5)
        await vm.event(hit(vm._request_ids, 0x100))
        stopped = await debugger.events.receive()
        assert isinstance(stopped, Stopped)
        page = await debugger.stack(stopped.stop.stop_id, stopped.stop.thread_id)
        await trio.testing.wait_all_tasks_blocked()  # the stop's read-ahead is done
        waves_before, writes = len(vm.waves), debugger.vm.statistics()["writes"]
        found = await debugger.locals(stopped.stop.stop_id, page.frames[0].frame_id)
        # A wave is one write, but the int[]'s preview: a write of its own in the signature's round trip (or one
        # with it, when the client's outbox joins the two).
        assert debugger.vm.statistics()["writes"] - writes - (len(vm.waves) - waves_before) in (0, 1)
        first = next(i for i, wave in enumerate(vm.waves) if "StackFrame.GetValues" in wave)
        assert [sorted(wave) for wave in vm.waves[first + 1:]] == [
            ["ArrayReference.Length", "ArrayReference.Length", "ObjectReference.ReferenceType",
             "StringReference.Value"],
            ["ArrayReference.GetValues", "ReferenceType.Signature"]]  # with the int[]'s first elements: its preview
        assert vm.count("ObjectReference.ReferenceType") == 1
        shown = {local.name: (local.type, local.runtime_type, local.value, local.length) for local in found.locals}
        assert shown == {"label": ("java.lang.String", "java.lang.String", "round", 5),
                         "window": ("int[]", "int[]", None, 3),
                         "items": ("java.lang.Object[]", "java.lang.String[]", None, 3)}


async def test_a_stop_asks_frame_0_with_its_first_questions_and_a_capture_adds_only_the_reads_of_its_values() -> None:
    """Every stop's ``frame_id`` comes from the first wave (``Frames`` with ``FrameCount``); a capture's deeper
    frames join it, and its locals and expressions share one read of the frame: the waves of a plain
    ``get_debugger_locals``, and the expressions none of their own (``window.length`` is the length the locals
    read). The values carry their previews as get_debugger_locals' do, read in the same waves."""
    capture = Capture(stack=2, locals=True, expressions=("label", "window.length"))
    first_wave = ["Method.VariableTable", "ThreadReference.FrameCount", "ThreadReference.Frames",
                  "ThreadReference.Name"]
    for given, waves_made in ((None, [first_wave]),
                              (capture, [sorted([*first_wave, "ThreadReference.Frames"]),
                                         ["StackFrame.GetValues", "StackFrame.ThisObject"],
                                         ["ArrayReference.Length", "ArrayReference.Length",
                                          "ObjectReference.ReferenceType", "StringReference.Value"],
                                         # the int[] window's preview (its elements) beside its type's name
                                         ["ArrayReference.GetValues", "ReferenceType.Signature"]])):
        async with scripted(with_locals, WaveVm) as (vm, debugger):
            assert isinstance(vm, WaveVm)
            await debugger.set_breakpoint(CLASS, 5, capture=given)
            before = len(vm.waves)
            await vm.event(hit(vm._request_ids, 0x100))
            stopped = await debugger.events.receive()
            assert isinstance(stopped, Stopped)
            assert [sorted(wave) for wave in vm.waves[before:]] == waves_made
            stop = stopped.stop
            assert stop.frame_id == f"{stop.thread_id}.f0"
            if given is None:
                assert stop.capture is None
                continue
            assert stop.capture is not None and stop.capture.locals is not None
            assert [e.value.value for e in stop.capture.expressions] == ["round", "3"]
            await debugger.locals(stop.stop_id, stop.frame_id)  # kept by the stop: asks nothing
            assert len(vm.waves) == before + len(waves_made)


async def test_a_threads_third_captured_stop_reads_its_locals_with_its_first_questions() -> None:
    """Once two stops of a thread showed how frame 0's ID moves, a capture's locals go out in the stop's first
    write under the guessed ID, which the ``Frames`` before them confirms (jdwp/frame_guess.py)."""
    generation = [0]

    def handlers(vm_ref: list[ScriptedVm]) -> dict[str, Handler]:
        table = with_locals(vm_ref)
        table["ThreadReference.Frames"] = lambda out: FramesReply([Frame(FrameId(generation[0] << 16), LOCATION)])
        return table

    async with scripted(handlers, WaveVm) as (vm, debugger):
        assert isinstance(vm, WaveVm)
        await debugger.set_breakpoint(CLASS, 5, capture=Capture(locals=True, expressions=("label",)))
        for _ in range(3):
            generation[0] += 1
            before = len(vm.waves)
            await vm.event(hit(vm._request_ids, 0x100))
            stopped = await debugger.events.receive()
            assert isinstance(stopped, Stopped) and stopped.stop.capture is not None
            assert stopped.stop.capture.expressions[0].value.value == "round"
            await debugger.resume(stopped.stop.stop_id)
        waves = [sorted(wave) for wave in vm.waves[before:]]
        # Its variable table, and the values' texts and lengths, are the session's from the first stops: the
        # whole capture is the stop's first write; then the int[]'s first elements, its preview (read anew at
        # each stop: the app may have changed them, and a capture's locals carry previews as
        # get_debugger_locals' do); the resume the next.
        assert waves == [["StackFrame.GetValues", "StackFrame.ThisObject", "ThreadReference.FrameCount",
                          "ThreadReference.Frames", "ThreadReference.Frames", "ThreadReference.Name"],
                         ["ArrayReference.GetValues"], ["VirtualMachine.Resume"]]
