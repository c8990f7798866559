"""The records that more than one tool answers: targets, capabilities, breakpoints and the events of the ring.

A record only one tool answers is in that tool's module (:mod:`.tools`).

Layer: ``server`` (data only). The engine's records (``Stop``, ``StackPage``, ``Locals``, ``Cleanup``, …)
are answered as they are; the records here add what only the server knows. The envelope turns all of
them into JSON once, at the edge (:mod:`.envelope`), and the tools' output schemas are derived from these
types. A field made by :func:`optional` is left out of the JSON while ``None``; one whose metadata is
``OMIT_EMPTY`` also while empty.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Literal

from jdwp import IdSizes
from jdwp.debugger import (
    OMIT_EMPTY,
    OMIT_NONE,
    AnyBreakpoint,
    BoundLocation,
    Breakpoint,
    Capture,
    ExceptionBreakpoint,
    FieldChange,
    HitOptions,
    LogpointHit,
    MethodBreakpoint,
    Monitor,
    Reason,
    SkippedLocation,
    SourcePosition,
    Stop,
    ThreadHead,
    ThreadInfo,
    WaitingFor,
    Watchpoint,
    bound_names,
    frame_text,
    is_system,
)

from .failures import ErrorBody

SessionState = Literal["attaching", "running", "paused", "detaching", "detached", "disconnected", "failed"]


def optional() -> Any:
    """A field that is ``None`` unless it says something; left out of the JSON while ``None``."""
    return dataclasses.field(default=None, metadata=OMIT_NONE)


# --- targets ---------------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True, slots=True)
class VmFacts:
    """The VM as ``VirtualMachine.Version`` (1,1) and ``IDSizes`` (1,7) describe it (names cut at 1024)."""

    name: str
    version: str
    jdwp: str
    id_sizes: IdSizes
    truncated_names: tuple[str, ...] = dataclasses.field(default=(), metadata=OMIT_EMPTY)

    def __post_init__(self) -> None:
        bound_names(self, "name", "version")  # as the engine's records bound what the VM names


@dataclasses.dataclass(frozen=True, slots=True)
class StartIdentity:
    """Process-start identity: ``/proc/<pid>/stat`` field 22 (``None`` when unreadable) and the boot."""

    start_ticks: int | None
    boot_id: str


@dataclasses.dataclass(frozen=True, slots=True)
class AppFacts:
    """What an Android app says of itself in DDM chunks (``HELO``/``APNM``, ``WAIT``, ``STAG``), and whether
    Android spares it ANRs.

    ``anr_exempt``: true when the process runs as the debug app (started by ``launch``, or
    ``mDebugging=true`` in ``dumpsys activity processes``); false when it does not, so a stop that holds its
    main thread about 5 s with input pending gets an ANR; absent when the device could not tell.
    """

    app_name: str | None = optional()
    waiting_for_debugger: bool | None = optional()
    package_name: str | None = optional()
    user_id: int | None = optional()
    abi: str | None = optional()
    pointer_size: int | None = optional()
    boot_stage: str | None = optional()
    anr_exempt: bool | None = optional()
    truncated_names: tuple[str, ...] = dataclasses.field(default=(), metadata=OMIT_EMPTY)

    def __post_init__(self) -> None:
        bound_names(self, "app_name", "package_name", "abi")


@dataclasses.dataclass(frozen=True, slots=True)
class JvmTarget:
    platform: Literal["jvm"]
    address: str
    requested_address: str | None = optional()
    vm: VmFacts | None = optional()

    def compact(self) -> JvmTargetRef:
        """The target as every session call repeats it: its address is the envelope's ``device``, the VM's
        facts are in attach's answer."""
        return JvmTargetRef(self.platform)

    def identity(self) -> JvmTarget:
        """The target as attach's envelope names it: without ``vm``, which attach's ``result.vm`` holds, and
        with ``requested_address`` only where it is not the resolved ``address`` (``localhost:5005``)."""
        asked = self.requested_address if self.requested_address != self.address else None
        return JvmTarget(self.platform, self.address, asked)


