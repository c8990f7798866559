"""What an agent pays to read pyjdwp-mcp, against docs/design.md §5.8's budgets (``pyjdwp_server.answers.budgets``).

    python bench/tool_budget.py            # the tool definitions, then a JVM session's answers
    python bench/tool_budget.py --no-jvm   # the tool definitions only

Sizes are bytes of compact JSON, as stdio carries them. First the tool definitions a model is given every
turn (name, description, inputSchema; from ``tool_list.json``, what ``tools/list`` answers), per tool and
in total, and the server's ``instructions``. Then one session on a JVM of the test fixtures, through the
server in this process (the SDK's in-memory client): attach's answer, each session call's fixed envelope,
a logpoint event beside its message, an int local's summary, and whether a value summary carries keys that
say nothing. The definitions count every tool the server lists. Asserts nothing (tests/unit/test_budgets.py
and tests/server/test_server_budgets.py hold the budgets).
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

import anyio
from common import Table, free_port, java_tools
from mcp import Client

from pyjdwp_server import Config, build_server
from pyjdwp_server.answers import budgets
from pyjdwp_server.answers.tool_list import LIST_FILE
from pyjdwp_server.app import INSTRUCTIONS
from support.jvm import Debuggee, compile_fixtures, find_mark

WORKER = "com.example.debuggee.Worker"


def _verdict(value: int, budget: budgets.Budget) -> str:
    if value <= budget.goal:
        return "met"
    return f"not met (held ≤ {budget.held}: {budget.blocked})" if budget.blocked else "not met"


def definitions_table() -> Table:
    listed = json.loads(LIST_FILE.read_text(encoding="utf-8"))["tools"]
    rows = []
    for tool in budgets.model_view(listed):
        rows.append([tool["name"], str(budgets.size(tool)), str(len(tool["description"] or "")),
                     str(budgets.size(tool["inputSchema"]))])
    total = budgets.definitions_size(listed)
    rows.append(["all tools", str(total), "", ""])
    goal = budgets.TOOL_DEFINITIONS
    return Table("Tool definitions as a model is given them (bytes of compact JSON)",
                 ["tool", "bytes", "description chars", "inputSchema bytes"], rows,
                 notes=[f"all {len(listed)} tools: {total} B; goal ≤ {goal.goal} B with every tool the server lists: "
                        f"{_verdict(total, goal)}",
                        f"the server's instructions (said once per session): {len(INSTRUCTIONS.encode())} B"])


async def session(port: int, line: int) -> list[tuple[str, dict[str, Any]]]:
    """Every answer of one short session: attach, a logpoint, a stop and its inspection, detach."""
    answers: list[tuple[str, dict[str, Any]]] = []
    async with Client(build_server(Config())) as client:

        async def call(tool: str, **arguments: Any) -> dict[str, Any]:
            result = await client.call_tool(tool, arguments)
            body: dict[str, Any] = json.loads(result.content[0].text)  # type: ignore[union-attr]
            if not body["success"]:
                raise SystemExit(f"{tool} failed: {body['error']}")
            answers.append((tool, body))
            return body

        async def next_event(sid: str, kind: str, cursor: int) -> tuple[dict[str, Any], int]:
            while True:
                body = await call("wait_for_debugger_event", debugSessionId=sid, afterSequence=cursor, timeoutMs=5000)
                cursor = body["next_cursor"]
                found = next((e for e in body["events"] if e["kind"] == kind), None)
                if found is not None:
                    return found, found["sequence"]

        sid = (await call("attach_debugger", platform="jvm", address=f"127.0.0.1:{port}"))["debug_session_id"]
        log = await call("set_debugger_breakpoint", debugSessionId=sid, className=WORKER, line=line, action="log",
                         logMessage="round {i}, ratio {ratio}")
        _, cursor = await next_event(sid, "logpoint", 0)
        await call("remove_debugger_breakpoint", debugSessionId=sid, breakpointId=log["result"]["breakpoint_id"])
        await call("set_debugger_breakpoint", debugSessionId=sid, className=WORKER, line=line)
        stopped, cursor = await next_event(sid, "stopped", cursor)
        ids = {"debugSessionId": sid, "stopId": stopped["stop"]["stop_id"]}
        frames = (await call("get_debugger_stack", threadId=stopped["stop"]["thread_id"], **ids))["result"]["frames"]
        await call("get_debugger_locals", frameId=frames[0]["frame_id"], **ids)
        await call("evaluate_debugger_expression", frameId=frames[0]["frame_id"], expression="i + 1", **ids)
        await call("resume_debugger", **ids)
        await call("get_debugger_state", debugSessionId=sid)
        await call("detach_debugger", debugSessionId=sid)
    return answers


def _inapplicable(value: dict[str, Any]) -> list[str]:
    """Keys of a value summary that say nothing: a null ``length``/``object_id``/``value``, ``truncated: false``."""
    found = [key for key in ("length", "object_id", "value") if key in value and value[key] is None]
    return found + (["truncated"] if value.get("truncated") is False else [])


def session_table(answers: list[tuple[str, dict[str, Any]]]) -> Table:
    rows = []
    worst = 0
    attach = 0
    logpoint = None
    null_keys = 0
    int_local = 0
    for tool, body in answers:
        fixed = budgets.envelope_size(body)
        if tool == "attach_debugger":
            attach = budgets.size(body)
        else:
            worst = max(worst, fixed)
        for event in body.get("events", ()):
            if event["kind"] == "logpoint" and logpoint is None:
                logpoint = budgets.logpoint_overhead(event)
        for value in (body.get("result") or {}).get("locals", ()):
            null_keys += len(_inapplicable(value))
            if value.get("type") == "int":
                int_local = max(int_local, budgets.size(value))
        rows.append([tool, str(budgets.size(body)), str(fixed)])
    notes = [f"attach_debugger's answer: {attach} B; goal ≤ {budgets.ATTACH_ANSWER.goal} B: "
             f"{_verdict(attach, budgets.ATTACH_ANSWER)}",
             f"largest fixed envelope of a session call: {worst} B; goal ≤ {budgets.SESSION_ENVELOPE.goal} B: "
             f"{_verdict(worst, budgets.SESSION_ENVELOPE)}",
             f"a logpoint event beside its message: {logpoint} B; goal ≤ "
             f"{budgets.LOGPOINT_OVERHEAD.goal} B: {_verdict(logpoint or 0, budgets.LOGPOINT_OVERHEAD)}",
             f"an int local's summary: {int_local} B; goal ≤ {budgets.INT_LOCAL.goal} B: "
             f"{_verdict(int_local, budgets.INT_LOCAL)}",
             f"keys that say nothing (null length, object_id or value; truncated false) in the locals read: "
             f"{null_keys}"]
    return Table("A JVM session's answers (bytes of compact JSON)", ["call", "bytes", "fixed envelope"], rows,
                 notes=notes)


def measure(jvm: bool = True) -> list[Table]:
    tables = [definitions_table()]
    if not jvm:
        return tables
    java, javac, _ = java_tools()
    with tempfile.TemporaryDirectory() as tmp:
        classes = compile_fixtures(Path(tmp), javac=javac)
        debuggee = Debuggee(classes, "com.example.debuggee.Main", port=free_port(), java=java)
        try:
            debuggee.wait_for_line("^ready$", timeout=30)
            answers = anyio.run(session, debuggee.port, find_mark("step")[1], backend="trio")
        finally:
            debuggee.stop()
    return [*tables, session_table(answers)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-jvm", action="store_true", help="only the tool definitions (no JVM needed)")
    args = parser.parse_args()
    print("\n\n".join(table.text() for table in measure(jvm=not args.no_jvm)))


if __name__ == "__main__":
    main()
