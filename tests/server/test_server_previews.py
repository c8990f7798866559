"""Previews and the diagnosing pause through the MCP tools over stdio (docs/design.md §3.7), the server run from
these sources (``python -m pyjdwp_server``) against real JVMs:

- ``Carts``: a stop whose locals carry ``preview`` (an object by its first fields, a collection by its size, a
  box and an enum by value), ``get_debugger_object`` with ``depth`` 0, 1 (default) and 2, and a depth out of
  range refused with INVALID_ARGUMENT;
- ``Knots``: a freeze in one call — ``pause_debugger`` answers the app's threads with status, top frame and
  monitors (with previews) and the deadlock, the JVM's own threads counted and listed with ``systemThreads``.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import trio
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcpkit import Mcp

from support.jvm import Debuggee, debuggees, find_mark
from support.listings import listed_thread
from support.live import require_tool

pytestmark = pytest.mark.live

CARTS = "com.example.debuggee.Carts"
KNOTS = "com.example.debuggee.Knots"
SRC = Path(__file__).resolve().parents[2] / "src"


@pytest.fixture
def carts(java_classes: Path) -> Iterator[Debuggee]:
    yield from debuggees(java_classes, CARTS, java=require_tool("java"))


@pytest.fixture
def knots(java_classes: Path) -> Iterator[Debuggee]:
    yield from debuggees(java_classes, KNOTS, java=require_tool("java"))


@asynccontextmanager
async def over_stdio(tmp_path: Path) -> AsyncIterator[Mcp]:
    """The server as a process of its own on stdio, from this checkout's sources."""
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    with (tmp_path / "stderr.txt").open("w") as errlog:
        transport = stdio_client(StdioServerParameters(command=sys.executable, args=["-m", "pyjdwp_server"], env=env),
                                 errlog=errlog)
        async with Client(transport) as client:
            yield Mcp(client)


def size(body: dict[str, Any]) -> int:
    return len(json.dumps(body, separators=(",", ":")).encode())


async def test_locals_and_objects_carry_previews(carts: Debuggee, tmp_path: Path) -> None:
    with trio.fail_after(90):
        async with over_stdio(tmp_path) as mcp:
            sid = await mcp.attach_jvm(carts)
            stop, _ = await mcp.stop_at(sid, CARTS, find_mark("carts-look")[1])
            ids = {"debugSessionId": sid, "stopId": stop["stop_id"]}
            (top,) = (await mcp.ok("get_debugger_stack", **ids, threadId=stop["thread_id"], limit=1))["result"][
                "frames"]
            found = (await mcp.ok("get_debugger_locals", **ids, frameId=top["frame_id"]))["result"]
            by_name = {local["name"]: local for local in found["locals"]}
            assert by_name["item"]["preview"] == 'Item(sku="voucher", priceCents=-500, qty=1)'
            assert by_name["account"]["preview"] == 'Account(name="alice", balance=961)'
            assert by_name["lines"]["preview"] == "ArrayList(size=4)"
            assert by_name["stock"]["preview"] == "HashMap(size=3)"
            assert by_name["boxed"]["preview"] == "42" and by_name["status"]["preview"] == "OPEN"
            assert "preview" not in by_name["round"]  # a primitive: no key that does not apply

            order = by_name["order"]["object_id"]

            async def fields(**extra: Any) -> dict[str, Any]:
                page = (await mcp.ok("get_debugger_object", **ids, objectId=order, **extra))["result"]
                return {f["name"]: f.get("preview") for f in page["fields"]}

            assert set((await fields(depth=0)).values()) == {None}  # today's answer, as spec-025 had it
            shown = await fields()
            assert shown["buyer"] == 'Account(name="alice", balance=961)' and shown["lines"] == "ArrayList(size=4)"
            lines = (await mcp.ok("get_debugger_object", **ids, objectId=by_name["lines"]["object_id"]))["result"]
            assert lines["elements"][1]["preview"] == 'Item(sku="pen", priceCents=150, qty=2)'
            registry = (await mcp.ok("get_debugger_object", **ids, objectId=by_name["wide"]["object_id"],
                                     depth=2))["result"]
            assert {f["name"]: f.get("preview") for f in registry["fields"]}["self"].startswith('Wide(note="xx')
            await mcp.fails("get_debugger_object", "INVALID_ARGUMENT", **ids, objectId=order, depth=3)
            await mcp.ok("resume_debugger", **ids)
            await mcp.ok("detach_debugger", debugSessionId=sid)


