"""An "app process" whose VM takes dex in ``VirtualMachine.RedefineClasses`` (1,18), as ART does, in front of a JVM
that runs the app.

Test helper for tests/server/test_server_art_reload.py, run as ``python art_redefine_app.py PID JVM_PORT CLASSES``.
It registers PID on adbd's @jdwp-control the way ART does (tests/adb/jdwp_registrar.py) and proxies one debugger
connection at a time to the JVM's JDWP agent, packet by packet; a second debugger meanwhile is dropped. Every
byte is the JVM's own, except:

- ``VirtualMachine.Version`` (1,1): ``vmName`` ``Dalvik``, ``vmVersion`` ``0``, as ART answers
  (art_quirks_app.py's ``dalvik``).
- ``VirtualMachine.RedefineClasses`` (1,18): the bytes of each class must be what ART's JVMTI takes, checked in
  ART's order (art/openjdkjvmti/ti_redefine.cc). ``Redefiner::AddRedefinition`` opens each as a dex file, checksum
  verified, and fails with ``INVALID_CLASS_FORMAT`` (60) when it does not open: here the header's magic, file size,
  header size, endian tag and Adler-32 checksum. ``Redefiner::ClassRedefinition::CheckClass`` then wants exactly one
  ``class_def`` ("Expected 1 class def in dex file but found %d", ``ILLEGAL_ARGUMENT`` 103) naming the class
  redefined (``NAMES_DONT_MATCH`` 69; the loaded class's name is asked of the JVM, ``ReferenceType.Signature``
  2,1). The first refusal answers the whole command and nothing is redefined. Once every class passes, the JVM's
  class is redefined with the class file of the same change (javac's, which the test put in CLASSES at the
  class's path), so the app really runs the new code; the JVM's reply, and any refusal of the change's shape,
  is passed on.

Not checked here: what ART's dex verifier checks beyond the header (the code, the data sections), and the
changes of shape ART refuses (the JVM refuses the same ones, from the class file).

Prints ``registered``, then a line per class that passed ART's checks (``dex <descriptor> 1 class_def``) or
refused (``refused <error>: <why>``). Stops on SIGTERM or when adbd goes away.
"""

from __future__ import annotations

import itertools
import queue
import socket
import struct
import sys
import threading
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from art_quirks_app import HANDSHAKE, dalvik_version, read_exactly, read_packet
from jdwp_registrar import register

VERSION, ID_SIZES, REDEFINE, SIGNATURE = (1, 1), (1, 7), (1, 18), (2, 1)
INVALID_CLASS_FORMAT, NAMES_DONT_MATCH, ILLEGAL_ARGUMENT, INTERNAL = 60, 69, 103, 113
DEX_HEADER = 0x70
ENDIAN_CONSTANT = 0x12345678
OWN_IDS = 0x7F00_0000  # ids of the commands this proxy sends itself, far above the debugger's


class Refused(Exception):
    def __init__(self, error: int, why: str) -> None:
        super().__init__(why)
        self.error = error


def _u4(data: bytes, offset: int) -> int:
    return int(struct.unpack_from("<I", data, offset)[0])


def check_opens(data: bytes) -> None:
    """What opening the bytes as a dex file checks of its header (``DexFileLoader::Open`` with
    ``verify_checksum``)."""
    if len(data) < DEX_HEADER or data[:4] != b"dex\n" or not data[4:7].isdigit() or data[7] != 0:
        raise Refused(INVALID_CLASS_FORMAT, "not a dex file (its magic)")
    if _u4(data, 32) != len(data) or _u4(data, 36) != DEX_HEADER or _u4(data, 40) != ENDIAN_CONSTANT:
        raise Refused(INVALID_CLASS_FORMAT, "a dex header whose file size, header size or endian tag is wrong")
    if _u4(data, 8) != zlib.adler32(data[12:]):
        raise Refused(INVALID_CLASS_FORMAT, "a dex whose checksum is wrong")


def _uleb128(data: bytes, offset: int) -> int:
    while data[offset] & 0x80:
        offset += 1
    return offset + 1


def class_descriptors(data: bytes) -> list[str]:
    """The descriptor of each ``class_def``: ``class_idx`` → ``type_ids`` → ``string_ids`` → the string's data."""
    type_ids, string_ids = _u4(data, 68), _u4(data, 60)
    count, defs = _u4(data, 96), _u4(data, 100)
    names = []
    for index in range(count):
        descriptor_idx = _u4(data, type_ids + 4 * _u4(data, defs + 32 * index))
        start = _uleb128(data, _u4(data, string_ids + 4 * descriptor_idx))
        names.append(data[start:data.index(b"\0", start)].decode("utf-8"))
    return names


