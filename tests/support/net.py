"""Loopback plumbing the tests and benches share: free ports and the JDWP handshake bytes.

Port 0 everywhere we can; this is for the few places that must name a port before a process listens on
it (a JVM agent that re-listens on the same port, adb's ``-P``).
"""

from __future__ import annotations

import socket

from jdwp.protocol.wire import HANDSHAKE

__all__ = ["HANDSHAKE", "free_port"]


def free_port() -> int:
    """A loopback TCP port that was free a moment ago (the OS picks it: port 0)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