async def test_a_freeze_in_one_pause(knots: Debuggee, tmp_path: Path) -> None:
    with trio.fail_after(90):
        async with over_stdio(tmp_path) as mcp:
            sid = await mcp.attach_jvm(knots)
            paused = await mcp.ok("pause_debugger", debugSessionId=sid)
            result = paused["result"]
            assert result["stop"]["reason"] == "pause" and result["acknowledged"] is True  # spec-025's fields
            threads = {t["name"]: t for t in result["threads"] if "name" in t}
            # The sleeper and the heartbeat both sleep in Thread.sleep: at the top frame they may fold into one entry.
            assert all(listed_thread(result["threads"], name) for name in ("sleeper", "heartbeat"))
            assert {"locker-a", "locker-b", "waiter", "spinner", "main"} <= set(threads)
            assert not {"Reference Handler", "Finalizer", "Signal Dispatcher"} & set(threads)
            assert result["system_count"] >= 3 and "system_threads" not in result
            a = threads["locker-a"]
            assert a["status"] == "monitor" and a["frames"][0].startswith("com.example.debuggee.Knots.lock(Knots.java:")
            # Each monitor is said once, in ``monitors``; a thread names the ones it owns and waits for by ID.
            monitors = {m["object_id"]: m for m in result["monitors"]}
            assert a["waiting_for"]["owner_name"] == "locker-b" and "preview" not in a["waiting_for"]
            assert monitors[a["waiting_for"]["object_id"]]["preview"] == "LockB()"
            assert monitors[a["waiting_for"]["object_id"]]["owner_thread"] == threads["locker-b"]["thread_id"]
            assert [monitors[m]["preview"] for m in a["owned_monitors"]] == ["LockA()"]
            assert "suspended" not in a  # every thread is, at a pause
            [deadlock] = result["deadlocks"]
            assert {link["thread_name"] for link in deadlock["threads"]} == {"locker-a", "locker-b"}
            assert {link["waiting_for"] for link in deadlock["threads"]} <= set(monitors)
            assert size(paused) < 4096, size(paused)  # a freeze's answer, in one call (issue 24: ≤ 4 KB in all)
            # Its thread IDs are the stop's: the stack of one gives its frames' IDs, for locals.
            top = (await mcp.ok("get_debugger_stack", debugSessionId=sid, stopId=result["stop"]["stop_id"],
                                threadId=threads["spinner"]["thread_id"], limit=1))["result"]["frames"][0]
            await mcp.ok("get_debugger_locals", debugSessionId=sid, stopId=result["stop"]["stop_id"],
                         frameId=top["frame_id"])
            await mcp.ok("resume_debugger", debugSessionId=sid, stopId=result["stop"]["stop_id"])
            again = (await mcp.ok("pause_debugger", debugSessionId=sid, systemThreads=True))["result"]
            listed = {t["name"]: t for t in again["system_threads"]}
            assert {"Reference Handler", "Signal Dispatcher"} <= set(listed) and len(listed) == again["system_count"]
            assert all(isinstance(f, str) for f in listed["Reference Handler"]["frames"])  # asked for: with frames
            await mcp.fails("pause_debugger", "INVALID_ARGUMENT", debugSessionId=sid, systemThreads="yes")
            await mcp.ok("detach_debugger", debugSessionId=sid)
