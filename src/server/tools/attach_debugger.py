"""``attach_debugger``: attach the debugger."""

from __future__ import annotations

import dataclasses

from jdwp.debugger import OMIT_EMPTY, Stop

from ..debug_session import DebugSession
from ..launching import anr_warning
from ..models import TARGET_HELP, AttachInput
from ..results import AndroidTarget, LaunchFacts, Target, VmFacts, optional
from ._tool import Call, Tool

DESCRIPTION = (
    "Attach to a running, debuggable process and start a session; returns debug_session_id. The app keeps "
    "running — unless it waits for a debugger (a JVM started with suspend=y): then the state is paused on a "
    "vm_start stop before main; set breakpoints, then resume_debugger. One session per device (per address "
    "for a JVM), four per server. " + TARGET_HELP +
    " If the app runs several debuggable processes, pass processId (PROCESS_AMBIGUOUS lists them). "
    "Android start-up code (Application.onCreate, the first Activity.onCreate): pass launch: {activity?, "
    "clearData?} — the app is force-stopped, started waiting for a debugger (the launcher activity when "
    "activity is omitted) and held before its code runs: state paused on a stop of reason launch; set "
    "breakpoints, then resume_debugger starts it. An app already waiting for a debugger is held the same "
    "way. target.app.anr_exempt says whether Android spares the app ANRs (only a launched app is): "
    "otherwise keep stops under about 5 s. Next: set_debugger_breakpoint, then wait_for_debugger_event.")


@dataclasses.dataclass(frozen=True, slots=True)
class AttachResult:
    debug_session_id: str
    target: Target
    vm: VmFacts | None
    #: How long the VM took to answer its first command (on Android: loading the JDWP agent).
    first_reply_ms: int | None = optional()
    #: Android: most sampled app classes lack local-variable tables (locals will be unavailable).
    release_build_likely: bool | None = optional()
    warnings: tuple[str, ...] = dataclasses.field(default=(), metadata=OMIT_EMPTY)
    launch: LaunchFacts | None = optional()
    stop: Stop | None = optional()
    anr_warning: str | None = optional()


async def attach(call: Call) -> AttachResult:
    session = await call.manager.attach(call.input)
    try:
        result = _attached(session)
    except BaseException:  # the app is attached (a launch's held): a failed answer leaves nothing behind
        await call.manager.abandon(session)
        raise
    call.session = session
    return result


def _attached(session: DebugSession) -> AttachResult:
    assert session.target is not None  # a session that started has its target
    facts = session.facts
    stop = session.current_stop()
    warning = anr_warning(session.anr_exempt, at_attach=True) if isinstance(session.target, AndroidTarget) else None
    return AttachResult(session.id, session.target, session.target.vm, facts.first_reply_ms,
                        facts.release_build_likely, facts.warnings, session.launch, stop, warning)


TOOL = Tool("attach_debugger", "Attach the debugger", DESCRIPTION,
            AttachInput, attach, AttachResult, read_only=False, idempotent=False, full_envelope=True,
            uncertain_on_interrupt=True, order=20)
