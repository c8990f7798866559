"""A Kotlin line with a lambda through the MCP tools (docs/design.md §3.10): the ``lambda`` input, ``in_lambda``
locations, a logpoint naming ``it`` with the other code indexes ``skipped``, on ``LambdasKt`` (kotlinc 1.3)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import trio
from mcpkit import connect

from support.jvm import Debuggee, debuggees, find_mark, kotlin_classpath
from support.live import require_tool

pytestmark = pytest.mark.live

APP = "com.example.ktlambdas.LambdasKt"


@pytest.fixture
def lambdas_app(kotlin_classes: Path) -> Iterator[Debuggee]:
    yield from debuggees(kotlin_classpath(kotlin_classes), APP, java=require_tool("java"))


async def test_lambda_choice_and_skipped_locations_through_the_server(lambdas_app: Debuggee) -> None:
    line = find_mark("ktl-sum")[1]
    with trio.fail_after(90):
        async with connect() as mcp:
            sid = await mcp.attach_jvm(lambdas_app)
            # Logpoints (that never stop), so that the app runs on while they are set and removed.
            quiet = {"action": "log", "logMessage": "-", "maxHits": 1}
            chosen = (await mcp.ok("set_debugger_breakpoint", debugSessionId=sid, file="Lambdas.kt", line=line,
                                   **quiet, **{"lambda": 0}))["result"]
            assert chosen["lambda_choice"] == 0, chosen
            assert [(loc["in_lambda"], loc["lambda_ordinal"]) for loc in chosen["locations"]] == [(True, 0)]
            line_only = (await mcp.ok("set_debugger_breakpoint", debugSessionId=sid, file="Lambdas.kt", line=line,
                                      **quiet, **{"lambda": "line"}))["result"]
            assert len(line_only["locations"]) == 2, line_only
            assert all("in_lambda" not in loc and "lambda_ordinal" not in loc for loc in line_only["locations"])
            for bp in (chosen, line_only):
                await mcp.ok("remove_debugger_breakpoint", debugSessionId=sid, breakpointId=bp["breakpoint_id"])
            log = (await mcp.ok("set_debugger_breakpoint", debugSessionId=sid, file="Lambdas.kt", line=line,
                                action="log", logMessage="a={it.a}", maxHits=4))["result"]
            assert "lambda_choice" not in log and len(log["locations"]) == 1, log
            assert [("'it' not in scope" in s["reason"], "in_lambda" in s) for s in log["skipped"]] == [
                (True, False)] * 2, log
            cursor, messages = 0, []
            while len(messages) < 4:
                event, cursor = await mcp.wait_for(sid, "logpoint", cursor)
                if event["breakpoint_id"] == log["breakpoint_id"]:
                    messages.append(event["message"])
            assert set(messages) == {"a=1", "a=3"}, messages
            await mcp.fails("set_debugger_breakpoint", "INVALID_ARGUMENT", debugSessionId=sid, file="Lambdas.kt",
                            line=line, **{"lambda": -1})
            await mcp.ok("detach_debugger", debugSessionId=sid)
    assert lambdas_app.process.poll() is None, "the app must keep running"
