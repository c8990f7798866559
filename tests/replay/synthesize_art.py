"""Write the synthetic ART-like recordings in ``fixtures/recordings/art-synthetic/``.

    python tests/replay/synthesize_art.py

No ART runs here, so these sessions are built from the JDWP specification's formats and from AOSP's
sources, with this project's codec, and every file says so in its header (``"synthetic": true`` and
``stands_for``, which names each fact and where it comes from). What they pin, that OpenJDK cannot show:

- DDM (command set 199) as pyjdwp meets it: its HELO goes out right after the handshake and is answered
  by art/adbconnection in process, before the JDWP agent loads (``HandleDataWithoutAgent``); ART sends
  nothing unasked on connect. While an app waits for its debugger, frameworks/base ``DdmHandleHello`` sends
  a WAIT command packet just before the HELO reply: a VM packet before the reply to the debugger's first
  command. ``APNM`` comes only when the app's name is set while a debugger is connected
  (``DdmHandleAppName.setAppName``), and ``STAG`` at each later boot stage (API 34+).
- 4-byte method and field IDs (ART in a 32-bit process).
- Strings as oj-libjdwp sends them: it converts the VM's modified UTF-8 to standard UTF-8
  (``utf8mToUtf8s``: NUL as ``00``, surrogate pairs joined into 4-byte sequences), except when the VM's
  bytes already hold a 4-byte sequence (ART's ``ConvertUtf16ToModifiedUtf8`` emitted those on some
  releases): its length check rejects the lead byte and the string goes out as it is, NUL still ``C0 80``.
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
from jdwp.protocol.commands.events import BreakpointEvent, Composite, DdmChunk, DdmReply, LocationOnly, SetOut
from jdwp.protocol.commands.reftypes import (
    LineEntry,
    LineTableReply,
    MethodInfo,
    MethodsReply,
    VariableSlot,
    VariableTableReply,
)
from jdwp.protocol.commands.threads import Frame, FramesReply, SlotRequest
from jdwp.protocol.commands.vm import ClassesBySignatureReply, ClassRef, ThreadsReply, VersionReply
from jdwp.protocol.constants import EventKind, SuspendPolicy, Tag
from jdwp.protocol.strings import WireString
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


HELLO_ID = 0x7079_6A01  # pyjdwp_android.hello's packet id for its HELO
TEXT_4BYTE = "emoji \U0001F600 nul:\x00"


def fourcc(name: str) -> int:
    return int.from_bytes(name.encode("ascii"), "big")


def utf16(text: str) -> bytes:
    return len(text).to_bytes(4, "big") + text.encode("utf-16-be")


def apnm(app: str) -> bytes:
    """An APNM chunk body (DdmHandleAppName.sendAPNM): app name, user id, package name."""
    return utf16(app) + (0).to_bytes(4, "big") + utf16(app.split(":")[0])


def hello(app: str, stage: str, abi: str = "32-bit (arm)") -> bytes:
    """A HELO reply chunk body in DdmHandleHello's API 34 layout."""
    ident = "Dalvik v2.1.0"
    return ((1).to_bytes(4, "big") + (4242).to_bytes(4, "big") + len(ident).to_bytes(4, "big")
            + len(app).to_bytes(4, "big") + ident.encode("utf-16-be") + app.encode("utf-16-be")
            + (0).to_bytes(4, "big") + utf16(abi) + utf16("CheckJNI=false") + b"\x00" + utf16(app)
            + stage.encode("ascii"))


