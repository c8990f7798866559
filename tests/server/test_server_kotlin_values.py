"""Kotlin values through the MCP tools (docs/design.md §3.7–3.8): the debuggee ``com.example.ktvalues.ValuesKt``
(kotlinc 1.3) stopped in ``look``, on a JVM and as an app process of the adb testbed (jdwp:<pid>): locals,
a data class's fields by their Kotlin names, Kotlin's empty collections and one-element builders as views,
expressions on a data class path and a companion's property, then resume and detach, the app running.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trio
from mcpkit import Mcp, connect

from adb.testbed import Apps, Testbed
from support.jvm import Debuggee, debuggees, find_mark, kotlin_classpath
from support.live import require_tool

pytestmark = pytest.mark.live

PACKAGE = "com.example.ktvalues"
APP = f"{PACKAGE}.ValuesKt"


@pytest.fixture
def values_app(kotlin_classes: Path) -> Iterator[Debuggee]:
    yield from debuggees(kotlin_classpath(kotlin_classes), APP, java=require_tool("java"))


async def values_journey(mcp: Mcp, sid: str) -> None:
    """Stop in ``look``, read its values, resume and see it stop again; leaves the session paused."""
    stop, cursor = await mcp.stop_at(sid, APP, find_mark("ktv-look")[1])
    ids = {"debugSessionId": sid, "stopId": stop["stop_id"]}
    stack = await mcp.ok("get_debugger_stack", **ids, threadId=stop["thread_id"], limit=1)
    (top,) = stack["result"]["frames"]
    assert (top["class_name"], top["method"], top["source"]) == (APP, "look", "Values.kt")
    found = await mcp.ok("get_debugger_locals", **ids, frameId=top["frame_id"])
    by_name = {local["name"]: local for local in found["result"]["locals"]}
    assert by_name["person"]["type"] == f"{PACKAGE}.Person" and "runtime_type" not in by_name["person"]  # the same
    assert by_name["noList"]["type"] == "java.util.List"
    assert by_name["noList"]["runtime_type"] == "kotlin.collections.EmptyList"

    async def shown(name: str, **extra: Any) -> dict[str, Any]:
        return (await mcp.ok("get_debugger_object", **ids, objectId=by_name[name]["object_id"], **extra))["result"]

    person = await shown("person")
    assert person["view"] == "fields" and person["runtime_type"] == f"{PACKAGE}.Person"
    assert [(f["name"], f["declared_type"], f.get("value")) for f in person["fields"]] == [
        ("name", "java.lang.String", "Ada"), ("age", "int", "36"), ("home", f"{PACKAGE}.Place", None)]
    assert "runtime_type" not in person["fields"][2] and person["fields"][2]["object_id"]  # the declared type
    empty = await shown("noList")
    assert (empty["view"], empty["size"], empty["elements"], empty["next_offset"]) == ("list", 0, [], None)
    assert (await shown("noMap"))["entries"] == []
    growing = await shown("growing")
    assert growing["view"] == "list" and [e["value"] for e in growing["elements"]] == ["a", "b"]
    pair = await shown("pair")
    assert (pair["runtime_type"], pair["view"], pair["size"]) == ("java.util.Collections$SingletonMap", "map", 1)
    assert pair["entries"][0]["key"]["value"] == "k"
    pairs = await shown("pairs", limit=2)
    assert [e["key"]["value"] for e in pairs["entries"]] == ["a", "b"] and pairs["next_offset"] == 2

    async def evaluate(expression: str) -> dict[str, Any]:
        return await mcp.call("evaluate_debugger_expression", **ids, frameId=top["frame_id"], expression=expression)

    city = (await evaluate("person.home.city"))["result"]
    assert (city.get("kind"), city["value"], city["runtime_type"]) == (None, "London", "java.lang.String")
    assert (await evaluate("Registry.created"))["result"]["value"] == "1"
    assert (await evaluate("Registry.DEFAULT.name"))["result"]["value"] == "nobody"
    assert (await evaluate("noSet.size + pair.size"))["result"]["value"] == "1"
    missing = await evaluate("person.nickname")
    assert missing["error"]["code"] == "DEBUGGER_EVALUATION_FAILED" and "nickname" in missing["error"]["message"]

    await mcp.ok("resume_debugger", **ids)
    await mcp.wait_for(sid, "stopped", cursor)  # it ran on, and came back to the line
    await mcp.fails("get_debugger_object", "DEBUGGER_STALE_REFERENCE", **ids, objectId=by_name["person"]["object_id"])


async def test_kotlin_values_through_the_server_on_a_jvm(values_app: Debuggee) -> None:
    with trio.fail_after(90):
        async with connect() as mcp:
            sid = await mcp.attach_jvm(values_app)
            await values_journey(mcp, sid)
            detached = await mcp.ok("detach_debugger", debugSessionId=sid)  # while paused
            assert detached["cleanup"]["status"] == "complete"
            assert detached["cleanup"]["execution_state"] == "running"
    assert values_app.process.poll() is None, "the app must keep running"


async def test_android_values_journey(testbed: Testbed, apps: Apps, kotlin_classes: Path) -> None:
    """The same journey over adb (jdwp:<pid> on the testbed's adbd), attached to the registered app by its id."""
    app_id = "com.example.ktvalues"
    testbed.install_package(app_id, 10400)
    app = await apps.start(app_id, classpath=kotlin_classpath(kotlin_classes), main_class=APP, ready=b"ready")
    with trio.fail_after(90):
        async with connect(adb=testbed.client()) as mcp:
            attached = await mcp.ok("attach_debugger", platform="android", deviceId=testbed.serial, appId=app_id)
            assert attached["target"]["pid"] == app.pid and attached["state"] == "running"
            sid = attached["debug_session_id"]
            await values_journey(mcp, sid)
            detached = await mcp.ok("detach_debugger", debugSessionId=sid)  # while paused
            assert detached["state"] == "detached" and detached["cleanup"]["status"] == "complete"
            assert detached["cleanup"]["execution_state"] == "running"
    assert app.procs[0].poll() is None, "the app must keep running"
