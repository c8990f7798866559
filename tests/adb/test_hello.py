"""DDM HELO over the real adb server and adbd: an app started with the stand-in ``am start -D`` (behind a
played adbconnection, tests/adb/launch_app.py) and a plain JVM (HotSpot's agent, no DDM)."""

from __future__ import annotations

import pytest
import trio

import jdwp
from adb.launch_bed import LaunchBed
from adb.testbed import Apps, Testbed
from pyjdwp_android.hello import say_hello
from pyjdwp_android.transport import open_jdwp_stream

pytestmark = pytest.mark.live


async def test_helo_of_an_app_waiting_for_its_debugger(testbed: Testbed, launcher: LaunchBed) -> None:
    app_id = "com.example.hello.waiting"
    launcher.add_app(app_id)
    client = testbed.client()
    with trio.fail_after(60):
        started = await client.shell(testbed.serial, f"am start -D -n {app_id}/.MainActivity")
        assert b"Starting: Intent { cmp=com.example.hello.waiting/.MainActivity }" in started.stdout
        while not launcher.started(app_id):
            await trio.sleep(0.1)
        (pid,) = launcher.started(app_id)
        while pid not in await client.jdwp_pids(testbed.serial):
            await trio.sleep(0.1)
        stream = await open_jdwp_stream(client, testbed.serial, pid)
        contact = await say_hello(stream)
        assert contact.error is None and contact.waiting
        hello = contact.hello
        assert hello is not None and hello.pid == pid and hello.app_name == app_id
        assert hello.package_name == app_id and hello.user_id == 0 and hello.pointer_size == 8
        assert hello.abi == "64-bit (x86_64)" and hello.boot_stage == "DEBG"
        async with jdwp.open_jdwp(stream, handshake=False) as vm:  # the agent loads on this first packet
            assert vm.id_sizes.object_id_size == 8
            assert (await vm.receive_ddm()).type_name == "WAIT"  # put back for the client's DDM channel


async def test_a_jvm_without_ddm_says_so_and_stays_usable(testbed: Testbed, apps: Apps) -> None:
    app_id = "com.example.hello.hotspot"
    testbed.install_package(app_id)
    app = await apps.start(app_id)
    client = testbed.client()
    with trio.fail_after(60):
        stream = await open_jdwp_stream(client, testbed.serial, app.pid)
        contact = await say_hello(stream)
        assert contact.hello is None and not contact.waiting and "not an Android VM" in (contact.error or "")
        async with jdwp.open_jdwp(stream, handshake=False) as vm:
            assert "OpenJDK" in vm.version_info.vm_name
