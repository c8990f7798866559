"""An "app process" started by the stand-in ``am start -D``, with ART's adbconnection played in front of it.

Test helper for tests/adb (run by ``android_shims.py``, detached): ``python launch_app.py PKG MODE CLASSES
JAVA RUN_DIR``. MODE is ``settle`` (am start -D: the app plays Debug.waitForDebugger's poll-then-settle
loop), ``suspended`` (am start -D --suspend, API 34+: the JVM's agent has suspend=y, so VM_START(ALL)
follows the first packet), ``die`` (the process exits before it registers) or ``nodebug`` (it runs but
never registers on @jdwp-control: not debuggable).

What is played, from art/adbconnection/adbconnection.cc (``HandleDataWithoutAgent``, ``PerformHandshake``,
``SendDdmPacket``) and frameworks/base ``android.ddm.DdmHandleHello``:
- the JDWP handshake is answered here, before any agent exists;
- until the first non-DDM packet, DDM packets (command set 199) are answered in process: HELO gets a
  reply with the Android 14 layout; while the app waits, a WAIT command packet (id with the sign bit
  set) goes out just before that reply; other chunk types get no answer;
- the first non-DDM packet "loads the agent": from then on the debugger talks to the JVM's real JDWP
  agent (HotSpot's libjdwp; ART runs the same agent code), and the app is told "connected", then
  "activity" for each later debugger command (what VMDebug.lastDebuggerActivity measures on ART).
A second debugger while one is attached is accepted and dropped, as ART does.
"""

from __future__ import annotations

import os
import socket
import struct
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO

sys.path.insert(0, str(Path(__file__).resolve().parent))

from jdwp_registrar import register

HANDSHAKE = b"JDWP-Handshake"
HEADER = struct.Struct(">IIB")
DDM_SET, DDM_CHUNK = 199, 1


def fourcc(name: str) -> int:
    return int.from_bytes(name.encode("ascii"), "big")


def utf16(text: str) -> bytes:
    return struct.pack(">I", len(text)) + text.encode("utf-16-be")


def hello_data(pid: int, pkg: str, stage: str) -> bytes:
    """DdmHandleHello's reply layout (API 34): version, pid, VM identity, app name, user, ABI, flags,
    native-debuggable, package name, boot stage."""
    ident = "Dalvik v2.1.0"
    data = struct.pack(">IIII", 1, pid, len(ident), len(pkg)) + ident.encode("utf-16-be") + pkg.encode("utf-16-be")
    data += struct.pack(">i", 0) + utf16("64-bit (x86_64)") + utf16("CheckJNI=false") + b"\x00" + utf16(pkg)
    return data + stage.encode("ascii")


def chunk_packet(packet_id: int, reply: bool, kind: str, data: bytes) -> bytes:
    body = struct.pack(">II", fourcc(kind), len(data)) + data
    if reply:
        return HEADER.pack(11 + len(body), packet_id, 0x80) + b"\x00\x00" + body
    return HEADER.pack(11 + len(body), packet_id, 0) + bytes((DDM_SET, DDM_CHUNK)) + body


def read_exact(sock: socket.socket, n: int) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        data = sock.recv(n - len(buf))
        if not data:
            raise EOFError
        buf += data
    return bytes(buf)


def read_packet(sock: socket.socket) -> bytes:
    header = read_exact(sock, 11)
    length = struct.unpack_from(">I", header)[0]
    return header + read_exact(sock, max(0, length - 11))


