"""An "app process" that puts on the adb testbed's stream what clients that ran real devices report ART sends.

Test helper for tests/server/test_server_art_quirks.py, run as ``python art_quirks_app.py PID JVM_PORT QUIRKS``
(QUIRKS: comma-separated names below). It registers PID on adbd's @jdwp-control the way ART does
(tests/adb/jdwp_registrar.py) and proxies each debugger connection to the JVM's JDWP agent packet by packet,
changing what the quirks name; every other byte is the JVM's own. Sources: docs/reliability.md, "ART as devices
show it".

- ``early-apnm``: a DDM ``APNM`` packet (name ``<pre-initialized>``) before the handshake's echo (bug 178655046).
- ``queue``: a second debugger while one is attached is left queued and unanswered, not dropped (API 28–34);
  once the slot frees, the first queued connection still open is served.
- ``ddm``: DDM answered in process, as adbconnection does: ``HELO`` with the placeholder name
  ``<pre-initialized>``, then an ``APNM`` with the real name; any other DDM command has an empty answer and
  gets no reply at all (API 28+).
- ``ddm-names``: the other order: ``APNM`` with the real name first, then ``HELO`` with ``""``.
- ``events-first``: the reply to ``VirtualMachine.Resume``/``ThreadReference.Resume`` waits until the event
  set the resume caused has been written (or :data:`HOLD_S` passed: a resume that caused none).
- ``lines``: every ``Method.LineTable`` reply lists its entries in reverse (not sorted by code index).
- ``dalvik``: ``VirtualMachine.Version`` says ``vmName`` ``Dalvik`` and ``vmVersion`` ``0``, as ART does.

Prints ``registered``; stops on SIGTERM or when adbd goes away.
"""

from __future__ import annotations

import itertools
import queue
import socket
import struct
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from jdwp_registrar import register

from support.art_bytes import (
    DDM_CHUNK,
    DDM_SET,
    PRE_INITIALIZED,
    VM_PACKET_ID,
    apnm_packet,
    helo_reply,
)

HANDSHAKE = b"JDWP-Handshake"
HOLD_S = 0.5
RESUMES = {(1, 9), (11, 3)}
LINE_TABLE, VERSION = (6, 1), (1, 1)
COMPOSITE = (64, 100)


def read_exactly(sock: socket.socket, n: int) -> bytes | None:
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def read_packet(sock: socket.socket) -> bytes | None:
    header = read_exactly(sock, 11)
    if header is None:
        return None
    length = int.from_bytes(header[:4], "big")
    body = read_exactly(sock, length - 11) if length > 11 else b""
    return None if body is None else header + body


def _string(body: bytes, pos: int) -> tuple[str, int]:
    n = int.from_bytes(body[pos:pos + 4], "big")
    return body[pos + 4:pos + 4 + n].decode("utf-8"), pos + 4 + n


def _put_string(text: str) -> bytes:
    data = text.encode("utf-8")
    return struct.pack(">I", len(data)) + data


def dalvik_version(body: bytes) -> bytes:
    description, pos = _string(body, 0)
    major, minor = struct.unpack_from(">ii", body, pos)
    return _put_string(description) + struct.pack(">ii", major, minor) + _put_string("0") + _put_string("Dalvik")


def reversed_line_table(body: bytes) -> bytes:
    start_end, count = body[:16], int.from_bytes(body[16:20], "big")
    entries = [body[20 + 12 * i:32 + 12 * i] for i in range(count)]
    return start_end + body[16:20] + b"".join(reversed(entries))


