"""What the fuzzers feed, and the only errors each target may raise.

Shared by ``tests/faults/test_fuzz.py`` (hypothesis, small budget), ``bench/fuzz.py`` (≥ 1,000,000 inputs,
random and atheris). Every target takes bytes (or a JSON value) from an untrusted peer and must either
succeed or raise the typed error of its layer:

- JDWP (``jdwp.protocol``): framing of a byte stream (:class:`JdwpConnection`) and every command's
  ``decode_reply`` and ``decode_out`` at several ID widths → only ``JdwpError`` (``ProtocolError``,
  ``UsageError``);
- ADB (``pyjdwp_android.protocol``, ``pyjdwp_android.ddm``, ``pyjdwp_android.track_app``): status, hex blocks, shell-v2
packets,
  the host services' text replies, DDM chunks and track-app protobuf → only ``AdbError``;
- expressions (``jdwp.debugger.reading.expressions``): any text of at most 512 characters → an AST or
  ``ExpressionSyntaxError``;
- MCP inputs (each tool's model, ``pyjdwp_server.tools``): any JSON object into every tool's model → a model or
  ``ValidationError``;
- VM text (:class:`VmText`): hostile names and values from a scripted VM through the whole server → an
  envelope for every answer, every string bounded and JSON-safe, and the server still answering.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import random
import struct
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import trio
from mcp import Client
from pydantic import ValidationError

from jdwp.debugger.names import java_prefix
from jdwp.debugger.reading.expressions import MAX_EXPRESSION_CHARS, ExpressionSyntaxError, parse_expression
from jdwp.protocol.commands import ALL_COMMANDS, Command
from jdwp.protocol.commands._base import Empty
from jdwp.protocol.commands.events import BreakpointEvent, SetReply
from jdwp.protocol.commands.objects import StringValueReply
from jdwp.protocol.commands.reftypes import (
    ClassLoaderReply,
    LineEntry,
    LineTableReply,
    MethodInfo,
    MethodsReply,
    SignatureReply,
    SourceFileReply,
    ValuesReply,
    VariableSlot,
    VariableTableReply,
)
from jdwp.protocol.commands.threads import (
    Frame,
    FrameCountReply,
    FramesReply,
    SuspendCountReply,
    ThisObjectReply,
    ThreadNameReply,
)
from jdwp.protocol.commands.vm import (
    AllClassesReply,
    ClassesBySignatureReply,
    ClassInfo,
    ClassRef,
    ThreadsReply,
    VersionReply,
)
from jdwp.protocol.connection import NEED_DATA, Closed, JdwpConnection
from jdwp.protocol.constants import Tag, TypeTag
from jdwp.protocol.errors import JdwpError
from jdwp.protocol.strings import WireString, encode_modified_utf8
from jdwp.protocol.types import IdSizes, Location
from jdwp.protocol.values import Value
from jdwp.protocol.wire import HEADER
from pyjdwp_android import anr, ddm, launch, track_app
from pyjdwp_android import protocol as adb
from pyjdwp_android.errors import AdbError
from pyjdwp_server import Config, build_server
from pyjdwp_server.answers.envelope import json_text
from pyjdwp_server.tools import TOOLS
from support.fakevm import Handler, ScriptedVm

JDWP_ALLOWED: tuple[type[BaseException], ...] = (JdwpError,)
ADB_ALLOWED: tuple[type[BaseException], ...] = (AdbError,)
MODEL_ALLOWED: tuple[type[BaseException], ...] = (ValidationError,)
EXPRESSION_ALLOWED: tuple[type[BaseException], ...] = (ExpressionSyntaxError,)

#: HotSpot 64-bit, ART in a 32-bit process, small regular widths, and odd widths the spec allows.
SIZES = (IdSizes(8, 8, 8, 8, 8), IdSizes(4, 4, 8, 8, 8), IdSizes(2, 2, 4, 4, 4), IdSizes(3, 5, 7, 6, 1))
#: (command, "reply" | "out") for every command of the table.
DECODERS: tuple[tuple[Command[Any, Any], str], ...] = tuple(
    (cmd, which) for cmd in ALL_COMMANDS for which in ("reply", "out"))
MODELS = tuple((tool.name, tool.model) for tool in TOOLS)
MAX_PACKET = 1 << 20  # the framing target's cap (the client's default is 64 MiB; the check is the same)


def decode_body(cmd: Command[Any, Any], which: str, sizes: IdSizes, body: bytes) -> object:
    """One command body through its decoder (the fast one when it applies, else the construct spec)."""
    if which == "reply":
        return cmd.decode_reply(body, sizes)
    return cmd.decode_out(body, sizes)


def frame_stream(chunks: list[bytes]) -> int:
    """Feed chunks to an open connection and take every packet out; returns how many were framed."""
    conn = JdwpConnection(MAX_PACKET)
    conn.skip_handshake()
    packets = 0
    for chunk in [*chunks, b""]:
        conn.receive_data(chunk)
        while True:
            event = conn.next_event()
            if event is NEED_DATA or isinstance(event, Closed):
                break
            packets += 1
    return packets


def _read_all(reader: Any) -> Any:
    def read(data: bytes) -> int:
        buf, units = bytearray(data), 0
        while reader(buf) is not adb.NEED_DATA:
            units += 1
        return units
    return read


def _ddm_chunk(data: bytes) -> object:
    kind, chunk = ddm.split_chunk(data)
    return ddm.decode_chunk(kind, chunk)


def _text(parse: Any) -> Any:
    return lambda data: parse(data.decode("utf-8", errors="replace"))


#: Every parser of bytes from the ADB server or a device, by name.
ADB_PARSERS: tuple[tuple[str, Any], ...] = (
    ("status", _read_all(adb.read_status)),
    ("hex block", _read_all(adb.read_hex_block)),
    ("shell v2", _read_all(adb.read_shell_packet)),
    ("version", adb.parse_version),
    ("devices -l", _text(adb.parse_devices)),
    ("forward list", _text(adb.parse_forward_list)),
    ("jdwp pids", _text(adb.parse_pid_list)),
    ("ddm chunk", _ddm_chunk),
    *((f"ddm {name}", functools.partial(ddm.decode_chunk, ddm.chunk_type(name)))
      for name in ("HELO", "APNM", "WAIT", "THST", "STAG")),
    ("track-app", track_app.decode_app_processes),
    ("am start", _text(launch.parse_am_start)),
    ("resolve-activity", _text(functools.partial(launch.parse_resolved_activity, app_id="com.example.app"))),
    ("dumpsys processes", _text(functools.partial(anr.parse_debugging, pid=4242))),
)


def adb_frames(data: bytes) -> int:
    """Every ADB parser over one buffer; returns how many refused it with an ``AdbError``."""
    refused = 0
    for _, parse in ADB_PARSERS:
        try:
            parse(data)
        except ADB_ALLOWED:
            refused += 1
    return refused


def validate_input(model: Any, value: Any) -> object:
    return model.model_validate(value)


# --- fast generators for the benchmark run (hypothesis drives the tests) ---------------------------

_TAGS = [int(t) for t in Tag]
_COUNTS = (0, 1, 2, 3, 255, 256, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF, 0x0100_0000)


def random_body(rng: random.Random) -> bytes:
    """A body that looks like JDWP data often enough to get past the first field: counts (small and
    forged), tags, IDs, strings, or plain random bytes."""
    if rng.random() < 0.3:
        return rng.randbytes(rng.randrange(0, 64))
    parts: list[bytes] = []
    for _ in range(rng.randrange(1, 8)):
        kind = rng.randrange(6)
        if kind == 0:
            parts.append(struct.pack(">I", rng.choice(_COUNTS)))
        elif kind == 1:
            parts.append(bytes([rng.choice(_TAGS)]))
        elif kind == 2:
            parts.append(rng.randbytes(rng.choice((1, 2, 4, 8))))
        elif kind == 3:
            text = rng.randbytes(rng.randrange(0, 12))
            parts.append(struct.pack(">I", len(text) if rng.random() < 0.8 else rng.choice(_COUNTS)) + text)
        elif kind == 4:
            parts.append(struct.pack(">I", rng.randrange(0, 4)))
        else:
            parts.append(rng.randbytes(rng.randrange(0, 16)))
    return b"".join(parts)


def random_stream(rng: random.Random) -> list[bytes]:
    """A byte stream of packets with plausible and forged headers, cut into random chunks."""
    data = bytearray()
    for _ in range(rng.randrange(1, 5)):
        body = rng.randbytes(rng.randrange(0, 24))
        length = HEADER.size + len(body) if rng.random() < 0.7 else rng.choice(
            (0, 1, 10, 11, MAX_PACKET, MAX_PACKET + 1, 0xFFFF_FFFF, rng.randrange(1 << 32)))
        data += HEADER.pack(length, rng.randrange(1 << 32), rng.choice((0, 0x80, rng.randrange(256))),
                            rng.randrange(1 << 16)) + body
    if rng.random() < 0.3:
        data = bytearray(rng.randbytes(rng.randrange(0, 48)))
    cuts = sorted(rng.randrange(0, len(data) + 1) for _ in range(rng.randrange(0, 4)))
    chunks, start = [], 0
    for cut in cuts:
        chunks.append(bytes(data[start:cut]))
        start = cut
    chunks.append(bytes(data[start:]))
    return [c for c in chunks if c]


#: Pieces of the expression grammar (docs/design.md §3.8) and of what it refuses, so random text reaches deep into the
#: parser.
_EXPRESSION_PIECES = ("a", "b1", "this", "null", "true", " instanceof ", "java.util.List", ".", "[", "]", "(", ")",
                      ",", "!", "-", "+", "*", "/", "%", "<", "<=", "==", "!=", "&&", "||", "=", "&", "0", "12",
                      "2147483648", "9223372036854775808L", "0x", "017", "09", "1.5", "1e", "1e999", "1.5f", ".5",
                      "'", '"', "\\", "\\u00", "\\7", "é", "\U0001F600", "\x00", " ", "\n")


def random_expression(rng: random.Random) -> str:
    """Text for the expression parser: grammar pieces, or random code points; now and then over the limit."""
    r = rng.random()
    if r < 0.2:
        return "".join(chr(rng.randrange(0x110000)) for _ in range(rng.randrange(0, 40)))
    if r < 0.5:
        return _well_formed(rng, rng.randrange(0, 8))[:MAX_EXPRESSION_CHARS]
    text = "".join(rng.choice(_EXPRESSION_PIECES) for _ in range(rng.randrange(0, 120)))
    return text if rng.random() < 0.05 else text[:MAX_EXPRESSION_CHARS]


_OPERANDS = ("a", "this.f", "x.y[1]", "12L", "1.5f", "'c'", '"s"', "null", "true", "-2147483648", "m()")
_BINARY_OPS = (" + ", " - ", "*", "/", "%", " < ", " <= ", " == ", " != ", " && ", " || ")


def _well_formed(rng: random.Random, depth: int) -> str:
    """An expression of the grammar (deep ones cross the parser's nesting and depth limits)."""
    if depth == 0:
        return rng.choice(_OPERANDS)
    kind = rng.randrange(5)
    if kind == 0:
        return "(" + _well_formed(rng, depth - 1) + ")"
    if kind == 1:
        return rng.choice("!-") * rng.randrange(1, 40) + _well_formed(rng, depth - 1)
    if kind == 2:
        return _well_formed(rng, depth - 1) + "[" + _well_formed(rng, depth - 1) + "]"
    if kind == 3:
        return _well_formed(rng, depth - 1) + " instanceof java.util.List"
    return _well_formed(rng, depth - 1) + rng.choice(_BINARY_OPS) + _well_formed(rng, depth - 1)


def parse_text(text: str) -> object:
    return parse_expression(text)


def random_adb(rng: random.Random) -> bytes:
    pieces = [b"OKAY", b"FAIL", b"0010", b"ffff", b"00zz", b"HELO", b"APNM", b"THST", b"WAIT", b"\x01", b"\x03",
              b"emulator-5554\tdevice\n", b"127.0.0.1:5555 device product:x model:y transport_id:3\n",
              b"tcp:1234 jdwp:42\n", b"12\n", b"\x08\x96\x01", b"\x12\x05hello", b"\x0a\xff\xff\xff\xff\x0f"]
    if rng.random() < 0.3:
        return rng.randbytes(rng.randrange(0, 48))
    return b"".join(rng.choice(pieces) if rng.random() < 0.7 else rng.randbytes(rng.randrange(1, 9))
                    for _ in range(rng.randrange(1, 6)))


_PLAUSIBLE: dict[str, tuple[Any, ...]] = {
    "platform": ("jvm", "android", "ios"), "address": ("127.0.0.1:5005", "[::1]:1", "host", ""),
    "deviceId": ("emulator-5554", "x" * 512, "x" * 513), "appId": ("com.example.app", ""),
    "processId": (1, 0, -1, 2**53 - 1, 2**53, "12"), "timeoutMs": (100, 99, 30000, 30001, 1000.0, True),
    "debugSessionId": ("dbg-1", ""), "className": ("com.example.A$B",), "line": (1, 0, 19, 1.5),
    "breakpointId": ("bp-1",), "afterSequence": (0, -1, 5), "stopId": ("stop-1",), "threadId": ("stop-1.t1",),
    "frameId": ("stop-1.t1.f0",), "offset": (0, -1, 2**53), "limit": (1, 0, 100, 101), "kind": ("into", "sideways"),
}


def random_tool_input(rng: random.Random, model: Any) -> Any:
    """A dict of the model's own fields with plausible values, sometimes wrong, missing or extra: many pass."""
    fields = list(model.model_fields)
    value = {name: rng.choice(_PLAUSIBLE.get(name, ("x",))) for name in fields if rng.random() < 0.8}
    if rng.random() < 0.1:
        value[rng.choice(_JSON_KEYS)] = random_json(rng, 1)
    return value


_JSON_KEYS = ("platform", "deviceId", "appId", "processId", "address", "timeoutMs", "debugSessionId", "className",
              "line", "breakpointId", "afterSequence", "stopId", "threadId", "frameId", "offset", "limit", "kind",
              "extra", "")


def random_json(rng: random.Random, depth: int = 0) -> Any:
    choice = rng.randrange(9 if depth < 2 else 6)
    if choice == 0:
        return None
    if choice == 1:
        return rng.random() < 0.5
    if choice == 2:
        return rng.choice((0, 1, -1, 99, 100, 30000, 30001, 2**53 - 1, 2**53, 2**64, rng.randrange(-10**6, 10**6)))
    if choice == 3:
        return rng.choice((0.5, 1.0, 1e300, float("inf")))
    if choice == 4:
        return rng.choice(("", "jvm", "android", "into", "127.0.0.1:5005", "x" * 513, "com.example.A$B",
                           "\u0000", "dbg-1", "stop-1"))
    if choice == 5:
        return rng.randbytes(rng.randrange(0, 8)).decode("latin-1")
    if choice == 6:
        return [random_json(rng, depth + 1) for _ in range(rng.randrange(0, 3))]
    return {rng.choice(_JSON_KEYS): random_json(rng, depth + 1) for _ in range(rng.randrange(0, 6))}


# --- VM text through the whole server --------------------------------------------------------------
#
# A scripted VM (support.fakevm.ScriptedVm) on a loopback port names its thread, class, method, source
# file, a local and itself with hostile Java text — lone surrogates, pairs, NUL, up to ~1,000,000 UTF-16
# units — sent as standard or modified UTF-8; the real server (its MCP handler under the SDK's in-memory
# client, so the SDK's own serialisation runs too) attaches and walks the journey. Every answer must be
# an envelope whose JSON text is the structured content, every name cut to 1024 units and every value to
# 256, escaped as the server writes Java text, and the server must answer the next call.

_TEXT_PIECES = ("a", "Z", "é", "中", "\x00", "$", ";", " ", "\u2028", "\uffff", "\U0001F600",
                "\ud83d\ude00",  # a pair as two code points: the same character
                "\ud800", "\udbff", "\udc00", "\udfff", "\ud83d")
_CHARS = ("a", "\x00", "é", "\uffff", "\ud83d", "\ude00", "\udc00", "\ud800")
MAX_NAME_UNITS, MAX_VALUE_UNITS = 1024, 256


def random_java_text(rng: random.Random, huge: float = 0.05) -> str:
    """Java text as a VM may send it: mostly short and mixed; sometimes 1,025 to ~1,000,000 units."""
    if rng.random() < huge:
        return rng.choice(_TEXT_PIECES) * rng.randrange(1025, 1_000_000) + random_java_text(rng, 0)
    return "".join(rng.choice(_TEXT_PIECES) for _ in range(rng.randrange(0, 24)))


@dataclasses.dataclass(frozen=True)
class VmText:
    """Every string one scripted VM sends."""

    thread_name: str
    class_name: str
    method: str
    source: str
    local_name: str
    string_value: str
    char_value: str
    vm_name: str
    modified_utf8: bool  # send them as modified UTF-8 (C0 80, CESU pairs), as a VM that does not convert

    @classmethod
    def random(cls, rng: random.Random, huge: float = 0.05) -> VmText:
        texts = [random_java_text(rng, huge) for _ in range(6)]
        return cls(*texts[:5], texts[5], rng.choice(_CHARS), random_java_text(rng, huge), rng.random() < 0.3)

    def wire(self, text: str) -> str:
        return WireString(text, encode_modified_utf8(text)) if self.modified_utf8 else text


_THREAD, _CLASS, _METHOD, _STRING = 0x100, 0x10, 0x20, 0x30
_LOCATION = Location(TypeTag.CLASS, _CLASS, _METHOD, 4)


NESTED_IN_Q = "com/example/Q$"


def vm_text_handlers(vm: ScriptedVm, text: VmText) -> dict[str, Handler]:
    """One class with one method whose line 5 starts at code index 4; one thread stopped there."""
    w = text.wire
    return {
        "VirtualMachine.Version": lambda out: VersionReply(w("a VM"), 1, 8, w("17"), w(text.vm_name)),
        "EventRequest.Set": lambda out: SetReply(vm.next_request_id()),
        "EventRequest.Clear": lambda out: Empty(),
        "VirtualMachine.ClassesBySignature": lambda out: ClassesBySignatureReply([ClassRef(TypeTag.CLASS, _CLASS, 7)]),
        # The class is nested in Q (the breakpoint's class) and named by the VM's text, alike in the listing
        # and in its signature, as a VM answers them.
        "VirtualMachine.AllClasses": lambda out: AllClassesReply(
            [ClassInfo(TypeTag.CLASS, _CLASS, w(f"L{NESTED_IN_Q}{text.class_name};"), 7)]),
        "ReferenceType.Signature": lambda out: SignatureReply(w(f"L{NESTED_IN_Q}{text.class_name};")),
        "ReferenceType.SourceFile": lambda out: SourceFileReply(w(text.source)),
        "ReferenceType.Methods": lambda out: MethodsReply([MethodInfo(_METHOD, w(text.method), "()V", 1)]),
        "ReferenceType.ClassLoader": lambda out: ClassLoaderReply(0x99),
        "Method.LineTable": lambda out: LineTableReply(0, 9, [LineEntry(0, 4), LineEntry(4, 5)]),
        "Method.VariableTable": lambda out: VariableTableReply(0, [
            VariableSlot(0, w(text.local_name), "Ljava/lang/String;", 9, 0), VariableSlot(0, "c", "C", 9, 1)]),
        "StackFrame.GetValues": lambda out: ValuesReply([Value(Tag.STRING, _STRING), Value(Tag.CHAR, text.char_value)]),
        "StackFrame.ThisObject": lambda out: ThisObjectReply(Value(Tag.OBJECT, 0)),
        "StringReference.Value": lambda out: StringValueReply(w(text.string_value)),
        "ThreadReference.Name": lambda out: ThreadNameReply(w(text.thread_name)),
        "ThreadReference.FrameCount": lambda out: FrameCountReply(1),
        "ThreadReference.Frames": lambda out: FramesReply([Frame(0x7000, _LOCATION)]),
        "VirtualMachine.Resume": lambda out: Empty(),
        "VirtualMachine.AllThreads": lambda out: ThreadsReply([_THREAD]),
        "ThreadReference.SuspendCount": lambda out: SuspendCountReply(0),
        "VirtualMachine.Dispose": lambda out: Empty(),
    }


def shown(text: str, limit: int) -> tuple[str, bool]:
    """What the server must answer for ``text`` cut at ``limit`` UTF-16 units, and whether it was cut."""
    cut, length = java_prefix(text, limit)
    return json_text(cut), length > limit


def answer(result: Any) -> dict[str, Any]:
    """The envelope of one ``tools/call`` result; AssertionError when it is not one."""
    body = result.structured_content
    assert isinstance(body, dict) and result.content and result.content[0].type == "text", result
    assert json.loads(result.content[0].text) == body, "the JSON text must be the structured content"
    assert {"success", "debug_session_id", "state", "captured_at_ms"} <= body.keys(), body.keys()
    assert bool(result.is_error) is (not body["success"])
    if not body["success"]:
        assert set(body["error"]) == {"code", "message", "retryable"}, body["error"]
    return body


class VmTextServer:
    """The real server under the SDK's in-memory client, attached in turn to scripted VMs."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.answers = 0
        self.largest = 0

    async def call(self, name: str, **arguments: Any) -> dict[str, Any]:
        result = await self.client.call_tool(name, arguments)
        body = answer(result)
        self.answers += 1
        self.largest = max(self.largest, len(result.content[0].text))
        return body

    async def ok(self, name: str, **arguments: Any) -> dict[str, Any]:
        body = await self.call(name, **arguments)
        assert body["success"], (name, body.get("error"))
        return body

    async def journey(self, text: VmText) -> None:
        """Attach to a VM speaking ``text``, stop, read stack and locals, resume, detach; check each answer."""
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        port = listeners[0].socket.getsockname()[1]
        async with trio.open_nursery() as nursery:
            vms: list[ScriptedVm] = []

            async def serve_one() -> None:
                stream = await listeners[0].accept()
                await listeners[0].aclose()
                vm = ScriptedVm(stream, {})
                vm.handlers = vm_text_handlers(vm, text)
                vms.append(vm)
                await vm.serve()

            nursery.start_soon(serve_one)
            try:
                await self._walk(text, port, vms)
            finally:
                nursery.cancel_scope.cancel()

    async def _walk(self, text: VmText, port: int, vms: list[ScriptedVm]) -> None:
        attached = await self.ok("attach_debugger", platform="jvm", address=f"127.0.0.1:{port}")
        sid = attached["debug_session_id"]
        vm_facts = attached["result"]["vm"]
        name, cut = shown(text.vm_name, MAX_NAME_UNITS)
        assert vm_facts["name"] == name and ("name" in vm_facts.get("truncated_names", ())) is cut
        bp = await self.ok("set_debugger_breakpoint", debugSessionId=sid, className="com.example.Q", line=5)
        assert bp["result"]["status"] == "verified"
        self._check_position(bp["result"]["locations"][0], text)
        await vms[0].event(BreakpointEvent(vms[0]._request_ids, _THREAD, _LOCATION))
        cursor, stop = 0, None
        while stop is None:
            polled = await self.ok("wait_for_debugger_event", debugSessionId=sid, afterSequence=cursor,
                                   timeoutMs=5000)
            cursor = polled["next_cursor"]
            stop = next((e["stop"] for e in polled["events"] if e["kind"] == "stopped"), None)
        state = await self.ok("get_debugger_state", debugSessionId=sid)
        assert state["result"]["stop"] == stop
        thread_name, cut = shown(text.thread_name, MAX_NAME_UNITS)
        assert stop["thread_name"] == thread_name and ("thread_name" in stop.get("truncated_names", ())) is cut
        self._check_position(stop["location"], text)
        ids = {"debugSessionId": sid, "stopId": stop["stop_id"]}
        stack = await self.ok("get_debugger_stack", threadId=stop["thread_id"], **ids)
        (frame,) = stack["result"]["frames"]
        self._check_position(frame, text)
        found = await self.ok("get_debugger_locals", frameId=frame["frame_id"], **ids)
        string_local, char_local = found["result"]["locals"]
        local_name, cut = shown(text.local_name, MAX_NAME_UNITS)
        assert string_local["name"] == local_name and ("name" in string_local.get("truncated_names", ())) is cut
        value, cut = shown(text.string_value, MAX_VALUE_UNITS)
        assert (string_local["value"], string_local.get("truncated", False)) == (value, cut)  # shown when cut
        assert char_local["value"] == json_text(text.char_value)
        await self.ok("resume_debugger", **ids)
        detached = await self.ok("detach_debugger", debugSessionId=sid)
        assert detached["state"] == "detached"

    @staticmethod
    def _check_position(position: dict[str, Any], text: VmText) -> None:
        cut_names = set(position.get("truncated_names", ()))
        class_name = NESTED_IN_Q.replace("/", ".") + text.class_name
        for field, sent in (("class_name", class_name), ("method", text.method), ("source", text.source)):
            expected, cut = shown(sent, MAX_NAME_UNITS)
            assert position[field] == expected and (field in cut_names) is cut, field


@asynccontextmanager
async def vm_text_server() -> AsyncIterator[VmTextServer]:
    async with Client(build_server(Config())) as client:
        yield VmTextServer(client)
