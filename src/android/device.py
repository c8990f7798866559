"""Device facts: process names, UIDs, start identities and package UIDs, read through the device shell.

Layer: ``android``; the parsers and command builders are pure functions (unit-tested with real Android
output), the ``read_*`` coroutines run them through ``AdbClient.shell``. Never imports ``jdwp``.
Spec: docs/design.md §4.3 ("Process facts", input validation).

Everything that reaches a device shell is validated first: appIds must be Java package names and
pids positive integers, so no caller-controlled text is ever interpreted by ``sh``. Numbers read back
(pids, uids, ticks) are ASCII digits only: ``str.isdigit`` and ``int`` also accept other scripts' digits.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .client import AdbClient
from .errors import InvalidArgument, ShellCommandFailed

__all__ = [
    "PID_MAX",
    "ProcessFacts",
    "ProcessIdentity",
    "belongs_to_app",
    "facts_command",
    "package_uid_command",
    "parse_facts",
    "parse_package_uid",
    "parse_ps",
    "ps_command",
    "read_package_uid",
    "read_process_facts",
    "read_process_list",
    "validate_app_id",
    "validate_pid",
]

PID_MAX = 4_194_304
"""Linux's largest possible pid (``PID_MAX_LIMIT`` on 64-bit kernels)."""

_SEGMENT = r"[A-Za-z][A-Za-z0-9_]*"
_APP_ID = re.compile(rf"^{_SEGMENT}(\.{_SEGMENT})+$")


def validate_app_id(app_id: object) -> str:
    """Check an appId (Android package name) before it is used anywhere.

    Android requires at least two dot-separated segments, each starting with a letter and holding
    only letters, digits and underscores; that also keeps every shell metacharacter out.

    Raises:
        InvalidArgument: with a message naming the rule that failed.
    """
    if not isinstance(app_id, str) or not app_id:
        raise InvalidArgument("appId must be a non-empty string such as 'com.example.app'")
    if len(app_id) > 255:
        raise InvalidArgument("appId is longer than 255 characters")
    if not _APP_ID.match(app_id):
        raise InvalidArgument(
            f"appId {app_id!r} is not an Android package name (letters, digits and '_' in at least two "
            "'.'-separated segments, each starting with a letter)"
        )
    return app_id


def validate_pid(pid: object) -> int:
    """Check a process id.

    Raises:
        InvalidArgument: not an int (bools are rejected too), or outside 1..PID_MAX.
    """
    if isinstance(pid, bool) or not isinstance(pid, int):
        raise InvalidArgument(f"processId must be an integer, got {type(pid).__name__}")
    if not 0 < pid <= PID_MAX:
        raise InvalidArgument(f"processId {pid} is outside 1..{PID_MAX}")
    return pid


def _is_number(text: str) -> bool:
    """ASCII digits only (``"１２３".isdigit()`` is true, and ``int`` reads it as 123)."""
    return text.isascii() and text.isdigit()


def belongs_to_app(process_name: str, app_id: str) -> bool:
    """True when ``process_name`` is ``app_id`` or one of its named processes ``app_id:<suffix>``."""
    if process_name == app_id:
        return True
    prefix = app_id + ":"
    return process_name.startswith(prefix) and len(process_name) > len(prefix)


@dataclass(frozen=True)
class ProcessIdentity:
    """What must not change between resolving a target and debugging it.

    ``start_ticks`` is ``/proc/<pid>/stat`` field 22 (clock ticks since boot), which identifies a
    process only together with the boot it belongs to, hence ``boot_id``.
    """

    pid: int
    uid: int | None
    name: str
    start_ticks: int | None
    boot_id: str

    def differences(self, other: ProcessIdentity) -> list[str]:
        """Human-readable list of fields that differ (empty when the identity is the same)."""
        out = []
        for field in ("pid", "uid", "name", "start_ticks", "boot_id"):
            mine, theirs = getattr(self, field), getattr(other, field)
            if mine != theirs:
                out.append(f"{field} {mine!r} -> {theirs!r}")
        return out


@dataclass(frozen=True)
class ProcessFacts:
    """One running process as read from ``/proc`` on the device."""

    pid: int
    name: str
    uid: int | None
    start_ticks: int | None
    boot_id: str

    @property
    def identity(self) -> ProcessIdentity:
        return ProcessIdentity(self.pid, self.uid, self.name, self.start_ticks, self.boot_id)


