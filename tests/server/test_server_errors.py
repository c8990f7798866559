"""Every error code the server produces for a JVM target, each asserted in its envelope.

(Android's codes — DEVICE_UNAVAILABLE, PROCESS_NOT_FOUND, PROCESS_AMBIGUOUS, PROCESS_CHANGED,
DEBUGGER_UNSUPPORTED, the busy app — are in test_server_android.py; the journey's STALE_REFERENCE,
NOT_PAUSED, NOT_FOUND and DISCONNECTED after detach in test_server_jvm.py.)

DEBUGGER_CANCELLED is never produced: a cancelled MCP request is never answered (the SDK drops whatever
the handler would have returned, by the spec), and the server raises the cancellation instead of
reporting it, so no envelope can carry that code. test_server_limits.py checks what a cancelled wait
leaves behind instead.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import trio
from jdwp_fault_proxy import JdwpProxy
from mcpkit import MAIN, WORKER, Mcp, agent_address, connect, heartbeats_continue, line_of

from jdwp.protocol.constants import ErrorCode
from pyjdwp_server import Config
from pyjdwp_server.answers.failures import ToolFailure
from pyjdwp_server.session import targets
from pyjdwp_server.session.addresses import JvmAddress
from support.jvm import Debuggee
from support.live import require_tool
from support.net import free_port
from support.resolver import table_resolver

S = "dbg-000000000000"  # a session ID this server never issued

INVALID: list[tuple[str, str, dict[str, Any]]] = [
    ("unknown-field", "get_debugger_state", {"debugSessionId": S, "verbose": True}),
    ("unknown-tool", "evaluate_expression", {"debugSessionId": S}),
    ("missing-field", "set_debugger_breakpoint", {"debugSessionId": S, "className": WORKER}),
    ("empty-string", "get_debugger_state", {"debugSessionId": ""}),
    ("string-over-512", "set_debugger_breakpoint", {"debugSessionId": S, "className": "a" * 513, "line": 1}),
    ("line-zero", "set_debugger_breakpoint", {"debugSessionId": S, "className": WORKER, "line": 0}),
    ("line-past-2^53", "set_debugger_breakpoint", {"debugSessionId": S, "className": WORKER, "line": 2**53}),
    ("line-as-text", "set_debugger_breakpoint", {"debugSessionId": S, "className": WORKER, "line": "19"}),
    ("class-and-file", "set_debugger_breakpoint", {"debugSessionId": S, "className": WORKER, "file": "Worker.java",
                                                   "line": 19}),
    ("neither-class-nor-file", "set_debugger_breakpoint", {"debugSessionId": S, "line": 19}),
    ("file-dotdot", "set_debugger_breakpoint", {"debugSessionId": S, "file": "src/../Worker.java", "line": 19}),
    ("file-dotdot-backslash", "set_debugger_breakpoint", {"debugSessionId": S, "file": "..\\Worker.java",
                                                          "line": 19}),
    ("file-nul", "set_debugger_breakpoint", {"debugSessionId": S, "file": "Worker\x00.java", "line": 19}),
    ("file-line-zero", "set_debugger_breakpoint", {"debugSessionId": S, "file": "Worker.java", "line": 0}),
    ("file-line-negative", "set_debugger_breakpoint", {"debugSessionId": S, "file": "Worker.java", "line": -3}),
    ("file-empty", "set_debugger_breakpoint", {"debugSessionId": S, "file": "", "line": 19}),
    ("exception-never-stops", "set_debugger_exception_breakpoint", {"debugSessionId": S, "caught": False,
                                                                    "uncaught": False}),
    ("exception-caught-text", "set_debugger_exception_breakpoint", {"debugSessionId": S, "caught": "true"}),
    ("exception-class-empty", "set_debugger_exception_breakpoint", {"debugSessionId": S, "exceptionClass": ""}),
    ("exception-unknown-field", "set_debugger_exception_breakpoint", {"debugSessionId": S, "className": "a.B"}),
    ("limit-zero", "get_debugger_stack", {"debugSessionId": S, "stopId": "s", "threadId": "t", "limit": 0}),
    ("limit-101", "get_debugger_stack", {"debugSessionId": S, "stopId": "s", "threadId": "t", "limit": 101}),
    ("offset-negative", "get_debugger_stack", {"debugSessionId": S, "stopId": "s", "threadId": "t", "offset": -1}),
    ("cursor-negative", "wait_for_debugger_event", {"debugSessionId": S, "afterSequence": -1}),
    ("timeout-99", "get_debugger_state", {"debugSessionId": S, "timeoutMs": 99}),
    ("timeout-30001", "wait_for_debugger_event", {"debugSessionId": S, "timeoutMs": 30001}),
    ("timeout-float", "get_debugger_state", {"debugSessionId": S, "timeoutMs": 1000.5}),
    ("timeout-text", "get_debugger_state", {"debugSessionId": S, "timeoutMs": "1000"}),
    ("timeout-bool", "get_debugger_state", {"debugSessionId": S, "timeoutMs": True}),
    ("step-kind", "step_debugger", {"debugSessionId": S, "stopId": "s", "threadId": "t", "kind": "sideways"}),
    ("step-filters-text", "step_debugger", {"debugSessionId": S, "stopId": "s", "threadId": "t", "kind": "into",
                                            "stepFilters": "no"}),
    ("platform", "attach_debugger", {"platform": "ios", "deviceId": "x", "appId": "com.example"}),
    ("android-without-app", "attach_debugger", {"platform": "android", "deviceId": "emulator-5554"}),
    ("android-with-address", "attach_debugger", {"platform": "android", "deviceId": "e", "appId": "a.b",
                                                 "address": "127.0.0.1:5005"}),
    ("jvm-without-address", "get_debugger_capabilities", {"platform": "jvm"}),
    ("jvm-with-app", "attach_debugger", {"platform": "jvm", "address": "127.0.0.1:5005", "appId": "a.b"}),
    ("pid-zero", "attach_debugger", {"platform": "android", "deviceId": "e", "appId": "a.b", "processId": 0}),
    ("address-no-port", "attach_debugger", {"platform": "jvm", "address": "127.0.0.1"}),
    ("address-port-0", "attach_debugger", {"platform": "jvm", "address": "127.0.0.1:0"}),
    ("address-port-70000", "get_debugger_capabilities", {"platform": "jvm", "address": "localhost:70000"}),
    ("address-fullwidth-port", "attach_debugger", {"platform": "jvm", "address": "127.0.0.1:１２３"}),
    ("address-arabic-indic-port", "get_debugger_capabilities", {"platform": "jvm", "address": "127.0.0.1:٥٠٠٥"}),
    ("address-superscript-port", "attach_debugger", {"platform": "jvm", "address": "127.0.0.1:²"}),
    ("address-ipv6-without-brackets", "attach_debugger", {"platform": "jvm", "address": "::1:5005"}),
]


@pytest.fixture
def connections(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Every address the server tries to connect to, failed as an unreachable host would fail, without
    touching the network."""
    tried: list[tuple[str, int]] = []

    async def unreachable(jvm: JvmAddress, timeout: float) -> Any:
        tried.extend((ip, jvm.port) for ip in jvm.addresses)
        raise ToolFailure("DEBUGGER_ATTACH_FAILED", f"the test cannot reach {jvm.given}", retryable=True)

    monkeypatch.setattr(targets, "open_tcp", unreachable)
    return tried


