"""An "app process" whose debugger agent is slow to load: the first reply after the handshake comes late.

Test helper for tests/adb and tests/server, run as ``python slow_agent_app.py PID JVM_PORT DELAY_S``.
It registers PID on adbd's @jdwp-control the way ART does (tests/adb/jdwp_registrar.py) and proxies each
debugger connection to the JDWP agent of the JVM at JVM_PORT, holding back the JVM's first reply to a
non-DDM command by DELAY_S seconds (counted from that command). Replies to DDM packets (command set 199,
such as the HELO pyjdwp sends first) pass at once: adbconnection answers those in process, before the agent
loads.

What it stands for: on ART the handshake is answered by the adbconnection plugin at once, and the first
non-DDM packet makes it load the JDWP agent (libjdwp), which tags every loaded class before it answers
(art/adbconnection/adbconnection.cc, external/oj-libjdwp classTrack.c): on a big app that first reply
takes many seconds. Prints ``registered``; stops on SIGTERM or when adbd goes away.
"""

from __future__ import annotations

import socket
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from jdwp_registrar import pump, register

HANDSHAKE = b"JDWP-Handshake"
DDM_COMMAND_SET = 199
HEADER = 11  # length u4, id u4, flags u1, command set u1, command u1


class _FirstCommand:
    """When the debugger sent its first non-DDM command (the one that makes ART load the agent)."""

    def __init__(self) -> None:
        self.sent = threading.Event()
        self.at = 0.0

    def mark(self) -> None:
        self.at = time.monotonic()
        self.sent.set()


def _watching_pump(debugger: socket.socket, jvm: socket.socket, first: _FirstCommand) -> None:
    """Relay the debugger's bytes, marking its first packet outside the DDM command set."""
    buffered = b""
    skip = len(HANDSHAKE)
    while not first.sent.is_set():
        data = debugger.recv(65536)
        if not data:
            break
        jvm.sendall(data)
        buffered += data
        while not first.sent.is_set():
            if skip:
                taken = min(skip, len(buffered))
                buffered, skip = buffered[taken:], skip - taken
                if skip:
                    break
            if len(buffered) < HEADER:
                break
            if buffered[9] != DDM_COMMAND_SET:
                first.mark()
                break
            skip = int.from_bytes(buffered[:4], "big")
    pump(debugger, jvm)


def _late_pump(jvm: socket.socket, debugger: socket.socket, delay: float, first: _FirstCommand) -> None:
    """Relay the JVM's bytes; once the first non-DDM command is out, its reply comes ``delay`` s after it."""
    while data := jvm.recv(65536):
        if first.sent.is_set():
            time.sleep(max(0.0, first.at + delay - time.monotonic()))  # "loading the agent"
            debugger.sendall(data)
            break
        debugger.sendall(data)
    else:
        debugger.close()
        return
    pump(jvm, debugger)


def main() -> int:
    pid, jvm_port, delay = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])

    def on_debugger(debugger: socket.socket) -> None:
        jvm = socket.create_connection(("127.0.0.1", jvm_port), timeout=10)
        jvm.settimeout(None)
        first = _FirstCommand()
        threading.Thread(target=_late_pump, args=(jvm, debugger, delay, first), daemon=True).start()
        threading.Thread(target=_watching_pump, args=(debugger, jvm, first), daemon=True).start()

    return register(pid, on_debugger)


if __name__ == "__main__":
    sys.exit(main())
