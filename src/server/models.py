"""The MCP tools' inputs as pydantic models: unknown fields rejected, every bound checked.

Layer: ``server`` (pydantic only). Contract: DESIGN.md §5 ("All inputs reject unknown fields; strings are
non-empty and at most 512 chars; timeoutMs is an integer 100–30000; positive ints are ≤ 2^53−1").
Input names are camelCase, as the tools publish them.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, model_validator

MAX_SAFE_INT = 2**53 - 1

Text = Annotated[str, Field(min_length=1, max_length=512)]
PositiveInt = Annotated[StrictInt, Field(ge=1, le=MAX_SAFE_INT)]
Timeout = Annotated[StrictInt, Field(ge=100, le=30000, description="Milliseconds this call may take (100–30000).")]


class Input(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


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
            extra = [n for n in ("deviceId", "appId", "processId") if getattr(self, n) is not None]
            if extra:
                listed = extra[0] if len(extra) == 1 else f"{', '.join(extra[:-1])} and {extra[-1]}"
                raise ValueError(f"{listed} {'is' if len(extra) == 1 else 'are'} for platform android; "
                                 "jvm takes address")
        return self


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

    @model_validator(mode="after")
    def _one_place(self) -> SetBreakpointInput:
        if (self.className is None) == (self.file is None):
            raise ValueError("give exactly one of className (com.example.Foo) or file (Foo.kt or a path)")
        if self.file is not None:
            if "\x00" in self.file:
                raise ValueError("file must not contain a NUL character")
            if ".." in self.file.replace("\\", "/").split("/"):
                raise ValueError("file must not contain a '..' directory")
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
