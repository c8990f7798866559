"""A breakpoint's answer echoes what it does: a logpoint suspends nothing, so it shows no ``suspend``
(issue 23 item 12)."""

from __future__ import annotations

from jdwp.debugger import Breakpoint
from jdwp.debugger.requests.hits import HitOptions
from pyjdwp_server.answers.results import BreakpointAnswer


def answer(options: HitOptions) -> BreakpointAnswer:
    return BreakpointAnswer.of(Breakpoint("s1-bp-1", "com.example.Foo", 12, "pending", options=options, hits=0))


def test_a_logpoint_answers_no_suspend() -> None:
    logged = answer(HitOptions(action="log", log_message="i={i}", max_hits=100))  # suspend "all" by default
    assert (logged.action, logged.suspend, logged.max_hits) == ("log", None, 100)


def test_a_breakpoint_that_stops_echoes_its_suspend() -> None:
    assert answer(HitOptions(condition="i == 1")).suspend == "all"
    assert answer(HitOptions(suspend="thread")).suspend == "thread"
