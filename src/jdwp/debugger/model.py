"""What the engine reports: breakpoints, stops, frames, locals, events and cleanup, as frozen records.

Layer: ``jdwp.debugger`` (data only). Field names match the MCP payloads of docs/design.md §5.2, so the server
serialises them without renaming. IDs handed out here are opaque strings.

Names the VM supplies (thread, class, method, source, variable and type names, messages) are cut to
:data:`MAX_NAME` UTF-16 units by the records themselves, and each record lists in ``truncated_names``
which of its own fields were cut (a nested record, such as a stop's location, lists its own). Text stays
real Python text, lone surrogates included: making it JSON-safe is the server's business.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, Literal

from .names import java_prefix

BreakpointStatus = Literal["pending", "verified", "rejected", "spent", "disabled"]
StopReason = Literal["breakpoint", "step", "vm_start", "pause", "launch", "exception", "watchpoint"]
WatchAccess = Literal["write", "read", "any"]
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

#: The most UTF-16 units of any name or message the VM supplies (docs/design.md §6; values are cut at 256).
MAX_NAME = 1024
#: Metadata of a field a serialiser leaves out while it is empty (``None``, ``()``): ``truncated_names`` is
#: there only when something was cut, a stop's ``pending_steps`` only when there are some, so an ordinary
#: answer stays short.
OMIT_EMPTY = {"omit_empty": True}
#: Metadata of a field a serialiser leaves out while it is ``None`` (an empty collection or ``False`` stays).
OMIT_NONE = {"omit_none": True}


def omit_when(said: Callable[[Any], bool]) -> dict[str, Any]:
    """Metadata of a field a serialiser leaves out when ``said(record)`` is true: when the record's other
    fields already say what it would (a value's ``kind`` beside a type that names it)."""
    return {"omit_when": said}


_PRIMITIVE_TYPES = frozenset({"boolean", "byte", "char", "short", "int", "long", "float", "double"})
_STRING = "java.lang.String"


def _declared(record: Any) -> str | None:
    """A value record's declared type: a variable's ``type``, a field's ``declared_type`` (``None``: an
    element, an expression's result, a spilled variable, which have none)."""
    declared = getattr(record, "declared_type", None)
    return declared if declared is not None else getattr(record, "type", None)


def kind_is_said(record: Any) -> bool:
    """Whether a value's ``kind`` says nothing its types do not: ``primitive`` beside a primitive declared
    type, ``string`` beside ``java.lang.String``, ``array`` beside an array type, ``object`` beside an
    ``object_id`` and a class that is neither. ``null``, ``unavailable`` and ``void`` are said only by it."""
    declared = _declared(record)
    shown = record.runtime_type or declared
    kind = record.kind
    if kind == "primitive":
        return declared in _PRIMITIVE_TYPES
    if kind == "string":
        return bool(shown == _STRING)
    if kind == "array":
        return shown is not None and shown.endswith("[]")
    if kind == "object":
        return record.object_id is not None and shown is not None and shown != _STRING and not shown.endswith("[]")
    return False


def runtime_type_is_said(record: Any) -> bool:
    """Whether an object's ``runtime_type`` is its declared type again (or there is none)."""
    return record.runtime_type is None or record.runtime_type == _declared(record)


#: Metadata of a value's ``kind`` and ``runtime_type``: left out where the types already say them.
KIND_SAID = omit_when(kind_is_said)
RUNTIME_TYPE_SAID = omit_when(runtime_type_is_said)


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


# --- The shared shapes ---------------------------------------------------------------------------------
# Bases without slots of their own (``__slots__ = ()``): a record lists its own head fields' base after the
# shape, so its fields keep the order the payloads have (the head's, then the shape's, then its own), and
# ``slots=True`` on the record gives every field a slot.


@dataclasses.dataclass(frozen=True)
class Place:
    """Where code is, as every location record shows it: class, method, source file and line (``None`` when
    the class lacks the table), and the code index."""

    __slots__ = ()
    class_name: str
    method: str
    source: str | None
    line: int | None
    code_index: int

    def __post_init__(self) -> None:
        bound_names(self, "class_name", "method", "source")


@dataclasses.dataclass(frozen=True)
class ValueFields:
    """A value as every summary of one shows it (a variable, an object's field, an element, an expression's
    result): ``kind``, ``value`` as text (a primitive, or a string cut at 256 units), whether it was cut,
    a string's or array's ``length``, the session's ``object_id`` of an object and its ``runtime_type``.

    A serialiser shows only the keys that say something: no ``value`` of an object or array, no
    ``truncated`` unless it was cut, no ``length`` or ``object_id`` where they do not apply, no
    ``runtime_type`` that is the declared type again, and no ``kind`` the types already say
    (:func:`kind_is_said`): an ``int`` local is ``{"name": "i", "type": "int", "value": "47"}``. A
    subclass that redeclares ``kind`` (to narrow its type) gives it :data:`KIND_SAID` again."""

    __slots__ = ()
    kind: str = dataclasses.field(metadata=KIND_SAID)
    value: str | None = dataclasses.field(metadata=OMIT_NONE)
    truncated: bool = _flag()
    length: int | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)
    object_id: str | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)
    runtime_type: str | None = dataclasses.field(default=None, metadata=RUNTIME_TYPE_SAID)
    #: An object's or array's contents in one line (``Item(sku="voucher", qty=1)``; :mod:`.reading.previews`).
    preview: str | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)


