"""The MCP tools' inputs as pydantic models: unknown fields rejected, every bound checked.

Layer: ``server`` (pydantic only). Contract: DESIGN.md §5 ("All inputs reject unknown fields; strings are
non-empty and at most 512 chars; timeoutMs is an integer 100–30000; positive ints are ≤ 2^53−1").
Input names are camelCase, as the tools publish them.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, field_validator, model_validator

from android import InvalidArgument
from android.launch import validate_activity

MAX_SAFE_INT = 2**53 - 1

Text = Annotated[str, Field(min_length=1, max_length=512)]
PositiveInt = Annotated[StrictInt, Field(ge=1, le=MAX_SAFE_INT)]
Timeout = Annotated[StrictInt, Field(ge=100, le=30000, description="Milliseconds this call may take (100–30000).")]


class Input(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LaunchInput(Input):
    """Start the app for debugging instead of attaching to a running process (android only)."""

    activity: Text | None = Field(
        default=None, description="Activity to start: a class name (com.example.app.MainActivity) or one "
                                  "relative to the package (.MainActivity); default the launcher activity.")
    clearData: StrictBool = Field(default=False, description="Clear the app's data (pm clear) first.")

    @field_validator("activity")
    @classmethod
    def _activity_is_a_class_name(cls, value: str | None) -> str | None:
        # Checked here, before anything reaches the device's shell (shell characters, '..', NUL, spaces).
        if value is None:
            return value
        try:
            return validate_activity(value)
        except InvalidArgument as exc:
            raise ValueError(str(exc)) from None


class TargetInput(Input):
    """Which process to debug: an Android app's process, or a JVM listening for a debugger.

    ``platform: "android"`` takes ``deviceId``, ``appId`` and optionally ``processId``;
    ``platform: "jvm"`` takes ``address``. Fields of the other platform are rejected.
    """

    platform: Literal["android", "jvm"] = Field(description='"android" (adb device + app) or "jvm" (host:port).')
    deviceId: Text | None = Field(default=None, description="android: the device serial as `adb devices` lists it.")
    appId: Text | None = Field(default=None, description="android: the app's package name, e.g. com.example.app.")
    processId: PositiveInt | None = Field(
        default=None, description="android: the pid, needed only when the app runs several debuggable processes.")
    address: Text | None = Field(
        default=None, description="jvm: host:port ([v6]:port) of a JVM started with -agentlib:jdwp=transport="
                                  "dt_socket,server=y,address=...; a name is resolved once and every address it "
                                  "resolves to must be loopback, unless the server allows remote JVMs.")
    timeoutMs: Timeout = 10000

    @model_validator(mode="after")
    def _fields_match_platform(self) -> TargetInput:
        if self.platform == "android":
            missing = [n for n in ("deviceId", "appId") if getattr(self, n) is None]
            if missing:
                raise ValueError(f"platform android needs {' and '.join(missing)}")
            if self.address is not None:
                raise ValueError("address is for platform jvm; android takes deviceId, appId, processId")
        else:
            if self.address is None:
                raise ValueError("platform jvm needs address (host:port)")
            extra = [n for n in ("deviceId", "appId", "processId", "launch") if getattr(self, n, None) is not None]
            if extra:
                listed = extra[0] if len(extra) == 1 else f"{', '.join(extra[:-1])} and {extra[-1]}"
                raise ValueError(f"{listed} {'is' if len(extra) == 1 else 'are'} for platform android; "
                                 "jvm takes address")
        return self


AttachTimeout = Annotated[StrictInt, Field(
    ge=100, le=120000, description="Milliseconds this call may take (100–120000; default 60000: on Android the "
                                   "first reply waits for ART to load the debugger agent, which can take many "
                                   "seconds on a big app).")]


class AttachInput(TargetInput):
    """attach_debugger's input: a target, which may ask to start the app for debugging (``launch``, android
    only), with a longer default ``timeoutMs`` (the first reply's own deadline is 45 s on Android, after a
    handshake of at most 5 s; a launch takes most of the call's time)."""

    timeoutMs: AttachTimeout = 60000

    launch: LaunchInput | None = Field(
        default=None, description="android only: start the app waiting for a debugger (force-stopping it "
                                  "first) and attach before its code runs; the session starts paused on a stop "
                                  "of reason launch, and resume_debugger starts the app.")

    @model_validator(mode="after")
    def _launch_starts_a_new_process(self) -> AttachInput:
        if self.launch is not None and self.processId is not None:
            raise ValueError("launch starts a new process: give launch or processId, not both")
        return self

    def launched(self, pid: int) -> AttachInput:
        """This target once its launch started process ``pid``: what a cleanup retry reconnects to, never
        launching again.

        A copy of this input, which was validated once as the call's input, with ``launch`` traded for the
        pid the device reported: not validated again, so it holds whatever this input held (its own
        ``timeoutMs`` default and bound, which no other input shares). Validating it anew as another model
        failed after the app had been launched and attached (issue 23 item 11).
        """
        if pid < 1 or pid > MAX_SAFE_INT:
            raise ValueError(f"pid {pid} is not a process id")  # a device's answer, never the user's input
        return self.model_copy(update={"launch": None, "processId": pid})


class SessionInput(Input):
    debugSessionId: Text = Field(description="The id attach_debugger returned.")
    timeoutMs: Timeout = 10000


class SetBreakpointInput(SessionInput):
    """Exactly one of ``className`` or ``file``, and ``line``."""

    className: Text | None = Field(
        default=None, description="Binary class name, e.g. com.example.Foo; also binds in the classes nested in "
                                  "it from the same file (Foo$Inner, Foo$1, Foo$Companion, lambdas).")
    file: Text | None = Field(
        default=None, description="Source file name (MainActivity.kt) or path (app/src/main/java/com/x/"
                                  "MainActivity.kt; \\ accepted): binds in every class of that file.")
    line: PositiveInt = Field(description="1-based source line; never moved to another line.")
    condition: Text | None = Field(
        default=None, description="A read-only expression (as evaluate_debugger_expression takes) evaluated in the "
                                  "hitting frame: the hit stops only when it is true, e.g. i == 777.")
    hitCount: PositiveInt | None = Field(
        default=None, description="Ignore the first hitCount-1 hits (that pass the condition); later hits stop.")
    action: Literal["stop", "log"] = Field(
        default="stop", description='"log" makes a logpoint: each hit adds a logpoint event and the app runs on.')
    logMessage: Text | None = Field(
        default=None, description="Logpoint message template: {expression} parts are evaluated in the hitting "
                                  "frame ({{ and }} are literal braces); without it, frame 0's locals (at most 20).")
    maxHits: Annotated[StrictInt, Field(ge=1, le=10_000)] | None = Field(
        default=None, description="Logpoint: after this many hits (default 100, at most 10000) it is spent.")
    suspend: Literal["all", "thread"] = Field(
        default="all", description='"thread" holds only the hitting thread at a stop (the app\'s main thread '
                                   'keeps serving input on Android); "all" suspends the whole VM.')
    lambda_: Literal["all", "line"] | Annotated[StrictInt, Field(ge=0, le=1000)] = Field(
        default="all", alias="lambda",
        description='A line with lambdas: "all" its code, "line" outside its lambdas, n the n-th lambda (from 0).')

    @model_validator(mode="after")
    def _one_place(self) -> SetBreakpointInput:
        if (self.className is None) == (self.file is None):
            raise ValueError("give exactly one of className (com.example.Foo) or file (Foo.kt or a path)")
        if self.file is not None:
            if "\x00" in self.file:
                raise ValueError("file must not contain a NUL character")
            if ".." in self.file.replace("\\", "/").split("/"):
                raise ValueError("file must not contain a '..' directory")
        if self.action == "stop" and (self.logMessage is not None or self.maxHits is not None):
            raise ValueError('logMessage and maxHits are for action "log" (a logpoint)')
        if self.action == "log" and self.suspend == "thread":
            raise ValueError('suspend is for breakpoints that stop; a logpoint (action "log") never stops')
        return self


class ExceptionBreakpointInput(SessionInput):
    """An exception class (or every throwable), and when to stop: caught, uncaught, or both."""

    exceptionClass: Text | None = Field(
        default=None, description="Binary class name (java.lang.IllegalStateException, com.example.Outer$Failure); "
                                  "its subclasses match too. Omitted: every throwable.")
    caught: StrictBool = Field(default=False, description="Stop where Java code will catch it (default false).")
    uncaught: StrictBool = Field(default=True, description="Stop where nothing will catch it (default true).")

    @model_validator(mode="after")
    def _stops_somewhere(self) -> ExceptionBreakpointInput:
        if not self.caught and not self.uncaught:
            raise ValueError("caught and uncaught are both false: such a breakpoint never stops; set caught, "
                             "uncaught or both to true")
        return self


class RemoveBreakpointInput(SessionInput):
    breakpointId: Text


class WaitInput(Input):
    debugSessionId: Text
    afterSequence: Annotated[StrictInt, Field(ge=0, le=MAX_SAFE_INT)] = Field(
        default=0, description="Return events with a sequence above this; pass the last next_cursor.")
    timeoutMs: Timeout = 1000


class StackInput(SessionInput):
    stopId: Text
    threadId: Text
    offset: Annotated[StrictInt, Field(ge=0, le=MAX_SAFE_INT)] = 0
    limit: Annotated[StrictInt, Field(ge=1, le=100)] = 20


class LocalsInput(SessionInput):
    stopId: Text
    frameId: Text


class StepInput(SessionInput):
    stopId: Text
    threadId: Text
    kind: Literal["into", "over", "out"]
    stepFilters: StrictBool = Field(
        default=True, description="Skip JDK, Kotlin-runtime and Android-platform classes and synthetic methods "
                                  "(bridges, accessors), as IntelliJ does; false steps wherever the VM goes.")


class ResumeInput(SessionInput):
    stopId: Text


class ObjectInput(SessionInput):
    stopId: Text
    objectId: Text = Field(description="An object_id from locals, fields, elements or entries (s1-obj-4).")
    offset: Annotated[StrictInt, Field(ge=0, le=MAX_SAFE_INT)] = Field(
        default=0, description="First field, element, entry or UTF-16 unit to return; pass next_offset.")
    limit: Annotated[StrictInt, Field(ge=1, le=65536)] | None = Field(
        default=None, description="How many: fields 50 by default (at most 200), elements and entries 100 (at "
                                  "most 1000), string units 8192 (at most 65536).")
    view: Literal["auto", "fields"] = Field(
        default="auto", description="auto shows known containers (lists, sets, maps, boxed values, "
                                    "StringBuilder) as their contents; fields always shows raw fields.")


class EvaluateInput(SessionInput):
    stopId: Text
    frameId: Text = Field(description="A frame_id from get_debugger_stack of this stop.")
    expression: Text = Field(
        description="A read-only Java expression, at most 512 characters: locals, this, fields (a.b), statics "
                    "(Foo.BAR), array elements (a[i]), a.length, literals, ! - * / % + - < <= > >= == != && || "
                    "instanceof, parentheses. No method calls.")


class ThreadsInput(SessionInput):
    stopId: Text | None = Field(
        default=None, description="The current stop (from pause_debugger or a stopped event): adds thread_id, "
                                  "frames, monitors and deadlocks. Without it, threads run: name, status, "
                                  "suspended and group only.")
    stackDepth: Annotated[StrictInt, Field(ge=0, le=50)] = Field(
        default=0, description="Top frames per suspended thread (0–50); needs stopId.")

    @model_validator(mode="after")
    def _depth_needs_stop(self) -> ThreadsInput:
        if self.stackDepth and self.stopId is None:
            raise ValueError("stackDepth needs stopId: frames of running threads cannot be read; pause_debugger "
                             "first")
        return self
