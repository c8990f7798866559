"""What the engine reports: breakpoints, stops, frames, locals, events and cleanup, as frozen records.

Layer: ``jdwp.debugger`` (data only). Field names match the MCP payloads of DESIGN.md §5, so the server
serialises them without renaming. IDs handed out here are opaque strings.

Names the VM supplies (thread, class, method, source, variable and type names, messages) are cut to
:data:`MAX_NAME` UTF-16 units by the records themselves, and each record lists in ``truncated_names``
which of its own fields were cut (a nested record, such as a stop's location, lists its own). Text stays
real Python text, lone surrogates included: making it JSON-safe is the server's business.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Literal

from .names import java_prefix
from .requests.capture import Capture
from .requests.hits import HitOptions

BreakpointStatus = Literal["pending", "verified", "rejected", "spent"]
StopReason = Literal["breakpoint", "step", "vm_start", "pause", "launch", "exception"]
StepKind = Literal["into", "over", "out"]
Availability = Literal["available", "unavailable", "unknown"]
LocalKind = Literal["primitive", "null", "string", "object", "array", "unavailable"]
TerminalReason = Literal["detached", "vm_death", "disconnected", "failed"]

LOCATION_UNAVAILABLE = "DEBUGGER_LOCATION_UNAVAILABLE"
NEAR_MISS = "DEBUGGER_NEAR_MISS"
"""The reason code of a pending breakpoint whose name looks mistyped (still pending: the class may load)."""
EMPTY_OR_UNAVAILABLE = "EMPTY_OR_UNAVAILABLE_VARIABLE_METADATA"
ABSENT_INFORMATION = "ABSENT_INFORMATION"
NATIVE_METHOD = "NATIVE_METHOD"
NO_CODE_INDEX = -1
"""The ``code_index`` of a native method's location (JDWP sends the unsigned 64-bit -1, past JSON's 2^53)."""

#: The most UTF-16 units of any name or message the VM supplies (DESIGN.md §5; values are cut at 256).
MAX_NAME = 1024
#: Metadata of a field a serialiser leaves out while it is empty (``None``, ``()``): ``truncated_names`` is
#: there only when something was cut, a stop's ``pending_steps`` only when there are some, so an ordinary
#: answer stays short.
OMIT_EMPTY = {"omit_empty": True}


def _truncated_names() -> Any:
    return dataclasses.field(default=(), metadata=OMIT_EMPTY)


def _flag() -> Any:
    """A flag a serialiser shows only when it is true (``inlined``, ``captured``)."""
    return dataclasses.field(default=False, metadata=OMIT_EMPTY)


def bound_names(record: Any, *fields: str) -> None:
    """Cut each of ``fields`` of a record being built to :data:`MAX_NAME` UTF-16 units; list the cut ones.

    The records bound themselves, rather than each place that fills them, so that every producer (and a
    library user's own code) gets the same bound and the same signal: a VM may name a thread with a
    million characters, and one stop — or a poll of a hundred — must stay small.
    """
    cut = []
    for name in fields:
        text = getattr(record, name)
        if text is None or len(text) <= MAX_NAME // 2:  # so few code points cannot exceed it in UTF-16 units
            continue
        shown, length = java_prefix(text, MAX_NAME)
        if length > MAX_NAME:
            object.__setattr__(record, name, shown)  # frozen: this is the record's own construction
            cut.append(name)
    if cut:
        object.__setattr__(record, "truncated_names", tuple(dict.fromkeys((*record.truncated_names, *cut))))


@dataclasses.dataclass(frozen=True, slots=True)
class SourcePosition:
    """Where code is: class, method, source file and line (``None`` when the class lacks the table).

    ``inlined``: the code was inlined from another function (Kotlin); ``source`` and ``line`` are that
    function's, not the line numbers of the class that runs it.
    """

    class_name: str
    method: str
    source: str | None
    line: int | None
    code_index: int
    inlined: bool = _flag()
    truncated_names: tuple[str, ...] = _truncated_names()

    def __post_init__(self) -> None:
        bound_names(self, "class_name", "method", "source")


@dataclasses.dataclass(frozen=True, slots=True)
class BoundLocation:
    """One place a breakpoint is bound: a code index in one class, as loaded by one class loader.

    ``source`` and ``line`` are the requested ones; ``inlined`` says the class runs that line as a copy
    of an inline function's body (Kotlin), found through its source map.
    """

    class_name: str
    method: str
    source: str | None
    line: int
    code_index: int
    class_loader_id: str
    inlined: bool = _flag()
    truncated_names: tuple[str, ...] = _truncated_names()
    #: The code index runs a lambda of the line (:mod:`.lambdas`); ``lambda_ordinal`` is its place among the
    #: line's lambdas in source order, from 0 (IntelliJ's "lambda n").
    in_lambda: bool = _flag()
    lambda_ordinal: int | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)

    def __post_init__(self) -> None:
        bound_names(self, "class_name", "method", "source")


@dataclasses.dataclass(frozen=True, slots=True)
class SkippedLocation:
    """A code index of the line a breakpoint does not bind, and why: its condition or log message names a
    variable that is not in scope there (DESIGN.md §8.3)."""

    class_name: str
    method: str
    code_index: int
    reason: str
    in_lambda: bool = _flag()
    lambda_ordinal: int | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)
    truncated_names: tuple[str, ...] = _truncated_names()

    def __post_init__(self) -> None:
        bound_names(self, "class_name", "method", "reason")


@dataclasses.dataclass(frozen=True, slots=True)
class Reason:
    code: str
    message: str
    truncated_names: tuple[str, ...] = _truncated_names()

    def __post_init__(self) -> None:
        bound_names(self, "message")


@dataclasses.dataclass(frozen=True, slots=True)
class Breakpoint:
    """A line breakpoint, requested by class (``class_name``) or by source file (``file``): one is set."""

    breakpoint_id: str
    class_name: str | None
    line: int
    status: BreakpointStatus
    locations: tuple[BoundLocation, ...] = ()
    reason: Reason | None = None
    file: str | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)
    #: Condition, hit count, logpoint and suspend options (:mod:`.hits`), when any was given.
    options: HitOptions | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)
    #: With options: hits that passed the condition so far, and logpoint hits not captured (rate limit).
    hits: int | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)
    dropped: int | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)
    #: The ``lambda`` choice when not ``"all"`` (:mod:`.lambdas`), and the line's code indexes not bound
    #: because the condition or message names a variable out of scope there.
    lambda_choice: str | int | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)
    skipped: tuple[SkippedLocation, ...] = dataclasses.field(default=(), metadata=OMIT_EMPTY)

    @property
    def kind(self) -> Literal["line"]:
        """Breakpoints of every kind sit in one list; this one is a line's (see :class:`ExceptionBreakpoint`)."""
        return "line"

    @property
    def requested(self) -> dict[str, Any]:
        """What was asked for, as given: ``{class_name, line}`` or ``{file, line}``."""
        if self.file is not None:
            return {"file": self.file, "line": self.line}
        return {"class_name": self.class_name, "line": self.line}


@dataclasses.dataclass(frozen=True, slots=True)
class ExceptionBreakpoint:
    """A breakpoint on thrown exceptions: of ``exception_class`` and its subclasses (``None``: every throwable),
    when ``caught`` and/or ``uncaught``. ``pending`` until that class loads, then ``verified``."""

    breakpoint_id: str
    exception_class: str | None
    caught: bool
    uncaught: bool
    status: BreakpointStatus
    capture: Capture | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)

    @property
    def kind(self) -> Literal["exception"]:
        return "exception"

    @property
    def requested(self) -> dict[str, Any]:
        return {"exception_class": self.exception_class, "caught": self.caught, "uncaught": self.uncaught}