class App:
    def __init__(self, pkg: str, jvm: subprocess.Popen[bytes], port: int) -> None:
        self.pkg = pkg
        self.jvm = jvm
        self.port = port
        self.busy = threading.Lock()
        self.waiting = True
        self.next_ddm = 1

    def tell(self, news: str) -> None:
        try:
            assert self.jvm.stdin is not None
            self.jvm.stdin.write(news.encode() + b"\n")
            self.jvm.stdin.flush()
        except (OSError, ValueError):
            pass

    def serve(self, debugger: socket.socket) -> None:
        try:
            self._serve(debugger)
        except (EOFError, OSError):
            pass
        finally:
            debugger.close()
            self.busy.release()

    def _serve(self, debugger: socket.socket) -> None:
        if read_exact(debugger, len(HANDSHAKE)) != HANDSHAKE:
            return
        debugger.sendall(HANDSHAKE)
        while True:
            packet = read_packet(debugger)
            if packet[8] & 0x80 or packet[9:11] != bytes((DDM_SET, DDM_CHUNK)):
                break  # the first non-DDM packet: load the agent
            kind = struct.unpack_from(">I", packet, 11)[0] if len(packet) >= 19 else 0
            if kind == fourcc("HELO"):
                packet_id = struct.unpack_from(">I", packet, 4)[0]
                if self.waiting:
                    self.next_ddm += 1
                    debugger.sendall(chunk_packet(0x8000_0000 | self.next_ddm, False, "WAIT", b"\x00"))
                stage = "DEBG" if self.waiting else "A_GO"
                debugger.sendall(chunk_packet(packet_id, True, "HELO", hello_data(self.jvm.pid, self.pkg, stage)))
        agent = socket.create_connection(("127.0.0.1", self.port), timeout=10)
        agent.settimeout(None)
        agent.sendall(HANDSHAKE)
        if read_exact(agent, len(HANDSHAKE)) != HANDSHAKE:
            return
        self.waiting = False
        self.tell("connected")
        agent.sendall(packet)
        back = threading.Thread(target=self._relay_back, args=(agent, debugger), daemon=True)
        back.start()
        try:
            while True:
                packet = read_packet(debugger)
                agent.sendall(packet)
                if not packet[8] & 0x80 and packet[9] != DDM_SET:
                    self.tell("activity")
        finally:
            for s in (agent, debugger):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            back.join()
            agent.close()

    @staticmethod
    def _relay_back(agent: socket.socket, debugger: socket.socket) -> None:
        try:
            while data := agent.recv(65536):
                debugger.sendall(data)
        except OSError:
            pass
        finally:
            try:
                debugger.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def copy_lines(source: IO[bytes], log: IO[bytes]) -> None:
    """The app's output, line by line, to its log (where the stand-in ``am -W`` and the tests read it)."""
    for line in source:
        log.write(line)
        log.flush()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> int:
    pkg, mode, classes, java, run_dir = sys.argv[1:6]
    if mode == "die":
        return 1  # the app crashed before it registered for debugging
    if mode == "free":
        mode = "run"
    port = free_port()
    suspend = "y" if mode == "suspended" else "n"
    agent = f"-agentlib:jdwp=transport=dt_socket,server=y,suspend={suspend},address=127.0.0.1:{port}"
    log = open(Path(run_dir) / f"{pkg}.log", "ab")
    jvm = subprocess.Popen([pkg, agent, "-cp", classes, "LaunchedApp", "settle" if mode == "settle" else "run"],
                           executable=java, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log)
    assert jvm.stdout is not None
    jvm.stdout.readline()  # "Listening for transport dt_socket at address: N": the agent is up
    threading.Thread(target=copy_lines, args=(jvm.stdout, log), daemon=True).start()
    debugging = mode in ("settle", "suspended")  # started by am start -D: the debug app
    (Path(run_dir) / f"{jvm.pid}.pid").write_text(f"{pkg} {os.getpid()} {int(debugging)}\n")
    if mode == "nodebug":
        return jvm.wait()
    app = App(pkg, jvm, port)
    app.waiting = debugging

    def on_debugger(debugger: socket.socket) -> None:
        if not app.busy.acquire(blocking=False):
            debugger.close()  # ART: "accept then drop" a second debugger
            return
        threading.Thread(target=app.serve, args=(debugger,), daemon=True).start()

    threading.Thread(target=lambda: (jvm.wait(), os._exit(0)), daemon=True).start()
    return register(jvm.pid, on_debugger, announce="")


if __name__ == "__main__":
    sys.exit(main())
