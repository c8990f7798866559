"""docs/design.md §5.8's budgets on a real session: the installed ``pyjdwp-mcp`` over stdio against OpenJDK 17.

What an agent reads, measured on the wire: the tool definitions ``tools/list`` gives a model, attach's
answer (each thing said once: the VM in ``result.vm``, no Android text on a JVM), every session call's
fixed envelope (every spec-025 field, short forms), value summaries without keys that do not apply to their
kind, and a logpoint event. tests/unit/test_budgets.py holds the same on answers built without a JVM.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import trio
from mcpkit import ENVELOPE_KEYS, WORKER, Mcp, agent_address, attached, line_of, stdio_mcp

from pyjdwp_server.answers import budgets
from support.jvm import Debuggee

pytestmark = pytest.mark.live


class Measured(Mcp):
    """A client that keeps every answer, to measure them."""

    def __init__(self, inner: Mcp) -> None:
        super().__init__(inner.client)
        self.answers: list[tuple[str, dict[str, Any]]] = []

    async def call(self, name: str, **arguments: Any) -> dict[str, Any]:
        body = await super().call(name, **arguments)
        self.answers.append((name, body))
        return body


async def test_a_jvm_session_within_its_budgets(shared_jvm: Debuggee, tmp_path: Path) -> None:
    with trio.fail_after(120):
        async with stdio_mcp(tmp_path / "stderr.txt") as plain:
            listed = (await plain.client.list_tools()).tools
            wire = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in listed]
            assert budgets.definitions_size(wire) <= budgets.TOOL_DEFINITIONS.held

            mcp = Measured(plain)
            address = await agent_address(shared_jvm)
            attach = await mcp.ok("attach_debugger", platform="jvm", address=address)
            attached(shared_jvm)
            sid = attach["debug_session_id"]
            log = await mcp.ok("set_debugger_breakpoint", debugSessionId=sid, className=WORKER, line=line_of("step"),
                               action="log", logMessage="round {i}, ratio {ratio}")
            logpoint, cursor = await mcp.wait_for(sid, "logpoint")
            await mcp.ok("remove_debugger_breakpoint", debugSessionId=sid, breakpointId=log["result"]["breakpoint_id"])
            stop, cursor = await mcp.stop_at(sid, WORKER, line_of("step"), cursor)
            ids = {"debugSessionId": sid, "stopId": stop["stop_id"]}
            frames = (await mcp.ok("get_debugger_stack", threadId=stop["thread_id"], **ids))["result"]["frames"]
            found = await mcp.ok("get_debugger_locals", frameId=frames[0]["frame_id"], **ids)
            await mcp.ok("evaluate_debugger_expression", frameId=frames[0]["frame_id"], expression="i + 1", **ids)
            await mcp.ok("get_debugger_state", debugSessionId=sid)
            await mcp.ok("resume_debugger", **ids)
            await mcp.ok("detach_debugger", debugSessionId=sid)

    assert budgets.size(attach) <= budgets.ATTACH_ANSWER.held, attach
    text = str(attach)
    assert text.count("id_sizes") == 1 and "isn't responding" not in text and "anr" not in text.replace(
        "android_anr", "")  # the VM once; Android's ANR only as the profile's code
    for name, body in mcp.answers[1:]:
        assert ENVELOPE_KEYS <= body.keys(), name
        assert budgets.envelope_size(body) <= budgets.SESSION_ENVELOPE.held, (name, body)
    assert budgets.logpoint_overhead(logpoint) <= budgets.LOGPOINT_OVERHEAD.held, logpoint
    assert {"this", "reason", "truncated"}.isdisjoint(found["result"]), found["result"]  # none applies here
    for value in found["result"]["locals"]:
        assert value.get("truncated", True) is True and value.get("value", "") is not None, value
        if value.get("kind") == "null" or value["type"] in ("int", "long", "double", "float", "boolean", "char",
                                                             "byte", "short"):
            assert "length" not in value and "object_id" not in value, value
        else:
            assert "object_id" in value, value
        if value["type"] == "int":
            assert "kind" not in value and budgets.size(value) <= budgets.INT_LOCAL.held, value
