"""Every answer is an envelope of JSON-safe text, whatever a handler returns or raises (no JVM needed).

The SDK serialises a tool's result after the server's handler returns; anything that fails there would
reach the client as a bare JSON-RPC error (-32603), or end a stdio server. So the server makes every
string JSON-safe in one pass (``jsonable``, lone surrogates as ``\\uXXXX``), and answers anything it
still cannot serialise, or any failure after the handler, as DEBUGGER_WORKER_FAILED in an envelope.
Handlers are replaced in the tool table to produce what no real session does on demand.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
import trio
from mcpkit import connect

from jdwp.debugger.model import Local, Stop
from jdwp.protocol.strings import decode_string
from pyjdwp_server import tools
from pyjdwp_server.answers.envelope import json_text, jsonable
from pyjdwp_server.answers.failures import ToolFailure

ARGS = {"platform": "jvm", "address": "127.0.0.1:5005"}


def _replace_handler(monkeypatch: pytest.MonkeyPatch, handler: Any) -> str:
    name = "get_debugger_capabilities"
    # Any result: the stand-in answers what no real tool does, so its output schema says nothing.
    monkeypatch.setitem(tools.BY_NAME, name, dataclasses.replace(tools.BY_NAME[name], handler=handler, result=object))
    return name


@pytest.mark.parametrize(("text", "shown"), [
    ("plain", "plain"),
    ("x\ud800y", "x\\uD800y"),                   # a lone high surrogate: six visible characters
    ("\udc00", "\\uDC00"),                        # a lone low surrogate
    ("\ud83d", "\\uD83D"),
    ("\ud83d\ude00", "\U0001F600"),               # a pair that arrived as two code points: the character
    ("\U0001F600 \ud800\ud800", "\U0001F600 \\uD800\\uD800"),
    ("\udc00\ud800", "\\uDC00\\uD800"),           # low then high is no pair
    ("nul\x00 é", "nul\x00 é"),                   # JSON escapes NUL itself; nothing to do
])
def test_json_text(text: str, shown: str) -> None:
    assert json_text(text) == shown
    assert json_text(shown) == shown  # idempotent: the escape holds no surrogate
    json.dumps(shown, ensure_ascii=False).encode("utf-8")


def test_json_text_of_a_wire_string_is_a_plain_str() -> None:
    wire = decode_string(b"bad-\xed\xb0\x80-name")  # HotSpot's bytes for a lone U+DC00
    assert type(json_text(wire)) is str and json_text(wire) == "bad-\\uDC00-name"


def test_jsonable_escapes_every_string_and_leaves_out_empty_truncated_names() -> None:
    local = Local("lone", "java.lang.String", "string", "x\ud800y", length=3, object_id="0x1")
    assert jsonable({"k\udc00": [local, ("\ud800",)]}) == {"k\\uDC00": [
        {"name": "lone", "type": "java.lang.String", "value": "x\\uD800y", "length": 3, "object_id": "0x1"},
        ["\\uD800"]]}
    long = Local("n" * 2000, "int", "primitive", "1")
    assert jsonable(long)["truncated_names"] == ["name"]


def test_a_stop_summary_carries_the_cut_names() -> None:
    from jdwp.debugger.model import SourcePosition

    stop = Stop("stop-1", ("breakpoint",), "stop-1.t1", "t" * 1_000_000, SourcePosition("C", "m", None, 3, 0), ())
    summary = jsonable(stop)
    assert summary["truncated_names"] == ["thread_name"] and len(summary["thread_name"]) == 1024
    assert "truncated_names" not in summary["location"]


async def test_lone_surrogates_anywhere_in_an_answer_are_escaped(monkeypatch: pytest.MonkeyPatch) -> None:
    async def handler(call: Any) -> Any:
        return {"name\ud800": "\udc00", "nested": [{"value": "x\ud83dy"}]}

    name = _replace_handler(monkeypatch, handler)
    with trio.fail_after(20):
        async with connect() as mcp:
            body = await mcp.ok(name, **ARGS)
    assert body["result"] == {"name\\uD800": "\\uDC00", "nested": [{"value": "x\\uD83Dy"}]}


async def test_a_failure_message_with_a_lone_surrogate_is_escaped(monkeypatch: pytest.MonkeyPatch) -> None:
    async def handler(call: Any) -> Any:
        raise ToolFailure("DEBUGGER_NOT_FOUND", "no thread named bad-\udc00-name")

    name = _replace_handler(monkeypatch, handler)
    with trio.fail_after(20):
        async with connect() as mcp:
            body = await mcp.fails(name, "DEBUGGER_NOT_FOUND", **ARGS)
    assert body["error"]["message"] == "no thread named bad-\\uDC00-name"


async def test_an_answer_that_cannot_be_serialised_is_a_worker_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    async def handler(call: Any) -> Any:
        return {"handle": object(), "ratio": float("nan")}

    name = _replace_handler(monkeypatch, handler)
    with trio.fail_after(20):
        async with connect() as mcp:
            body = await mcp.fails(name, "DEBUGGER_WORKER_FAILED", retryable=False, **ARGS)
    assert "could not be written as JSON" in body["error"]["message"]


class _Exploding(Mapping[str, Any]):
    """A result whose conversion to JSON values raises: a failure after the handler has returned."""

    def __getitem__(self, key: str) -> Any:
        raise RuntimeError("boom")

    def __iter__(self) -> Iterator[str]:
        raise RuntimeError("boom")

    def __len__(self) -> int:
        return 1


async def test_a_failure_after_the_handler_is_an_envelope(monkeypatch: pytest.MonkeyPatch) -> None:
    async def handler(call: Any) -> Any:
        return _Exploding()

    name = _replace_handler(monkeypatch, handler)
    with trio.fail_after(20):
        async with connect() as mcp:
            body = await mcp.fails(name, "DEBUGGER_WORKER_FAILED", retryable=False, **ARGS)
            assert "RuntimeError" in body["error"]["message"]
            again = await mcp.fails(name, "DEBUGGER_WORKER_FAILED", **ARGS)  # the server is still there
    assert again["debug_session_id"] is None
