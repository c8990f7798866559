"""ADB client against a real adb server and a real adbd: server, device list, shell, discovery."""

from __future__ import annotations

import pytest
import trio

from pyjdwp_android.client import AdbClient, ServerAddress
from pyjdwp_android.errors import AdbConnectionError, DeviceNotFound, InvalidArgument

from .conftest import Apps, Testbed, free_port

pytestmark = pytest.mark.live


async def test_version_and_devices(testbed: Testbed) -> None:
    client = testbed.client()
    with trio.fail_after(20):
        assert await client.version() == 41
        devices = await client.devices()
    [device] = [d for d in devices if d.serial == testbed.serial]
    assert device.state == "device" and device.online
    assert device.transport_id is not None
    assert (await client.require_device(testbed.serial)).serial == testbed.serial


async def test_unknown_device_is_named_with_the_known_ones(testbed: Testbed) -> None:
    client = testbed.client()
    with trio.fail_after(20):
        with pytest.raises(DeviceNotFound) as info:
            await client.require_device("emulator-5554")
        assert info.value.code == "DEVICE_UNAVAILABLE"
        assert testbed.serial in str(info.value)
        with pytest.raises(DeviceNotFound):
            await client.shell("emulator-5554", "true")
        with pytest.raises(InvalidArgument):
            await client.require_device("bad serial")


async def test_shell_v2_separates_streams_and_reports_exit_codes(testbed: Testbed) -> None:
    client = testbed.client()
    with trio.fail_after(20):
        assert "shell_v2" in await client.features(testbed.serial)
        result = await client.shell(testbed.serial, "echo out; echo err >&2; exit 7")
        assert (result.stdout, result.stderr, result.exit_code) == (b"out\n", b"err\n", 7)
        ok = await client.shell(testbed.serial, "printf 'a\\0b'")
        assert ok.exit_code == 0 and ok.stdout == b"a\0b"


async def test_standin_pm_prints_what_android_prints(testbed: Testbed) -> None:
    testbed.install_package("com.example.standin", 10200)
    with trio.fail_after(20):
        result = await testbed.client().shell(testbed.serial, "pm list packages -U com.example.standin")
    assert result.stdout == b"package:com.example.standin uid:10200\n"


async def test_no_server_and_no_start_is_a_connection_error() -> None:
    client = AdbClient(ServerAddress("127.0.0.1", free_port()), start_server=False)
    with trio.fail_after(20):
        with pytest.raises(AdbConnectionError) as info:
            await client.version()
    assert "adb start-server" in str(info.value)


async def test_starts_a_server_when_none_answers(adb_path: str) -> None:
    port = free_port()
    client = AdbClient(ServerAddress("127.0.0.1", port), adb_path=adb_path)
    try:
        with trio.fail_after(60):
            assert await client.version() == 41
    finally:
        await trio.run_process([adb_path, "-P", str(port), "kill-server"], check=False)


async def test_jdwp_discovery_follows_registrations(testbed: Testbed, apps: Apps) -> None:
    client = testbed.client()
    with trio.fail_after(20):
        before = await client.jdwp_pids(testbed.serial)
    app = await apps.start("com.example.discovery", jvm=False)
    with trio.fail_after(20):
        pids = await client.jdwp_pids(testbed.serial)
        assert app.pid in pids and app.pid not in before
        tracker = await client.open_track_jdwp(testbed.serial)
        async with tracker:
            assert app.pid in await tracker.receive()
            apps.stop(app)  # EOF on @jdwp-control unregisters the pid; track-jdwp reports it
            while app.pid in await tracker.receive():
                pass
