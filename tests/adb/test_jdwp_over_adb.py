"""A whole JDWP session through the real adb server and adbd, with the ``jdwp`` client on top.

The chain: ``jdwp.open_jdwp`` → ``pyjdwp_android.open_jdwp_stream`` (direct: ``host:transport`` + ``jdwp:<pid>``
on one socket; forward: ``tcp:0`` → ``jdwp:<pid>``) → adb server → adbd → the registered app process →
OpenJDK's JDWP agent. A breakpoint set through it is hit, inspected and released.
"""

from __future__ import annotations

import pytest
import trio

import jdwp
from jdwp.protocol.constants import EventKind, SuspendPolicy
from pyjdwp_android.transport import Transport, open_jdwp_stream

from .conftest import Apps, Testbed


@pytest.mark.parametrize("transport", [Transport.DIRECT, Transport.FORWARD])
async def test_breakpoint_hit_through_adb(testbed: Testbed, apps: Apps, transport: Transport) -> None:
    app = await apps.start(f"com.example.jdwp.{transport.value}")
    client = testbed.client()
    with trio.fail_after(60):
        stream = await open_jdwp_stream(client, testbed.serial, app.pid, transport=transport)
        async with jdwp.open_jdwp(stream, handshake=False) as vm:
            assert "OpenJDK" in (await vm.version()).vm_name
            (heartbeat,) = await vm.classes_by_signature("LHeartbeat;")
            beat = next(m for m in await vm.reference_type.methods(heartbeat.type_id) if m.name == "beat")
            table = await vm.method.line_table(heartbeat.type_id, beat.method_id)
            first = min(table.lines, key=lambda e: e.line_code_index)
            location = jdwp.Location(jdwp.TypeTag.CLASS, heartbeat.type_id, beat.method_id, first.line_code_index)
            request_id = await vm.event_request.set(EventKind.BREAKPOINT, SuspendPolicy.ALL,
                                                    [jdwp.LocationOnly(location)])
            (hit,) = (await vm.receive_event()).events
            assert isinstance(hit, jdwp.BreakpointEvent) and hit.location == location
            frames = await vm.thread_reference.frames(hit.thread)
            assert [f.location.class_id for f in frames[:2]] == [heartbeat.type_id, heartbeat.type_id]
            await vm.event_request.clear(EventKind.BREAKPOINT, request_id)
            await vm.resume()
            await vm.dispose()
        if transport is Transport.FORWARD:
            assert all(e.remote != f"jdwp:{app.pid}" for e in await client.list_forward())
    assert app.procs[0].poll() is None, "the app must keep running after the debugger leaves"
