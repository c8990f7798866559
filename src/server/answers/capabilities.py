"""What the server can do, what it cannot, and what a target needs: the capabilities tool's facts.

Layer: ``server``; asks ``android`` for adb and device state (read-only: never attaches).
"""

from __future__ import annotations

import dataclasses

from pyjdwp_android import AdbClient, AdbError

from ..session.config import VERSION
from .failures import ErrorBody
from .results import (
    AdbFacts,
    Capabilities,
    DeviceFacts,
    Limitation,
    Limits,
    Prerequisites,
)

CAPABILITIES = Capabilities(
    profile=f"pyjdwp-{VERSION}",
    operations=("line_breakpoints", "pending_breakpoints", "all_class_loaders", "nested_class_breakpoints",
                "file_breakpoints", "kotlin_inline_breakpoints", "exception_breakpoints", "stop_events", "stack",
                "locals", "captured_variables",
                "runtime_types", "objects", "arrays", "strings", "container_views", "expressions",
                "conditional_breakpoints", "hit_counts", "logpoints", "thread_suspend_breakpoints",
                "step_into", "step_over", "step_out", "step_filters",
                "resume", "detach", "pause", "threads", "thread_monitors", "deadlocks", "launch", "watchpoints",
                "method_breakpoints", "return_values"),
    platforms=("android", "jvm"),
    jdk_required=False,
    limits=Limits(sessions_per_server=4, sessions_per_device=1, breakpoints_per_session=100, frames_per_call=100,
                  frames_per_stop=1000, locals_per_frame=100, string_chars=256, name_chars=1024, event_ring=256,
                  events_per_wait=100),
    limitations=(
        Limitation("no_invocation", "No method invocation or toString(): values are read from fields "
                                    "(--allow-invoke lets expressions call methods)."),
        Limitation("no_mutation", "No mutation of variables or fields, no hot swap, restart frame or forced "
                                  "return (unless --allow-mutation)."),
        Limitation("stops_suspend_all", "A stop suspends every thread (suspend: \"thread\" only the hitting "
                                        "one); left alone, it detaches after the pause limit."),
        Limitation("bytecode_tables", "Kotlin as its debug tables and SMAPs say: inline functions mapped, "
                                      "coroutines from their fields."),
        Limitation("no_native", "Native (C/C++) frames and iOS are not debugged."),
        Limitation("android_anr", "Android spares only the debug app (attached with launch) from ANRs: a stop "
                                  "holding another app's main thread about 5 s with input pending shows "
                                  "\"isn't responding\"."),
        Limitation("private_values", "Local values may be private: returned on request only, never logged."),
    ),
)
#: The limitations in full (attach, get_debugger_capabilities), and as their codes (every other call).
LIMITATIONS: tuple[str, ...] = tuple(limitation.text for limitation in CAPABILITIES.limitations)
LIMITATION_CODES: tuple[str, ...] = tuple(limitation.code for limitation in CAPABILITIES.limitations)
#: A server started with --allow-invoke: expressions may call methods, so no_invocation is gone; another
#: profile name, since a profile names one full set.
INVOKE_CAPABILITIES = dataclasses.replace(
    CAPABILITIES, profile=f"pyjdwp-{VERSION}+invoke", operations=(*CAPABILITIES.operations, "method_invocation"),
    limitations=tuple(lim for lim in CAPABILITIES.limitations if lim.code != "no_invocation"))
#: ``--allow-mutation``: values change, classes reload, frames restart, returns are forced; what stays out is
#: a change of a class's shape, which neither HotSpot nor ART redefines.
BODIES_ONLY = Limitation("bodies_only", "Hot swap reloads method bodies only (no field, method, modifier or "
                                        "hierarchy change); frames in old code keep it until they return.")
MUTATIONS = ("set_value", "redefine_classes", "restart_frame", "force_return")


def _with_mutation(capabilities: Capabilities) -> Capabilities:
    return dataclasses.replace(
        capabilities, profile=capabilities.profile + "+mutation", operations=(*capabilities.operations, *MUTATIONS),
        limitations=tuple(BODIES_ONLY if lim.code == "no_mutation" else lim for lim in capabilities.limitations))


#: Limitations every session of the profile has, whatever its server flags, platform or target: attach (and
#: get_debugger_capabilities) say them; every other call names only the rest — what this session's server
#: flags, platform and target add (no_invocation, android_anr, release_build, …) — to stay ≤ 200 B a call.
PROFILE_WIDE = frozenset({"no_mutation", "stops_suspend_all", "bytecode_tables", "no_native", "private_values"})
#: Limitations that hold on one platform only: a JVM session is not told about Android's ANRs.
PLATFORM_ONLY = {"android_anr": "android"}
#: Operations of one platform only: ``launch`` starts an Android app (``am start -D``); a JVM is started by
#: its user, with -agentlib:jdwp (``suspend=y`` holds it before ``main``).
PLATFORM_OPERATIONS = {"launch": "android"}


def operations_on(capabilities: Capabilities, platform: str) -> tuple[str, ...]:
    """The operations a target of ``platform`` supports (get_debugger_capabilities' ``supported_operations``);
    ``capabilities.operations`` stays the profile's, over every platform it names."""
    return tuple(op for op in capabilities.operations if PLATFORM_OPERATIONS.get(op, platform) == platform)


def capabilities_for(allow_invoke: bool, platform: str | None = None, allow_mutation: bool = False,
                     ) -> tuple[Capabilities, tuple[str, ...], tuple[str, ...]]:
    """The capabilities, the limitations' texts and their codes of a server with or without --allow-invoke
    and --allow-mutation; with a ``platform``, only the limitations that hold there (the capabilities keep
    the full set)."""
    if not allow_invoke and not allow_mutation and platform is None:
        return CAPABILITIES, LIMITATIONS, LIMITATION_CODES
    capabilities = INVOKE_CAPABILITIES if allow_invoke else CAPABILITIES
    if allow_mutation:
        capabilities = _with_mutation(capabilities)
    found = [lim for lim in capabilities.limitations if PLATFORM_ONLY.get(lim.code, platform) == platform]
    return capabilities, tuple(lim.text for lim in found), tuple(lim.code for lim in found)


async def describe_prerequisites(adb: AdbClient, serial: str) -> Prerequisites:
    """adb reachability and the device's state, as facts (never an exception)."""
    server = f"{adb.address.host}:{adb.address.port}"
    try:
        version = await adb.version()
    except AdbError as exc:
        return Prerequisites(False, adb=AdbFacts(server, False, error=ErrorBody(exc.code, str(exc), exc.retryable)))
    facts = AdbFacts(server, True, version)
    try:
        devices = await adb.devices()
    except AdbError as exc:
        return Prerequisites(False, adb=facts, device=DeviceFacts(
            serial, "unknown", error=ErrorBody(exc.code, str(exc), exc.retryable)))
    match = next((d for d in devices if d.serial == serial), None)
    if match is None:
        device = DeviceFacts(serial, "absent", known_devices=tuple(d.serial for d in devices))
    else:
        device = DeviceFacts(serial, match.state, attributes=dict(match.attributes))
    return Prerequisites(False, adb=facts, device=device)
