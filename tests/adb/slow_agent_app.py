"""An "app process" whose debugger agent is slow to load: the first reply after the handshake comes late.

Test helper for tests/adb and tests/server, run as ``python slow_agent_app.py PID JVM_PORT DELAY_S``.
It registers PID on adbd's @jdwp-control the way ART does (tests/adb/jdwp_registrar.py) and proxies each
debugger connection to the JDWP agent of the JVM at JVM_PORT, holding back the first bytes the JVM sends
after its handshake reply by DELAY_S seconds.

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


def _late_pump(jvm: socket.socket, debugger: socket.socket, delay: float) -> None:
    """Relay the JVM's bytes: its handshake reply at once, everything after it ``delay`` seconds late."""
    seen = b""
    while len(seen) < len(HANDSHAKE):
        data = jvm.recv(65536)
        if not data:
            debugger.close()
            return
        seen += data
    debugger.sendall(seen[: len(HANDSHAKE)])
    time.sleep(delay)  # "loading the agent"
    debugger.sendall(seen[len(HANDSHAKE):])
    pump(jvm, debugger)


def main() -> int:
    pid, jvm_port, delay = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])

    def on_debugger(debugger: socket.socket) -> None:
        jvm = socket.create_connection(("127.0.0.1", jvm_port), timeout=10)
        jvm.settimeout(None)
        threading.Thread(target=_late_pump, args=(jvm, debugger, delay), daemon=True).start()
        threading.Thread(target=pump, args=(debugger, jvm), daemon=True).start()

    return register(pid, on_debugger)


if __name__ == "__main__":
    sys.exit(main())