@dataclasses.dataclass(frozen=True, slots=True)
class JvmTargetRef:
    """A JVM target as session calls name it: the platform; the address is the envelope's ``device``."""

    platform: Literal["jvm"]


@dataclasses.dataclass(frozen=True, slots=True)
class AndroidTarget:
    platform: Literal["android"]
    app_id: str
    pid: int
    process_name: str
    uid: int | None = optional()
    start_identity: StartIdentity | None = optional()
    vm: VmFacts | None = optional()
    app: AppFacts | None = optional()

    def compact(self) -> AndroidTarget:
        """The target as every session call repeats it: identity and VM facts are in attach's answer."""
        return AndroidTarget(self.platform, self.app_id, self.pid, self.process_name)

    def identity(self) -> AndroidTarget:
        """The target as attach's envelope names it: without ``vm``, which attach's ``result.vm`` holds."""
        return dataclasses.replace(self, vm=None)


Target = JvmTarget | AndroidTarget
#: The target as a session call's envelope names it (attach's answer has it in full).
TargetRef = JvmTargetRef | AndroidTarget


# --- capabilities ----------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True, slots=True)
class Limits:
    sessions_per_server: int
    sessions_per_device: int
    breakpoints_per_session: int
    frames_per_call: int
    frames_per_stop: int
    locals_per_frame: int
    string_chars: int
    name_chars: int
    event_ring: int
    events_per_wait: int


@dataclasses.dataclass(frozen=True, slots=True)
class Limitation:
    code: str
    text: str


@dataclasses.dataclass(frozen=True, slots=True)
class Capabilities:
    """What the server can do: in full in get_debugger_capabilities' answer; every envelope names its
    ``profile``."""

    profile: str
    operations: tuple[str, ...]
    platforms: tuple[str, ...]
    jdk_required: bool
    limits: Limits
    limitations: tuple[Limitation, ...]

    def compact(self) -> CapabilitiesRef:
        return CapabilitiesRef(self.profile)


@dataclasses.dataclass(frozen=True, slots=True)
class CapabilitiesRef:
    """The capabilities as every call names them, attach's too: the ``profile`` of the full set, which
    ``get_debugger_capabilities`` answers in full (operations, limits, limitations). Tokens are an agent's
    cost."""

    profile: str


@dataclasses.dataclass(frozen=True, slots=True)
class AdbFacts:
    server: str
    available: bool
    version: int | None = optional()
    error: ErrorBody | None = optional()


@dataclasses.dataclass(frozen=True, slots=True)
class DeviceFacts:
    serial: str
    state: str
    attributes: dict[str, str] | None = optional()
    known_devices: tuple[str, ...] | None = optional()
    error: ErrorBody | None = optional()


@dataclasses.dataclass(frozen=True, slots=True)
class JvmFacts:
    address: str
    loopback: bool
    note: str


@dataclasses.dataclass(frozen=True, slots=True)
class Prerequisites:
    jdk_required: bool
    adb: AdbFacts | None = optional()
    device: DeviceFacts | None = optional()
    jvm: JvmFacts | None = optional()
    discovery_error: ErrorBody | None = optional()


# --- session results -------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True, slots=True)
class LaunchFacts:
    """What ``launch`` did: the activity started, the new pid, the API level and whether ``--suspend`` went
    with ``am start -D`` (API 34+), and whether the app's data was cleared."""

    activity: str
    pid: int
    api_level: int | None
    suspend_flag: bool
    cleared_data: bool


@dataclasses.dataclass(frozen=True, slots=True)
class LineRequest:
    """What a line breakpoint asked for, as given: a class or a source file (one of them), and the line."""

    line: int
    class_name: str | None = optional()
    file: str | None = optional()


