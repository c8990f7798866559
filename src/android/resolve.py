"""Target resolution: from (device, appId, optional pid) to exactly one debuggable process, and back.

Layer: ``android``; uses ``pyjdwp_android.client`` and ``pyjdwp_android.device``; never imports ``jdwp``.
Spec: docs/design.md §4.4 ("Resolution"), error codes from §5.6.

Rules:
- the device is always named; it must be in the ``device`` state (DEVICE_UNAVAILABLE otherwise);
- the app's processes are those named ``appId`` or ``appId:<suffix>``;
- without a pid, exactly one JDWP-visible app process must exist (PROCESS_AMBIGUOUS lists them);
- the app running without any JDWP-visible process is DEBUGGER_UNSUPPORTED (not debuggable); the fix
  offered is a debug build of the app, never a userdebug/eng device: ART runs a non-debuggable app there
  with its code still optimised, so locals stay mostly unavailable (see ``pyjdwp_android.debuggability``);
- nothing running is PROCESS_NOT_FOUND;
- the identity (pid, uid, name, start time + boot id) is re-read after attach: PROCESS_CHANGED.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .client import AdbClient, validate_serial
from .device import (
    ProcessFacts,
    ProcessIdentity,
    belongs_to_app,
    read_package_uid,
    read_process_facts,
    read_process_list,
    validate_app_id,
    validate_pid,
)
from .errors import Candidate, DebuggerUnsupported, ProcessAmbiguous, ProcessChanged, ProcessNotFound
from .track_app import FEATURE, read_app_processes

__all__ = ["DiscoveredProcess", "ResolvedTarget", "discover", "recheck_identity", "resolve_target"]

_NOT_USERDEBUG = ("; a userdebug/eng device is no substitute: it lets a debugger attach, but ART keeps a "
                  "non-debuggable app's code optimised, so locals stay mostly unavailable")


@dataclass(frozen=True)
class DiscoveredProcess:
    """A process of the app, as reported to the user before attaching."""

    facts: ProcessFacts
    debuggable: bool

    @property
    def candidate(self) -> Candidate:
        return Candidate(self.facts.pid, self.facts.name, self.facts.uid)


@dataclass(frozen=True)
class ResolvedTarget:
    """The one process to attach to, with the identity to re-check after attaching."""

    serial: str
    app_id: str
    facts: ProcessFacts
    package_uid: int | None = None
    others: tuple[DiscoveredProcess, ...] = field(default=(), compare=False)

    @property
    def pid(self) -> int:
        return self.facts.pid

    @property
    def identity(self) -> ProcessIdentity:
        return self.facts.identity


async def discover(client: AdbClient, serial: str, app_id: str) -> list[DiscoveredProcess]:
    """Every running process of the app, debuggable (JDWP-visible) ones first, each sorted by pid.

    Costs: one device-list query, one ``track-jdwp`` read and at most two shell calls.

    Raises:
        InvalidArgument, DeviceNotFound, DeviceUnavailable, AdbConnectionError, AdbTimeout,
        ShellCommandFailed.
    """
    validate_serial(serial)
    validate_app_id(app_id)
    await client.require_device(serial)
    jdwp_pids = await _jdwp_visible(client, serial)
    facts = await read_process_facts(client, serial, sorted(jdwp_pids))
    debuggable = [
        DiscoveredProcess(f, True) for f in facts.values() if f is not None and belongs_to_app(f.name, app_id)
    ]
    if debuggable:
        return sorted(debuggable, key=lambda p: p.facts.pid)
    # No debuggable process: find out whether the app runs at all, to tell "not debuggable" from
    # "not running". Only then is the full process list worth a shell call.
    running = [pid for pid, name in await read_process_list(client, serial) if belongs_to_app(name, app_id)]
    if not running:
        return []
    others = await read_process_facts(client, serial, sorted(running))
    return [
        DiscoveredProcess(f, False)
        for f in others.values()
        if f is not None and belongs_to_app(f.name, app_id) and f.pid not in jdwp_pids
    ]


async def _jdwp_visible(client: AdbClient, serial: str) -> set[int]:
    # Android 12+ adbd reports debuggable and profileable processes through track-app; only the
    # debuggable ones accept jdwp:<pid>. Older devices have only the JDWP pid list.
    if FEATURE in await client.features(serial):
        return {p.pid for p in await read_app_processes(client, serial) if p.debuggable}
    return set(await client.jdwp_pids(serial))


async def resolve_target(client: AdbClient, serial: str, app_id: str, pid: int | None = None) -> ResolvedTarget:
    """Resolve the single process to debug.

    Args:
        client: the ADB client.
        serial: the device, named explicitly (never guessed).
        app_id: the Android package name.
        pid: the process to pick when the app has several debuggable processes.

    Raises:
        InvalidArgument: malformed serial, appId or pid.
        DeviceNotFound, DeviceUnavailable: the device is absent, offline or unauthorized.
        ProcessNotFound: no process of the app (or no such pid in the app) is running.
        ProcessAmbiguous: several debuggable processes and no pid given; lists them.
        DebuggerUnsupported: the app runs but none of its processes is JDWP-visible.
        AdbConnectionError, AdbTimeout, ShellCommandFailed: talking to the device failed.
    """
    if pid is not None:
        validate_pid(pid)
    processes = await discover(client, serial, app_id)
    debuggable = [p for p in processes if p.debuggable]
    if pid is not None:
        chosen = [p for p in processes if p.facts.pid == pid]
        if not chosen:
            running = ", ".join(str(p.candidate) for p in processes) or "none"
            raise ProcessNotFound(f"no process {pid} of {app_id} runs on {serial}; the app's processes: {running}")
        if not chosen[0].debuggable:
            raise DebuggerUnsupported(
                f"process {pid} ({chosen[0].facts.name}) runs but is not debuggable: install a debug build of "
                f"the app (android:debuggable=true){_NOT_USERDEBUG}"
            )
        picked = chosen[0]
    elif len(debuggable) == 1:
        picked = debuggable[0]
    elif len(debuggable) > 1:
        raise ProcessAmbiguous(app_id, [p.candidate for p in debuggable])
    elif processes:
        names = ", ".join(str(p.candidate) for p in processes)
        raise DebuggerUnsupported(
            f"{app_id} runs ({names}) but exposes no JDWP endpoint, so it is not debuggable: install a "
            f"debug build of the app (android:debuggable=true){_NOT_USERDEBUG}"
        )
    else:
        raise ProcessNotFound(f"{app_id} is not running on {serial}: start the app, then retry")
    package_uid = await read_package_uid(client, serial, app_id)
    return ResolvedTarget(serial, app_id, picked.facts, package_uid, tuple(processes))


async def recheck_identity(client: AdbClient, target: ResolvedTarget) -> None:
    """Re-read the target's identity; call before and after attaching.

    Raises:
        ProcessChanged: the pid is gone or its uid, name, start time or boot differ.
        DeviceNotFound, DeviceUnavailable, AdbConnectionError, AdbTimeout, ShellCommandFailed.
    """
    facts = (await read_process_facts(client, target.serial, [target.pid])).get(target.pid)
    if facts is None:
        raise ProcessChanged(target.pid, "the process exited")
    differences = target.identity.differences(facts.identity)
    if differences:
        raise ProcessChanged(target.pid, "; ".join(differences))
