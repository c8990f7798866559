"""Write the synthetic ART-like recordings in ``fixtures/recordings/art-synthetic/``.

    python tests/replay/synthesize_art.py

No ART runs here, so these sessions are built from the JDWP specification's formats and documented ART
behaviour, with this project's codec, and every file says so in its header (``"synthetic": true`` and
``stands_for``). They pin what OpenJDK cannot show: DDM chunks (command set 199) that ART sends unasked,
even before the reply to the debugger's first command; 4-byte method and field IDs (ART in a 32-bit
process); strings in modified UTF-8 as a VM that does not convert them sends them.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from jdwp import recording
from jdwp.protocol.commands import (
    DDM,
    Event,
    EventRequest,
    Method,
    ReferenceType,
    StackFrame,
    StringReference,
    ThreadReference,
    VirtualMachine,
)
from jdwp.protocol.commands.events import BreakpointEvent, Composite, DdmChunk, LocationOnly, SetOut
from jdwp.protocol.commands.reftypes import (
    LineEntry,
    LineTableReply,
    MethodInfo,
    MethodsReply,
    VariableSlot,
    VariableTableReply,
)
from jdwp.protocol.commands.threads import Frame, FramesReply, SlotRequest
from jdwp.protocol.commands.vm import ClassesBySignatureReply, ClassRef, VersionReply
from jdwp.protocol.constants import EventKind, SuspendPolicy, Tag
from jdwp.protocol.strings import WireString, encode_modified_utf8
from jdwp.protocol.types import IdSizes, Location
from jdwp.protocol.values import Value
from jdwp.protocol.wire import CommandPacket, ReplyPacket, encode_packet

OUT_DIR = Path(__file__).resolve().parents[2] / "fixtures" / "recordings" / "art-synthetic"

ART_SIZES = IdSizes(field_id_size=4, method_id_size=4, object_id_size=8, reference_type_id_size=8,
                    frame_id_size=8)
ACTIVITY = 0x2A
ON_CREATE, COMPUTE = 0x11223344, 0x11223348
THREAD, STRING = 0x1001, 0x3000
BREAK_AT = Location(1, ACTIVITY, COMPUTE, 4)
TEXT = "na\u00efve \U0001F600 nul:\x00"


def fourcc(name: str) -> int:
    return int.from_bytes(name.encode("ascii"), "big")


def apnm(app: str) -> bytes:
    """An APNM chunk body as DDMS defines it: name length in UTF-16 units, the name in UTF-16BE, user id."""
    name = app.encode("utf-16-be")
    return len(app).to_bytes(4, "big") + name + (0).to_bytes(4, "big")


class Session:
    def __init__(self) -> None:
        self.lines: list[recording.Line] = []
        self.next_id = 1
        self.t = 0.0

    def _add(self, direction: str, kind: str, data: bytes, note: str) -> None:
        self.t += 0.001
        self.lines.append(recording.Line(self.t, direction, kind, data, note))

    def handshake(self) -> None:
        self._add(recording.OUT, "handshake", b"JDWP-Handshake", "")
        self._add(recording.IN, "handshake", b"JDWP-Handshake", "")

    def call(self, command: Any, out: Any, reply: Any, sizes: IdSizes | None) -> None:
        packet_id, self.next_id = self.next_id, self.next_id + 1
        body = command.encode_out(out, sizes)
        self._add(recording.OUT, "command", encode_packet(CommandPacket(packet_id, *command.key, body)), command.name)
        data = command.encode_reply(reply, sizes)
        self._add(recording.IN, "reply", encode_packet(ReplyPacket(packet_id, 0, data)), command.name)

    def vm_command(self, command: Any, out: Any, sizes: IdSizes, packet_id: int) -> None:
        body = command.encode_out(out, sizes)
        self._add(recording.IN, "command", encode_packet(CommandPacket(packet_id, *command.key, body)), command.name)


def ddm_and_small_ids() -> recording.Recording:
    s = Session()
    s.handshake()
    # ART announces the app before it answers anything.
    s.vm_command(DDM.Chunk, DdmChunk(fourcc("APNM"), apnm("com.example.app")), ART_SIZES, 0x4000_0001)
    s.call(VirtualMachine.IDSizes, {}, ART_SIZES, None)
    s.call(VirtualMachine.Version, {}, VersionReply("Android Runtime (synthetic)", 1, 8, "2.1.0", "Dalvik"),
           ART_SIZES)
    s.call(VirtualMachine.ClassesBySignature, {"signature": "Lcom/example/app/MainActivity;"},
           ClassesBySignatureReply([ClassRef(1, ACTIVITY, 7)]), ART_SIZES)
    s.call(ReferenceType.Methods, {"ref_type": ACTIVITY}, MethodsReply([
        MethodInfo(ON_CREATE, "onCreate", "(Landroid/os/Bundle;)V", 4),
        MethodInfo(COMPUTE, "compute", "(I)I", 2)]), ART_SIZES)
    s.call(Method.LineTable, {"ref_type": ACTIVITY, "method_id": COMPUTE},
           LineTableReply(0, 20, [LineEntry(0, 10), LineEntry(4, 11), LineEntry(12, 12)]), ART_SIZES)
    s.call(EventRequest.Set, SetOut(EventKind.BREAKPOINT, SuspendPolicy.ALL, [LocationOnly(BREAK_AT)]),
           {"request_id": 7}, ART_SIZES)
    s.vm_command(DDM.Chunk, DdmChunk(fourcc("THCR"), (0x1001).to_bytes(4, "big") + apnm("worker")[:-4]),
                 ART_SIZES, 0x4000_0002)
    s.vm_command(Event.Composite, Composite(SuspendPolicy.ALL, [BreakpointEvent(7, THREAD, BREAK_AT)]),
                 ART_SIZES, 0x4000_0003)
    s.call(ThreadReference.Frames, {"thread": THREAD, "start_frame": 0, "length": -1},
           FramesReply([Frame(0x5000, BREAK_AT), Frame(0x5001, Location(1, ACTIVITY, ON_CREATE, 8))]), ART_SIZES)
    s.call(Method.VariableTable, {"ref_type": ACTIVITY, "method_id": COMPUTE}, VariableTableReply(2, [
        VariableSlot(0, "this", "Lcom/example/app/MainActivity;", 20, 0),
        VariableSlot(0, "n", "I", 20, 1),
        VariableSlot(4, "name", "Ljava/lang/String;", 16, 2)]), ART_SIZES)
    s.call(StackFrame.GetValues, {"thread": THREAD, "frame": 0x5000,
                                  "slots": [SlotRequest(1, Tag.INT), SlotRequest(2, Tag.OBJECT)]},
           {"values": [Value(Tag.INT, 42), Value(Tag.STRING, STRING)]}, ART_SIZES)
    modified = encode_modified_utf8(TEXT)
    s.call(StringReference.Value, {"string_object": STRING},
           {"string_value": WireString(TEXT, modified)}, ART_SIZES)
    s.call(EventRequest.Clear, {"event_kind": EventKind.BREAKPOINT, "request_id": 7}, {}, ART_SIZES)
    s.call(VirtualMachine.Resume, {}, {}, ART_SIZES)
    s.call(VirtualMachine.Dispose, {}, {}, ART_SIZES)
    header = {
        "vm": "ART (synthetic)",
        "synthetic": True,
        "scenario": "art_session",
        "stands_for": ("ART sends DDM chunks (set 199) unasked, before the reply to the first command; "
                       "a 32-bit ART process uses 4-byte method and field IDs; a VM that does not convert "
                       "strings sends modified UTF-8 (NUL as C0 80, non-BMP characters as surrogate pairs)"),
        "note": "built by tests/replay/synthesize_art.py from the JDWP specification's formats",
    }
    return recording.Recording(header, s.lines)


def main() -> None:
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    path = OUT_DIR / "ddm_and_small_ids.jsonl"
    text = io.StringIO()
    recording.dump(ddm_and_small_ids(), text)
    path.write_text(text.getvalue(), encoding="utf-8")
    print(path)


if __name__ == "__main__":
    main()
