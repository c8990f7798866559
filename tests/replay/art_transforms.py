"""Turn a real OpenJDK recording into what ART would have sent in the same session, one reported quirk at a time.

Each transform rewrites the VM's side of a recording (``fixtures/recordings/openjdk-17``) through the project's
own codecs, so the bytes are exactly what the quirk puts on the wire and nothing else changes; the debugger's
side stays as recorded, so a replay that still matches proves the engine sends the same commands and reaches
the same results. Used by tests/replay/test_art_device_facts.py; each quirk names its source there and in
docs/reliability.md ("ART as devices show it").
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

from jdwp import recording
from jdwp.protocol.commands import Event, Method, ThreadReference, VirtualMachine
from jdwp.protocol.commands.events import ClassPrepareEvent, Composite
from jdwp.protocol.wire import CommandPacket, ReplyPacket, encode_packet

Transform = Callable[[recording.Recording], recording.Recording]
_RESUMES = {VirtualMachine.Resume.key, ThreadReference.Resume.key}


def _copy(rec: recording.Recording, lines: list[recording.Line], quirk: str) -> recording.Recording:
    header = dict(rec.header, synthetic=True, stands_for=quirk)
    return recording.Recording(header, lines)


def events_before_resume_replies(rec: recording.Recording) -> recording.Recording:
    """The event set a ``Resume`` (1,9 or 11,3) let happen comes before that ``Resume``'s reply."""
    lines = list(rec.lines)
    sent: dict[int, tuple[int, int]] = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.kind == "command" and line.dir == recording.OUT:
            packet = line.packet()
            sent[packet.id] = packet.key  # type: ignore[union-attr]
        elif line.kind == "reply" and sent.get(line.packet().id) in _RESUMES:
            after = next((j for j in range(i + 1, len(lines)) if lines[j].dir == recording.IN), None)
            if after is not None and lines[after].note == Event.Composite.name:
                lines.insert(i, lines.pop(after))
                i += 1
        i += 1
    return _copy(rec, lines, "the event set a Resume caused, written before that Resume's reply")


def class_prepare_status(status: int) -> Transform:
    """Every ``ClassPrepare`` event (kind 8) reports ``status`` (3 or 7: ART reports either for one kind of class)."""

    def transform(rec: recording.Recording) -> recording.Recording:
        sizes = rec.id_sizes()
        lines = []
        for line in rec.lines:
            if line.dir == recording.IN and line.note == Event.Composite.name:
                packet = line.packet()
                assert isinstance(packet, CommandPacket)
                composite = Event.Composite.decode_out(packet.body, sizes)
                events = [dataclasses.replace(e, status=status) if isinstance(e, ClassPrepareEvent) else e
                          for e in composite.events]
                body = Event.Composite.encode_out(Composite(composite.suspend_policy, events), sizes)
                line = dataclasses.replace(line, data=encode_packet(CommandPacket(packet.id, *packet.key, body)))
            lines.append(line)
        flags = "VERIFIED|PREPARED|INITIALIZED" if status & 4 else "VERIFIED|PREPARED"
        return _copy(rec, lines, f"ClassPrepare events with status {status} ({flags})")

    return transform


def reversed_line_tables(rec: recording.Recording) -> recording.Recording:
    """Every ``Method.LineTable`` (6,1) reply lists its entries in reverse order: not sorted by code index."""
    lines = []
    for line, exchange in rec.exchanges():
        if exchange is not None and exchange[0] is Method.LineTable and not exchange[1].error_code:
            reply = exchange[1]
            table = Method.LineTable.decode_reply(reply.body, None)
            body = Method.LineTable.encode_reply(dataclasses.replace(table, lines=table.lines[::-1]), None)
            line = dataclasses.replace(line, data=encode_packet(ReplyPacket(reply.id, 0, body)))
        lines.append(line)
    handshake = [line for line in rec.lines if line.kind == "handshake"]
    return _copy(rec, handshake + lines, "line tables not sorted by code index")


def small_sequential_method_ids(rec: recording.Recording) -> recording.Recording:
    """HotSpot's method IDs are addresses (``0x00007ff7…``); ART's are small numbers: renumber them 1, 2, 3…
    in order of first appearance, in both directions (the debugger echoes what the VM gave it)."""
    sizes = rec.id_sizes()
    assert sizes is not None and sizes.method_id_size == 8
    # HotSpot's jmethodIDs of one session share their high bytes: take them from the first located event.
    located = next(e.location.method_id for line in rec.lines
                   if line.dir == recording.IN and line.note == Event.Composite.name
                   for e in Event.Composite.decode_out(line.packet().body, sizes).events if hasattr(e, "location"))
    pattern = re.compile(f"{located:016x}"[:10] + "[0-9a-f]{6}")
    found: dict[str, str] = {}

    def renumber(match: re.Match[str]) -> str:
        return found.setdefault(match.group(), f"{len(found) + 1:016x}")

    lines = []
    for line in rec.lines:
        text = line.data.hex()
        # Only at byte boundaries: a hex match at an odd offset is not an 8-byte field.
        out, pos = [], 0
        for match in pattern.finditer(text):
            if match.start() % 2 == 0 and match.start() >= pos:
                out += [text[pos:match.start()], renumber(match)]
                pos = match.end()
        out.append(text[pos:])
        lines.append(dataclasses.replace(line, data=bytes.fromhex("".join(out))))
    return _copy(rec, lines, "8-byte method IDs that are small sequential numbers")