# --- /proc facts ------------------------------------------------------------------------------------


def facts_command(pids: Iterable[int]) -> str:
    """The one shell command that reads boot id, cmdline, stat and Uid of every pid.

    Output, one ``key value`` per line (blank lines are noise): ``boot <id>``, then per pid
    ``pid <n>``, ``name <argv[0]>``, ``stat <stat line>``, ``uid <Uid: line>``. A vanished process
    leaves its fields empty. Only ``cat``, ``tr``, ``head`` and ``grep`` are used: toybox and older
    toolbox devices and GNU userlands all have them.

    Raises:
        InvalidArgument: a pid is not valid (checked here because it is spliced into the command).
    """
    checked = [validate_pid(p) for p in pids]
    lines = ["echo boot $(cat /proc/sys/kernel/random/boot_id 2>/dev/null)"]
    if checked:
        lines.append(
            "for p in " + " ".join(str(p) for p in checked) + "; do "
            'echo "pid $p"; '
            "printf 'name '; tr '\\0' '\\n' < /proc/$p/cmdline 2>/dev/null | head -n 1; echo; "
            "printf 'stat '; cat /proc/$p/stat 2>/dev/null; echo; "
            "printf 'uid '; grep '^Uid:' /proc/$p/status 2>/dev/null; echo; "
            "done"
        )
    return "; ".join(lines)


def _start_ticks(stat: str) -> int | None:
    # The command name (field 2) is in parentheses and may itself contain spaces and ')': split
    # after the last ')'. Fields after it start at field 3, so field 22 is index 19 there.
    close = stat.rfind(")")
    if close < 0:
        return None
    rest = stat[close + 1 :].split()
    if len(rest) < 20 or not _is_number(rest[19]):
        return None
    return int(rest[19])


def _uid(line: str) -> int | None:
    # "Uid:\t<real>\t<effective>\t<saved>\t<fs>": the real uid is the process's app uid.
    parts = line.split()
    if len(parts) >= 2 and parts[0] == "Uid:" and _is_number(parts[1]):
        return int(parts[1])
    return None


def parse_facts(text: str) -> tuple[str, dict[int, ProcessFacts | None]]:
    """Parse ``facts_command``'s output.

    Returns:
        ``(boot_id, {pid: facts or None})``; ``None`` marks a pid whose process no longer exists
        (no cmdline and no stat).
    """
    boot_id = ""
    result: dict[int, ProcessFacts | None] = {}
    current: dict[str, str] | None = None
    order: list[tuple[int, dict[str, str]]] = []
    for raw in text.splitlines():
        key, _, value = raw.partition(" ")
        if key == "boot" and current is None:
            boot_id = value.strip()
        elif key == "pid" and _is_number(value.strip()):
            current = {}
            order.append((int(value.strip()), current))
        elif current is not None and key in ("name", "stat", "uid") and key not in current:
            current[key] = value.strip()
    for pid, fields in order:
        name = fields.get("name", "")
        stat = fields.get("stat", "")
        if not name and not stat:
            result[pid] = None
            continue
        result[pid] = ProcessFacts(pid, name, _uid(fields.get("uid", "")), _start_ticks(stat), boot_id)
    return boot_id, result


async def read_process_facts(client: AdbClient, serial: str, pids: Sequence[int]) -> dict[int, ProcessFacts | None]:
    """Read name, uid and start identity of ``pids`` in one shell call.

    Raises:
        InvalidArgument, DeviceNotFound, DeviceUnavailable, AdbConnectionError, AdbTimeout,
        ShellCommandFailed: the device printed no boot id (``/proc`` unreadable).
    """
    command = facts_command(pids)
    result = await client.shell(serial, command)
    text = result.stdout.decode("utf-8", errors="replace")
    boot_id, facts = parse_facts(text)
    if not boot_id:
        raise ShellCommandFailed(command, result.exit_code, (result.stdout + result.stderr).decode(errors="replace"))
    return facts


# --- process list -----------------------------------------------------------------------------------


PS_SEPARATOR = "--pyjdwp-ps--"
"""The line between ``ps_command``'s two listings."""


