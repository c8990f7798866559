"""``attach_debugger``: attach the debugger."""

from __future__ import annotations

import dataclasses

from jdwp.debugger import OMIT_EMPTY, Stop

from ..debug_session import DebugSession
from ..launching import anr_warning
from ..models import AttachInput
from ..results import AndroidTarget, LaunchFacts, VmFacts, optional
from ._tool import Call, Tool

DESCRIPTION = (
    "Start a session. A suspend=y JVM or a launch starts paused: set breakpoints, then resume_debugger.")


@dataclasses.dataclass(frozen=True, slots=True)
class AttachResult:
    """What attach answers beside the envelope, which has the session's id and the target's identity: the VM
    (its facts said once, here), and what the attach itself found. The operations are
    get_debugger_capabilities' answer."""

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
    return AttachResult(session.target.vm, facts.first_reply_ms,
                        facts.release_build_likely, facts.warnings, session.launch, stop, warning)


TOOL = Tool("attach_debugger", "Attach the debugger", DESCRIPTION,
            AttachInput, attach, AttachResult, read_only=False, idempotent=False, full_envelope=True,
            uncertain_on_interrupt=True, order=20)
