"""Telling a frozen (cached) app from a gone one when its JDWP connection fails.

Layer: ``android`` (trio); never imports ``jdwp``. docs/design.md §4.5 ("A frozen/cached app … is reported as
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

Silence has a second cause: from API 28 to 34 ART's adbconnection does not refuse a second debugger while
one is attached, it leaves the new connection queued and unanswered (below API 28 and from API 35 the
second connection gets EOF, which :func:`pyjdwp_android.transport.open_jdwp_stream` reports as busy;
docs/reliability.md, "ART as devices show it"). So a
silent handshake asks the device once (:func:`why_silent`): a process the kernel holds (stopped, or in
a frozen cgroup: the ``cgroup.freeze`` adbd itself reads) is frozen; a running one on API 28–34 is busy.
"""

from __future__ import annotations

from .client import AdbClient
from .errors import AdbConnectionError, AdbError, AdbTimeout, DebuggerBusy, ProcessNotFound
from .launch import parse_sdk
from .transport import JdwpStream, Transport, open_jdwp_stream

__all__ = ["QUEUING_API_LEVELS", "ProcessFrozen", "open_app_jdwp_stream", "still_registered", "why_silent"]

#: The API levels whose adbconnection queues a second debugger connection unanswered instead of closing it.
QUEUING_API_LEVELS = range(28, 35)
_PROBE_TIMEOUT_S = 5.0

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
        ProcessFrozen: adbd refused ``jdwp:<pid>``, or the handshake timed out and the process is not
            running (:func:`why_silent`), and the pid is still registered on the device.
        DebuggerBusy: the handshake timed out on a running process of API 28–34: another debugger holds it.
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
            raise await why_silent(client, serial, pid, handshake_timeout) from None
        raise


async def still_registered(client: AdbClient, serial: str, pid: int) -> bool:
    """Whether ``pid`` is still listed by the device's ``jdwp`` service (``False`` when it cannot say)."""
    try:
        return pid in await client.jdwp_pids(serial)
    except (AdbConnectionError, AdbTimeout):
        return False  # no evidence: keep the original error


async def why_silent(client: AdbClient, serial: str, pid: int, waited: float = HANDSHAKE_TIMEOUT_S) -> AdbError:
    """Why a registered process left the JDWP handshake unanswered for ``waited`` seconds: frozen, or busy.

    One shell command reads the API level (``ro.build.version.sdk``), the process's state (the field after
    the command name in ``/proc/<pid>/stat``: ``T`` when stopped) and its cgroup's ``cgroup.freeze`` (``1``
    for an app Android froze; adbd reads the same attribute, ``daemon/jdwp_service.cpp``). A stopped or
    frozen process is :class:`ProcessFrozen`; a running one on :data:`QUEUING_API_LEVELS` is
    :class:`DebuggerBusy` (queued behind another debugger); otherwise, or when the device cannot say, frozen.
    """
    frozen = ProcessFrozen(pid, f"did not answer the JDWP handshake within {waited:g} s")
    cgroup = f"/sys/fs/cgroup$(sed -n 's/^0:://p' /proc/{pid}/cgroup 2>/dev/null)/cgroup.freeze"
    command = (f'echo "sdk=$(getprop ro.build.version.sdk)"; echo "stat=$(cat /proc/{pid}/stat 2>/dev/null)"; '
               f'echo "freeze=$(cat {cgroup} 2>/dev/null)"')
    try:
        result = await client.shell(serial, command, timeout=_PROBE_TIMEOUT_S)
    except (AdbConnectionError, AdbTimeout):
        return frozen  # no evidence: the older reading
    said: dict[str, str] = {}
    for line in result.stdout.decode("utf-8", "replace").splitlines():
        key, _, value = line.partition("=")
        said[key] = value.strip()
    api, freeze = parse_sdk(said.get("sdk", "")), said.get("freeze", "")
    state = said.get("stat", "").rpartition(")")[2].split()[:1]  # empty when /proc could not be read
    if state in (["T"], ["t"]) or freeze == "1":
        return frozen
    if api in QUEUING_API_LEVELS:
        return DebuggerBusy(pid, f"left the JDWP handshake unanswered for {waited:g} s while running (API {api} "
                                 "queues a second debugger connection instead of refusing it)")
    return frozen