def art_4byte_utf8(text: str) -> bytes:
    """Modified UTF-8 as ART wrote it on some releases: NUL as C0 80, non-BMP as one 4-byte sequence."""
    return text.encode("utf-8").replace(b"\x00", b"\xc0\x80")


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

    def call(self, command: Any, out: Any, reply: Any, sizes: IdSizes | None, packet_id: int | None = None) -> None:
        if packet_id is None:
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
    # pyjdwp's HELO, answered by adbconnection before the agent loads; the app runs, so no WAIT.
    s.call(DDM.Chunk, DdmChunk(fourcc("HELO"), (1).to_bytes(4, "big")),
           DdmReply([DdmChunk(fourcc("HELO"), hello("com.example.app", "A_GO"))]), None, HELLO_ID)
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
    s.vm_command(Event.Composite, Composite(SuspendPolicy.ALL, [BreakpointEvent(7, THREAD, BREAK_AT)]),
                 ART_SIZES, 0x4000_0003)
    s.call(ThreadReference.Frames, {"thread": THREAD, "start_frame": 0, "length": -1},
           FramesReply([Frame(0x5000, BREAK_AT), Frame(0x5001, Location(1, ACTIVITY, ON_CREATE, 8))]), ART_SIZES)
    s.call(Method.VariableTable, {"ref_type": ACTIVITY, "method_id": COMPUTE}, VariableTableReply(2, [
        VariableSlot(0, "this", "Lcom/example/app/MainActivity;", 20, 0),
        VariableSlot(0, "n", "I", 20, 1),
        VariableSlot(4, "name", "Ljava/lang/String;", 16, 2),
        VariableSlot(4, "label", "Ljava/lang/String;", 16, 3)]), ART_SIZES)
    s.call(StackFrame.GetValues, {"thread": THREAD, "frame": 0x5000,
                                  "slots": [SlotRequest(1, Tag.INT), SlotRequest(2, Tag.OBJECT),
                                            SlotRequest(3, Tag.OBJECT)]},
           {"values": [Value(Tag.INT, 42), Value(Tag.STRING, STRING), Value(Tag.STRING, STRING + 1)]}, ART_SIZES)
    # Converted by libjdwp: standard UTF-8 (NUL as 00, the non-BMP character as 4 bytes).
    s.call(StringReference.Value, {"string_object": STRING}, {"string_value": TEXT}, ART_SIZES)
    # Already holding a 4-byte sequence: libjdwp's check fails and the VM's bytes go out as they are.
    s.call(StringReference.Value, {"string_object": STRING + 1},
           {"string_value": WireString(TEXT_4BYTE, art_4byte_utf8(TEXT_4BYTE))}, ART_SIZES)
    s.call(EventRequest.Clear, {"event_kind": EventKind.BREAKPOINT, "request_id": 7}, {}, ART_SIZES)
    s.call(VirtualMachine.Resume, {}, {}, ART_SIZES)
    s.call(VirtualMachine.Dispose, {}, {}, ART_SIZES)
    header = {
        "vm": "ART (synthetic)",
        "synthetic": True,
        "scenario": "art_session",
        "stands_for": ("attaching to a running debuggable app: pyjdwp's DDM HELO right after the handshake, "
                       "answered in process by adbconnection (API 34 layout, boot stage A_GO, no WAIT: the app "
                       "runs); a 32-bit ART process's 4-byte method and field IDs; strings as oj-libjdwp sends "
                       "them (standard UTF-8 after utf8mToUtf8s, and a string holding ART's 4-byte sequence "
                       "sent unconverted with NUL as C0 80)"),
        "sources": ["art/adbconnection/adbconnection.cc", "frameworks/base core/java/android/ddm/DdmHandleHello.java",
                    "external/oj-libjdwp src/share/back/outStream.c, utf_util.c", "art/libdexfile/dex/utf.cc"],
        "hello": True,
        "note": "built by tests/replay/synthesize_art.py from the JDWP specification's formats and AOSP's sources",
    }
    return recording.Recording(header, s.lines)


def launch_waiting() -> recording.Recording:
    """An app started with am start -D, waiting in Debug.waitForDebugger, held by an owned Suspend."""
    s = Session()
    s.handshake()
    # While the app waits, DdmHandleHello sends WAIT (a VM command packet) just before its HELO reply.
    s._add(recording.OUT, "command", encode_packet(CommandPacket(
        HELLO_ID, *DDM.Chunk.key, DDM.Chunk.encode_out(DdmChunk(fourcc("HELO"), (1).to_bytes(4, "big")), None))),
        DDM.Chunk.name)
    s.vm_command(DDM.Chunk, DdmChunk(fourcc("WAIT"), b"\x00"), ART_SIZES, 0x8000_0001)
    s._add(recording.IN, "reply", encode_packet(ReplyPacket(HELLO_ID, 0, DDM.Chunk.encode_reply(
        DdmReply([DdmChunk(fourcc("HELO"), hello("com.example.app", "DEBG", "64-bit (arm64)"))]), None))),
        DDM.Chunk.name)
    sizes = IdSizes(8, 8, 8, 8, 8)
    s.call(VirtualMachine.IDSizes, {}, sizes, None)  # the first non-DDM packet: the agent loads
    s.call(VirtualMachine.Version, {}, VersionReply("Android Runtime (synthetic)", 1, 8, "2.1.0", "Dalvik"), sizes)
    s.call(VirtualMachine.Suspend, {}, {}, sizes)  # at once: waitForDebugger lets go 1.3 s after the last command
    s.call(VirtualMachine.AllThreads, {}, ThreadsReply([THREAD]), sizes)
    s.call(ThreadReference.Name, {"thread": THREAD}, {"thread_name": "main"}, sizes)
    s.call(VirtualMachine.Resume, {}, {}, sizes)
    # Running on: the app reaches its main loop (DdmSyncStageUpdater), then the debugger leaves.
    s.vm_command(DDM.Chunk, DdmChunk(fourcc("STAG"), b"A_GO"), sizes, 0x8000_0002)
    s.call(VirtualMachine.Dispose, {}, {}, sizes)
    header = {
        "vm": "ART (synthetic)",
        "synthetic": True,
        "scenario": "art_launch",
        "stands_for": ("an app started with am start -D (API < 34) that waits in Debug.waitForDebugger: WAIT "
                       "before the reply to pyjdwp's HELO (app named, boot stage DEBG); the first non-DDM packet "
                       "loads the agent; one owned VirtualMachine.Suspend holds the app at once; after the resume "
                       "STAG A_GO tells it reached its main loop"),
        "sources": ["frameworks/base core/java/android/os/Debug.java (waitForDebugger)",
                    "frameworks/base core/java/android/ddm/DdmHandleHello.java",
                    "frameworks/base core/java/android/os/DdmSyncStageUpdater.java",
                    "art/adbconnection/adbconnection.cc"],
        "hello": True,
        "note": "built by tests/replay/synthesize_art.py from the JDWP specification's formats and AOSP's sources",
    }
    return recording.Recording(header, s.lines)


def main() -> None:
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    for name, build in (("ddm_and_small_ids", ddm_and_small_ids), ("launch_waiting", launch_waiting)):
        path = OUT_DIR / f"{name}.jsonl"
        text = io.StringIO()
        recording.dump(build(), text)
        path.write_text(text.getvalue(), encoding="utf-8")
        print(path)


if __name__ == "__main__":
    main()