def ps_command() -> str:
    """List every process with its argv[0]: toybox (Android 8+) and procps understand ``-A -o``;
    Android 7 and older print only a header for it, so the plain ``ps`` follows a separator line.

    The shell running this command is itself in the first listing, with its whole argv: the separator is
    put together at run time, so that argv never holds it in one piece (and ``parse_ps`` splits only at
    a line that is the separator and nothing else, which no listing row is: rows start with a pid).
    """
    head, tail = PS_SEPARATOR[:8], PS_SEPARATOR[8:]
    return f"ps -A -o pid,args 2>/dev/null; s='{tail}'; echo \"{head}$s\"; ps 2>/dev/null"


_NAME_LAST = {"NAME"}
_NAME_FIRST_WORD = {"ARGS", "CMDLINE", "COMMAND", "CMD"}


def parse_ps(text: str) -> list[tuple[int, str]]:
    """Parse ``ps_command`` output (or any single ``ps`` listing) into ``(pid, name)`` pairs.

    Handles toybox ``PID ARGS``, procps ``PID COMMAND``, toybox/toolbox default columns ending in
    ``NAME`` (toolbox puts an unlabelled state column before NAME, so NAME is the last word), and
    ``CMD``. The first listing with any process row wins.
    """
    sections: list[list[str]] = [[]]
    for line in text.splitlines():
        if line.strip() == PS_SEPARATOR:
            sections.append([])
        elif line.strip():
            sections[-1].append(line)
    for section in sections:
        rows = _parse_one_ps(section)
        if rows:
            return rows
    return []


def _parse_one_ps(lines: list[str]) -> list[tuple[int, str]]:
    if not lines:
        return []
    header = lines[0].split()
    if "PID" not in header or not header:
        return []
    pid_index = header.index("PID")
    last = header[-1]
    rows = []
    for line in lines[1:]:
        if last in _NAME_FIRST_WORD:
            fields = line.split(None, len(header) - 1)
            if len(fields) < len(header):
                continue
            words = fields[-1].split()
            name = words[0] if words else ""
        else:
            fields = line.split()
            if len(fields) < len(header):
                continue
            name = fields[-1]
        pid_text = fields[pid_index]
        if _is_number(pid_text) and name:
            rows.append((int(pid_text), name))
    return rows


async def read_process_list(client: AdbClient, serial: str) -> list[tuple[int, str]]:
    """Every process on the device as ``(pid, argv[0])``.

    Raises:
        DeviceNotFound, DeviceUnavailable, AdbConnectionError, AdbTimeout,
        ShellCommandFailed: no listing could be parsed.
    """
    command = ps_command()
    result = await client.shell(serial, command)
    rows = parse_ps(result.stdout.decode("utf-8", errors="replace"))
    if not rows:
        raise ShellCommandFailed(command, result.exit_code, (result.stdout + result.stderr).decode(errors="replace"))
    return rows


# --- package manager --------------------------------------------------------------------------------


def package_uid_command(app_id: str) -> str:
    """``pm list packages -U <appId>`` (the appId is validated, so it needs no quoting)."""
    return f"pm list packages -U {validate_app_id(app_id)}"


def parse_package_uid(text: str, app_id: str) -> int | None:
    """Find ``app_id``'s UID in ``pm list packages -U`` output.

    ``pm``'s filter is a substring match, so ``com.example.app`` also lists ``com.example.app.test``:
    only the exact name counts. Lines look like ``package:<name> uid:<uid>``; a device with several
    users may print ``uid:<uid>,<uid>…`` and the first one is the primary user's.

    Returns:
        The UID, or ``None`` when the package is not installed or the output has no UID.
    """
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("package:"):
            continue
        words = line[len("package:") :].split()
        if not words or words[0] != app_id:
            continue
        for word in words[1:]:
            if word.startswith("uid:"):
                first = word[4:].split(",")[0]
                if _is_number(first):
                    return int(first)
        return None
    return None


async def read_package_uid(client: AdbClient, serial: str, app_id: str) -> int | None:
    """The installed package's UID, or ``None`` when ``pm`` does not list the package.

    Raises:
        InvalidArgument, DeviceNotFound, DeviceUnavailable, AdbConnectionError, AdbTimeout.
    """
    result = await client.shell(serial, package_uid_command(app_id))
    return parse_package_uid(result.stdout.decode("utf-8", errors="replace"), app_id)