@pytest.mark.parametrize(("name", "arguments"), [pytest.param(n, a, id=i) for i, n, a in INVALID])
async def test_invalid_argument(name: str, arguments: dict[str, Any], connections: list[Any]) -> None:
    with trio.fail_after(20):
        async with connect() as mcp:
            body = await mcp.fails(name, "INVALID_ARGUMENT", retryable=False, **arguments)
    assert body["debug_session_id"] is None and body["state"] is None
    assert connections == []


@pytest.mark.parametrize("address", ["10.1.2.3:5005", "example.com:5005", "[2001:db8::1]:5005", "0.0.0.0:5005"])
async def test_remote_jvm_refused_before_any_connection(address: str, connections: list[Any]) -> None:
    with trio.fail_after(20), table_resolver({"example.com": ["192.0.2.80"]}):  # no DNS in tests
        async with connect() as mcp:
            for tool in ("attach_debugger", "get_debugger_capabilities"):
                body = await mcp.fails(tool, "INVALID_ARGUMENT", platform="jvm", address=address)
                assert "--allow-remote-jvm" in body["error"]["message"]
    assert connections == []


async def test_remote_jvm_allowed_by_the_flag(connections: list[Any]) -> None:
    with trio.fail_after(20):
        async with connect(Config(allow_remote_jvm=True)) as mcp:
            await mcp.fails("attach_debugger", "DEBUGGER_ATTACH_FAILED", retryable=True, platform="jvm",
                            address="192.0.2.1:5005")
    assert connections == [("192.0.2.1", 5005)]  # only the flag stood in the way


