"""Coroutines' async stacks through the MCP tools (docs/design.md §3.11, issue 25), on OpenJDK 17 running the
``ktcoroutines`` fixture (kotlinc 1.3, Debian's kotlinx-coroutines 1.0.1):

- over stdio, the installed ``pyjdwp-mcp`` with ``--class-path`` (the fixture's class directory and a jar of
  it): ``get_debugger_stack`` answers ``async_frames`` with lines and variable names from the class files,
  ``get_debugger_object`` of a continuation its spilled variables by name; no app code runs;
- in memory, without a class path (raw ``L$0`` names, ``line`` null) and with ``--allow-invoke`` (the
  stdlib's ``DebugMetadataKt`` answers); ``Secret``'s and ``Done``'s tattling methods never run.
"""

from __future__ import annotations

import os
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trio
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcpkit import Mcp, connect

from pyjdwp_server.session.targets import Config
from support.jvm import COROUTINE_JARS, Debuggee, coroutine_classpath, debuggees, find_mark
from support.live import require_tool, unavailable

APP = "com.example.ktcoroutines.CoroutinesKt"
SCRIPT = Path(sys.executable).with_name("pyjdwp-mcp")
LEAF = find_mark("ktc-leaf")[1]


@pytest.fixture
def coroutines_app(kotlin_classes: Path) -> Iterator[Debuggee]:
    if not all(jar.is_file() for jar in COROUTINE_JARS):
        unavailable(f"kotlinx-coroutines is not at {COROUTINE_JARS} (Debian's libkotlinx-coroutines-java)")
    yield from debuggees(coroutine_classpath(kotlin_classes), APP, java=require_tool("java"))


def tattles(debuggee: Debuggee, since: int) -> list[str]:
    return [text for text in debuggee.lines[since:] if "APP CODE RAN" in text]


async def leaf_stop(mcp: Mcp, app: Debuggee) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """Attach, stop in `leaf` after its delay; the session, the stop and its stack page."""
    sid = await mcp.attach_jvm(app)
    stop, _ = await mcp.stop_at(sid, APP, LEAF)
    stack = await mcp.ok("get_debugger_stack", debugSessionId=sid, stopId=stop["stop_id"], threadId=stop["thread_id"])
    return sid, stop, stack["result"]


def names(frame: dict[str, Any]) -> list[str]:
    return [s["name"] for s in frame["spilled"]]


async def test_stdio_with_class_path(coroutines_app: Debuggee, kotlin_classes: Path, tmp_path: Path) -> None:
    if not SCRIPT.is_file():
        unavailable(f"the console script {SCRIPT} is not installed (pip install -e .)")
    jar = tmp_path / "app.jar"
    with zipfile.ZipFile(jar, "w") as archive:
        for path in (kotlin_classes / "com/example/ktcoroutines").glob("*.class"):
            archive.write(path, str(path.relative_to(kotlin_classes)))
    broken = tmp_path / "broken.jar"
    broken.write_text("not a zip")
    # A jar, a directory and a broken file (skipped, and the answer's note says so).
    paths = os.pathsep.join([str(jar), str(kotlin_classes / "com/example/kt"), str(broken)])
    since = len(coroutines_app.lines)
    with trio.fail_after(90), (tmp_path / "stderr.txt").open("w") as errlog:
        params = StdioServerParameters(command=str(SCRIPT), args=["--class-path", paths], env=dict(os.environ))
        async with Client(stdio_client(params, errlog=errlog)) as client:
            mcp = Mcp(client)
            sid, stop, stack = await leaf_stop(mcp, coroutines_app)
            found = stack["async_frames"]
            assert found["metadata"] == "class_path" and found["truncated"] is False
            assert "1 file(s) of the class path could not be read" in found["note"] and "broken.jar" in found["note"]
            frames = found["frames"]
            assert [(f["method"], f["line"]) for f in frames[:3]] == [("leaf", LEAF - 2), ("middle", LEAF + 5),
                                                                      ("outer", LEAF + 11)], frames
            assert names(frames[0]) == ["seed", "doubled", "secret"] and names(frames[2]) == ["tag", "prefix"]
            secret = frames[0]["spilled"][2]
            assert secret["runtime_type"] == "com.example.ktcoroutines.Secret" and secret["field"] == "L$0"
            assert found["coroutine"]["name"] == "worker"
            assert found["coroutine"]["class_name"] == "kotlinx.coroutines.StandaloneCoroutine"
            page = await mcp.ok("get_debugger_object", debugSessionId=sid, stopId=stop["stop_id"],
                                objectId=frames[1]["object_id"])
            continuation = page["result"]["continuation"]
            assert continuation["method"] == "middle" and names(continuation) == ["base", "start"]
            assert any(f["name"] == "label" for f in page["result"]["fields"])  # the raw fields are still there
            await mcp.ok("resume_debugger", debugSessionId=sid, stopId=stop["stop_id"])
            await mcp.ok("detach_debugger", debugSessionId=sid)
    assert tattles(coroutines_app, since) == []
    assert "Traceback" not in (tmp_path / "stderr.txt").read_text()


@pytest.mark.parametrize("allow_invoke", [False, True])
async def test_in_memory_without_class_path(coroutines_app: Debuggee, allow_invoke: bool) -> None:
    since = len(coroutines_app.lines)
    with trio.fail_after(90):
        async with connect(Config(allow_invoke=allow_invoke)) as mcp:
            sid, stop, stack = await leaf_stop(mcp, coroutines_app)
            found = stack["async_frames"]
            frames = found["frames"]
            if allow_invoke:
                assert found["metadata"] == "invoke" and frames[0]["line"] == LEAF - 2
                assert names(frames[0]) == ["seed", "doubled", "secret"]
            else:
                assert found["metadata"] == "none"
                assert all(f["line"] is None and f["metadata"] == "none" for f in frames)
                assert names(frames[0]) == ["I$0", "I$1", "L$0"] and frames[0]["method"] == "invokeSuspend"
            assert found["coroutine"]["name"] == "worker" and frames[0]["label"] == 1
            # only the first page has them
            later = await mcp.ok("get_debugger_stack", debugSessionId=sid, stopId=stop["stop_id"],
                                 threadId=stop["thread_id"], offset=1)
            assert "async_frames" not in later["result"]
            await mcp.ok("resume_debugger", debugSessionId=sid, stopId=stop["stop_id"])
            await mcp.ok("detach_debugger", debugSessionId=sid)
    assert tattles(coroutines_app, since) == []


def test_class_path_flag_checks(tmp_path: Path) -> None:
    from pyjdwp_server.cli import parse_args

    assert parse_args(["--class-path", f"{tmp_path}{os.pathsep}{tmp_path}", "--class-path", str(tmp_path)]
                      ).class_path == [[str(tmp_path)] * 2, [str(tmp_path)]]
    with pytest.raises(SystemExit):
        parse_args(["--class-path", str(tmp_path / "missing.jar")])
