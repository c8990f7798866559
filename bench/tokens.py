"""Bytes an agent reads: every response of the demo journey, split into envelope and payload.

    python bench/tokens.py

Tokens are an agent's cost, and a response's envelope (session fields, capabilities, limitations,
cleanup) is paid on every call. This drives the journey of ``docs/examples/mcp_journey.py`` — attach,
breakpoint, wait for the stop, stack, locals, step over, wait, resume, state, detach — through the
server in this process (the SDK's in-memory client; the JSON text is what stdio would carry) against one
JVM, and prints for each response the bytes of its JSON text, of its payload (``result``, or the
events of a wait) and of the rest, the envelope. The goal (issue 10): at most 400 bytes of envelope on
the calls of an attached session; attach keeps the full capabilities. Asserts nothing.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio
from common import Table, free_port, java_tools
from mcp import Client

from pyjdwp_server import Config, build_server
from support.jvm import Debuggee, compile_fixtures, find_mark

CLASS = "com.example.debuggee.Hot"
PAYLOAD_KEYS = ("result", "events", "next_cursor", "overflow", "timed_out")
ENVELOPE_GOAL = 400
#: Calls whose envelope carries the full capabilities and limitations on purpose.
FULL_ENVELOPE = {"attach_debugger", "get_debugger_capabilities"}


def size(value: Any) -> int:
    """Bytes of ``value`` in the server's JSON text (no padding spaces, as ``pyjdwp_server.app`` writes it)."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())


async def journey(port: int, line: int) -> list[tuple[str, int, int]]:
    """(tool, bytes of the response text, bytes of its payload) for each call of the journey."""
    rows: list[tuple[str, int, int]] = []

    async with Client(build_server(Config())) as client:

        async def call(tool: str, **arguments: Any) -> dict[str, Any]:
            result = await client.call_tool(tool, arguments)
            text = result.content[0].text  # type: ignore[union-attr]
            body: dict[str, Any] = json.loads(text)
            if not body["success"]:
                raise SystemExit(f"{tool} failed: {body['error']}")
            payload = sum(size({key: body[key]}) for key in PAYLOAD_KEYS if key in body)
            rows.append((tool, len(text.encode()), payload))
            return body

        async def next_stop(session: str, cursor: int) -> tuple[dict[str, Any], int]:
            while True:
                polled = await call("wait_for_debugger_event", debugSessionId=session, afterSequence=cursor,
                                    timeoutMs=5000)
                cursor = polled["next_cursor"]
                stop = next((e["stop"] for e in polled["events"] if e["kind"] == "stopped"), None)
                if stop is not None:
                    return stop, cursor

        session = (await call("attach_debugger", platform="jvm", address=f"127.0.0.1:{port}"))["debug_session_id"]
        await call("set_debugger_breakpoint", debugSessionId=session, className=CLASS, line=line)
        stop, cursor = await next_stop(session, 0)
        frames = (await call("get_debugger_stack", debugSessionId=session, stopId=stop["stop_id"],
                             threadId=stop["thread_id"]))["result"]["frames"]
        await call("get_debugger_locals", debugSessionId=session, stopId=stop["stop_id"],
                   frameId=frames[0]["frame_id"])
        await call("step_debugger", debugSessionId=session, stopId=stop["stop_id"], threadId=stop["thread_id"],
                   kind="over")
        stepped, cursor = await next_stop(session, cursor)
        await call("resume_debugger", debugSessionId=session, stopId=stepped["stop_id"])
        await call("get_debugger_state", debugSessionId=session)
        await call("detach_debugger", debugSessionId=session)
    return rows


def table(rows: list[tuple[str, int, int]]) -> Table:
    lines = []
    worst = 0
    for tool, total, payload in rows:
        envelope = total - payload
        if tool not in FULL_ENVELOPE:
            worst = max(worst, envelope)
        lines.append([tool, str(total), str(payload), str(envelope), f"{envelope / total:.0%}"])
    total_bytes = sum(total for _, total, _ in rows)
    total_envelope = sum(total - payload for _, total, payload in rows)
    lines.append(["journey", str(total_bytes), str(total_bytes - total_envelope), str(total_envelope),
                  f"{total_envelope / total_bytes:.0%}"])
    met = "met" if worst <= ENVELOPE_GOAL else "not met"
    return Table("Response bytes of the demo journey (JSON text as stdio carries it)",
                 ["call", "bytes", "payload", "envelope", "envelope share"], lines,
                 notes=[f"largest envelope of a session call (not attach): {worst} bytes; goal ≤ {ENVELOPE_GOAL}: "
                        f"{met}"])


def measure() -> Table:
    java, javac, _ = java_tools()
    with tempfile.TemporaryDirectory() as tmp:
        classes = compile_fixtures(Path(tmp), javac=javac)
        line = find_mark("hot")[1]
        debuggee = Debuggee(classes, CLASS, port=free_port(), java=java, extra_args=("-Dhot.pause.micros=1000",))
        try:
            debuggee.wait_for_line("^ready$", timeout=30)
            rows = anyio.run(journey, debuggee.port, line, backend="trio")
        finally:
            debuggee.stop()
    return table(rows)


def main() -> None:
    if len(sys.argv) > 1:
        sys.exit(__doc__)
    print(measure().text())


if __name__ == "__main__":
    main()