#: The names of :class:`ValueFields`, in order.
VALUE_FIELDS = tuple(f.name for f in dataclasses.fields(ValueFields))


def value_fields(summary: ValueFields) -> dict[str, Any]:
    """The :class:`ValueFields` of ``summary``, to build another record of the shape from."""
    return {name: getattr(summary, name) for name in VALUE_FIELDS}


@dataclasses.dataclass(frozen=True)
class Indexed:
    __slots__ = ()
    index: int


@dataclasses.dataclass(frozen=True, slots=True)
class SourcePosition(Place):
    """Where code is (:class:`Place`).

    ``inlined``: the code was inlined from another function (Kotlin); ``source`` and ``line`` are that
    function's, not the line numbers of the class that runs it.
    """

    inlined: bool = _flag()
    truncated_names: tuple[str, ...] = _truncated_names()


@dataclasses.dataclass(frozen=True, slots=True)
class BoundLocation(Place):
    """One place a breakpoint is bound: a code index in one class, as loaded by one class loader.

    ``source`` and ``line`` are the requested ones; ``inlined`` says the class runs that line as a copy
    of an inline function's body (Kotlin), found through its source map.
    """

    #: A line breakpoint's: the line asked for; a method breakpoint's: its first code index's line, ``None``
    #: when the class has no line table (a stop there shows ``None`` too).
    line: int | None
    class_loader_id: str
    inlined: bool = _flag()
    truncated_names: tuple[str, ...] = _truncated_names()
    #: The code index runs a lambda of the line (:mod:`.lambdas`); ``lambda_ordinal`` is its place among the
    #: line's lambdas in source order, from 0 (IntelliJ's "lambda n").
    in_lambda: bool = _flag()
    lambda_ordinal: int | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)


@dataclasses.dataclass(frozen=True, slots=True)
class SkippedLocation:
    """A code index of the line a breakpoint does not bind, and why: its condition or log message names a
    variable that is not in scope there (docs/design.md §3.10)."""

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


Action = Literal["stop", "log"]
SuspendMode = Literal["all", "thread"]


@dataclasses.dataclass(frozen=True, slots=True)
class Capture:
    """What a stop reads as it is made, as given (:mod:`.requests.capture` checks it): ``stack`` frames listed
    (0–20), frame 0's ``locals``, ``expressions`` evaluated in frame 0 (at most 10, read-only: no method is
    ever called at a stop being made)."""

    stack: int = 1
    locals: bool = False
    expressions: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True, slots=True)
