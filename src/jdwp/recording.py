"""The recording format: a JDWP session's packets as JSON lines, and how to read them back.

Layer: ``jdwp`` (no I/O beyond reading and writing the file; no trio).

A recording is a text file. Its first line is a header object (``"format": "pyjdwp-recording/2"``, what
VM it came from, whether it is ``synthetic`` and what real behaviour a synthetic one stands for). Every
further line is one unit of traffic::

    {"dir": "out", "kind": "command", "note": "ThreadReference.Frames",
     "decoded": "FramesOut(thread=3, start_frame=0, length=-1)", "hex": "00000017…"}

``dir`` is ``out`` (debugger → VM) or ``in`` (VM → debugger); ``kind`` is ``handshake``, ``command`` or
``reply``; ``hex`` is the exact bytes, header included; ``note`` names the command (or the command a reply
answers); ``decoded`` is the body as text, for people and diffs (never read back: ``hex`` is the truth).
A ``t`` (seconds since the session started) is there only when the recording was asked to keep times.
A reply too big to keep in the file (:func:`save`'s ``max_reply``) has ``"blob": "<name>.bin"``, a file
in the directory beside the recording named ``<recording stem>.blobs``, instead of ``hex``.

:func:`tidy` makes a recording diff well: IDs renumbered 1, 2, 3… in order of first appearance (a new
JVM run gives new IDs, not a new recording) and each body decoded. Version 1 files (a ``t`` on every
line, no ``decoded``) are still read.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from .decoded import IdRenumbering, check_round_trip, describe, encode_packet_body
from .protocol.commands import BY_ID, Command, VirtualMachine
from .protocol.errors import JdwpError, ProtocolError
from .protocol.types import IdSizes
from .protocol.wire import HANDSHAKE, CommandPacket, Packet, ReplyPacket, encode_packet, split_packets

__all__ = ["FORMAT", "IN", "OUT", "Line", "Recording", "RecordingError", "Writer", "dump", "dump_text", "load",
           "load_text", "save", "tidy"]

FORMAT = "pyjdwp-recording/2"
#: Every format version this module reads.
READS = ("pyjdwp-recording/1", FORMAT)
OUT, IN = "out", "in"
_KINDS = ("handshake", "command", "reply")


class RecordingError(JdwpError, ValueError):
    """A recording file that cannot be read: truncated, edited by hand into something else, or of a
    format version this library does not read. The message names the file and line."""


@dataclasses.dataclass(frozen=True, slots=True)
class Line:
    """One recorded unit: the handshake or a whole packet, in one direction.

    Attributes:
        t: seconds since the session started, or ``None`` when times were not kept.
        dir: ``"out"`` (debugger → VM) or ``"in"``.
        kind: ``"handshake"``, ``"command"`` or ``"reply"``.
        data: the exact bytes, header included.
        note: the command's name (for a reply, the name of the command it answers).
        decoded: the body as text (see :func:`tidy`); empty when not decoded.
    """

    t: float | None
    dir: str
    kind: str
    data: bytes
    note: str = ""
    decoded: str = ""

    def packet(self) -> Packet:
        """The packet this line holds (not for the handshake).

        Raises:
            ProtocolError: the bytes are not exactly one packet.
        """
        buf = bytearray(self.data)
        packets = list(split_packets(buf))
        if len(packets) != 1 or buf:
            raise ProtocolError(f"recorded line is not exactly one packet: {self.data[:32].hex()}")
        return packets[0]

    def to_json(self, blob: str | None = None) -> str:
        obj: dict[str, Any] = {}
        if self.t is not None:
            obj["t"] = round(self.t, 6)
        obj["dir"], obj["kind"] = self.dir, self.kind
        if self.note:
            obj["note"] = self.note
        if self.decoded and blob is None:
            obj["decoded"] = self.decoded
        if blob is None:
            obj["hex"] = self.data.hex()
        else:
            obj["blob"], obj["size"] = blob, len(self.data)
        return json.dumps(obj, ensure_ascii=False)


@dataclasses.dataclass(slots=True)
class Recording:
    """A header (a dict) and the lines of one session, in the order they crossed the wire."""

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
    """Read a recording file (and the big replies kept beside it, if any).

    Raises:
        RecordingError: the file is not a recording this library reads; the message names the line.
        OSError: the file cannot be read.
    """
    path = Path(path)
    return load_text(path.read_text(encoding="utf-8"), str(path), blobs=_blob_dir(path))


def load_text(text: str, path: str = "<recording>", *, blobs: Path | None = None) -> Recording:
    """Parse a recording from its text (see :func:`load`); ``blobs`` is where big replies are kept."""
    header: dict[str, Any] | None = None
    lines: list[Line] = []
    for number, row in enumerate(text.splitlines(), 1):
        if not row.strip():
            continue
        where = f"{path}, line {number}"
        try:
            obj = json.loads(row)
        except json.JSONDecodeError as exc:
            raise RecordingError(f"{where}: not a JSON object ({exc.msg}, column {exc.colno}); the file may be "
                                 f"truncated or edited by hand") from None
        if not isinstance(obj, dict):
            raise RecordingError(f"{where}: not a JSON object")
        if header is None:
            header = _header(obj, where)
        else:
            lines.append(_line(obj, where, blobs))
    if header is None:
        raise RecordingError(f"{path}: empty, not a {FORMAT} file")
    return Recording(header, lines)


def _header(obj: dict[str, Any], where: str) -> dict[str, Any]:
    found = obj.get("format")
    if found not in READS:
        if isinstance(found, str) and found.startswith("pyjdwp-recording/"):
            raise RecordingError(f"{where}: format {found}; this version of pyjdwp reads {', '.join(READS)} "
                                 f"(re-record it, or use the pyjdwp that wrote it)")
        raise RecordingError(f"{where}: not a pyjdwp recording (its first line has no "
                             f"\"format\": \"{FORMAT}\")")
    return {k: v for k, v in obj.items() if k != "format"}


def _line(obj: dict[str, Any], where: str, blobs: Path | None) -> Line:
    direction, kind = obj.get("dir"), obj.get("kind")
    if direction not in (OUT, IN) or kind not in _KINDS:
        raise RecordingError(f"{where}: \"dir\" must be \"out\" or \"in\" and \"kind\" one of {', '.join(_KINDS)}; "
                             f"got {direction!r} and {kind!r}")
    t = obj.get("t")
    if t is not None and not isinstance(t, int | float):
        raise RecordingError(f"{where}: \"t\" must be a number of seconds, got {t!r}")
    data = _data(obj, where, blobs)
    line = Line(None if t is None else float(t), direction, kind, data, str(obj.get("note", "")),
                str(obj.get("decoded", "")))
    if kind == "handshake":
        if data != HANDSHAKE:
            raise RecordingError(f"{where}: a handshake line must hold {HANDSHAKE!r}")
        return line
    try:
        packet = line.packet()
    except ProtocolError as exc:
        raise RecordingError(f"{where}: {exc} (was its hex edited by hand?)") from None
    if (kind == "reply") != isinstance(packet, ReplyPacket):
        raise RecordingError(f"{where}: \"kind\" says {kind} but the bytes are a "
                             f"{'reply' if isinstance(packet, ReplyPacket) else 'command'}")
    return line


def _data(obj: dict[str, Any], where: str, blobs: Path | None) -> bytes:
    if "blob" in obj:
        name = obj["blob"]
        if not isinstance(name, str) or "/" in name or "\\" in name or name.startswith("."):
            raise RecordingError(f"{where}: \"blob\" must be a file name, got {name!r}")
        if blobs is None:
            raise RecordingError(f"{where}: the reply is kept in {name}, beside a recording file; "
                                 f"load the recording from its file")
        try:
            return (blobs / name).read_bytes()
        except OSError as exc:
            raise RecordingError(f"{where}: cannot read the reply kept in {blobs / name}: {exc.strerror}") from None
    text = obj.get("hex")
    if not isinstance(text, str):
        raise RecordingError(f"{where}: no \"hex\" (the packet's bytes)")
    try:
        return bytes.fromhex(text)
    except ValueError:
        raise RecordingError(f"{where}: \"hex\" is not hexadecimal bytes") from None


def _blob_dir(path: Path) -> Path:
    return path.with_name(f"{path.stem}.blobs")


def dump(recording: Recording, out: TextIO) -> None:
    """Write a recording as text (every line's bytes inline; see :func:`save` for big replies)."""
    out.write(json.dumps({"format": FORMAT, **recording.header}, ensure_ascii=False) + "\n")
    for line in recording.lines:
        out.write(line.to_json() + "\n")


def dump_text(recording: Recording) -> str:
    """The text :func:`dump` writes."""
    out = io.StringIO()
    dump(recording, out)
    return out.getvalue()


def save(recording: Recording, path: str | Path, *, max_reply: int | None = None) -> None:
    """Write a recording to ``path``. A reply longer than ``max_reply`` bytes goes to its own file in
    ``<stem>.blobs/`` beside it (named by its content's hash), so one big answer (the VM's class list)
    does not fill the file and its diffs."""
    path = Path(path)
    blobs = _blob_dir(path)
    with open(path, "w", encoding="utf-8") as out:
        out.write(json.dumps({"format": FORMAT, **recording.header}, ensure_ascii=False) + "\n")
        for line in recording.lines:
            blob = None
            if max_reply is not None and line.kind == "reply" and len(line.data) > max_reply:
                blob = f"{hashlib.sha256(line.data).hexdigest()[:20]}.bin"
                blobs.mkdir(exist_ok=True)
                (blobs / blob).write_bytes(line.data)
            out.write(line.to_json(blob) + "\n")


def tidy(recording: Recording, *, renumber: bool = True, times: bool = False) -> Recording:
    """The same session, written to diff well: each body decoded beside its bytes, IDs renumbered in
    order of first appearance (``renumber``), times dropped unless ``times``.

    IDs are renumbered only when every packet decodes and encodes back to its exact bytes (a session
    with a packet only its context can decode keeps its IDs: renumbering part of it would break it).
    """
    sizes = recording.id_sizes()
    decoded = _decode_all(recording, sizes)
    if decoded is None or sizes is None:
        renumber = False
    mapping = IdRenumbering()
    lines: list[Line] = []
    for line, (packet, sent, record) in zip(recording.lines, decoded or _no_records(recording), strict=True):
        data, text = line.data, ""
        if packet is not None and record is not _UNDECODED:
            if renumber and sizes is not None:
                record = mapping.record(record)
                body = encode_packet_body(packet, sent, record, sizes)
                data = encode_packet(packet._replace(body=body))
            text = "" if record is None else describe(record)
        lines.append(dataclasses.replace(line, t=line.t if times else None, data=data, decoded=text))
    header = dict(recording.header)
    if renumber:
        header["ids"] = "renumbered in order of first appearance"
    return Recording(header, lines)


_UNDECODED = object()


def _decode_all(recording: Recording, sizes: IdSizes | None) -> list[tuple[Packet | None, Any, Any]] | None:
    """Each line's packet, the command a reply answers and the decoded body; ``None`` when some packet
    does not decode and encode back faithfully (then no line is rewritten)."""
    if sizes is None:
        return None
    sent: dict[int, Command[Any, Any] | None] = {}
    out: list[tuple[Packet | None, Any, Any]] = []
    for line in recording.lines:
        if line.kind == "handshake":
            out.append((None, None, _UNDECODED))
            continue
        packet = line.packet()
        command = None
        if isinstance(packet, CommandPacket):
            if line.dir == OUT:
                sent[packet.id] = BY_ID.get(packet.key)
        else:
            command = sent.pop(packet.id, None)
        try:
            out.append((packet, command, check_round_trip(packet, command, sizes)))
        except ProtocolError:
            return None
    return out


def _no_records(recording: Recording) -> list[tuple[Packet | None, Any, Any]]:
    return [(None, None, _UNDECODED) for _ in recording.lines]


class Writer:
    """Appends lines to a recording file as traffic happens (flushed per line: a crash loses nothing).

    Times (seconds since the start) are written only when ``times`` is true.
    """

    def __init__(self, out: TextIO, header: dict[str, Any], *, times: bool = False) -> None:
        self._out = out
        self._start = time.monotonic()
        self._times = times
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

    def _elapsed(self) -> float | None:
        return time.monotonic() - self._start if self._times else None

    def _write(self, line: Line) -> None:
        self._out.write(line.to_json() + "\n")
        self._out.flush()
