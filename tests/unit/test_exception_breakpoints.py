"""Exception breakpoints without a VM: input checks, the records and how the server shows them."""

from __future__ import annotations

import pytest

from jdwp.debugger import Breakpoint, ExceptionBreakpoint, InvalidArgument, SourcePosition, Stop, ThrownException
from jdwp.debugger.requests.exceptions import ExceptionRequest, exception_request
from pyjdwp_server.answers.envelope import jsonable
from pyjdwp_server.answers.results import BreakpointAnswer, ExceptionBreakpointAnswer, answer_of
from pyjdwp_server.tools.set_debugger_exception_breakpoint import ExceptionBreakpointInput


def test_defaults_are_every_throwable_uncaught_only() -> None:
    assert exception_request() == ExceptionRequest(None, False, True)
    assert exception_request("com.example.Outer$Failure", True, False) == ExceptionRequest(
        "com.example.Outer$Failure", True, False)


@pytest.mark.parametrize("name", ["", "java.lang.", ".Error", "java..lang.Error", "Illegal State", "Foo()",
                                  "java/lang/Error", "Ljava/lang/Error;", "1abc"])
def test_a_name_that_is_not_a_binary_class_name_is_refused(name: str) -> None:
    with pytest.raises(InvalidArgument, match="not a binary class name"):
        exception_request(name)


def test_a_breakpoint_that_can_never_stop_is_refused() -> None:
    with pytest.raises(InvalidArgument, match="both false"):
        exception_request("java.lang.Error", caught=False, uncaught=False)
    # The tool's input checks types only and the engine's rule refuses it (as the tool asks it, before any session).
    given = ExceptionBreakpointInput(debugSessionId="s", caught=False, uncaught=False)
    with pytest.raises(InvalidArgument, match="both false"):
        exception_request(given.exceptionClass, given.caught, given.uncaught)


def test_flags_must_be_booleans() -> None:
    with pytest.raises(InvalidArgument):
        exception_request(None, 1, True)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        ExceptionBreakpointInput(debugSessionId="s", caught="true")  # type: ignore[arg-type]


def test_answers_say_their_kind() -> None:
    exception = ExceptionBreakpoint("s1-bp-2", None, False, True, "verified")
    line = Breakpoint("s1-bp-1", "com.x.Main", 9, "pending")
    assert (exception.kind, line.kind) == ("exception", "line")
    assert isinstance(answer_of(exception), ExceptionBreakpointAnswer)
    assert isinstance(answer_of(line), BreakpointAnswer)
    assert jsonable(answer_of(exception)) == {
        "breakpoint_id": "s1-bp-2", "kind": "exception", "status": "verified",
        "requested": {"exception_class": None, "caught": False, "uncaught": True}}
    assert jsonable(answer_of(line)) == {"breakpoint_id": "s1-bp-1", "kind": "line", "status": "pending",
                                         "requested": {"class_name": "com.x.Main", "line": 9}, "locations": []}


def test_an_uncaught_exception_shows_catch_location_null_and_other_stops_no_exception() -> None:
    where = SourcePosition("com.x.Main", "run", "Main.java", 12, 4)
    thrown = ThrownException("java.lang.IllegalStateException", None, "s1-obj-1", where, None)
    stop = Stop("s1-stop-1", ("exception",), "s1-stop-1.t1", "main", where, ("s1-bp-1",), exception=thrown)
    shown = jsonable(stop)["exception"]
    assert shown == {"type": "java.lang.IllegalStateException", "message": None, "object_id": "s1-obj-1",
                     "throw_location": jsonable(where), "catch_location": None}  # truncated only when it was
    plain = Stop("s1-stop-2", ("breakpoint",), "s1-stop-2.t1", "main", where, ("s1-bp-2",))
    assert "exception" not in jsonable(plain)


def test_a_type_name_from_the_vm_is_bounded() -> None:
    thrown = ThrownException("x" * 2000, "m", "obj-1", None, None)
    assert len(thrown.type) == 1024 and thrown.truncated_names == ("type",)