async def test_attach_failed_when_nothing_listens() -> None:
    with trio.fail_after(20):
        async with connect() as mcp:
            # Refused: nothing listens, or a debugger holds the JVM (its agent stops listening); not retryable.
            body = await mcp.fails("attach_debugger", "DEBUGGER_ATTACH_FAILED", retryable=False, platform="jvm",
                                   address=f"127.0.0.1:{free_port()}")
            assert body["debug_session_id"] is None
            # A failed attach leaves no session behind.
            await mcp.fails("get_debugger_state", "DEBUGGER_NOT_FOUND", debugSessionId=S)


async def test_session_errors_on_a_live_session(shared_jvm: Debuggee) -> None:
    with trio.fail_after(60):
        async with connect() as mcp:
            sid = await mcp.attach_jvm(shared_jvm)
            # A cursor beyond the newest event is the caller's error.
            await mcp.fails("wait_for_debugger_event", "INVALID_ARGUMENT", debugSessionId=sid, afterSequence=1)
            # Inputs the models accept but the engine refuses.
            await mcp.fails("set_debugger_breakpoint", "INVALID_ARGUMENT", debugSessionId=sid,
                            className="com.example.not a class", line=3)
            # The same address twice: one session per device (refused before connecting).
            address = (await mcp.ok("get_debugger_state", debugSessionId=sid))["device"]
            busy = await mcp.fails("attach_debugger", "DEBUGGER_BUSY", retryable=False, platform="jvm",
                                   address=address)
            assert sid in busy["error"]["message"] and busy["debug_session_id"] is None
            stop, _ = await mcp.stop_at(sid, WORKER, line_of("step"))
            # While paused: IDs this session never issued are not found.
            await mcp.fails("get_debugger_stack", "DEBUGGER_NOT_FOUND", debugSessionId=sid, stopId="stop-99",
                            threadId=stop["thread_id"])
            await mcp.fails("get_debugger_stack", "DEBUGGER_NOT_FOUND", debugSessionId=sid,
                            stopId=stop["stop_id"], threadId=f"{stop['stop_id']}.tffff")
            await mcp.fails("get_debugger_locals", "DEBUGGER_NOT_FOUND", debugSessionId=sid,
                            stopId=stop["stop_id"], frameId="frame-1")
            await mcp.ok("detach_debugger", debugSessionId=sid)
        await heartbeats_continue(shared_jvm)


