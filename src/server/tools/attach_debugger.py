"""``attach_debugger``: attach the debugger; optionally arm breakpoints and wait for the first stop."""

from __future__ import annotations

import dataclasses
from typing import Annotated, Any

import trio
from pydantic import StrictBool, ValidationError, WithJsonSchema, field_validator

from jdwp.debugger import OMIT_EMPTY, DebuggerError, Stop, exception_request

from ..answers.failures import ToolFailure, failure_of
from ..answers.results import AndroidTarget, BreakpointArmed, LaunchFacts, VmFacts, optional
from ..session.debug_session import DebugSession
from ..session.launching import anr_warning
from ..session.models import AttachInput, capture_of
from ..session.ring import CAPACITY, ENDS, wait_for_kind
from ._tool import Call, Tool
from .resume_debugger import WAIT_SHARE
from .set_debugger_breakpoint import SetBreakpointInput, arm, check
from .set_debugger_exception_breakpoint import ExceptionBreakpointInput

DESCRIPTION = (
    "Start a session; a suspend=y JVM or a launch starts paused. breakpoints: set_debugger_breakpoint or "
    "_exception_breakpoint inputs; wait: answer the first stop.")

#: The most breakpoints one attach arms.
MAX_BREAKPOINTS = 20
#: What an item may not hold: the session is the attach's own, the time the attach's.
_NOT_IN_ITEM = ("debugSessionId", "timeoutMs")


class BreakpointItem(SetBreakpointInput):
    """One of ``breakpoints``: set_debugger_breakpoint's input without the session and the time."""

    debugSessionId: str = "attach"  # the attach's session; an item never gives it (see _items)


class ExceptionItem(ExceptionBreakpointInput):
    """One of ``breakpoints`` that names ``exceptionClass``, ``caught`` or ``uncaught``: set_debugger_exception_
    breakpoint's input without the session and the time (a crash's journey: attach, stop at the throw)."""

    debugSessionId: str = "attach"


#: The fields that make an item an exception breakpoint's (none of them is a line breakpoint's).
_EXCEPTION_FIELDS = ("exceptionClass", "caught", "uncaught")


class AttachAndArmInput(AttachInput):
    """attach_debugger's input: the target, and breakpoints to arm and whether to wait for the first stop."""

    # Schemas of one short line each: the tool definitions have a budget (issue 36); docs/tools.md tells the rest.
    breakpoints: Annotated[tuple[BreakpointItem | ExceptionItem, ...] | None, WithJsonSchema(
        {"type": "array", "items": {"type": "object"}})] = None
    wait: StrictBool = False  # answer the first stop (docs/tools.md)

    @field_validator("breakpoints", mode="before")
    @classmethod
    def _items(cls, given: Any) -> tuple[BreakpointItem | ExceptionItem, ...] | None:
        # Each item checked as its tool checks its input (the model, then the engine's rules that need no
        # session), before anything connects; its error named by its index.
        if given is None:
            return None
        if not isinstance(given, list | tuple):
            raise ValueError("breakpoints is a list of set_debugger_breakpoint or set_debugger_exception_breakpoint "
                             "inputs")
        if len(given) > MAX_BREAKPOINTS:
            raise ValueError(f"breakpoints takes at most {MAX_BREAKPOINTS} items, got {len(given)}")
        items: list[BreakpointItem | ExceptionItem] = []
        for index, item in enumerate(given):
            if not isinstance(item, dict):
                raise ValueError(f"breakpoints[{index}] is not an object")
            extra = [name for name in _NOT_IN_ITEM if name in item]
            if extra:
                raise ValueError(f"breakpoints[{index}]: {' and '.join(extra)} belong to the attach, not an item")
            try:
                if any(name in item for name in _EXCEPTION_FIELDS):
                    thrown = ExceptionItem.model_validate(item)
                    exception_request(thrown.exceptionClass, thrown.caught, thrown.uncaught, capture_of(thrown.capture))
                    items.append(thrown)
                else:
                    line = BreakpointItem.model_validate(item)
                    check(line)
                    items.append(line)
            except (ValidationError, DebuggerError) as exc:
                raise ValueError(f"breakpoints[{index}]: {failure_of(exc).message.removeprefix('invalid input: ')}"
                                 ) from None
        return tuple(items)

    def target(self) -> AttachInput:
        """The target as the session manager takes it (the breakpoints and the wait are this tool's own); this
        input was validated, so the copy is not validated again."""
        return AttachInput.model_construct(self.model_fields_set - {"breakpoints", "wait"},
                                           **{name: getattr(self, name) for name in AttachInput.model_fields})


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
    breakpoints: tuple[BreakpointArmed, ...] = dataclasses.field(default=(), metadata=OMIT_EMPTY)
    #: ``wait``: no stop came within the time (the session goes on; wait_for_debugger_event until stopped).
    timed_out: bool | None = optional()