AnyBreakpoint = Breakpoint | ExceptionBreakpoint


@dataclasses.dataclass(frozen=True, slots=True)
class ThrownException:
    """The exception of an ``exception`` stop, read without running app code.

    ``type`` is its runtime class; ``message`` its ``Throwable.detailMessage`` field (``None`` when null, cut
    at 256 UTF-16 units: ``truncated``, ``length`` the full length) — what ``getMessage()`` returns unless a
    subclass overrides it, which is never run. ``object_id`` is the session's handle of the exception
    object; ``catch_location`` is ``None`` when nothing in Java code catches it.
    """

    type: str
    message: str | None
    object_id: str
    throw_location: SourcePosition | None
    catch_location: SourcePosition | None
    truncated: bool = False
    length: int | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)
    truncated_names: tuple[str, ...] = _truncated_names()

    def __post_init__(self) -> None:
        bound_names(self, "type")


@dataclasses.dataclass(frozen=True, slots=True)
class PendingStep:
    """A step still in flight in another thread: it goes on once this stop is resumed."""

    thread_name: str
    kind: StepKind
    truncated_names: tuple[str, ...] = _truncated_names()

    def __post_init__(self) -> None:
        bound_names(self, "thread_name")


@dataclasses.dataclass(frozen=True, slots=True)
class Stop:
    """A suspension of the VM that we own: one event set (or several events delivered together).

    ``location`` is ``None`` when the thread has run no code yet (``vm_start`` before ``main``; ``note``
    says so). ``pending_steps`` are other threads' steps that go on after this stop; ``ended_step`` is the
    kind of this thread's own step that a breakpoint reached first ended. A ``pause`` stop has no thread
    of its own: ``thread_id`` and ``thread_name`` are ``None`` (every thread is suspended). ``exception``
    is the thrown exception of an ``exception`` stop (an exception breakpoint's), else ``None``.
    """

    stop_id: str
    #: The first of ``reasons``: what a reader looks at first.
    reason: StopReason = dataclasses.field(init=False)
    reasons: tuple[StopReason, ...]
    thread_id: str | None
    thread_name: str | None
    location: SourcePosition | None
    breakpoint_ids: tuple[str, ...]
    pending_steps: tuple[PendingStep, ...] = dataclasses.field(default=(), metadata=OMIT_EMPTY)
    ended_step: StepKind | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)
    note: str | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)
    #: Why a breakpoint's condition could not be evaluated at this hit (it stops rather than skip silently).
    condition_error: str | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)
    #: ``thread`` when only the hitting thread is held (``suspend: "thread"``); other threads run on.
    suspended: Literal["all", "thread"] | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)
    exception: ThrownException | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)
    truncated_names: tuple[str, ...] = _truncated_names()
    #: Frame 0 of the stop's thread, for locals and expressions without listing the stack first (``None``: a
    #: pause, or a thread with no frames yet).
    frame_id: str | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)
    #: What the stop's requests asked to read as it was made (:mod:`.requests.capture`).
    capture: Captured | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)

    def __post_init__(self) -> None:
        object.__setattr__(self, "reason", self.reasons[0])  # frozen: this is the record's own construction
        bound_names(self, "thread_name", "condition_error")