@dataclasses.dataclass(frozen=True, slots=True)
class HitsShown:
    """What a line breakpoint, a watchpoint and a method breakpoint show alike: where it was asked for and what
    it became, then the options it was given and its hits so far (a breakpoint without options shows none of
    these; a capture alone is shown by itself). The options are keyword-only, so each kind's own fields follow
    its status in order."""

    breakpoint_id: str
    kind: str
    requested: Any
    status: str
    _: dataclasses.KW_ONLY
    condition: str | None = optional()
    hit_count: int | None = optional()
    action: str | None = optional()
    log_message: str | None = optional()
    max_hits: int | None = optional()
    suspend: str | None = optional()
    #: With options: hits that passed the condition so far; a logpoint's hits not captured (rate limit).
    hits: int | None = optional()
    dropped: int | None = optional()
    capture: Capture | None = optional()


def _options_shown(given: HitOptions | None, hits: int | None, dropped: int | None) -> dict[str, Any]:
    """A breakpoint's options as :class:`HitsShown` holds them, by field name; a logpoint has no ``suspend``
    to echo (each hit's thread runs on at once)."""
    capture = given.capture if given is not None else None
    if given is None or dataclasses.replace(given, capture=None) == HitOptions():
        return {"capture": capture}
    return {"condition": given.condition, "hit_count": given.hit_count, "action": given.action,
            "log_message": given.log_message, "max_hits": given.max_hits,
            "suspend": None if given.action == "log" else given.suspend, "hits": hits, "dropped": dropped,
            "capture": capture}


@dataclasses.dataclass(frozen=True, slots=True)
class BreakpointAnswer(HitsShown):
    """A breakpoint as the tools show it: what was asked (``requested``), and what it became."""

    kind: Literal["line"]
    requested: LineRequest
    locations: tuple[BoundLocation, ...]
    reason: Reason | None = optional()
    #: The ``lambda`` choice when not "all", and the line's code indexes left out because the condition or
    #: message names a variable not in scope there.
    lambda_choice: str | int | None = optional()
    skipped: tuple[SkippedLocation, ...] = dataclasses.field(default=(), metadata=OMIT_EMPTY)
    #: Said when the condition or message calls a method (--allow-invoke): each hit runs app code.
    note: str | None = optional()

    @classmethod
    def of(cls, bp: Breakpoint) -> BreakpointAnswer:
        return cls(bp.breakpoint_id, bp.kind, LineRequest(bp.line, bp.class_name, bp.file), bp.status,
                   bp.locations, bp.reason, lambda_choice=bp.lambda_choice, skipped=bp.skipped, note=bp.note,
                   **_options_shown(bp.options, bp.hits, bp.dropped))


@dataclasses.dataclass(frozen=True, slots=True)
class ExceptionRequest:
    """What an exception breakpoint asked for: the class (``None``: every throwable) and when to stop."""

    exception_class: str | None
    caught: bool
    uncaught: bool


@dataclasses.dataclass(frozen=True, slots=True)
class ExceptionBreakpointAnswer:
    """An exception breakpoint as the tools show it: ``pending`` until its class loads, then ``verified``."""

    breakpoint_id: str
    kind: Literal["exception"]
    requested: ExceptionRequest
    status: str
    capture: Capture | None = optional()

    @classmethod
    def of(cls, bp: ExceptionBreakpoint) -> ExceptionBreakpointAnswer:
        return cls(bp.breakpoint_id, bp.kind, ExceptionRequest(bp.exception_class, bp.caught, bp.uncaught),
                   bp.status, bp.capture)


@dataclasses.dataclass(frozen=True, slots=True)
class WatchRequest:
    """What a watchpoint asked for: the class, the field and the access watched."""

    class_name: str
    field: str
    access: str


@dataclasses.dataclass(frozen=True, slots=True)
class WatchpointAnswer(HitsShown):
    """A watchpoint as the tools show it (options as a line breakpoint's)."""

    kind: Literal["watchpoint"]
    requested: WatchRequest
    reason: Reason | None = optional()
    #: What it costs the app, when that needs saying (an Android session).
    warning: str | None = optional()

    @classmethod
    def of(cls, bp: Watchpoint) -> WatchpointAnswer:
        return cls(bp.breakpoint_id, bp.kind, WatchRequest(bp.class_name, bp.field, bp.access), bp.status,
                   bp.reason, **_options_shown(bp.options, bp.hits, bp.dropped))


