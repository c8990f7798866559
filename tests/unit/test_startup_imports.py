"""``pyjdwp-mcp`` answers ``initialize`` and ``tools/list`` without importing the engine (docs/design.md §5.9:
every MCP client starts its servers when it starts, and the engine, ``android`` and the tool table are
most of what the server would import): they come with the first ``tools/call``.

Each check runs in a fresh interpreter: ``import pyjdwp_server.cli`` alone, then the real console entry point
(``python -m pyjdwp_server``) over pipes, whose every import ``-X importtime`` lists on stderr.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import trio

SRC = Path(__file__).resolve().parents[2] / "src"
LIST = SRC / "server" / "answers" / "tool_list.json"  # every tool the table has (tests/unit/test_tool_list.py)
#: What initialize and tools/list must not import: the engine, the JDWP client, android, and the server's
#: modules that bring them (the tool table with its handlers and input models, the session manager).
LAZY = ("jdwp", "pyjdwp_android", "pyjdwp_server.transport.handling", "pyjdwp_server.tools",
        "pyjdwp_server.session.models", "pyjdwp_server.session.manager",
        "pyjdwp_server.answers.envelope", "pyjdwp_server.answers.results")


def _lazy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if any(m == name or m.startswith(name + ".") for name in LAZY))


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(SRC)}


def test_importing_the_cli_imports_neither_the_engine_nor_android() -> None:
    probe = "import json, sys, pyjdwp_server.cli; print(json.dumps(sorted(sys.modules)))"
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=_env(), check=True,
                         timeout=60)
    assert _lazy(set(json.loads(run.stdout))) == []


def _line(value: dict[str, Any]) -> bytes:
    return json.dumps(value).encode() + b"\n"


HANDSHAKE = [_line({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                 "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}}),
             _line({"jsonrpc": "2.0", "method": "notifications/initialized"}),
             _line({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})]
CALL = _line({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
              "params": {"name": "get_debugger_state", "arguments": {"debugSessionId": "dbg-none"}}})


async def _serve(lines: list[bytes]) -> tuple[dict[Any, Any], set[str]]:
    """``python -m pyjdwp_server``'s answers by id to ``lines`` (stdin closes once each request is answered), and
    every module it imported in its whole life."""
    expected = sum(b'"id"' in line for line in lines)
    answers: dict[Any, Any] = {}
    with trio.fail_after(60):
        process = await trio.lowlevel.open_process(
            [sys.executable, "-X", "importtime", "-m", "pyjdwp_server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, env=_env())
        assert process.stdin and process.stdout and process.stderr
        errors = bytearray()
        async with trio.open_nursery() as nursery:

            async def drain_stderr() -> None:
                assert process.stderr
                while chunk := await process.stderr.receive_some():
                    errors.extend(chunk)

            nursery.start_soon(drain_stderr)
            await process.stdin.send_all(b"".join(lines))
            buffer = b""
            while len(answers) < expected:
                chunk = await process.stdout.receive_some()
                assert chunk, f"the server ended before answering: {errors.decode()[-2000:]}"
                buffer += chunk
                *complete, buffer = buffer.split(b"\n")
                for text in complete:
                    answer = json.loads(text)
                    if "id" in answer:  # a notification is no answer
                        answers[answer["id"]] = answer
            await process.stdin.aclose()
            assert await process.wait() == 0, errors.decode()[-2000:]
    imported = {line.split("|")[-1].strip() for line in errors.decode().splitlines() if line.startswith("import time:")}
    return answers, imported - {"package"}  # the header line's last column


async def test_initialize_and_tools_list_import_neither_the_engine_nor_android() -> None:
    answers, imported = await _serve(HANDSHAKE)
    assert answers[1]["result"]["serverInfo"]["name"] == "pyjdwp"
    assert len(answers[2]["result"]["tools"]) == len(json.loads(LIST.read_text())["tools"])
    assert "pyjdwp_server.answers.tool_list" in imported  # the listing came from the file, in this process
    assert _lazy(imported) == []


async def test_the_first_tool_call_brings_the_engine_in() -> None:
    answers, imported = await _serve([*HANDSHAKE, CALL])
    assert answers[3]["result"]["structuredContent"]["error"]["code"] == "DEBUGGER_NOT_FOUND"
    assert {"jdwp.debugger", "pyjdwp_android", "pyjdwp_server.transport.handling"} <= imported