#: An error as a value (an expression's, a capture's part): its stable code (DESIGN.md §5) and message, as a
#: breakpoint's reason has them.
ErrorInfo = Reason


@dataclasses.dataclass(frozen=True, slots=True)
class Evaluated:
    """One expression of several: its ``value`` as a local shows it, or the ``error`` that stopped it."""

    expression: str
    #: A :class:`~.reading.values.Summary` (typed loosely: that floor builds on this one).
    value: Any = dataclasses.field(default=None, metadata=OMIT_EMPTY)
    error: ErrorInfo | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)


@dataclasses.dataclass(frozen=True, slots=True)
class Captured:
    """What a stop read as it was made: its top ``frames`` (``stack`` of them), frame 0's ``locals`` (only
    when asked) and each expression's outcome in the order given; ``error`` when a part could not be read."""

    frames: tuple[Frame, ...] = dataclasses.field(default=(), metadata=OMIT_EMPTY)
    locals: Locals | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)
    expressions: tuple[Evaluated, ...] = dataclasses.field(default=(), metadata=OMIT_EMPTY)
    error: ErrorInfo | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)


@dataclasses.dataclass(frozen=True, slots=True)
class Frame:
    """A frame of a stopped thread; ``inlined`` as for :class:`SourcePosition`."""

    frame_id: str
    index: int
    class_name: str
    method: str
    source: str | None
    line: int | None
    code_index: int
    inlined: bool = _flag()
    truncated_names: tuple[str, ...] = _truncated_names()

    def __post_init__(self) -> None:
        bound_names(self, "class_name", "method", "source")