async def test_four_sessions_per_server(java_classes: Path, shared_jvm: Debuggee) -> None:
    java = require_tool("java")
    others = [Debuggee(java_classes, MAIN, java=java) for _ in range(3)]
    try:
        with trio.fail_after(60):
            async with connect() as mcp:
                sids = [await mcp.attach_jvm(jvm) for jvm in [shared_jvm, *others]]
                body = await mcp.fails("attach_debugger", "DEBUGGER_BUSY", platform="jvm",
                                       address=f"127.0.0.1:{free_port()}")
                assert "4 sessions" in body["error"]["message"]
                await mcp.ok("detach_debugger", debugSessionId=sids[1])
                # A slot is free again; the fifth address is tried now (and nothing listens there).
                await mcp.fails("attach_debugger", "DEBUGGER_ATTACH_FAILED", platform="jvm",
                                address=f"127.0.0.1:{free_port()}")
                for sid in (sids[0], *sids[2:]):
                    await mcp.ok("detach_debugger", debugSessionId=sid)
    finally:
        for jvm in others:
            jvm.stop()


@pytest.mark.parametrize(("how", "reason"), [("kill", "disconnected"), ("quit", "vm_death")])
async def test_disconnected_when_the_jvm_ends(debuggee: Debuggee, how: str, reason: str) -> None:
    with trio.fail_after(60):
        async with connect() as mcp:
            sid = await mcp.attach_jvm(debuggee)
            if how == "kill":  # killed while paused: the connection just ends
                stop, cursor = await mcp.stop_at(sid, WORKER, line_of("step"))
                debuggee.process.kill()
            else:  # the program ends by itself: the VM reports its death first
                stop, cursor = {"stop_id": "stop-1", "thread_id": "stop-1.t1"}, 0
                debuggee.send("quit")
            terminated, _ = await mcp.wait_for(sid, "terminated", cursor)
            assert terminated["reason"] == reason, terminated
            state = await mcp.ok("get_debugger_state", debugSessionId=sid)
            assert state["state"] == "disconnected" and state["result"]["terminal_reason"] == reason
            # A stop of the lost session is stale (only the killed JVM had one); anything else is disconnected.
            stop_code = "DEBUGGER_STALE_REFERENCE" if how == "kill" else "DEBUGGER_DISCONNECTED"
            ended = "DEBUGGER_DISCONNECTED"
            for name, extra, code in (
                    ("set_debugger_breakpoint", {"className": WORKER, "line": line_of("step")}, ended),
                    ("get_debugger_stack", {"stopId": stop["stop_id"], "threadId": stop["thread_id"]}, stop_code),
                    ("resume_debugger", {"stopId": stop["stop_id"]}, stop_code)):
                await mcp.fails(name, code, retryable=False, debugSessionId=sid, **extra)
            detached = await mcp.ok("detach_debugger", debugSessionId=sid)  # still fine: idempotent
            assert detached["state"] == "disconnected"
            # Nothing proves the app runs over a lost connection.
            assert detached["cleanup"]["execution_state"] == "unknown"


@asynccontextmanager
async def proxied(jvm: Debuggee) -> AsyncIterator[JdwpProxy]:
    async with trio.open_nursery() as nursery:
        proxy = JdwpProxy(jvm)
        await nursery.start(proxy.serve)
        try:
            yield proxy
        finally:
            proxy.release()
            nursery.cancel_scope.cancel()


async def _paused_through(mcp: Mcp, proxy: JdwpProxy) -> tuple[str, dict[str, Any], int]:
    body = await mcp.ok("attach_debugger", platform="jvm", address=f"127.0.0.1:{proxy.port}")
    sid = body["debug_session_id"]
    stop, cursor = await mcp.stop_at(sid, WORKER, line_of("step"))
    return sid, stop, cursor