@dataclasses.dataclass(frozen=True, slots=True)
class MethodRequest:
    """What a method breakpoint asked for: the class, the method (and its signature), entry or exit."""

    class_name: str
    method: str
    on: str
    signature: str | None = optional()


@dataclasses.dataclass(frozen=True, slots=True)
class MethodBreakpointAnswer(HitsShown):
    """A method breakpoint as the tools show it: each overload bound is a location."""

    kind: Literal["method"]
    requested: MethodRequest
    locations: tuple[BoundLocation, ...]
    reason: Reason | None = optional()
    note: str | None = optional()
    #: What it costs the app, when that needs saying (an exit breakpoint of an Android session).
    warning: str | None = optional()

    @classmethod
    def of(cls, bp: MethodBreakpoint) -> MethodBreakpointAnswer:
        return cls(bp.breakpoint_id, bp.kind, MethodRequest(bp.class_name, bp.method, bp.on, bp.signature),
                   bp.status, bp.locations, bp.reason, bp.note, **_options_shown(bp.options, bp.hits, bp.dropped))


AnyBreakpointAnswer = BreakpointAnswer | ExceptionBreakpointAnswer | WatchpointAnswer | MethodBreakpointAnswer


@dataclasses.dataclass(frozen=True, slots=True)
class BreakpointArmed:
    """A breakpoint another tool set on its way (attach's ``breakpoints``, resume's ``runTo``), in short: its ID
    and status (get_debugger_state shows it in full)."""

    breakpoint_id: str
    #: As set_debugger_breakpoint answers: verified; pending (nothing of it loaded yet) or rejected (no code at
    #: the line in the classes loaded so far), both of which still bind when a class with code there loads.
    status: str
    reason: Reason | None = optional()


def answer_of(bp: AnyBreakpoint) -> AnyBreakpointAnswer:
    """A breakpoint of any kind as the tools show it."""
    if isinstance(bp, ExceptionBreakpoint):
        return ExceptionBreakpointAnswer.of(bp)
    if isinstance(bp, Watchpoint):
        return WatchpointAnswer.of(bp)
    if isinstance(bp, MethodBreakpoint):
        return MethodBreakpointAnswer.of(bp)
    return BreakpointAnswer.of(bp)


@dataclasses.dataclass(frozen=True, slots=True)
class Acknowledged:
    acknowledged: bool = True
    note: str | None = optional()
    warnings: tuple[str, ...] = dataclasses.field(default=(), metadata=OMIT_EMPTY)
    #: A step made as another kind than asked (``out`` for an ``over`` from a native top frame); else absent.
    stepped: str | None = optional()


# --- the event ring ----------------------------------------------------------------------------------

EventKind = Literal["stopped", "breakpoint_verified", "breakpoint_rejected", "terminated", "logpoint",
                    "breakpoint_spent"]


@dataclasses.dataclass(frozen=True, slots=True)
class LogpointPlace:
    """Where a logpoint hit, as its event says it: class, method and line; the source file only for Kotlin
    code inlined from another function (then ``source`` and ``line`` are that function's). The code index
    says nothing the breakpoint's locations do not: left out, as logpoint events come by the hundred
    (docs/design.md §5.8)."""

    class_name: str
    method: str
    line: int | None
    source: str | None = optional()
    inlined: bool = dataclasses.field(default=False, metadata=OMIT_EMPTY)
    truncated_names: tuple[str, ...] = dataclasses.field(default=(), metadata=OMIT_EMPTY)

    @classmethod
    def of(cls, where: SourcePosition) -> LogpointPlace:
        return cls(where.class_name, where.method, where.line, where.source if where.inlined else None,
                   where.inlined, where.truncated_names)


