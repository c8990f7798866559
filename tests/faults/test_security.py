"""Security checks: no listening socket in direct mode, loopback-only forwards that never outlive a session,
and local values never in the logs.

Android sessions run against the adb testbed (tests/adb/testbed.py: a real adb server and adbd, JVMs
registered as app processes); the server runs in this process behind the SDK's in-memory client, so
"pyjdwp's sockets" are this process's: every socket inode among /proc/self/fd, matched against the
listening sockets of /proc/net/{tcp,tcp6,unix}.
"""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import trio
from mcp import Client

from adb.testbed import HERE as ADB_TESTS
from adb.testbed import Apps, Testbed
from pyjdwp_server import Config, build_server
from support.jvm import Debuggee, find_mark

SECRET = "s3cr3t-Tr0ub4dor&3-vault-key"  # Vault.run's local `secret` (fixtures/java)
LOOPBACK = {"0100007F", "00000000000000000000000001000000"}  # 127.0.0.1 and ::1 as /proc/net prints them


def listening_inodes() -> dict[int, str]:
    """Every listening socket of this network namespace: inode -> local address (hex, as /proc prints it)."""
    found: dict[int, str] = {}
    for name in ("tcp", "tcp6"):
        for line in Path(f"/proc/net/{name}").read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A":  # TCP_LISTEN
                found[int(fields[9])] = fields[1]
    for line in Path("/proc/net/unix").read_text().splitlines()[1:]:
        fields = line.split()
        if int(fields[3], 16) & 0x10000:  # __SO_ACCEPTCON: a listening unix socket
            found[int(fields[6])] = fields[7] if len(fields) > 7 else "(unnamed unix)"
    return found


def our_listening_sockets() -> list[str]:
    ours: set[int] = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            match = re.fullmatch(r"socket:\[(\d+)\]", os.readlink(f"/proc/self/fd/{fd}"))
        except OSError:
            continue
        if match:
            ours.add(int(match.group(1)))
    listening = listening_inodes()
    return [listening[inode] for inode in ours & listening.keys()]


def listeners_on_port(port: int) -> list[str]:
    """Local addresses (hex) of every listening TCP socket on ``port``, whoever owns it."""
    found = []
    for name in ("tcp", "tcp6"):
        for line in Path(f"/proc/net/{name}").read_text().splitlines()[1:]:
            fields = line.split()
            address, _, hex_port = fields[1].rpartition(":")
            if fields[3] == "0A" and int(hex_port, 16) == port:
                found.append(address)
    return found


class Mcp:
    def __init__(self, client: Client) -> None:
        self.client = client

    async def call(self, tool: str, **args: Any) -> dict[str, Any]:
        body = (await self.client.call_tool(tool, args)).structured_content
        assert isinstance(body, dict) and "success" in body, body
        return body

    async def ok(self, tool: str, **args: Any) -> dict[str, Any]:
        body = await self.call(tool, **args)
        assert body["success"], body.get("error")
        return body

    async def wait_for(self, sid: str, kind: str) -> dict[str, Any]:
        cursor = 0
        while True:
            body = await self.ok("wait_for_debugger_event", debugSessionId=sid, afterSequence=cursor, timeoutMs=5000)
            cursor = body["next_cursor"]
            for event in body["events"]:
                if event["kind"] == kind:
                    return event


@asynccontextmanager
async def mcp(config: Config, adb: Any = None) -> AsyncIterator[Mcp]:
    async with Client(build_server(config, adb=adb)) as client:
        yield Mcp(client)


async def forwards(testbed: Testbed) -> list[Any]:
    return [e for e in await testbed.client().list_forward() if e.serial == testbed.serial]


def heartbeat_line() -> int:
    text = (ADB_TESTS / "java" / "Heartbeat.java").read_text().splitlines()
    return next(n for n, line in enumerate(text, start=1) if "int next = n + 1;" in line)


def android_target(testbed: Testbed, app_id: str) -> dict[str, Any]:
    return {"platform": "android", "deviceId": testbed.serial, "appId": app_id}


async def test_direct_mode_opens_no_listening_socket(testbed: Testbed, apps: Apps) -> None:
    testbed.install_package("com.example.direct")
    await apps.start("com.example.direct")
    assert our_listening_sockets() == []
    with trio.fail_after(60):
        async with mcp(Config(adb_transport="direct"), adb=testbed.client()) as server:
            sid = (await server.ok("attach_debugger", **android_target(testbed, "com.example.direct")))[
                "debug_session_id"]
            await server.ok("set_debugger_breakpoint", debugSessionId=sid, className="Heartbeat",
                            line=heartbeat_line())
            stop = (await server.wait_for(sid, "stopped"))["stop"]
            await server.ok("get_debugger_stack", debugSessionId=sid, stopId=stop["stop_id"],
                            threadId=stop["thread_id"])
            assert our_listening_sockets() == [], "direct mode must not listen on any socket"
            assert await forwards(testbed) == [], "direct mode must not create an adb forward"
            await server.ok("detach_debugger", debugSessionId=sid)
    assert our_listening_sockets() == []


async def test_forward_mode_binds_loopback_and_removes_its_forward_after_detach(testbed: Testbed,
                                                                                 apps: Apps) -> None:
    testbed.install_package("com.example.forward")
    app = await apps.start("com.example.forward")
    with trio.fail_after(60):
        async with mcp(Config(adb_transport="forward"), adb=testbed.client()) as server:
            sid = (await server.ok("attach_debugger", **android_target(testbed, "com.example.forward")))[
                "debug_session_id"]
            [forward] = await forwards(testbed)
            assert forward.remote == f"jdwp:{app.pid}" and forward.local.startswith("tcp:")
            addresses = listeners_on_port(int(forward.local.removeprefix("tcp:")))
            assert addresses and set(addresses) <= LOOPBACK, addresses  # the adb server's, loopback only
            assert our_listening_sockets() == []  # the forward's listener is the adb server's, not ours
            await server.ok("detach_debugger", debugSessionId=sid)
            assert await forwards(testbed) == []


