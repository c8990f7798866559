"""Helpers for tests/server: the MCP server through the SDK's in-memory ``Client``.

(tests/server has no ``__init__.py``: its package name would shadow ``src/server``; pytest puts this
directory on ``sys.path``, so tests import this module as ``mcpkit``.)

Every tool call goes through :class:`Mcp`, which checks the envelope invariants of docs/design.md §5.2 on every
response (JSON text in the first content block equal to the structured content, ``isError`` exactly when
``success`` is false, the envelope's fields, ``{code, message, retryable}`` on failures) before a test
looks at anything else.

JVMs: ``shared_jvm`` is one debuggee for the whole run, for tests that detach cleanly and leave nothing
behind (its agent takes the next debugger after each detach, on a new port: :func:`agent_port`); tests
that kill a JVM or need a fresh one use the root ``debuggee`` fixture. The adb testbed fixtures
(``testbed``, ``apps``) come from tests/conftest.py, shared with tests/adb (one adbd per run).
"""

from __future__ import annotations

import json
import os
import re
import sys
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import trio
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from pyjdwp_server import Config, build_server
from pyjdwp_server.answers.failures import CODES
from support.jvm import LISTENING, Debuggee, find_mark
from support.live import unavailable

ENVELOPE_KEYS = {"success", "debug_session_id", "device", "target", "state", "captured_at_ms", "capabilities",
                 "limitations", "cleanup"}
STATES = {None, "attaching", "running", "paused", "detaching", "detached", "disconnected", "failed"}
MAIN = "com.example.debuggee.Main"
WORKER = "com.example.debuggee.Worker"
VAULT = "com.example.debuggee.Vault"
SECRET = "s3cr3t-Tr0ub4dor&3-vault-key"  # the value of Vault.run's local `secret` (fixtures/java)
HEARTBEAT_SOURCE = Path(__file__).resolve().parents[1] / "adb" / "java" / "Heartbeat.java"
SRC = Path(__file__).resolve().parents[2] / "src"
SCRIPT = Path(sys.executable).with_name("pyjdwp-mcp")


def line_of(name: str) -> int:
    """The line marked ``// MARK: name`` in fixtures/java."""
    return find_mark(name)[1]


def heartbeat_line() -> int:
    """The line of ``Heartbeat.beat`` (tests/adb/java) that runs every 50 ms in each "app process"."""
    for number, text in enumerate(HEARTBEAT_SOURCE.read_text().splitlines(), start=1):
        if "int next = n + 1;" in text:
            return number
    raise LookupError("Heartbeat.beat's first line not found")


def check_envelope(result: Any) -> dict[str, Any]:
    """The envelope of one ``tools/call`` result, after checking what every response must satisfy."""
    body = result.structured_content
    assert isinstance(body, dict), result
    assert result.content and result.content[0].type == "text"
    assert json.loads(result.content[0].text) == body, "the JSON text block must equal the structured content"
    assert ENVELOPE_KEYS <= body.keys(), body.keys()
    assert isinstance(body["success"], bool) and isinstance(body["captured_at_ms"], int)
    assert body["state"] in STATES
    assert bool(result.is_error) is (not body["success"])
    if body["success"]:
        assert "error" not in body
    else:
        error = body["error"]
        assert set(error) == {"code", "message", "retryable"}, error
        assert error["code"] in CODES and isinstance(error["retryable"], bool)
        assert isinstance(error["message"], str) and error["message"]
    return body


class Mcp:
    """A connected MCP client that checks every envelope."""

    def __init__(self, client: Client) -> None:
        self.client = client

    async def call(self, name: str, **arguments: Any) -> dict[str, Any]:
        return check_envelope(await self.client.call_tool(name, arguments))

    async def ok(self, name: str, **arguments: Any) -> dict[str, Any]:
        body = await self.call(name, **arguments)
        assert body["success"], body.get("error")
        return body

    async def fails(self, name: str, code: str, *, retryable: bool | None = None, **arguments: Any) -> dict[str, Any]:
        body = await self.call(name, **arguments)
        assert not body["success"], f"{name} should fail with {code}: {body}"
        assert body["error"]["code"] == code, body["error"]
        if retryable is not None:
            assert body["error"]["retryable"] is retryable, body["error"]
        return body

    # --- the journey's steps, as most tests need them ----------------------------------------------

    async def attach_jvm(self, jvm: Debuggee, **extra: Any) -> str:
        """Attach to the JVM's agent at the port it listens on now; return the session ID."""
        address = await agent_address(jvm)
        body = await self.ok("attach_debugger", platform="jvm", address=address, **extra)
        attached(jvm)
        assert body["state"] == "running" and body["device"] == address
        return body["debug_session_id"]

    async def wait_for(self, sid: str, kind: str, cursor: int = 0, *, timeout_ms: int = 5000,
                       deadline_s: float = 20) -> tuple[dict[str, Any], int]:
        """Poll events from ``cursor`` until one of ``kind`` arrives; return it and the cursor after it."""
        with trio.fail_after(deadline_s):
            while True:
                body = await self.ok("wait_for_debugger_event", debugSessionId=sid, afterSequence=cursor,
                                     timeoutMs=timeout_ms)
                for event in body["events"]:
                    if event["kind"] == kind:
                        return event, event["sequence"]
                cursor = body["next_cursor"]

    async def stop_at(self, sid: str, class_name: str, line: int, cursor: int = 0) -> tuple[dict[str, Any], int]:
        """Set a breakpoint and wait for its stop; return the stop summary and the cursor after it."""
        bp = await self.ok("set_debugger_breakpoint", debugSessionId=sid, className=class_name, line=line)
        assert bp["result"]["status"] == "verified", bp["result"]
        event, cursor = await self.wait_for(sid, "stopped", cursor)
        assert bp["result"]["breakpoint_id"] in event["stop"]["breakpoint_ids"]
        return event["stop"], cursor


