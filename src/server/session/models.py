"""The inputs the tools share, as pydantic models: unknown fields rejected, every bound checked.

Layer: ``server`` (pydantic only). Each tool's own input model is in its module (:mod:`.tools`); here are
the base, the field types every input uses, the session input, and the target inputs that the session
manager takes too. Contract: docs/design.md §5.1 ("All inputs reject unknown fields; strings are
non-empty and at most 512 chars; timeoutMs is an integer 100–30000; positive ints are ≤ 2^53−1").
Input names are camelCase, as the tools publish them.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    WithJsonSchema,
    field_validator,
    model_validator,
)
from pydantic.json_schema import SkipJsonSchema

from jdwp.debugger import Capture
from pyjdwp_android import InvalidArgument
from pyjdwp_android.launch import validate_activity

MAX_SAFE_INT = 2**53 - 1

Text = Annotated[str, Field(min_length=1, max_length=512)]
PositiveInt = Annotated[StrictInt, Field(ge=1, le=MAX_SAFE_INT)]
#: Milliseconds a call may take (the server's ``instructions`` say so once, for every tool).
Timeout = Annotated[StrictInt, Field(ge=100, le=30000)]
#: ``timeoutMs`` as the call's own deadline: accepted and checked, but left out of the tool's schema, since the
#: server's ``instructions`` state it once for every tool (a definition is read every turn). An input whose
#: timeoutMs is how long it waits for something (an event, a stop) shows it: ``Timeout``.
QuietTimeout = SkipJsonSchema[Timeout]


class Input(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LaunchInput(Input):
    """Start the app for debugging instead of attaching to a running process (android only)."""

    activity: Text | None = None
    clearData: StrictBool = False

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

    platform: Literal["android", "jvm"]
    # Which fields go with which platform: the server's instructions say it once for both tools.
    deviceId: Text | None = None
    appId: Text | None = None
    processId: PositiveInt | None = None
    address: Text | None = None
    timeoutMs: QuietTimeout = 10000

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


#: attach_debugger's: on Android the first reply waits for ART to load the debugger agent, which can take
#: many seconds on a big app (docs/tools.md).
AttachTimeout = Annotated[StrictInt, Field(ge=100, le=120000)]


class AttachInput(TargetInput):
    """attach_debugger's input: a target, which may ask to start the app for debugging (``launch``, android
    only), with a longer default ``timeoutMs`` (the first reply's own deadline is 45 s on Android, after a
    handshake of at most 5 s; a launch takes most of the call's time)."""

    timeoutMs: AttachTimeout = 60000

    launch: Annotated[LaunchInput | None, WithJsonSchema(
        {"type": "object", "description": "android {activity?, clearData?}: start it paused"})] = None

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
    debugSessionId: Text
    timeoutMs: QuietTimeout = 10000




class CaptureInput(Input):
    """What a stop reads as it is made (docs/tools.md)."""

    stack: Annotated[StrictInt, Field(ge=0, le=20)] = 1
    locals: StrictBool = False
    expressions: Annotated[tuple[Text, ...], Field(max_length=10)] = ()

    def engine(self) -> Capture:
        return Capture(self.stack, self.locals, self.expressions)


def capture_of(given: CaptureInput | None) -> Capture | None:
    return given.engine() if given is not None else None


#: A ``capture`` input as the model sees it: an object, whose fields the server's ``instructions`` give once
#: (it is an input of five tools, and every definition is read every turn); pydantic still checks every
#: bound, and docs/tools.md tells the rest.
CaptureField = Annotated[CaptureInput | None, WithJsonSchema({"type": "object"})]
