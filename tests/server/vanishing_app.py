"""An "app process" that exits the moment a debugger connects: PROCESS_CHANGED on a real adbd.

Test helper for tests/server, run as ``python vanishing_app.py NAME JVM_PORT``. It starts a child process
named NAME (its argv[0], as Android names app processes) and registers the child's pid on adbd's
@jdwp-control the way ART does (see tests/adb/jdwp_registrar.py). When adbd hands over the first
debugger connection, it kills the child and reaps it, then proxies the connection to the JDWP agent of
the JVM at JVM_PORT — so the handshake succeeds, but the process the server resolved is gone by the time
it re-reads the identity after connecting. Prints ``registered PID``; stops on SIGTERM or when adbd goes.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "adb"))
from jdwp_registrar import pump, register


def main() -> int:
    name, jvm_port = sys.argv[1], int(sys.argv[2])
    child = subprocess.Popen([name, "-c", "import sys; sys.stdin.read()"], executable=sys.executable,
                             stdin=subprocess.PIPE)

    def on_debugger(debugger: socket.socket) -> None:
        if child.poll() is None:
            child.kill()
            child.wait()  # reaped: /proc/<pid> is gone before the debugger sees a byte
        jvm = socket.create_connection(("127.0.0.1", jvm_port), timeout=10)
        jvm.settimeout(None)
        threading.Thread(target=pump, args=(jvm, debugger), daemon=True).start()
        threading.Thread(target=pump, args=(debugger, jvm), daemon=True).start()

    return register(child.pid, on_debugger, announce=f"registered {child.pid}")


if __name__ == "__main__":
    sys.exit(main())