class Session:
    """One debugger connection proxied to the JVM's agent."""

    def __init__(self, debugger: socket.socket, jvm: socket.socket, quirks: set[str], pid: int, name: str) -> None:
        self.debugger, self.jvm, self.quirks, self.pid, self.name = debugger, jvm, quirks, pid, name
        self.write_lock = threading.Lock()
        self.sent: dict[int, tuple[int, int]] = {}  # the debugger's command ids → (set, command)
        self.ids = itertools.count(VM_PACKET_ID + 1)

    def to_debugger(self, data: bytes) -> None:
        with self.write_lock:
            self.debugger.sendall(data)

    def handshake(self) -> bool:
        got = read_exactly(self.debugger, len(HANDSHAKE))
        if got != HANDSHAKE:
            return False
        self.jvm.sendall(HANDSHAKE)
        if read_exactly(self.jvm, len(HANDSHAKE)) != HANDSHAKE:
            return False
        if "early-apnm" in self.quirks:
            self.to_debugger(apnm_packet(PRE_INITIALIZED))
        self.to_debugger(HANDSHAKE)
        return True

    def answer_ddm(self, packet: bytes) -> None:
        packet_id = int.from_bytes(packet[4:8], "big")
        kind = packet[11:15]
        if kind != b"HELO":
            return  # an empty answer: no reply at all (API 28+)
        if "ddm-names" in self.quirks:
            self.to_debugger(apnm_packet(self.name, package=self.name, packet_id=next(self.ids)))
            self.to_debugger(helo_reply(packet_id, self.pid, "", package=self.name))
        else:
            self.to_debugger(helo_reply(packet_id, self.pid, PRE_INITIALIZED))
            self.to_debugger(apnm_packet(self.name, package=self.name, packet_id=next(self.ids)))

    def debugger_to_jvm(self) -> None:
        in_process = bool(self.quirks & {"ddm", "ddm-names"})
        while (packet := read_packet(self.debugger)) is not None:
            key = (packet[9], packet[10])
            if in_process and key == (DDM_SET, DDM_CHUNK):
                self.answer_ddm(packet)
                continue
            self.sent[int.from_bytes(packet[4:8], "big")] = key
            self.jvm.sendall(packet)

    def rewrite(self, packet: bytes) -> bytes:
        if packet[8] != 0x80 or packet[9:11] != b"\x00\x00":  # only successful replies are rewritten
            return packet
        key = self.sent.get(int.from_bytes(packet[4:8], "big"))
        body = packet[11:]
        if key == LINE_TABLE and "lines" in self.quirks:
            body = reversed_line_table(body)
        elif key == VERSION and "dalvik" in self.quirks:
            body = dalvik_version(body)
        else:
            return packet
        return struct.pack(">I", 11 + len(body)) + packet[4:11] + body

    def jvm_to_debugger(self) -> None:
        packets: queue.Queue[bytes | None] = queue.Queue()

        def read() -> None:
            while (packet := read_packet(self.jvm)) is not None:
                packets.put(packet)
            packets.put(None)

        threading.Thread(target=read, daemon=True).start()
        held: bytes | None = None
        while True:
            try:
                packet = packets.get(timeout=HOLD_S) if held is not None else packets.get()
            except queue.Empty:
                self.to_debugger(held)  # type: ignore[arg-type]  # the resume caused no event set
                held = None
                continue
            if packet is None:
                break
            is_reply = packet[8] == 0x80
            if (is_reply and "events-first" in self.quirks
                    and self.sent.get(int.from_bytes(packet[4:8], "big")) in RESUMES):
                if held is not None:
                    self.to_debugger(held)
                held = packet
                continue
            self.to_debugger(self.rewrite(packet))
            if held is not None and not is_reply and (packet[9], packet[10]) == COMPOSITE:
                self.to_debugger(held)  # the event set first, then the reply of the resume that caused it
                held = None
        if held is not None:
            self.to_debugger(held)

    def run(self) -> None:
        try:
            if self.handshake():
                back = threading.Thread(target=self._guarded, args=(self.jvm_to_debugger,), daemon=True)
                back.start()
                self._guarded(self.debugger_to_jvm)
                back.join()
        finally:
            for s in (self.debugger, self.jvm):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                s.close()

    def _guarded(self, pump: object) -> None:
        try:
            pump()  # type: ignore[operator]
        except OSError:
            pass
        finally:
            for s in (self.debugger, self.jvm):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass


def _still_open(sock: socket.socket) -> bool:
    try:
        return sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) != b""
    except BlockingIOError:
        return True
    except OSError:
        return False


def main() -> int:
    pid, jvm_port = int(sys.argv[1]), int(sys.argv[2])
    quirks = set(sys.argv[3].split(",")) if len(sys.argv) > 3 and sys.argv[3] else set()
    name = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].decode()
    lock = threading.Lock()
    busy = [False]
    queued: list[socket.socket] = []

    def serve(debugger: socket.socket) -> None:
        while debugger is not None:
            try:
                jvm = socket.create_connection(("127.0.0.1", jvm_port), timeout=10)
                jvm.settimeout(None)
                Session(debugger, jvm, quirks, pid, name).run()
            except OSError as exc:
                print(f"art_quirks_app: {exc}", file=sys.stderr, flush=True)
                debugger.close()
            with lock:  # ART then takes the next queued connection still open
                live = [s for s in queued if _still_open(s)]
                for s in queued:
                    if s not in live:
                        s.close()
                queued[:] = live[1:]
                debugger = live[0] if live else None  # type: ignore[assignment]
                busy[0] = debugger is not None

    def on_debugger(debugger: socket.socket) -> None:
        with lock:
            if busy[0]:
                if "queue" in quirks:
                    queued.append(debugger)  # API 28–34: left unanswered
                else:
                    debugger.close()  # below 28 and from 35: the second connection gets EOF
                return
            busy[0] = True
        threading.Thread(target=serve, args=(debugger,), daemon=True).start()

    return register(pid, on_debugger)


if __name__ == "__main__":
    sys.exit(main())
