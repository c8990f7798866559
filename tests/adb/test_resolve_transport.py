"""Resolution and JDWP transports against real adb + adbd + JVMs registered as app processes."""

from __future__ import annotations

import struct

import pytest
import trio

from pyjdwp_android.device import read_process_facts
from pyjdwp_android.errors import (
    DebuggerBusy,
    DebuggerUnsupported,
    DeviceNotFound,
    ProcessAmbiguous,
    ProcessChanged,
    ProcessNotFound,
)
from pyjdwp_android.resolve import recheck_identity, resolve_target
from pyjdwp_android.transport import HANDSHAKE, Transport, open_jdwp_stream

from .conftest import Apps, Testbed

pytestmark = pytest.mark.live


async def _receive_exactly(stream: trio.abc.ReceiveStream, n: int) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        chunk = await stream.receive_some(n - len(buf))
        assert chunk, f"EOF after {len(buf)} of {n} bytes"
        buf += chunk
    return bytes(buf)


async def _vm_version(stream: trio.abc.Stream) -> str:
    """VirtualMachine.Version (set 1, command 1), framed and decoded by hand."""
    await stream.send_all(struct.pack(">IIBBB", 11, 7, 0, 1, 1))
    length, packet_id, flags, error = struct.unpack(">IIBH", await _receive_exactly(stream, 11))
    body = await _receive_exactly(stream, length - 11)
    assert (packet_id, flags, error) == (7, 0x80, 0)
    (desc_len,) = struct.unpack_from(">I", body)
    return body[4 : 4 + desc_len].decode()


async def test_resolves_the_single_debuggable_process(testbed: Testbed, apps: Apps) -> None:
    testbed.install_package("com.example.single", 10124)
    app = await apps.start("com.example.single", jvm=False)
    with trio.fail_after(30):
        target = await resolve_target(testbed.client(), testbed.serial, "com.example.single")
        assert (target.pid, target.facts.name, target.package_uid) == (app.pid, "com.example.single", 10124)
        assert target.facts.start_ticks is not None and target.facts.boot_id
        await recheck_identity(testbed.client(), target)


async def test_two_processes_of_one_app_are_ambiguous(testbed: Testbed, apps: Apps) -> None:
    main = await apps.start("com.example.multi", jvm=False)
    remote = await apps.start("com.example.multi:remote", jvm=False)
    await apps.start("com.example.multiplayer", jvm=False)  # a prefix, not the same app
    client = testbed.client()
    with trio.fail_after(30):
        with pytest.raises(ProcessAmbiguous) as info:
            await resolve_target(client, testbed.serial, "com.example.multi")
        assert {c.pid for c in info.value.candidates} == {main.pid, remote.pid}
        assert info.value.code == "PROCESS_AMBIGUOUS" and str(remote.pid) in str(info.value)
        picked = await resolve_target(client, testbed.serial, "com.example.multi", remote.pid)
        assert picked.facts.name == "com.example.multi:remote"


async def test_not_running_not_debuggable_and_wrong_device(testbed: Testbed, apps: Apps) -> None:
    client = testbed.client()
    await apps.start("com.example.release", debuggable=False, jvm=False)
    with trio.fail_after(30):
        with pytest.raises(ProcessNotFound):
            await resolve_target(client, testbed.serial, "com.example.absent")
        with pytest.raises(DebuggerUnsupported) as info:
            await resolve_target(client, testbed.serial, "com.example.release")
        assert "not debuggable" in str(info.value)
        # The fix is a debug build: a userdebug device attaches to a release build with its code optimised.
        assert "debug build" in str(info.value) and "or use a userdebug" not in str(info.value)
        with pytest.raises(DeviceNotFound):
            await resolve_target(client, "127.0.0.1:1", "com.example.release")


async def test_identity_change_is_detected(testbed: Testbed, apps: Apps) -> None:
    app = await apps.start("com.example.restart", jvm=False)
    client = testbed.client()
    with trio.fail_after(30):
        target = await resolve_target(client, testbed.serial, "com.example.restart")
        apps.stop(app)
        with pytest.raises(ProcessChanged):
            await recheck_identity(client, target)
        facts = await read_process_facts(client, testbed.serial, [app.pid])
        assert facts[app.pid] is None


@pytest.mark.parametrize("transport", [Transport.DIRECT, Transport.FORWARD])
async def test_jdwp_stream_carries_a_real_session(testbed: Testbed, apps: Apps, transport: Transport) -> None:
    app = await apps.start("com.example.debuggee")
    client = testbed.client()
    with trio.fail_after(30):
        target = await resolve_target(client, testbed.serial, "com.example.debuggee")
        stream = await open_jdwp_stream(client, testbed.serial, target.pid, transport=transport)
        async with stream:
            assert stream.handshake_done
            if transport is Transport.FORWARD:
                local = stream.forward_local
                assert local is not None and local.startswith("tcp:")
                assert any(e.local == local and e.remote == f"jdwp:{app.pid}" for e in await client.list_forward())
            assert "OpenJDK" in await _vm_version(stream)
            await recheck_identity(client, target)
        if transport is Transport.FORWARD:
            assert all(e.local != local for e in await client.list_forward())


async def test_raw_handshake_both_ways_without_the_helper(testbed: Testbed, apps: Apps) -> None:
    app = await apps.start("com.example.raw")
    client = testbed.client()
    with trio.fail_after(30):
        stream = await open_jdwp_stream(client, testbed.serial, app.pid, handshake=False)
        async with stream:
            await stream.send_all(HANDSHAKE)
            assert await _receive_exactly(stream, len(HANDSHAKE)) == HANDSHAKE
            assert "OpenJDK" in await _vm_version(stream)


async def test_forward_close_keeps_other_forwards(testbed: Testbed, apps: Apps) -> None:
    app = await apps.start("com.example.forwards")
    client = testbed.client()
    with trio.fail_after(30):
        other = await client.forward(testbed.serial, "tcp:0", f"jdwp:{app.pid}")
        try:
            stream = await open_jdwp_stream(client, testbed.serial, app.pid, transport="forward")
            mine = stream.forward_local
            await stream.aclose()
            remaining = {e.local for e in await client.list_forward()}
            assert other in remaining and mine not in remaining
        finally:
            await client.kill_forward(testbed.serial, other)


@pytest.mark.parametrize("transport", [Transport.DIRECT, Transport.FORWARD])
async def test_second_debugger_is_reported_busy(testbed: Testbed, apps: Apps, transport: Transport) -> None:
    app = await apps.start("com.example.busy")
    client = testbed.client()
    with trio.fail_after(30):
        first = await open_jdwp_stream(client, testbed.serial, app.pid)
        async with first:
            with pytest.raises(DebuggerBusy) as info:
                await open_jdwp_stream(client, testbed.serial, app.pid, transport=transport)
            assert info.value.code == "DEBUGGER_BUSY" and "Android Studio" in str(info.value)
            assert "OpenJDK" in await _vm_version(first)  # the first session is unaffected
        assert all(e.remote != f"jdwp:{app.pid}" for e in await client.list_forward())


async def test_unregistered_pid_is_not_found(testbed: Testbed, apps: Apps) -> None:
    app = await apps.start("com.example.plain", debuggable=False, jvm=False)
    with trio.fail_after(30):
        for transport in Transport:
            with pytest.raises(ProcessNotFound):
                await open_jdwp_stream(testbed.client(), testbed.serial, app.pid, transport=transport)
