"""The recording format: a JDWP session's packets as JSON lines, and how to read them back.

Layer: ``jdwp`` (no I/O beyond reading and writing the file; no trio).

A recording is a text file. Its first line is a header object (``"format": "pyjdwp-recording/1"``, what
VM it came from, whether it is ``synthetic`` and what real behaviour a synthetic one stands for). Every
further line is one unit of traffic::

    {"t": 0.0123, "dir": "out", "kind": "command", "hex": "0000000b00000001000101", "note": "VirtualMachine.Version"}

``dir`` is ``out`` (debugger → VM) or ``in`` (VM → debugger); ``kind`` is ``handshake``, ``command`` or
``reply``; ``t`` is seconds since the session started; ``hex`` is the exact bytes, header included;
``note`` is for people (the command's name, or the name of the command a reply answers).
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from .protocol.commands import BY_ID, VirtualMachine
from .protocol.errors import ProtocolError
from .protocol.types import IdSizes
from .protocol.wire import HANDSHAKE, CommandPacket, Packet, ReplyPacket, split_packets

FORMAT = "pyjdwp-recording/1"
OUT, IN = "out", "in"


@dataclasses.dataclass(frozen=True, slots=True)
class Line:
    """One recorded unit: the handshake or a whole packet, in one direction."""

    t: float
    dir: str
    kind: str
    data: bytes
    note: str = ""

    def packet(self) -> Packet:
        """The packet this line holds (not for the handshake)."""
        buf = bytearray(self.data)
        packets = list(split_packets(buf))
        if len(packets) != 1 or buf:
            raise ProtocolError(f"recorded line is not exactly one packet: {self.data[:32].hex()}")
        return packets[0]

    def to_json(self) -> str:
        obj: dict[str, Any] = {"t": round(self.t, 6), "dir": self.dir, "kind": self.kind, "hex": self.data.hex()}
        if self.note:
            obj["note"] = self.note
        return json.dumps(obj, ensure_ascii=False)


@dataclasses.dataclass(slots=True)
class Recording:
    header: dict[str, Any]
    lines: list[Line]

    @property
    def synthetic(self) -> bool:
        return bool(self.header.get("synthetic"))

    def id_sizes(self) -> IdSizes | None:
        """The ID sizes from the recorded ``VirtualMachine.IDSizes`` reply, if the session asked."""
        for _, reply in self.exchanges():
            if reply is not None and reply[0] is VirtualMachine.IDSizes and reply[1].error_code == 0:
                sizes: IdSizes = VirtualMachine.IDSizes.decode_reply(reply[1].body, None)
                return sizes
        return None

    def exchanges(self) -> Iterator[tuple[Line, tuple[Any, ReplyPacket] | None]]:
        """Each packet line, with ``(command, reply packet)`` for replies (matched to the command by ID)."""
        sent: dict[int, Any] = {}
        for line in self.lines:
            if line.kind == "handshake":
                continue
            packet = line.packet()
            if isinstance(packet, CommandPacket):
                if line.dir == OUT:
                    sent[packet.id] = BY_ID.get(packet.key)
                yield line, None
            else:
                yield line, (sent.get(packet.id), packet)


def load(path: str | Path) -> Recording:
    """Read a recording file.

    Raises:
        ValueError: the file is not a pyjdwp recording.
    """
    return load_text(Path(path).read_text(encoding="utf-8"), str(path))


def load_text(text: str, path: str = "<recording>") -> Recording:
    """Parse a recording from its text (see :func:`load`)."""
    rows = [json.loads(row) for row in text.splitlines() if row.strip()]
    if not rows or rows[0].get("format") != FORMAT:
        raise ValueError(f"{path}: not a {FORMAT} file")
    lines = [Line(float(r["t"]), r["dir"], r["kind"], bytes.fromhex(r["hex"]), r.get("note", "")) for r in rows[1:]]
    for line in lines:
        if line.dir not in (OUT, IN) or line.kind not in ("handshake", "command", "reply"):
            raise ValueError(f"{path}: bad line {line}")
    header = {k: v for k, v in rows[0].items() if k != "format"}
    return Recording(header, lines)


def dump(recording: Recording, out: TextIO) -> None:
    out.write(json.dumps({"format": FORMAT, **recording.header}, ensure_ascii=False) + "\n")
    for line in recording.lines:
        out.write(line.to_json() + "\n")


class Writer:
    """Appends lines to a recording file as traffic happens (flushed per line: a crash loses nothing)."""

    def __init__(self, out: TextIO, header: dict[str, Any]) -> None:
        self._out = out
        self._start = time.monotonic()
        self._names: dict[int, str] = {}
        out.write(json.dumps({"format": FORMAT, **header}, ensure_ascii=False) + "\n")
        out.flush()

    def handshake(self, direction: str) -> None:
        self._write(Line(self._elapsed(), direction, "handshake", HANDSHAKE))

    def packet(self, direction: str, packet: Packet, data: bytes) -> None:
        if isinstance(packet, CommandPacket):
            command = BY_ID.get(packet.key)
            note = command.name if command else f"command ({packet.command_set},{packet.command})"
            if direction == OUT:
                self._names[packet.id] = note
            self._write(Line(self._elapsed(), direction, "command", data, note))
        else:
            note = self._names.pop(packet.id, "reply") if direction == IN else "reply"
            if packet.error_code:
                note += f" error {packet.error_code}"
            self._write(Line(self._elapsed(), direction, "reply", data, note))

    def _elapsed(self) -> float:
        return time.monotonic() - self._start

    def _write(self, line: Line) -> None:
        self._out.write(line.to_json() + "\n")
        self._out.flush()