class HitOptions:
    """What a line breakpoint does when hit, as given (``None`` where not given); ``max_hits`` is filled in for a
    logpoint. A record (here, with the others) so that it does not pull in the parser; :mod:`.requests.hits`
    checks and parses it."""

    condition: str | None = None
    hit_count: int | None = None
    action: Action = "stop"
    log_message: str | None = None
    max_hits: int | None = None
    suspend: SuspendMode = "all"
    #: What its stops read as they are made (:mod:`.requests.capture`); a logpoint never stops, so takes none.
    capture: Capture | None = None

    @property
    def holds_thread_only(self) -> bool:
        """Whether the breakpoint's requests use ``EVENT_THREAD``: a hit is judged before it stops anything."""
        return (self.condition is not None or (self.hit_count or 1) > 1 or self.action == "log"
                or self.suspend == "thread")


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
    #: Said when the condition or message calls a method (``--allow-invoke``): each hit runs app code.
    note: str | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)

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


@dataclasses.dataclass(frozen=True, slots=True)
class Watchpoint:
    """A breakpoint on a field: writes (``access`` ``write``), reads, or both (``any``) of ``field`` declared by
    ``class_name`` or a superclass of it, in every class loader. ``pending`` until the class loads;
    ``rejected`` (with ``reason``) while the loaded classes of that name have no such field."""

    breakpoint_id: str
    class_name: str
    field: str
    access: WatchAccess
    status: BreakpointStatus
    reason: Reason | None = None
    options: HitOptions | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)
    hits: int | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)
    dropped: int | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)

    @property
    def kind(self) -> Literal["watchpoint"]:
        return "watchpoint"

    @property
    def requested(self) -> dict[str, Any]:
        return {"class_name": self.class_name, "field": self.field, "access": self.access}


@dataclasses.dataclass(frozen=True, slots=True)
class MethodBreakpoint:
    """A breakpoint on a method's entry or exit (``on``): every overload of ``method`` in ``class_name``, or the
    one of ``signature`` (JNI, ``(J)J``). ``locations``: each overload bound (its first code index and first
    line). ``note``: said when exit stops cannot carry ``return_value`` on this VM."""

    breakpoint_id: str
    class_name: str
    method: str
    signature: str | None
    on: Literal["entry", "exit"]
    status: BreakpointStatus
    locations: tuple[BoundLocation, ...] = ()
    reason: Reason | None = None
    options: HitOptions | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)
    hits: int | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)
    dropped: int | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)
    note: str | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)

    @property
    def kind(self) -> Literal["method"]:
        return "method"

    @property
    def requested(self) -> dict[str, Any]:
        asked: dict[str, Any] = {"class_name": self.class_name, "method": self.method, "on": self.on}
        if self.signature is not None:
            asked["signature"] = self.signature
        return asked


AnyBreakpoint = Breakpoint | ExceptionBreakpoint | Watchpoint | MethodBreakpoint


@dataclasses.dataclass(frozen=True, slots=True)
class FieldChange:
    """What a watchpoint saw: ``field`` (``com.x.Account.balance``) written (``access`` ``write``: the value
    before, ``old_value``, and the value being written, ``new_value``) or read (``read``: ``old_value`` is the
    value read). ``object_id`` is the session's handle of the object whose field it is (``None``: static).
    Values are app data: never log them."""

    field: str
    access: Literal["write", "read"]
    object_id: str | None
    old_value: Any
    new_value: Any = dataclasses.field(default=None, metadata=OMIT_EMPTY)
    truncated_names: tuple[str, ...] = _truncated_names()

    def __post_init__(self) -> None:
        bound_names(self, "field")


