"""What the server can do, what it cannot, and what a target needs: the capabilities tool's facts.

Layer: ``server``; asks ``android`` for adb and device state (read-only: never attaches).
"""

from __future__ import annotations

from typing import Any

from android import AdbClient, AdbError

CAPABILITIES: dict[str, Any] = {
    "operations": [
        "line_breakpoints", "pending_breakpoints", "all_class_loaders", "stop_events", "stack", "locals",
        "step_into", "step_over", "step_out", "step_filters", "resume", "detach",
    ],
    "platforms": ["android", "jvm"],
    "jdk_required": False,
    "limits": {"sessions_per_server": 4, "sessions_per_device": 1, "breakpoints_per_session": 100,
               "frames_per_call": 100, "frames_per_stop": 1000, "locals_per_frame": 100, "string_chars": 256,
               "event_ring": 256, "events_per_wait": 100},
}

LIMITATIONS: list[str] = [
    "No expression evaluation, method invocation, toString() or field traversal; objects show type and id only.",
    "No mutation of variables or fields, no hot swap.",
    "Stops suspend every thread of the app; a stop left alone detaches after the pause limit.",
    "Kotlin and other JVM languages show what their bytecode debug tables say (no coroutine reconstruction).",
    "Native (C/C++) frames and iOS are not debugged.",
    "Local values may be private: returned only on request, never logged or stored.",
]


async def describe_prerequisites(adb: AdbClient, serial: str) -> dict[str, Any]:
    """adb reachability and the device's state, as facts (never an exception)."""
    facts: dict[str, Any] = {"jdk_required": False,
                             "adb": {"server": f"{adb.address.host}:{adb.address.port}"}}
    try:
        facts["adb"]["version"] = await adb.version()
        facts["adb"]["available"] = True
    except AdbError as exc:
        facts["adb"].update(available=False, error={"code": exc.code, "message": str(exc)})
        return facts
    try:
        devices = await adb.devices()
    except AdbError as exc:
        facts["device"] = {"serial": serial, "state": "unknown", "error": {"code": exc.code, "message": str(exc)}}
        return facts
    match = next((d for d in devices if d.serial == serial), None)
    if match is None:
        facts["device"] = {"serial": serial, "state": "absent",
                           "known_devices": [d.serial for d in devices]}
    else:
        facts["device"] = {"serial": serial, "state": match.state, "attributes": dict(match.attributes)}
    return facts
