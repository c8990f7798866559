"""The installed ``pyjdwp-mcp`` console script over stdio: with the SDK's ``stdio_client``, by hand (to
control stdin's EOF and signals exactly), and with a third-party client, the MCP Inspector CLI.

- end to end: list tools, attach to a JVM, breakpoint, wait, stack, locals, a wait cancelled by the SDK's
  request cancellation, resume, detach — at ``--log-level debug``, with a secret in a local value that
  must appear in the tool result and nowhere on stderr;
- shutdown while paused: stdin's EOF, or SIGTERM, makes the server detach (its log says so) and exit 0,
  and the JVM runs on;
- Java text JSON cannot carry raw (a lone surrogate in a local) answers escaped, and the process lives on;
- a pause (pause_debugger) that the server's shutdown releases;
- the Inspector CLI (pinned) lists every tool and calls get_debugger_capabilities, and lists and gets the
  prompts.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import IO, Any

import pytest
import trio
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_types.version import LATEST_HANDSHAKE_VERSION
from mcpkit import SECRET, VAULT, WORKER, Mcp, agent_address, attached, heartbeats_continue, line_of, wait_for_line

from pyjdwp_server.tools import TOOLS
from support.jvm import Debuggee
from support.listings import thread_ids
from support.live import unavailable

pytestmark = pytest.mark.live

SCRIPT = Path(sys.executable).with_name("pyjdwp-mcp")  # the console script the package installed
INSPECTOR = "2.12.0"  # @modelcontextprotocol/inspector, pinned (`npm view @modelcontextprotocol/inspector version`)


@pytest.fixture(scope="module")
def script() -> str:
    if not SCRIPT.is_file():
        unavailable(f"the console script {SCRIPT} is not installed (pip install -e .)")
    return str(SCRIPT)


async def test_stdio_end_to_end(script: str, shared_jvm: Debuggee, tmp_path: Path) -> None:
    stderr_path = tmp_path / "stderr.txt"
    mark = len(shared_jvm.lines)
    shared_jvm.send(f"load {VAULT}")
    with trio.fail_after(90):
        await wait_for_line(shared_jvm, f"^loaded {VAULT}$", after=mark)
        with stderr_path.open("w") as errlog:
            transport = stdio_client(StdioServerParameters(command=script, args=["--log-level", "debug"],
                                                           env=_source_tree()), errlog=errlog)
            async with Client(transport) as client:
                mcp = Mcp(client)
                assert len((await client.list_tools()).tools) == len(TOOLS)
                sid = await mcp.attach_jvm(shared_jvm)
                stop, cursor = await mcp.stop_at(sid, VAULT, line_of("vault-secret"))
                ids = {"debugSessionId": sid, "stopId": stop["stop_id"]}
                stack = await mcp.ok("get_debugger_stack", threadId=stop["thread_id"], **ids)
                assert [f["method"] for f in stack["result"]["frames"][:2]] == ["run", "main"]
                found = await mcp.ok("get_debugger_locals", frameId=stack["result"]["frames"][0]["frame_id"], **ids)
                assert {v["name"]: v.get("value") for v in found["result"]["locals"]}["secret"] == SECRET

                # The SDK cancels the request (notifications/cancelled); the session is untouched.
                with trio.move_on_after(0.5) as scope:
                    early = await mcp.call("wait_for_debugger_event", debugSessionId=sid, afterSequence=cursor,
                                           timeoutMs=30000)
                assert scope.cancelled_caught, f"the wait returned: {early}"
                again = await mcp.ok("get_debugger_stack", threadId=stop["thread_id"], **ids)
                assert again["state"] == "paused"

                await mcp.ok("resume_debugger", **ids)
                detached = await mcp.ok("detach_debugger", debugSessionId=sid)
                assert detached["cleanup"]["status"] == "complete"
        await heartbeats_continue(shared_jvm)
    log = stderr_path.read_text()
    assert "DEBUG" in log and "get_debugger_locals ok" in log, log[-2000:]
    for form in (SECRET, SECRET.encode().hex(), "Tr0ub4dor"):
        assert form not in log
    assert "Traceback" not in log, log[-4000:]


class RawStdio:
    """MCP over the server's pipes by hand: newline-delimited JSON-RPC, the handshake-era initialize."""

    def __init__(self, process: trio.Process) -> None:
        self.process = process
        self._buffer = b""
        self._next_id = 0

    async def _send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        await self.process.stdin.send_all(json.dumps(message).encode() + b"\n")

    async def _receive(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        while b"\n" not in self._buffer:
            chunk = await self.process.stdout.receive_some(65536)
            assert chunk, "the server closed stdout"
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return json.loads(line)

    async def send_request(self, method: str, params: dict[str, Any]) -> None:
        """Send a request and do not wait for its answer."""
        self._next_id += 1
        await self._send({"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": params})

    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        await self.send_request(method, params)
        while True:
            message = await self._receive()
            if message.get("id") == self._next_id:
                assert "result" in message, message
                return message["result"]

    async def initialize(self) -> None:
        await self.request("initialize", {"protocolVersion": LATEST_HANDSHAKE_VERSION, "capabilities": {},
                                          "clientInfo": {"name": "pyjdwp-tests", "version": "0"}})
        await self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    async def tool(self, name: str, **arguments: Any) -> dict[str, Any]:
        result = await self.request("tools/call", {"name": name, "arguments": arguments})
        body = result["structuredContent"]
        assert body["success"], body
        return body


@asynccontextmanager
async def raw_server(script: str, errlog: IO[str], *args: str) -> AsyncIterator[RawStdio]:
    """``pyjdwp-mcp *args`` on pipes, initialized; killed at the end if it is still running."""
    process = await trio.lowlevel.open_process([script, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                               stderr=errlog)
    try:
        mcp = RawStdio(process)
        await mcp.initialize()
        yield mcp
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def _paused(mcp: RawStdio, jvm: Debuggee) -> tuple[str, dict[str, Any]]:
    address = await agent_address(jvm)
    sid = (await mcp.tool("attach_debugger", platform="jvm", address=address))["debug_session_id"]
    attached(jvm)
    await mcp.tool("set_debugger_breakpoint", debugSessionId=sid, className=WORKER, line=line_of("step"))
    while (state := await mcp.tool("get_debugger_state", debugSessionId=sid))["state"] != "paused":
        await mcp.tool("wait_for_debugger_event", debugSessionId=sid, timeoutMs=1000)
    return sid, state


@pytest.mark.parametrize("how", ["eof", "sigterm"])
async def test_shutdown_while_paused_releases_the_jvm(script: str, shared_jvm: Debuggee, tmp_path: Path,
                                                      how: str) -> None:
    stderr_path = tmp_path / "stderr.txt"
    with trio.fail_after(60), stderr_path.open("w") as errlog:
        async with raw_server(script, errlog, "--log-level", "info") as mcp:
            sid, state = await _paused(mcp, shared_jvm)
            # A long wait in flight must not hold the shutdown up.
            await mcp.send_request("tools/call", {"name": "wait_for_debugger_event", "arguments": {
                "debugSessionId": sid, "timeoutMs": 30000,
                "afterSequence": state["result"]["events"]["newest_sequence"]}})
            if how == "eof":
                assert mcp.process.stdin is not None
                await mcp.process.stdin.aclose()
            else:
                mcp.process.send_signal(signal.SIGTERM)
            with trio.fail_after(20):
                code = await mcp.process.wait()
    log = stderr_path.read_text()
    assert code == 0, log[-3000:]
    assert re.search(rf"session {sid} ended \(shutdown\); cleanup complete, app running", log), log[-3000:]
    await heartbeats_continue(shared_jvm)


async def test_shutdown_releases_a_pause(script: str, shared_jvm: Debuggee, tmp_path: Path) -> None:
    """pause_debugger over stdio, the threads it suspended listed, then stdin's EOF: the JVM runs on."""
    stderr_path = tmp_path / "stderr.txt"
    with trio.fail_after(60), stderr_path.open("w") as errlog:
        async with raw_server(script, errlog, "--log-level", "info") as mcp:
            address = await agent_address(shared_jvm)
            sid = (await mcp.tool("attach_debugger", platform="jvm", address=address))["debug_session_id"]
            attached(shared_jvm)
            stop = (await mcp.tool("pause_debugger", debugSessionId=sid))["result"]["stop"]
            assert stop["reason"] == "pause" and stop["thread_id"] is None
            listing = await mcp.tool("get_debugger_threads", debugSessionId=sid, stopId=stop["stop_id"],
                                     stackDepth=1)
            threads = listing["result"]["threads"]  # folded threads are suspended, by definition
            assert threads and all(t["suspended"] and t["thread_id"] for t in threads if "count" not in t)
            assert len(thread_ids(threads)) == sum(t.get("count", 1) for t in threads)
            assert mcp.process.stdin is not None
            await mcp.process.stdin.aclose()
            with trio.fail_after(20):
                code = await mcp.process.wait()
    log = stderr_path.read_text()
    assert code == 0, log[-3000:]
    assert re.search(rf"session {sid} ended \(shutdown\); cleanup complete, app running", log), log[-3000:]
    await heartbeats_continue(shared_jvm)


async def test_limit_flags_reach_the_sessions(script: str, shared_jvm: Debuggee, tmp_path: Path) -> None:
    with trio.fail_after(60), (tmp_path / "stderr.txt").open("w") as errlog:
        async with raw_server(script, errlog, "--pause-limit-s", "1", "--idle-limit-s", "30",
                              "--session-limit-s", "60") as mcp:
            sid, state = await _paused(mcp, shared_jvm)
            cursor = state["result"]["events"]["newest_sequence"]
            while True:
                body = await mcp.tool("wait_for_debugger_event", debugSessionId=sid, afterSequence=cursor,
                                      timeoutMs=500)
                cursor = body["next_cursor"]
                if any(e["kind"] == "terminated" for e in body["events"]):
                    break
            assert [e["reason"] for e in body["events"] if e["kind"] == "terminated"] == ["pause_limit"]
            await heartbeats_continue(shared_jvm)


async def test_a_lone_surrogate_local_does_not_end_the_server(script: str, shared_jvm: Debuggee,
                                                              tmp_path: Path) -> None:
    odd = "com.example.debuggee.OddText"
    mark = len(shared_jvm.lines)
    shared_jvm.send(f"load {odd}")
    with trio.fail_after(60), (tmp_path / "stderr.txt").open("w") as errlog:
        await wait_for_line(shared_jvm, f"^loaded {odd}$", after=mark)
        async with raw_server(script, errlog) as mcp:
            sid = (await mcp.tool("attach_debugger", platform="jvm",
                                  address=await agent_address(shared_jvm)))["debug_session_id"]
            attached(shared_jvm)
            await mcp.tool("set_debugger_breakpoint", debugSessionId=sid, className=odd, line=line_of("oddtext-locals"))
            while (state := await mcp.tool("get_debugger_state", debugSessionId=sid))["state"] != "paused":
                await mcp.tool("wait_for_debugger_event", debugSessionId=sid, timeoutMs=1000)
            ids = {"debugSessionId": sid, "stopId": state["result"]["stop"]["stop_id"]}
            stack = await mcp.tool("get_debugger_stack", threadId=state["result"]["stop"]["thread_id"], **ids)
            found = await mcp.tool("get_debugger_locals", frameId=stack["result"]["frames"][0]["frame_id"], **ids)
            values = {v["name"]: v.get("value") for v in found["result"]["locals"]}
            assert (values["sur"], values["lone"]) == ("\\uD83D", "x\\uD800y")
            assert mcp.process.returncode is None
            await mcp.tool("resume_debugger", **ids)
            detached = await mcp.tool("detach_debugger", debugSessionId=sid)
            assert detached["cleanup"]["status"] == "complete"
    await heartbeats_continue(shared_jvm)


def test_cli_help_and_flag_checks(script: str) -> None:
    shown = subprocess.run([script, "--help"], capture_output=True, text=True, timeout=60, check=True)
    for flag in ("--pause-limit-s", "--idle-limit-s", "--session-limit-s", "--adb-transport", "--allow-remote-jvm",
                 "--allow-invoke", "--allow-mutation", "--log-level"):
        assert flag in shown.stdout
    refused = subprocess.run([script, "--pause-limit-s", "0"], capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and "must be positive" in refused.stderr
    # Not a number, or no limit at all: refused at start, naming the flag (nan once failed every session).
    for flag, value in (("--session-limit-s", "nan"), ("--pause-limit-s", "inf"), ("--idle-limit-s=-inf", None)):
        refused = subprocess.run([script, flag, *([value] if value else [])], capture_output=True, text=True,
                                 timeout=60)
        name = flag.split("=")[0]
        assert refused.returncode == 2 and f"argument {name}: must be positive and finite" in refused.stderr


async def test_mcp_inspector_cli(script: str, shared_jvm: Debuggee, tmp_path: Path) -> None:
    npx, node = shutil.which("npx"), shutil.which("node")
    if npx is None or node is None:
        pytest.skip("Node.js (node and npx) is not installed: the MCP Inspector CLI check runs only with Node")
    package = f"@modelcontextprotocol/inspector@{INSPECTOR}"
    env = {**os.environ, "npm_config_update_notifier": "false", "npm_config_cache": str(_npm_cache(tmp_path))}

    async def inspector(*args: str) -> Any:
        server_env = [f"-e{key}={value}" for key, value in (_source_tree() or {}).items()]
        run = await trio.run_process([npx, "-y", package, "--cli", *server_env, script, *args], capture_stdout=True,
                                     capture_stderr=True, check=False, env=env)
        stderr = run.stderr.decode(errors="replace")
        if run.returncode != 0 and re.search(r"ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|E404|network", stderr):
            unavailable(f"npx could not fetch {package}: {stderr.strip()[-500:]}")
        assert run.returncode == 0, stderr[-3000:]
        return json.loads(run.stdout)

    with trio.fail_after(240):
        listed = await inspector("--method", "tools/list")
        assert len(listed["tools"]) == len(TOOLS)
        assert all(t["annotations"]["readOnlyHint"] in (True, False) for t in listed["tools"])
        called = await inspector("--method", "tools/call", "--tool-name", "get_debugger_capabilities",
                                 "--tool-arg", "platform=jvm", "--tool-arg",
                                 f"address={await agent_address(shared_jvm)}")
    assert called.get("isError") in (None, False)
    body = json.loads(called["content"][0]["text"])
    assert body == called["structuredContent"] and body["success"] is True
    assert body["result"]["prerequisites"]["jdk_required"] is False
    # The prompts (issue 24), listed and got by the same third-party client.
    with trio.fail_after(240):
        prompts = await inspector("--method", "prompts/list")
        got = await inspector("--method", "prompts/get", "--prompt-name", "debug_freeze", "--prompt-args",
                              "target=127.0.0.1:5005")
    assert [p["name"] for p in prompts["prompts"]] == ["debug_crash", "debug_wrong_value", "debug_freeze"]
    assert "127.0.0.1:5005" in got["messages"][0]["content"]["text"]


def _source_tree() -> dict[str, str] | None:
    """The server's environment beside the default: the source tree under test first (PYTHONPATH, as the test
    run has it), not only the installed copy."""
    return {"PYTHONPATH": os.environ["PYTHONPATH"]} if os.environ.get("PYTHONPATH") else None


def _source_tree() -> dict[str, str] | None:
    """The server's environment beside the default: the source tree under test first (PYTHONPATH, as the test
    run has it), not only the installed copy."""
    return {"PYTHONPATH": os.environ["PYTHONPATH"]} if os.environ.get("PYTHONPATH") else None


def _npm_cache(tmp_path: Path) -> Path:
    """The user's npm cache when it exists (no download on every run), else one for this test."""
    home = Path(os.environ.get("npm_config_cache") or Path.home() / ".npm")
    return home if home.is_dir() else tmp_path / "npm-cache"
