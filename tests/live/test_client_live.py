"""The client against a real OpenJDK 17 JDWP agent: every command the debugger relies on, end to end."""

from __future__ import annotations

import trio

import jdwp
from jdwp.protocol.commands.threads import SlotRequest
from jdwp.protocol.constants import EventKind, StepDepth, StepSize, SuspendPolicy, Tag
from support.jvm import Debuggee, find_mark

MAIN = "Lcom/example/debuggee/Main;"
WORKER = "Lcom/example/debuggee/Worker;"


async def test_version_sizes_threads(debuggee: Debuggee) -> None:
    with trio.fail_after(30):
        async with jdwp.open_jdwp_tcp("127.0.0.1", debuggee.port) as vm:
            version = await vm.version()
            assert version.jdwp_major == 17
            assert "OpenJDK" in version.vm_name or "HotSpot" in version.vm_name
            assert vm.id_sizes == jdwp.IdSizes(8, 8, 8, 8, 8)
            names = [await vm.thread_reference.name(t) for t in await vm.all_threads()]
            assert "main" in names and "heartbeat" in names
            groups = await vm.top_level_thread_groups()
            assert await vm.thread_group_reference.name(groups[0]) == "system"
            caps = await vm.capabilities_new()
            assert caps.can_get_bytecodes and len(caps.reserved) == 11
            await vm.dispose()
        debuggee.wait_for_more_heartbeats()


async def test_suspended_start_sends_vm_start_first(suspended_debuggee: Debuggee) -> None:
    with trio.fail_after(30):
        async with jdwp.open_jdwp_tcp("127.0.0.1", suspended_debuggee.port) as vm:
            event_set = await vm.receive_event()
            assert event_set.suspend_policy == SuspendPolicy.ALL
            (start,) = event_set.events
            assert isinstance(start, jdwp.VMStartEvent) and start.request_id == 0
            await vm.resume()
            await vm.dispose()
        suspended_debuggee.wait_for_line("^ready$")
        suspended_debuggee.wait_for_more_heartbeats()


async def test_breakpoint_frames_values_strings(debuggee: Debuggee) -> None:
    source, line = find_mark("step")
    with trio.fail_after(60):
        async with jdwp.open_jdwp_tcp("127.0.0.1", debuggee.port) as vm:
            (worker,) = await vm.classes_by_signature(WORKER)
            assert await vm.reference_type.source_file(worker.type_id) == source
            methods = {m.name: m for m in await vm.reference_type.methods(worker.type_id)}
            step = methods["step"]
            table = await vm.method.line_table(worker.type_id, step.method_id)
            index = next(e.line_code_index for e in table.lines if e.line_number == line)
            variables = await vm.method.variable_table(worker.type_id, step.method_id)
            assert variables.arg_cnt == 1
            location = jdwp.Location(jdwp.TypeTag.CLASS, worker.type_id, step.method_id, index)
            request_id = await vm.event_request.set(EventKind.BREAKPOINT, SuspendPolicy.ALL,
                                                    [jdwp.LocationOnly(location)])

            event_set = await vm.receive_event()
            (hit,) = event_set.events
            assert isinstance(hit, jdwp.BreakpointEvent)
            assert hit.request_id == request_id and hit.location == location
            await vm.event_request.clear(EventKind.BREAKPOINT, request_id)

            thread = hit.thread
            assert await vm.thread_reference.name(thread) == "main"
            count = await vm.thread_reference.frame_count(thread)
            frames = await vm.thread_reference.frames(thread, 0, -1)
            assert len(frames) == count >= 2
            assert frames[0].location == location

            live = [v for v in variables.slots if v.code_index <= index < v.code_index + v.length]
            slots = [SlotRequest(v.slot, ord(v.signature[0])) for v in live]
            values = dict(zip((v.name for v in live),
                              await vm.stack_frame.get_values(thread, frames[0].frame_id, slots), strict=True))
            assert values["big"] == jdwp.Value(Tag.LONG, (1 << 60) + 7)
            assert values["half"] == jdwp.Value(Tag.FLOAT, 0.5)
            assert values["initial"] == jdwp.Value(Tag.CHAR, "Z")
            assert values["small"] == jdwp.Value(Tag.BYTE, -3)
            assert values["medium"] == jdwp.Value(Tag.SHORT, 1234)
            assert values["even"].tag == Tag.BOOLEAN
            assert values["nothing"].is_null
            assert values["greeting"].tag == Tag.STRING
            text = await vm.string_reference.value(values["greeting"].value)
            assert text == "h\u00e9llo \U0001F600 nul:\x00:end"
            assert await vm.string_reference.value(values["empty"].value) == ""
            assert values["numbers"].tag == Tag.ARRAY
            assert await vm.array_reference.length(values["numbers"].value) == 3
            region = await vm.array_reference.get_values(values["numbers"].value, 0, 3)
            assert region == jdwp.ArrayRegion(Tag.INT, [1, 2, 3])
            mixed = await vm.array_reference.get_values(values["mixed"].value, 0, 3)
            assert [v.tag for v in mixed.values] == [Tag.STRING, Tag.OBJECT, Tag.OBJECT]
            assert mixed.values[2].is_null
            this = await vm.stack_frame.this_object(thread, frames[0].frame_id)
            assert this.is_null  # a static method
            self_type = await vm.object_reference.reference_type(values["self"].value)
            assert self_type.type_id == worker.type_id

            await vm.resume()
            await vm.dispose()
        debuggee.wait_for_more_heartbeats()