def placed_by_breakpoint(hit: LogpointHit, breakpoint: AnyBreakpoint | None) -> bool:
    """Whether a logpoint's hit is at one of its breakpoint's bound locations (and not inlined code): the
    breakpoint's answer already says where (class, method, line), so the hit's event need not. A watchpoint's
    hits (wherever the field is accessed) and a method exit's (at a return) are placed by their events."""
    where = hit.location
    if where is None or where.inlined or not isinstance(breakpoint, Breakpoint | MethodBreakpoint):
        return False
    return any((b.class_name, b.method, b.code_index) == (where.class_name, where.method, where.code_index)
               for b in breakpoint.locations)


@dataclasses.dataclass(frozen=True, slots=True)
class RingEvent:
    """One event of a session's ring; which of the optional fields it has depends on ``kind``.

    A logpoint's event is lean, as they come by the hundred (its message is what it is for): no time of its
    own (its ``sequence`` orders it; the answer's ``captured_at_ms`` bounds it), no ``location`` where its
    breakpoint's answer says it (:func:`placed_by_breakpoint`), no ``dropped`` while none were.
    """

    sequence: int
    #: When the server received it (every event but a logpoint's).
    received_at_ms: int | None = dataclasses.field(metadata=OMIT_NONE)
    kind: EventKind
    stop: Stop | None = optional()
    breakpoint: AnyBreakpointAnswer | None = optional()
    reason: str | None = optional()
    message: str | None = optional()
    #: A stop of an Android app that is not spared ANRs says how long it may stay paused (issue 14 §2).
    warning: str | None = optional()
    truncated_names: tuple[str, ...] = dataclasses.field(default=(), metadata=OMIT_EMPTY)
    # A logpoint event's own fields (docs/design.md §3.5), with ``message``: dropped is how many hits of the
    # session were counted but not captured since the previous logpoint event (over 100 a second).
    breakpoint_id: str | None = optional()
    thread_name: str | None = optional()
    location: LogpointPlace | None = optional()
    dropped: int | None = optional()
    condition_error: str | None = optional()
    #: A logging watchpoint's field change; a logging method exit's returned value.
    watch: FieldChange | None = optional()
    return_value: Any = optional()


@dataclasses.dataclass(frozen=True, slots=True)
class EventsPage:
    """What wait_for_debugger_event answers; its fields stand beside the envelope's (no ``result``)."""

    events: tuple[RingEvent, ...]
    next_cursor: int
    overflow: bool
    timed_out: bool


@dataclasses.dataclass(frozen=True, slots=True)
class ListedThread(ThreadHead):
    """A thread as a listing shows it (:class:`jdwp.debugger.ThreadInfo`), its frames one line each
    (:func:`jdwp.debugger.frame_text`): their ``frame_id``s come from get_debugger_stack. The VM's own threads
    (:func:`jdwp.debugger.is_system`) are listed without frames — ``frame_count`` says how
    deep they are, get_debugger_stack reads them: they are not what an app's debugger looks for, and they
    would take a fifth of a server's listing."""

    frames: tuple[str, ...] = dataclasses.field(default=(), metadata=OMIT_EMPTY)
    owned_monitors: tuple[Monitor, ...] | None = dataclasses.field(default=None, metadata=OMIT_NONE)
    waiting_for: WaitingFor | None = dataclasses.field(default=None, metadata=OMIT_NONE)
    truncated_names: tuple[str, ...] = dataclasses.field(default=(), metadata=OMIT_EMPTY)

    @classmethod
    def of(cls, thread: ThreadInfo, *, system_frames: bool = False) -> ListedThread:
        """``thread`` as listed; a VM thread's frames only with ``system_frames`` (pause_debugger's
        ``systemThreads`` asks for the VM's threads themselves)."""
        frames = () if is_system(thread) and not system_frames else tuple(frame_text(f) for f in thread.frames)
        return cls(thread.name, thread.status, thread.suspended, thread.group, thread.thread_id,
                   thread.frame_count, frames, thread.owned_monitors, thread.waiting_for, thread.truncated_names)
