"""Register one "app process" on adbd's @jdwp-control the way ART does, and serve its debugger slot.

Test helper for tests/adb, run as a subprocess: ``python jdwp_registrar.py PID [JVM_PORT]``.

- Connects an ``AF_UNIX``/``SOCK_SEQPACKET`` socket to the abstract name ``jdwp-control`` and sends
  the pid as a native-endian int32 (Android 10's registration format); keeping the socket open keeps
  the pid registered, EOF unregisters it.
- adbd passes one fd per debugger connection (``jdwp:<pid>``) with ``SCM_RIGHTS``. With a JVM_PORT
  the first fd is proxied to that JVM's JDWP agent (a real JDWP conversation, handshake included);
  like ART, a second debugger while one is attached is accepted and dropped (fd closed at once).
  Without a JVM_PORT every fd is dropped: a registered pid whose slot is always busy.
- Prints ``registered`` on stdout once the pid was sent. Stops on SIGTERM or when adbd goes away.

Other helpers reuse :func:`register` with their own handling of each debugger connection
(tests/server/vanishing_app.py), and :func:`pump` to relay it.
"""

from __future__ import annotations

import errno
import socket
import struct
import sys
import threading
import time
from collections.abc import Callable

_busy = threading.Lock()


def pump(src: socket.socket, dst: socket.socket) -> None:
    """Relay bytes from ``src`` to ``dst`` until either side ends; then shut both down."""
    try:
        while data := src.recv(65536):
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def _serve(debugger: socket.socket, jvm_port: int) -> None:
    try:
        jvm = socket.create_connection(("127.0.0.1", jvm_port), timeout=10)
        jvm.settimeout(None)
    except OSError as exc:
        print(f"registrar: cannot reach the JVM on port {jvm_port}: {exc}", file=sys.stderr, flush=True)
        debugger.close()
        _busy.release()
        return
    back = threading.Thread(target=pump, args=(jvm, debugger), daemon=True)
    back.start()
    pump(debugger, jvm)
    back.join()
    debugger.close()
    jvm.close()
    _busy.release()


def connect_control(deadline: float) -> socket.socket:
    while True:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            sock.connect("\0jdwp-control")
            return sock
        except OSError as exc:
            sock.close()
            # adbd creates the socket at start-up; the fixture starts it first, so only retry
            # briefly for the window between adbd's start and its listen().
            if exc.errno not in (errno.ECONNREFUSED, errno.ENOENT) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def register(pid: int, on_debugger: Callable[[socket.socket], None], announce: str = "registered") -> int:
    """Register ``pid`` on @jdwp-control, print ``announce``, and hand each debugger connection adbd
    passes to ``on_debugger``, until adbd closes the control socket (then return 0)."""
    control = connect_control(time.monotonic() + 10)
    control.sendall(struct.pack("=i", pid))
    print(announce, flush=True)
    while True:
        msg, fds, _flags, _addr = socket.recv_fds(control, 1, 4)
        if not msg and not fds:
            return 0
        for fd in fds:
            on_debugger(socket.socket(fileno=fd))


def main() -> int:
    pid = int(sys.argv[1])
    jvm_port = int(sys.argv[2]) if len(sys.argv) > 2 else None

    def on_debugger(debugger: socket.socket) -> None:
        if jvm_port is None or not _busy.acquire(blocking=False):
            debugger.close()  # ART: "accept then drop" a second debugger
            return
        threading.Thread(target=_serve, args=(debugger, jvm_port), daemon=True).start()

    return register(pid, on_debugger)


if __name__ == "__main__":
    sys.exit(main())