async def attach(call: Call) -> AttachResult:
    inp: AttachAndArmInput = call.input
    started = trio.current_time()
    session = await call.manager.attach(inp.target())
    try:
        after = session.ring.newest  # a stop of a breakpoint armed next comes after this, even while it is armed
        armed = await _arm(session, inp.breakpoints or ())
        result = _attached(session, armed)
        if inp.wait:
            result = await _first_stop(session, result, after, started + inp.timeoutMs / 1000 * WAIT_SHARE)
    except BaseException:  # the app is attached (a launch's held): a failed answer leaves nothing behind
        await call.manager.abandon(session)
        raise
    call.session = session
    return result


async def _arm(session: DebugSession, items: tuple[BreakpointItem | ExceptionItem, ...]) -> tuple[BreakpointArmed, ...]:
    """Each item set in order; one the engine refuses fails the attach, naming its index (the caller detaches)."""
    engine = session.engine
    assert engine is not None  # just attached
    armed = []
    async with session.lock:
        for index, item in enumerate(items):
            try:
                if isinstance(item, ExceptionItem):
                    made: Any = await engine.set_exception_breakpoint(item.exceptionClass, item.caught, item.uncaught,
                                                                      capture_of(item.capture))
                else:
                    made = await arm(engine, item)
            except DebuggerError as exc:
                failure = failure_of(exc)
                raise ToolFailure(failure.code, f"breakpoints[{index}]: {failure.message} (nothing was left "
                                  "attached)", failure.retryable) from None
            armed.append(BreakpointArmed(made.breakpoint_id, made.status, getattr(made, "reason", None)))
    return tuple(armed)


async def _first_stop(session: DebugSession, result: AttachResult, after: int, deadline: float) -> AttachResult:
    """Resume a start that is paused (suspend=y, a launch) and wait until ``deadline`` for the first stop after
    the event ``after``."""
    engine = session.engine
    assert engine is not None
    start = session.current_stop()
    if start is not None:
        async with session.lock:
            await engine.resume(start.stop_id)
    event = None
    with trio.move_on_at(deadline):
        while True:
            await wait_for_kind(session.ring, after, ENDS, CAPACITY)
            event = next((e for e in session.ring.read(after, CAPACITY).events if e.kind in ENDS), None)
            if event is None or start is None or event.stop is None or event.stop.stop_id != start.stop_id:
                break
            # The start's own stop, published after the attach read the ring: the first stop comes after it.
            after, event = event.sequence, None
    if event is None or event.stop is None:  # none within the time, or the session ended (the envelope says)
        return dataclasses.replace(result, stop=None, timed_out=event is None)
    warnings = (*result.warnings, event.warning) if event.warning else result.warnings
    return dataclasses.replace(result, stop=event.stop, warnings=warnings)


def _attached(session: DebugSession, armed: tuple[BreakpointArmed, ...] = ()) -> AttachResult:
    assert session.target is not None  # a session that started has its target
    facts = session.facts
    stop = session.current_stop()
    warning = anr_warning(session.anr_exempt, at_attach=True) if isinstance(session.target, AndroidTarget) else None
    return AttachResult(session.target.vm, facts.first_reply_ms,
                        facts.release_build_likely, facts.warnings, session.launch, stop, warning, armed)


TOOL = Tool("attach_debugger", "Attach the debugger", DESCRIPTION,
            AttachAndArmInput, attach, AttachResult, read_only=False, idempotent=False, full_envelope=True,
            uncertain_on_interrupt=True, order=20)
