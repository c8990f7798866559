"""Start an app waiting for a debugger (``am start -D``) and find the process that start made.

Layer: ``android``; the validators, command builders and parsers are pure functions (unit-tested with
the text Android prints), :func:`launch_app` runs them through ``AdbClient``. Never imports ``jdwp``.
Spec: docs/design.md §4.6 and issue 14 §1.

Facts from AOSP this relies on (read in frameworks/base and packages/modules/adb):
- ``ActivityManagerShellCommand`` (``am start``): ``-D`` sets START_FLAG_DEBUG, which makes the new
  process the *debug app* waiting for a debugger; ``--suspend`` (API 34+) adds START_FLAG_DEBUG_SUSPEND,
  with which ``ActivityThread`` calls ``Debug.suspendAllAndSendVmStart()`` instead of
  ``Debug.waitForDebugger()``; ``-S`` force-stops the app first, so the start makes a *new* process;
  it prints ``Starting: Intent { cmp=… }`` and, for an activity the package lacks, the line
  ``Error type 3`` then ``Error: Activity class {pkg/cls} does not exist.``. ``-W`` waits for the launch
  to complete, which an app blocked in its debugger wait never does: it is never used here.
- ``Debug.waitForDebugger()`` polls every 200 ms until the first non-DDM packet arrives, then lets the
  app run once 1.3 s pass without a debugger command (``MIN_DEBUGGER_IDLE``): the caller must suspend
  the VM at once after attaching.
- adbd lists the new pid on ``track-jdwp`` as soon as the process registers on ``@jdwp-control``.
- ``cmd package resolve-activity --brief <pkg>`` prints the resolved component (``pkg/cls``) on its
  last line, or ``No activity found`` when the package has no launcher activity.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import trio

from .client import AdbClient, MessageTracker, validate_serial
from .device import belongs_to_app, read_package_uid, read_process_facts, read_process_list, validate_app_id
from .errors import AdbError, DebuggerUnsupported, InvalidArgument, ProcessNotFound

__all__ = [
    "MAX_ACTIVITY",
    "SUSPEND_API",
    "LaunchFailed",
    "Launched",
    "clear_command",
    "launch_app",
    "parse_am_start",
    "parse_resolved_activity",
    "parse_sdk",
    "resolve_command",
    "start_command",
    "validate_activity",
]

MAX_ACTIVITY = 255
"""The longest activity name accepted (a class name past this is not a real app's)."""

SUSPEND_API = 34
"""First API level whose ``am start`` knows ``--suspend`` (START_FLAG_DEBUG_SUSPEND)."""

_PART = r"[A-Za-z_$][A-Za-z0-9_$]*"
_ACTIVITY = re.compile(rf"^\.?{_PART}(\.{_PART})*$")
_COMPONENT = re.compile(rf"^({_PART}(?:\.{_PART})+)/(\.?{_PART}(?:\.{_PART})*)$")


class LaunchFailed(AdbError):
    """``am start`` refused or the started process never became debuggable; the message says which."""

    code = "DEBUGGER_ATTACH_FAILED"


def validate_activity(activity: object) -> str:
    """Check an activity name before it reaches a shell.

    Accepted: a Java class name (``com.x.MainActivity``) or one relative to the package
    (``.MainActivity``), as ``am start -n pkg/<activity>`` takes it. Everything else — spaces, shell
    metacharacters, ``/``, ``..``, NUL, over-long names — is refused, so no caller text is ever
    interpreted by ``sh``.

    Raises:
        InvalidArgument: naming the rule that failed.
    """
    if not isinstance(activity, str) or not activity:
        raise InvalidArgument("launch.activity must be a non-empty class name such as '.MainActivity'")
    if len(activity) > MAX_ACTIVITY:
        raise InvalidArgument(f"launch.activity is longer than {MAX_ACTIVITY} characters")
    if "\x00" in activity:
        raise InvalidArgument("launch.activity must not contain a NUL character")
    if ".." in activity:
        raise InvalidArgument(f"launch.activity {activity!r} contains '..': give a class name such as "
                              "'.MainActivity' or 'com.example.app.MainActivity'")
    if not _ACTIVITY.match(activity):
        raise InvalidArgument(
            f"launch.activity {activity!r} is not a Java class name (letters, digits, '_' and '$' in "
            "'.'-separated parts, optionally starting with '.'); no spaces or shell characters")
    return activity


def component(app_id: str, activity: str) -> str:
    """``pkg/activity`` for ``am start -n`` (both validated)."""
    return f"{validate_app_id(app_id)}/{validate_activity(activity)}"


def clear_command(app_id: str) -> str:
    """``pm clear <appId>``: deletes the app's data (what ``clearData`` asks for)."""
    return f"pm clear {validate_app_id(app_id)}"


def resolve_command(app_id: str) -> str:
    """``cmd package resolve-activity --brief <appId>``: the launcher activity of the package."""
    return f"cmd package resolve-activity --brief {validate_app_id(app_id)}"


def start_command(app_id: str, activity: str, *, suspend: bool) -> str:
    """``am start -S -D [--suspend] -n pkg/activity`` — never ``-W`` (see the module docstring)."""
    flags = "-S -D --suspend" if suspend else "-S -D"
    return f"am start {flags} -n {component(app_id, activity)}"


def parse_sdk(text: str) -> int | None:
    """``getprop ro.build.version.sdk`` → the API level, or ``None`` when it is not a number."""
    value = text.strip()
    return int(value) if value.isascii() and value.isdigit() else None


def parse_resolved_activity(text: str, app_id: str) -> str | None:
    """The activity of ``resolve-activity --brief`` output for ``app_id``, or ``None`` when none resolved.

    The last non-empty line is the component (earlier lines are the priority/preferred summary).
    """
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return None
    match = _COMPONENT.match(lines[-1])
    if match is None or match.group(1) != app_id:
        return None
    return match.group(2)


@dataclass(frozen=True)
class StartOutcome:
    """What ``am start`` printed: started, or the error line Android gave."""

    started: bool
    error: str | None = None
    missing_activity: bool = False


def parse_am_start(text: str) -> StartOutcome:
    """Read ``am start``'s combined output (it prints errors on stderr or stdout, by version)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if "Error type 3" in lines:
        detail = next((line for line in lines if line.startswith("Error:")), "Error type 3")
        return StartOutcome(False, detail, missing_activity=True)
    for line in lines:
        if line.startswith("Error") or line.startswith("Exception") or line.startswith("java.lang."):
            return StartOutcome(False, line)
    if any(line.startswith("Starting: Intent") for line in lines):
        return StartOutcome(True)
    return StartOutcome(False, lines[-1] if lines else "am start printed nothing")


@dataclass(frozen=True)
class Launched:
    """A process started by :func:`launch_app`, waiting for its debugger."""

    pid: int
    activity: str
    api_level: int | None
    suspend_flag: bool
    cleared: bool


async def _shell_text(client: AdbClient, serial: str, command: str, timeout: float) -> tuple[str, int | None]:
    result = await client.shell(serial, command, timeout=timeout)
    return (result.stdout + result.stderr).decode("utf-8", errors="replace"), result.exit_code


async def launch_app(client: AdbClient, serial: str, app_id: str, activity: str | None = None, *,
                     clear_data: bool = False, timeout: float = 20.0) -> Launched:
    """Start ``app_id`` as the debug app waiting for a debugger and return its new pid.

    Order: validate everything; check the package is installed and debuggable-looking (``pm``);
    ``pm clear`` when asked; resolve the launcher activity when none is given; open ``track-jdwp``
    *before* starting, so the pids that existed are known; ``am start -S -D`` (``--suspend`` on API
    34+); wait for a pid that was not there before.

    Raises:
        InvalidArgument: a malformed serial, appId or activity (nothing was run).
        ProcessNotFound: the package is not installed.
        LaunchFailed: no launcher activity, an unknown activity (named), ``pm clear`` or ``am start``
            failed, or the process died before it registered for debugging.
        DebuggerUnsupported: the app started but never became JDWP-visible within ``timeout``: it is not
            debuggable.
        DeviceNotFound, DeviceUnavailable, AdbConnectionError: the device cannot be used.
    """
    validate_serial(serial)
    validate_app_id(app_id)
    if activity is not None:
        validate_activity(activity)
    await client.require_device(serial)
    step = max(2.0, timeout / 4)
    if await read_package_uid(client, serial, app_id) is None:
        raise ProcessNotFound(f"{app_id} is not installed on {serial}: install the app (a debug build), "
                              "then launch again")
    if clear_data:
        out, _ = await _shell_text(client, serial, clear_command(app_id), step)
        if "Success" not in out:
            raise LaunchFailed(f"pm clear {app_id} failed: {out.strip() or 'no output'}")
    if activity is None:
        out, _ = await _shell_text(client, serial, resolve_command(app_id), step)
        activity = parse_resolved_activity(out, app_id)
        if activity is None:
            raise LaunchFailed(f"{app_id} has no launcher activity (resolve-activity said: "
                               f"{out.strip()[-200:] or 'nothing'}); pass launch.activity")
    sdk_text, _ = await _shell_text(client, serial, "getprop ro.build.version.sdk", step)
    api = parse_sdk(sdk_text)
    suspend = api is not None and api >= SUSPEND_API
    tracker = await client.open_track_jdwp(serial)
    async with tracker:
        before: set[int] = set()
        with trio.move_on_after(step):
            before = set(await tracker.receive())
        out, _ = await _shell_text(client, serial, start_command(app_id, activity, suspend=suspend), step)
        outcome = parse_am_start(out)
        if not outcome.started:
            if outcome.missing_activity:
                raise LaunchFailed(f"{app_id} has no activity {activity!r} ({outcome.error}); check the name, "
                                   "or omit launch.activity to start the launcher activity")
            raise LaunchFailed(f"am start {app_id}/{activity} failed: {outcome.error}")
        pid = await _wait_new_pid(client, serial, app_id, tracker, before, timeout)
    return Launched(pid, activity, api, suspend, clear_data)


async def _wait_new_pid(client: AdbClient, serial: str, app_id: str, tracker: MessageTracker[list[int]],
                        before: set[int], timeout: float) -> int:
    """The first JDWP pid not in ``before`` whose process belongs to ``app_id``.

    Every second without news, the process list tells whether the app still runs: a start that
    died before it registered for debugging is reported at once, not after the whole timeout.
    """
    deadline = trio.current_time() + timeout
    seen_running = False
    while trio.current_time() < deadline:
        pids: set[int] | None = None
        with trio.move_on_after(min(1.0, max(0.0, deadline - trio.current_time()))):
            pids = set(await tracker.receive())
        if pids is None:
            running = [pid for pid, name in await read_process_list(client, serial) if belongs_to_app(name, app_id)]
            if running:
                seen_running = True
            elif trio.current_time() + timeout - deadline > 2.0 or seen_running:
                raise LaunchFailed(f"{app_id} was started but no process of it runs any more: it died during "
                                   "start (see `adb logcat` for the crash)")
            continue
        fresh = sorted(pids - before)
        if fresh:
            facts = await read_process_facts(client, serial, fresh)
            for pid in fresh:
                found = facts.get(pid)
                if found is not None and belongs_to_app(found.name, app_id):
                    return pid
            before |= set(fresh)  # another app's process: not ours
    running = [pid for pid, name in await read_process_list(client, serial) if belongs_to_app(name, app_id)]
    if running:
        raise DebuggerUnsupported(
            f"{app_id} started (pid {', '.join(map(str, running))}) but never offered a debugger connection "
            f"within {timeout:g} s: it is not debuggable (install a debug build, android:debuggable=true)")
    raise LaunchFailed(f"{app_id} was started but no process of it is running: it died during start "
                       f"(see `adb logcat` for the crash), or it took longer than {timeout:g} s")