async def test_step_over_lands_on_next_line(debuggee: Debuggee) -> None:
    _, line = find_mark("step")
    with trio.fail_after(60):
        async with jdwp.open_jdwp_tcp("127.0.0.1", debuggee.port) as vm:
            (worker,) = await vm.classes_by_signature(WORKER)
            step = next(m for m in await vm.reference_type.methods(worker.type_id) if m.name == "step")
            table = await vm.method.line_table(worker.type_id, step.method_id)
            index = next(e.line_code_index for e in table.lines if e.line_number == line)
            location = jdwp.Location(jdwp.TypeTag.CLASS, worker.type_id, step.method_id, index)
            bp = await vm.event_request.set(EventKind.BREAKPOINT, SuspendPolicy.ALL, [jdwp.LocationOnly(location)])
            (hit,) = (await vm.receive_event()).events
            await vm.event_request.clear(EventKind.BREAKPOINT, bp)
            await vm.event_request.set(EventKind.SINGLE_STEP, SuspendPolicy.ALL, [
                jdwp.Step(hit.thread, StepSize.LINE, StepDepth.OVER), jdwp.Count(1)])
            await vm.resume()
            (stepped,) = (await vm.receive_event()).events
            assert isinstance(stepped, jdwp.SingleStepEvent)
            lines = sorted((e.line_code_index, e.line_number) for e in table.lines)
            landed = max(n for i, n in lines if i <= stepped.location.index)
            assert landed == line + 1
            await vm.resume()
            await vm.dispose()
        debuggee.wait_for_more_heartbeats()


async def test_command_error_is_typed(debuggee: Debuggee) -> None:
    with trio.fail_after(30):
        async with jdwp.open_jdwp_tcp("127.0.0.1", debuggee.port) as vm:
            (main,) = await vm.classes_by_signature(MAIN)
            threads = await vm.all_threads()
            try:
                await vm.thread_reference.frames(threads[0], 0, -1)
            except jdwp.ThreadNotSuspended as exc:
                assert str(exc) == "ThreadReference.Frames failed: THREAD_NOT_SUSPENDED (13)"
            else:
                raise AssertionError("frames of a running thread must fail")
            try:
                await vm.string_reference.value(main.type_id + 999_999)
            except jdwp.CommandError as exc:
                assert exc.error in {"INVALID_OBJECT", "INVALID_STRING"}
            # The connection is still fine after errors.
            assert (await vm.version()).jdwp_major == 17
            await vm.dispose()
