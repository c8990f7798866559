"""What the fuzzers feed, and the only errors each target may raise.

Shared by ``tests/faults/test_fuzz.py`` (hypothesis, small budget), ``bench/fuzz.py`` (≥ 1,000,000 inputs,
random and atheris). Every target takes bytes (or a JSON value) from an untrusted peer and must either
succeed or raise the typed error of its layer:

- JDWP (``jdwp.protocol``): framing of a byte stream (:class:`JdwpConnection`) and every command's
  ``decode_reply`` and ``decode_out`` at several ID widths → only ``JdwpError`` (``ProtocolError``,
  ``UsageError``);
- ADB (``android.protocol``, ``android.ddm``, ``android.track_app``): status, hex blocks, shell-v2 packets,
  the host services' text replies, DDM chunks and track-app protobuf → only ``AdbError``;
- MCP inputs (``server.models``): any JSON object into every tool's model → a model or ``ValidationError``.
"""

from __future__ import annotations

import functools
import random
import struct
from typing import Any

from pydantic import ValidationError

from android import ddm, track_app
from android import protocol as adb
from android.errors import AdbError
from jdwp.protocol.commands import ALL_COMMANDS, Command
from jdwp.protocol.connection import NEED_DATA, Closed, JdwpConnection
from jdwp.protocol.constants import Tag
from jdwp.protocol.errors import JdwpError
from jdwp.protocol.types import IdSizes
from jdwp.protocol.wire import HEADER
from server.tools import TOOLS

JDWP_ALLOWED: tuple[type[BaseException], ...] = (JdwpError,)
ADB_ALLOWED: tuple[type[BaseException], ...] = (AdbError,)
MODEL_ALLOWED: tuple[type[BaseException], ...] = (ValidationError,)

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
      for name in ("HELO", "APNM", "WAIT", "THST")),
    ("track-app", track_app.decode_app_processes),
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
