"""Is a process ANR-exempt? Android spares only the process it started as the *debug app*.

Layer: ``android``; the parser is a pure function, :func:`read_debugging` runs it through ``AdbClient``.
Never imports ``jdwp``. Spec: docs/design.md §4.6, issue 14 §2.

frameworks/base: ``ProcessErrorStateRecord`` skips the "isn't responding" dialog and the kill of an
unresponsive process when ``ProcessRecord.isDebugging()`` is true, which the activity manager sets only
for a process started while it was the debug app (``am start -D`` or ``am set-debug-app``) with a
debugger expected. ``dumpsys activity processes`` prints each ``ProcessRecord`` (a line with
``ProcessRecord{… <pid>:<name>/<user>}``) and, for such a process, ``mDebugging=true``. For any other
process a stop that holds the main thread with input pending gets an ANR after about 5 s (the input
dispatch timeout); a background app's broadcast or service timeouts can kill it.
"""

from __future__ import annotations

import re

from .client import AdbClient
from .device import validate_pid

__all__ = ["ANR_INPUT_TIMEOUT_S", "DUMPSYS_COMMAND", "parse_debugging", "read_debugging"]

ANR_INPUT_TIMEOUT_S = 5.0
"""Input dispatch timeout (``InputDispatcher``'s default): a main thread held this long with input
pending shows "isn't responding"."""

DUMPSYS_COMMAND = "dumpsys activity processes"

_RECORD = re.compile(r"ProcessRecord\{[0-9a-f]+ (\d+):")


def parse_debugging(text: str, pid: int) -> bool | None:
    """Whether ``pid``'s ``ProcessRecord`` says ``mDebugging=true``; ``None`` when the dump lacks the pid.

    The record's lines run until the next ``ProcessRecord{`` line.
    """
    inside = False
    found = False
    debugging = False
    for line in text.splitlines():
        match = _RECORD.search(line)
        if match is not None:
            if inside:
                break
            inside = int(match.group(1)) == pid
            found = found or inside
            continue
        if inside and "mDebugging=true" in line:
            debugging = True
    return debugging if found else None


async def read_debugging(client: AdbClient, serial: str, pid: int, *, timeout: float = 5.0) -> bool | None:
    """Ask the device whether ``pid`` runs as the debug app (ANR-exempt); ``None`` when it cannot tell.

    Raises:
        InvalidArgument, DeviceNotFound, DeviceUnavailable, AdbConnectionError, AdbTimeout.
    """
    validate_pid(pid)
    result = await client.shell(serial, DUMPSYS_COMMAND, timeout=timeout)
    return parse_debugging(result.stdout.decode("utf-8", errors="replace"), pid)