@pytest.fixture
def silent_app(testbed: Testbed, apps: Apps) -> Any:
    """Registers an "app process" whose JDWP slot accepts a debugger and then never answers."""

    async def start(name: str) -> tuple[int, trio.SocketListener]:
        testbed.install_package(name)
        app = await apps.start(name, jvm=False, debuggable=False)
        [listener] = await trio.open_tcp_listeners(0, host="127.0.0.1")
        port = listener.socket.getsockname()[1]
        registrar = subprocess.Popen([sys.executable, str(ADB_TESTS / "jdwp_registrar.py"), str(app.pid), str(port)],
                                     stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
        app.procs.append(registrar)
        assert registrar.stdout is not None
        line = await trio.to_thread.run_sync(registrar.stdout.readline, abandon_on_cancel=True)
        assert line.strip() == b"registered"
        await apps.wait_visible(app.pid, True)
        return app.pid, listener

    return start


async def test_forward_mode_leaves_no_forward_after_a_cancelled_attach(testbed: Testbed, silent_app: Any) -> None:
    pid, listener = await silent_app("com.example.silent")
    accepted: list[trio.SocketStream] = []
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:

            async def accept_and_say_nothing() -> None:
                async with listener:
                    while True:
                        accepted.append(await listener.accept())

            nursery.start_soon(accept_and_say_nothing)
            async with mcp(Config(adb_transport="forward"), adb=testbed.client()) as server:
                # The handshake never comes back: attach runs out of time while its forward exists.
                body = await server.call("attach_debugger", **android_target(testbed, "com.example.silent"),
                                         timeoutMs=1500)
                assert not body["success"] and body["error"]["code"] == "DEBUGGER_TIMEOUT", body
                assert accepted, "the attach never reached the app's JDWP slot"
                with trio.fail_after(15):
                    while await forwards(testbed):  # removal is shielded cleanup; poll with a deadline
                        await trio.sleep(0.05)
                # And a client that cancels the call itself (MCP's notifications/cancelled).
                with trio.move_on_after(0.8):
                    await server.call("attach_debugger", **android_target(testbed, "com.example.silent"))
                with trio.fail_after(15):
                    while await forwards(testbed):
                        await trio.sleep(0.05)
            assert await forwards(testbed) == []
            nursery.cancel_scope.cancel()
    for stream in accepted:
        await stream.aclose()
    assert pid


async def test_forward_mode_leaves_no_forward_when_the_app_is_killed(testbed: Testbed, apps: Apps) -> None:
    testbed.install_package("com.example.doomed")
    app = await apps.start("com.example.doomed")
    with trio.fail_after(60):
        async with mcp(Config(adb_transport="forward"), adb=testbed.client()) as server:
            sid = (await server.ok("attach_debugger", **android_target(testbed, "com.example.doomed")))[
                "debug_session_id"]
            assert len(await forwards(testbed)) == 1
            apps.stop(app)
            ended = await server.wait_for(sid, "terminated")
            assert ended["reason"] in {"disconnected", "vm_death"}, ended
            state = (await server.ok("get_debugger_state", debugSessionId=sid))["result"]
            assert state["state"] == "disconnected" and state["terminal_reason"], state
            with trio.fail_after(15):
                while await forwards(testbed):  # the session's task removes it as it ends; poll with a deadline
                    await trio.sleep(0.05)


async def test_local_values_never_reach_the_logs(debuggee: Debuggee, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    for name in ("pyjdwp", "pyjdwp.server", "jdwp", "pyjdwp_android", "mcp", "pyjdwp_server"):
        caplog.set_level(logging.DEBUG, logger=name)
    debuggee.send("load com.example.debuggee.Vault")
    with trio.fail_after(60):
        async with mcp(Config()) as server:
            sid = (await server.ok("attach_debugger", platform="jvm", address=f"127.0.0.1:{debuggee.port}"))[
                "debug_session_id"]
            await server.ok("set_debugger_breakpoint", debugSessionId=sid, className="com.example.debuggee.Vault",
                            line=find_mark("vault-secret")[1])
            stop = (await server.wait_for(sid, "stopped"))["stop"]
            stack = (await server.ok("get_debugger_stack", debugSessionId=sid, stopId=stop["stop_id"],
                                     threadId=stop["thread_id"]))["result"]
            found = await server.ok("get_debugger_locals", debugSessionId=sid, stopId=stop["stop_id"],
                                    frameId=stack["frames"][0]["frame_id"])
            assert any(local["value"] == SECRET for local in found["result"]["locals"]), found
            # Failures log too: a stale frame, then a resume and the detach.
            await server.call("get_debugger_locals", debugSessionId=sid, stopId=stop["stop_id"], frameId="nope")
            await server.ok("resume_debugger", debugSessionId=sid, stopId=stop["stop_id"])
            await server.ok("detach_debugger", debugSessionId=sid)
    assert caplog.records, "the server logged nothing at DEBUG: the check would prove nothing"
    for record in caplog.records:
        text = record.getMessage() + (caplog.text if record.exc_info else "")
        assert SECRET not in text and "Tr0ub4dor" not in text, record
    assert "Tr0ub4dor" not in caplog.text