class Session:
    """One debugger connection proxied to the JVM's agent."""

    def __init__(self, debugger: socket.socket, jvm: socket.socket, classes: Path) -> None:
        self.debugger, self.jvm, self.classes = debugger, jvm, classes
        self.write_lock = threading.Lock()  # the replies this proxy makes and the JVM's packets share the socket
        self.asked: dict[int, tuple[int, int]] = {}  # the debugger's command ids → (set, command)
        self.own: dict[int, queue.Queue[bytes]] = {}
        self.ids = itertools.count(OWN_IDS)
        self.reference_size = 8

    def to_debugger(self, data: bytes) -> None:
        with self.write_lock:
            self.debugger.sendall(data)

    def debugger_to_jvm(self) -> None:
        while (packet := read_packet(self.debugger)) is not None:
            key = (packet[9], packet[10])
            if not packet[8] & 0x80:
                self.asked[int.from_bytes(packet[4:8], "big")] = key
                if key == REDEFINE:
                    packet = self.redefine(packet)
                    if not packet:
                        continue
            self.jvm.sendall(packet)

    def jvm_to_debugger(self) -> None:
        while (packet := read_packet(self.jvm)) is not None:
            packet_id = int.from_bytes(packet[4:8], "big")
            if packet[8] == 0x80:
                if packet_id in self.own:
                    self.own.pop(packet_id).put(packet)
                    continue
                key = self.asked.pop(packet_id, None)
                if packet[9:11] == b"\x00\x00" and key == ID_SIZES:
                    self.reference_size = int.from_bytes(packet[23:27], "big")  # the 4th of five sizes
                elif packet[9:11] == b"\x00\x00" and key == VERSION:
                    body = dalvik_version(packet[11:])
                    packet = struct.pack(">I", 11 + len(body)) + packet[4:11] + body
            self.to_debugger(packet)

    def redefine(self, packet: bytes) -> bytes:
        """The command to send the JVM in place of ``packet`` (the class files of the same change), or ``b""``
        when ART would refuse it: then the refusal is answered here."""
        packet_id, body = packet[4:8], packet[11:]
        size = self.reference_size
        classes, pos = [], 4
        for _ in range(int.from_bytes(body[:4], "big")):
            ref, length = body[pos:pos + size], int.from_bytes(body[pos + size:pos + size + 4], "big")
            classes.append((ref, body[pos + size + 4:pos + size + 4 + length]))
            pos += size + 4 + length
        try:
            for _, data in classes:  # Redefiner::AddRedefinition, each in turn
                check_opens(data)
            out, passed = [], []
            for ref, data in classes:  # then ClassRedefinition::CheckClass, each in turn
                descriptors = class_descriptors(data)
                if len(descriptors) != 1:
                    raise Refused(ILLEGAL_ARGUMENT, f"Expected 1 class def in dex file but found {len(descriptors)}")
                loaded = self.signature(ref)
                if descriptors[0] != loaded:
                    raise Refused(NAMES_DONT_MATCH, f"expected a dex of {loaded} but found {descriptors[0]}")
                class_file = self.classes / f"{descriptors[0][1:-1]}.class"
                if not class_file.is_file():
                    raise Refused(INTERNAL, f"the test gave no class file of the same change at {class_file}")
                new = class_file.read_bytes()
                out.append(ref + struct.pack(">I", len(new)) + new)
                passed.append(descriptors[0])
        except Refused as refused:
            print(f"refused {refused.error}: {refused}", flush=True)
            self.asked.pop(int.from_bytes(packet_id, "big"), None)
            self.to_debugger(struct.pack(">I", 11) + packet_id + b"\x80" + struct.pack(">H", refused.error))
            return b""
        for descriptor in passed:
            print(f"dex {descriptor} 1 class_def", flush=True)
        body = struct.pack(">I", len(out)) + b"".join(out)
        return struct.pack(">I", 11 + len(body)) + packet_id + bytes((0, *REDEFINE)) + body

    def signature(self, ref: bytes) -> str:
        """The JVM's name of a loaded class (``ReferenceType.Signature`` 2,1, asked by this proxy)."""
        packet_id = next(self.ids)
        answer: queue.Queue[bytes] = queue.Queue()
        self.own[packet_id] = answer
        self.jvm.sendall(struct.pack(">IIB", 11 + len(ref), packet_id, 0) + bytes(SIGNATURE) + ref)
        reply = answer.get(timeout=30)
        if reply[9:11] != b"\x00\x00":
            raise Refused(int.from_bytes(reply[9:11], "big"), "ReferenceType.Signature failed")
        length = int.from_bytes(reply[11:15], "big")
        return reply[15:15 + length].decode("utf-8")

    def run(self) -> None:
        try:
            if read_exactly(self.debugger, len(HANDSHAKE)) != HANDSHAKE:
                return
            self.jvm.sendall(HANDSHAKE)
            if read_exactly(self.jvm, len(HANDSHAKE)) != HANDSHAKE:
                return
            self.to_debugger(HANDSHAKE)
            back = threading.Thread(target=self._guarded, args=(self.jvm_to_debugger,), daemon=True)
            back.start()
            self._guarded(self.debugger_to_jvm)
            back.join()
        finally:
            self.debugger.close()
            self.jvm.close()

    def _guarded(self, pump: object) -> None:
        try:
            pump()  # type: ignore[operator]
        except (OSError, queue.Empty):
            pass
        finally:
            for s in (self.debugger, self.jvm):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass


def main() -> int:
    pid, jvm_port, classes = int(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
    busy = threading.Lock()

    def serve(debugger: socket.socket) -> None:
        try:
            jvm = socket.create_connection(("127.0.0.1", jvm_port), timeout=10)
            jvm.settimeout(None)
            Session(debugger, jvm, classes).run()
        except OSError as exc:
            print(f"art_redefine_app: {exc}", file=sys.stderr, flush=True)
            debugger.close()
        finally:
            busy.release()

    def on_debugger(debugger: socket.socket) -> None:
        if not busy.acquire(blocking=False):
            debugger.close()  # ART: a second debugger is accepted and dropped
            return
        threading.Thread(target=serve, args=(debugger,), daemon=True).start()

    return register(pid, on_debugger)


if __name__ == "__main__":
    sys.exit(main())