SCRIPT = Path(sys.executable).with_name("pyjdwp-mcp")  # the console script the package installed


@asynccontextmanager
async def stdio_mcp(stderr_path: Path, *args: str) -> AsyncIterator[Mcp]:
    """The installed ``pyjdwp-mcp`` over stdio (at ``--log-level debug``, its stderr to ``stderr_path``),
    with a client on it; the source tree under test first (PYTHONPATH, as the test run has it)."""
    if not SCRIPT.is_file():
        unavailable(f"the console script {SCRIPT} is not installed (pip install -e .)")
    with stderr_path.open("w") as errlog:
        env = {"PYTHONPATH": os.environ["PYTHONPATH"]} if os.environ.get("PYTHONPATH") else None
        transport = stdio_client(StdioServerParameters(command=str(SCRIPT), args=["--log-level", "debug", *args],
                                                       env=env), errlog=errlog)
        async with Client(transport) as client:
            yield Mcp(client)


@asynccontextmanager
async def stdio(tmp_path: Path) -> AsyncIterator[Mcp]:
    """The ``pyjdwp-mcp`` console script over stdio, with this checkout's ``src`` first on its path (so the
    code under test is this tree's), and a client on it; its stderr goes to ``tmp_path/stderr.txt``."""
    if not SCRIPT.is_file():
        unavailable(f"the console script {SCRIPT} is not installed (pip install -e .)")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    with (tmp_path / "stderr.txt").open("w") as errlog:
        async with Client(stdio_client(StdioServerParameters(command=str(SCRIPT), env=env), errlog=errlog)) as client:
            yield Mcp(client)


@asynccontextmanager
async def connect(config: Config | None = None, *, adb: Any = None) -> AsyncIterator[Mcp]:
    """The server in memory (its lifespan, and so its cleanup on exit, included) with a client on it."""
    async with Client(build_server(config or Config(), adb=adb)) as client:
        yield Mcp(client)


async def heartbeats_continue(jvm: Debuggee, count: int = 3) -> None:
    """Proof the JVM runs (no thread of it is suspended): it prints ``count`` more heartbeats."""
    await trio.to_thread.run_sync(lambda: jvm.wait_for_more_heartbeats(count, timeout=15))


async def wait_for_line(jvm: Debuggee, pattern: str, after: int = 0) -> re.Match[str]:
    return await trio.to_thread.run_sync(lambda: jvm.wait_for_line(pattern, after=after, timeout=15))


_attaches: weakref.WeakKeyDictionary[Debuggee, int] = weakref.WeakKeyDictionary()


async def agent_port(jvm: Debuggee) -> int:
    """The port the JVM's JDWP agent listens on for the next debugger.

    Started with ``address=127.0.0.1:0``, the agent listens on a new port once a debugger has left, and
    prints it ("Listening for transport dt_socket at address: N"); between the two nothing listens. So
    the (n+1)-th such line is the port for the (n+1)-th debugger: wait for it.
    """
    used = _attaches.get(jvm, 0)

    def find() -> int:
        after = 0
        for _ in range(used + 1):
            match = jvm.wait_for_line(LISTENING, after=after, timeout=15)
            after = jvm.lines.index(match.string, after) + 1
        return int(match.group(1))

    return await trio.to_thread.run_sync(find)


async def agent_address(jvm: Debuggee) -> str:
    return f"127.0.0.1:{await agent_port(jvm)}"


def attached(jvm: Debuggee) -> None:
    """Record that a debugger connected to the agent's current port (call after each successful attach)."""
    _attaches[jvm] = _attaches.get(jvm, 0) + 1