async def test_timeout_keeps_the_session_for_inspections_and_ends_it_for_resume(shared_jvm: Debuggee) -> None:
    with trio.fail_after(60):
        async with proxied(shared_jvm) as proxy, connect() as mcp:
            sid, stop, cursor = await _paused_through(mcp, proxy)
            ids = {"debugSessionId": sid, "stopId": stop["stop_id"], "threadId": stop["thread_id"]}

            proxy.stall()  # the VM stops answering
            body = await mcp.fails("get_debugger_stack", "DEBUGGER_TIMEOUT", retryable=True, timeoutMs=150, **ids)
            assert "nothing was changed" in body["error"]["message"] and body["state"] == "paused"
            proxy.release()  # its late replies are dropped; the session goes on
            stack = await mcp.ok("get_debugger_stack", **ids)
            assert stack["result"]["frames"][0]["method"] == "step"

            proxy.stall()
            body = await mcp.fails("resume_debugger", "DEBUGGER_TIMEOUT", retryable=False, timeoutMs=150,
                                   debugSessionId=sid, stopId=stop["stop_id"])
            assert "session was detached" in body["error"]["message"]
            proxy.release()
            terminated, _ = await mcp.wait_for(sid, "terminated", cursor)
            assert terminated["reason"] == "failed"
            state = await mcp.ok("get_debugger_state", debugSessionId=sid)
            assert state["state"] == "failed"
            await mcp.fails("get_debugger_stack", "DEBUGGER_STALE_REFERENCE", **ids)  # its stop ended with it
            await mcp.fails("set_debugger_breakpoint", "DEBUGGER_DISCONNECTED", debugSessionId=sid, className=WORKER,
                            line=line_of("step"))
            detached = await mcp.ok("detach_debugger", debugSessionId=sid)  # closing it again is fine
            assert detached["state"] == "failed" and detached["cleanup"]["status"] == "complete"
        await heartbeats_continue(shared_jvm)


async def test_worker_failed_on_an_internal_vm_error(shared_jvm: Debuggee) -> None:
    with trio.fail_after(60):
        async with proxied(shared_jvm) as proxy, connect() as mcp:
            sid, stop, _ = await _paused_through(mcp, proxy)
            ids = {"debugSessionId": sid, "stopId": stop["stop_id"], "threadId": stop["thread_id"]}
            proxy.fail_next_reply(ErrorCode.INTERNAL)
            body = await mcp.fails("get_debugger_stack", "DEBUGGER_WORKER_FAILED", **ids)
            assert "INTERNAL" in body["error"]["message"] and body["state"] == "paused"
            await mcp.ok("get_debugger_stack", **ids)  # an inspection's failure changes nothing
            await mcp.ok("resume_debugger", debugSessionId=sid, stopId=stop["stop_id"])
            await mcp.ok("detach_debugger", debugSessionId=sid)
        await heartbeats_continue(shared_jvm)


async def test_cleanup_failed_blocks_the_device_until_a_retry_succeeds(shared_jvm: Debuggee) -> None:
    with trio.fail_after(60):
        async with proxied(shared_jvm) as proxy, connect() as mcp:
            sid, _, _ = await _paused_through(mcp, proxy)
            address = f"127.0.0.1:{proxy.port}"
            proxy.cut_on_next_command()  # the link breaks as cleanup starts
            detached = await mcp.ok("detach_debugger", debugSessionId=sid)
            assert detached["cleanup"]["status"] == "failed", detached["cleanup"]
            assert detached["cleanup"]["execution_state"] == "unknown"  # never claimed without evidence
            body = await mcp.fails("attach_debugger", "DEBUGGER_CLEANUP_FAILED", retryable=True, platform="jvm",
                                   address=address)
            assert sid in body["error"]["message"]
            retried = await mcp.ok("detach_debugger", debugSessionId=sid)  # reconnects and looks
            assert retried["cleanup"]["status"] == "complete"
            assert retried["cleanup"]["execution_state"] == "running"
            # The new connection's suspend counts were reset to 0 by the agent: the evidence is the threads'
            # status, and the cleanup says how it was obtained.
            assert retried["cleanup"]["notes"][0].startswith("agent reset")
            sid2 = (await mcp.ok("attach_debugger", platform="jvm", address=address))["debug_session_id"]
            await mcp.ok("detach_debugger", debugSessionId=sid2)
        await heartbeats_continue(shared_jvm)
        assert await agent_address(shared_jvm)  # the agent listens again for the next test
