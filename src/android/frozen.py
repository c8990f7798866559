"""Telling a frozen (cached) app from a gone one when its JDWP connection fails.

Layer: ``android`` (trio); never imports ``jdwp``. DESIGN.md §7.5 ("A frozen/cached app … is reported as
such") and issue 14 §3.

Android freezes cached apps (the cgroup freezer): a frozen process is not scheduled, so it cannot take
the fd adbd hands it nor answer the JDWP handshake. Two device behaviours follow, both for a process
that is still registered on ``@jdwp-control`` (so still listed by ``jdwp``/``track-jdwp``):

- recent adbd checks the process's freezer state before passing it a socket and refuses ``jdwp:<pid>``
  outright (packages/modules/adb ``daemon/jdwp_service.cpp``: ``is_process_in_freezer`` reads the
  cgroup's ``cgroup.freeze`` attribute, and a frozen process gets no socket, with a warning in the
  device log). On the wire this is the refusal an unknown pid gets;
- older adbd passes the socket anyway and the handshake never comes back.

An unregistered pid is refused the same way, so the refusal alone proves nothing: the pid being still
listed right after is what marks the process as frozen rather than gone. A process that was just
killed can race this check; it then reads as frozen once, and as gone on the next try.
"""

from __future__ import annotations

from .client import AdbClient
from .errors import AdbConnectionError, AdbError, AdbTimeout, ProcessNotFound
from .transport import JdwpStream, Transport, open_jdwp_stream

__all__ = ["ProcessFrozen", "open_app_jdwp_stream", "still_registered"]

#: The handshake is answered by ART's adbconnection plugin in process, before the JDWP agent loads
#: (art/adbconnection/adbconnection.cc), so a few seconds without it means the process is not running.
HANDSHAKE_TIMEOUT_S = 5.0


class ProcessFrozen(AdbError):
    """The process is registered for debugging but is not scheduled: Android froze it as a cached app."""

    code = "PROCESS_FROZEN"
    retryable = True

    def __init__(self, pid: int, how: str) -> None:
        self.pid = pid
        super().__init__(
            f"process {pid} is registered for debugging but {how}: the app is cached or frozen; bring it to "
            "the foreground (open it on the device), then attach again"
        )


async def open_app_jdwp_stream(
    client: AdbClient,
    serial: str,
    pid: int,
    *,
    transport: Transport | str = Transport.DIRECT,
    handshake: bool = True,
    handshake_timeout: float = HANDSHAKE_TIMEOUT_S,
) -> JdwpStream:
    """:func:`open_jdwp_stream`, reporting a frozen app as :class:`ProcessFrozen`. With ``handshake=False``
    (a caller that handshakes itself, to record it) only adbd's refusal can be told apart here.

    Raises:
        ProcessFrozen: adbd refused ``jdwp:<pid>`` or the handshake timed out, and the pid is still
            registered on the device.
        Everything :func:`open_jdwp_stream` raises, otherwise.
    """
    try:
        return await open_jdwp_stream(client, serial, pid, transport=transport, handshake=handshake,
                                      handshake_timeout=handshake_timeout)
    except ProcessNotFound:
        if await still_registered(client, serial, pid):
            raise ProcessFrozen(pid, "adbd refused to connect a debugger to it") from None
        raise
    except AdbTimeout:
        if await still_registered(client, serial, pid):
            raise ProcessFrozen(pid, f"did not answer the JDWP handshake within {handshake_timeout:g} s") from None
        raise


async def still_registered(client: AdbClient, serial: str, pid: int) -> bool:
    """Whether ``pid`` is still listed by the device's ``jdwp`` service (``False`` when it cannot say)."""
    try:
        return pid in await client.jdwp_pids(serial)
    except (AdbConnectionError, AdbTimeout):
        return False  # no evidence: keep the original error