@dataclasses.dataclass(frozen=True, slots=True)
class ThrownException:
    """The exception of an ``exception`` stop, read without running app code.

    ``type`` is its runtime class; ``message`` its ``Throwable.detailMessage`` field (``None`` when null, cut
    at 256 UTF-16 units: ``truncated``, ``length`` the full length) — what ``getMessage()`` returns unless a
    subclass overrides it, which is never run. ``object_id`` is the session's handle of the exception
    object; ``catch_location`` is ``None`` when nothing in Java code catches it. ``crashes_coroutine``: only
    coroutine machinery catches it (``catch_location`` is the machinery's handler, docs/design.md §3.11), so it ends
    the coroutine that threw it; ``note`` says what that means.
    """

    type: str
    message: str | None
    object_id: str
    throw_location: SourcePosition | None
    catch_location: SourcePosition | None
    truncated: bool = _flag()
    length: int | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)
    crashes_coroutine: bool = _flag()
    note: str | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)
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
    #: Every reason of the event set; left out of answers while it is ``[reason]``.
    reasons: tuple[StopReason, ...] = dataclasses.field(metadata=omit_when(lambda stop: len(stop.reasons) == 1))
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
    #: A watchpoint's field access: the field, its old and new value (``watchpoint`` stops).
    watch: FieldChange | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)
    #: The value the method returned (a method-exit breakpoint's stop, a step out where the VM tells it).
    return_value: Any = dataclasses.field(default=None, metadata=OMIT_EMPTY)
    #: Frame 0 of the stop's thread, for locals and expressions without listing the stack first (``None``: a
    #: pause, or a thread with no frames yet).
    frame_id: str | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)
    #: What the stop's requests asked to read as it was made (:mod:`.requests.capture`).
    capture: Captured | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)

    def __post_init__(self) -> None:
        object.__setattr__(self, "reason", self.reasons[0])  # frozen: this is the record's own construction
        bound_names(self, "thread_name", "condition_error")


#: An error as a value (an expression's, a capture's part): its stable code (docs/design.md §5.6) and message, as a
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


@dataclasses.dataclass(frozen=True)
class _FrameHead:
    __slots__ = ()
    frame_id: str
    index: int


@dataclasses.dataclass(frozen=True, slots=True)
class Frame(Place, _FrameHead):
    """A frame of a stopped thread (its ID and place on the stack, then its :class:`Place`); ``inlined`` as
    for :class:`SourcePosition`."""

    inlined: bool = _flag()
    truncated_names: tuple[str, ...] = _truncated_names()

    @classmethod
    def at(cls, frame_id: str, index: int, position: SourcePosition) -> Frame:
        """The frame ``index`` of a stack, running at ``position``."""
        return cls(frame_id, index, position.class_name, position.method, position.source, position.line,
                   position.code_index, position.inlined, truncated_names=position.truncated_names)


#: Where an async frame's line and variable names came from (docs/design.md §3.11): ``invoke`` (the stdlib's
#: ``DebugMetadataKt``, run in the VM with ``--allow-invoke``), ``class_path`` (the app's classes read on the
#: host), ``none`` (raw ``L$0`` names, ``line`` null).
MetadataSource = Literal["invoke", "class_path", "none"]


@dataclasses.dataclass(frozen=True)
class _SpilledHead:
    __slots__ = ()
    name: str
    field: str


@dataclasses.dataclass(frozen=True, slots=True)
class SpilledVariable(ValueFields, _SpilledHead):
    """A local variable of a suspended coroutine, kept in a field of its continuation (``L$0``, ``I$1``):
    ``name`` is the variable's (the field's own without debug metadata), ``field`` the field's; its value as
    every summary shows one (:class:`ValueFields`; it has no declared type, so a ``runtime_type`` is said)."""

    note: str | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)


@dataclasses.dataclass(frozen=True, slots=True)
class AsyncFrame:
    """One continuation of a coroutine's chain: the suspend function (or lambda) it resumes, where it
    last suspended (``line``; ``next_line`` from Kotlin 2.2's metadata), its ``label`` (sign bit masked),
    its spilled variables, and the continuation object itself (``object_id``, of class ``continuation``)."""

    class_name: str
    method: str
    source: str | None
    line: int | None
    label: int
    spilled: tuple[SpilledVariable, ...]
    object_id: str
    continuation: str
    metadata: MetadataSource
    next_line: int | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)
    truncated_names: tuple[str, ...] = _truncated_names()

    def __post_init__(self) -> None:
        bound_names(self, "class_name", "method", "source", "continuation")


