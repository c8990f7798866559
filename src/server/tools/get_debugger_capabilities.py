"""``get_debugger_capabilities``: check debugger prerequisites."""

from __future__ import annotations

import dataclasses

from pyjdwp_android import AdbError, discover

from ..answers.capabilities import capabilities_for, describe_prerequisites, operations_on
from ..answers.failures import ErrorBody
from ..answers.results import AndroidTarget, JvmFacts, Limits, Prerequisites, StartIdentity, optional
from ..session.launching import debug_states
from ..session.models import TargetInput
from ..session.targets import check_jvm_address, device_key
from ._tool import Call, Tool

DESCRIPTION = (
    "Check a target before attaching; the operations and limitations.")


@dataclasses.dataclass(frozen=True, slots=True)
class Candidate:
    pid: int
    name: str
    uid: int | None
    start_identity: StartIdentity
    debuggable: bool
    busy: bool
    #: Whether the process runs as the debug app, spared ANRs (``dumpsys activity processes``); absent when
    #: the device could not tell.
    anr_exempt: bool | None = optional()


@dataclasses.dataclass(frozen=True, slots=True)
class CapabilitiesResult:
    prerequisites: Prerequisites
    candidates: tuple[Candidate, ...]
    supported_operations: tuple[str, ...]
    limitations: tuple[str, ...]
    busy_note: str
    #: The server's bounds (sessions, breakpoints, frames, string characters, events): said here, before an
    #: attach, and not in every attach's answer.
    limits: Limits | None = optional()


async def get_capabilities(call: Call) -> CapabilitiesResult:
    inp: TargetInput = call.input
    candidates: list[Candidate] = []
    if inp.platform == "jvm":
        jvm = await check_jvm_address(inp, call.manager.config)
        prerequisites = Prerequisites(False, jvm=JvmFacts(jvm.text, jvm.loopback,
                                                          "attach_debugger verifies that a JDWP agent answers"))
    else:
        prerequisites = await describe_prerequisites(call.manager.adb, inp.deviceId or "")
        if prerequisites.device is not None and prerequisites.device.state == "device":
            ours = call.manager.session_on(device_key(inp))
            ours_pid = ours.target.pid if ours and isinstance(ours.target, AndroidTarget) else None
            try:
                found = await discover(call.manager.adb, inp.deviceId or "", inp.appId or "")
            except AdbError as exc:
                prerequisites = dataclasses.replace(
                    prerequisites, discovery_error=ErrorBody(exc.code, str(exc), exc.retryable))
                found = []
            shown = [p for p in found if inp.processId is None or p.facts.pid == inp.processId]
            exempt = await debug_states(call.manager.adb, inp.deviceId or "", [p.facts.pid for p in shown])
            for process in shown:
                facts = process.facts
                candidates.append(Candidate(facts.pid, facts.name, facts.uid,
                                            StartIdentity(facts.start_ticks, facts.boot_id), process.debuggable,
                                            facts.pid == ours_pid, exempt.get(facts.pid)))
    capabilities, limitations, _ = capabilities_for(call.manager.config.allow_invoke, inp.platform,
                                                      call.manager.config.allow_mutation)
    return CapabilitiesResult(
        prerequisites, tuple(candidates), operations_on(capabilities, inp.platform), limitations,
        "busy is true when this server debugs the process; another debugger (e.g. Android Studio) shows only "
        "at attach, as DEBUGGER_BUSY", capabilities.limits)


TOOL = Tool("get_debugger_capabilities", "Check debugger prerequisites", DESCRIPTION,
            TargetInput, get_capabilities, CapabilitiesResult, read_only=True, idempotent=True, full_envelope=True,
            order=10)