@dataclasses.dataclass(frozen=True, slots=True)
class StackPage:
    frames: tuple[Frame, ...]
    total: int
    next_offset: int | None
    truncated: bool


@dataclasses.dataclass(frozen=True, slots=True)
class Local:
    """One variable. ``value`` is text: a primitive as Java prints it, a string (maybe cut), or ``None``.

    ``length`` is a string's full length in UTF-16 units (Java's ``String.length()``; strings are cut at
    256 of those) or an array's length; ``object_id`` is the session's handle of an object, string or
    array (the same object keeps it in every stop: ``Debugger.object`` reads it); ``runtime_type`` the
    object's class, which may be narrower than the declared ``type``. A variable the VM could not read
    has kind ``unavailable`` and the VM's ``reason`` (e.g. ``INVALID_SLOT``). ``captured`` marks a
    variable of an enclosing method that a lambda or local class captured (read from a field of ``this``).
    """

    name: str
    type: str
    kind: LocalKind
    value: str | None
    truncated: bool = False
    length: int | None = None
    object_id: str | None = None
    runtime_type: str | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)
    reason: str | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)
    captured: bool = _flag()
    truncated_names: tuple[str, ...] = _truncated_names()
    #: Why the value is shown only in part or not at all (a string too large for the VM to send whole).
    note: str | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)

    def __post_init__(self) -> None:
        bound_names(self, "name", "type")


@dataclasses.dataclass(frozen=True, slots=True)
class Locals:
    availability: Availability
    locals: tuple[Local, ...]
    this: Local | None = None
    reason: str | None = None
    truncated: bool = False


@dataclasses.dataclass(frozen=True, slots=True)
class Cleanup:
    """What detaching achieved: ``status`` and whether the app is known to run again; ``remaining`` and
    ``errors`` (left out of answers while empty) say what was not undone and why."""

    status: Literal["pending", "complete", "failed"]
    execution_state: Literal["running", "unknown"]
    remaining: tuple[str, ...] = dataclasses.field(default=(), metadata=OMIT_EMPTY)
    errors: tuple[str, ...] = dataclasses.field(default=(), metadata=OMIT_EMPTY)
    #: How the evidence was obtained, when it needs saying (a retry's "agent reset").
    notes: tuple[str, ...] = dataclasses.field(default=(), metadata=OMIT_EMPTY)


# --- events the engine publishes (the server keeps them in its ring) --------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class Stopped:
    stop: Stop
    kind: Literal["stopped"] = "stopped"


@dataclasses.dataclass(frozen=True, slots=True)
class BreakpointVerified:
    breakpoint: AnyBreakpoint
    kind: Literal["breakpoint_verified"] = "breakpoint_verified"


@dataclasses.dataclass(frozen=True, slots=True)
class BreakpointRejected:
    breakpoint: AnyBreakpoint
    kind: Literal["breakpoint_rejected"] = "breakpoint_rejected"


@dataclasses.dataclass(frozen=True, slots=True)
class Terminated:
    reason: TerminalReason
    message: str
    kind: Literal["terminated"] = "terminated"
    truncated_names: tuple[str, ...] = _truncated_names()

    def __post_init__(self) -> None:
        bound_names(self, "message")


@dataclasses.dataclass(frozen=True, slots=True)
class LogpointHit:
    """A logpoint's hit, captured: ``dropped`` hits of the session were counted but not captured since the
    previous one (more than 100 a second). ``message`` holds app values: never log it."""

    breakpoint_id: str
    thread_name: str
    location: SourcePosition | None
    message: str
    captured_at_ms: int
    dropped: int = 0
    condition_error: str | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)
    kind: Literal["logpoint"] = "logpoint"
    truncated_names: tuple[str, ...] = _truncated_names()

    def __post_init__(self) -> None:
        bound_names(self, "thread_name", "message", "condition_error")


@dataclasses.dataclass(frozen=True, slots=True)
class BreakpointSpent:
    """A logpoint reached its ``maxHits``: its requests are cleared (status ``spent``)."""

    breakpoint: Breakpoint
    kind: Literal["breakpoint_spent"] = "breakpoint_spent"


EngineEvent = (Stopped | BreakpointVerified | BreakpointRejected | Terminated | LogpointHit
               | BreakpointSpent)