@dataclasses.dataclass(frozen=True, slots=True)
class CoroutineInfo:
    """What ends a continuation chain: the coroutine (an ``AbstractCoroutine``, named by its context's
    ``CoroutineName`` when it has one) or another completion (a ``Continuation`` of the app's own)."""

    class_name: str
    object_id: str
    name: str | None = None
    truncated_names: tuple[str, ...] = _truncated_names()

    def __post_init__(self) -> None:
        bound_names(self, "class_name", "name")


@dataclasses.dataclass(frozen=True, slots=True)
class AsyncStack:
    """The coroutine a thread runs, read from fields (no app code runs unless ``metadata`` is ``invoke``):
    its continuations, innermost first, from the topmost frame running suspend code; then what it ends at.
    ``truncated``: the chain went on past the cap (or looped); ``note`` says what could not be read."""

    frames: tuple[AsyncFrame, ...]
    coroutine: CoroutineInfo | None
    metadata: MetadataSource
    truncated: bool = False
    note: str | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)


@dataclasses.dataclass(frozen=True, slots=True)
class StackPage:
    frames: tuple[Frame, ...]
    total: int
    next_offset: int | None
    truncated: bool
    #: The coroutine of the page's topmost suspend code (first pages only), else left out.
    async_frames: AsyncStack | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)


@dataclasses.dataclass(frozen=True)
class _LocalHead:
    __slots__ = ()
    name: str
    type: str


@dataclasses.dataclass(frozen=True, slots=True)
class Local(ValueFields, _LocalHead):
    """One variable. ``value`` is text: a primitive as Java prints it, a string (maybe cut), or ``None``.

    ``length`` is a string's full length in UTF-16 units (Java's ``String.length()``; strings are cut at
    256 of those) or an array's length; ``object_id`` is the session's handle of an object, string or
    array (the same object keeps it in every stop: ``Debugger.object`` reads it); ``runtime_type`` the
    object's class, which may be narrower than the declared ``type``. A variable the VM could not read
    has kind ``unavailable`` and the VM's ``reason`` (e.g. ``INVALID_SLOT``). ``captured`` marks a
    variable of an enclosing method that a lambda or local class captured (read from a field of ``this``).
    ``length`` and ``object_id`` are left out of the JSON where they do not apply (a primitive, ``null``):
    an agent pays for every key it reads (docs/design.md §3.7).
    """

    kind: LocalKind = dataclasses.field(metadata=KIND_SAID)  # keeps its place in :class:`ValueFields`
    reason: str | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)
    captured: bool = _flag()
    truncated_names: tuple[str, ...] = _truncated_names()
    #: Why the value is shown only in part or not at all (a string too large for the VM to send whole).
    note: str | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)

    def __post_init__(self) -> None:
        bound_names(self, "name", "type")


@dataclasses.dataclass(frozen=True, slots=True)
class Locals:
    """A frame's variables; ``this`` and ``reason`` (why none are available) are left out of answers while
    ``None``, ``truncated`` while false."""

    availability: Availability
    locals: tuple[Local, ...]
    this: Local | None = dataclasses.field(default=None, metadata=OMIT_NONE)
    reason: str | None = dataclasses.field(default=None, metadata=OMIT_NONE)
    truncated: bool = _flag()


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
    #: A logging watchpoint's field access (the field, old and new value).
    watch: FieldChange | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)
    #: A logging method-exit breakpoint's returned value.
    return_value: Any = dataclasses.field(default=None, metadata=OMIT_EMPTY)

    def __post_init__(self) -> None:
        bound_names(self, "thread_name", "message", "condition_error")


@dataclasses.dataclass(frozen=True, slots=True)
class BreakpointSpent:
    """A logpoint reached its ``maxHits``: its requests are cleared (status ``spent``)."""

    breakpoint: Breakpoint | Watchpoint | MethodBreakpoint
    kind: Literal["breakpoint_spent"] = "breakpoint_spent"


EngineEvent = (Stopped | BreakpointVerified | BreakpointRejected | Terminated | LogpointHit
               | BreakpointSpent)
