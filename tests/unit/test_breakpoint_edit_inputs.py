"""The inputs of breakpoint editing (no VM): remove_debugger_breakpoint takes exactly one of breakpointId,
breakpointIds or all; update_debugger_breakpoint needs a change, and tells a null (clear it) from a field
left out (keep it); the options' merge and checks (``requests.hits``) before anything changes."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from jdwp.debugger import InvalidArgument
from jdwp.debugger.requests.hits import HitOptions, plan_of, revise, updated_options
from pyjdwp_server.tools.remove_debugger_breakpoint import RemoveBreakpointInput
from pyjdwp_server.tools.update_debugger_breakpoint import UpdateBreakpointInput

SID = {"debugSessionId": "dbg-1"}


@pytest.mark.parametrize("given", [{}, {"breakpointId": "s1-bp-1", "all": True},
                                   {"breakpointId": "s1-bp-1", "breakpointIds": ["s1-bp-2"]},
                                   {"breakpointIds": []}, {"breakpointIds": ["s1-bp-1"] * 101}, {"all": False}])
def test_remove_takes_exactly_one_choice(given: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        RemoveBreakpointInput.model_validate({**SID, **given})


def test_remove_choices() -> None:
    assert RemoveBreakpointInput.model_validate({**SID, "breakpointId": "s1-bp-1"}).breakpointId == "s1-bp-1"
    assert RemoveBreakpointInput.model_validate({**SID, "breakpointIds": ["a", "b"]}).breakpointIds == ["a", "b"]
    assert RemoveBreakpointInput.model_validate({**SID, "all": True}).all is True


def test_update_tells_null_from_left_out() -> None:
    cleared = UpdateBreakpointInput.model_validate({**SID, "breakpointId": "b", "condition": None})
    assert cleared.changes() == {"condition": None}
    changed = UpdateBreakpointInput.model_validate({**SID, "breakpointId": "b", "hitCount": 3, "logMessage": "x"})
    assert changed.changes() == {"hit_count": 3, "log_message": "x"} and changed.enabled is None
    assert UpdateBreakpointInput.model_validate({**SID, "breakpointId": "b", "enabled": False}).changes() == {}


@pytest.mark.parametrize("given", [{}, {"enabled": None}, {"hitCount": 0}, {"condition": ""}, {"other": 1}])
def test_update_needs_a_valid_change(given: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        UpdateBreakpointInput.model_validate({**SID, "breakpointId": "b", **given})


def test_options_merge_then_check() -> None:
    logpoint = HitOptions(condition="i > 1", action="log", log_message="a{i}", max_hits=100)
    assert updated_options(logpoint, log_message=None) == HitOptions(condition="i > 1", action="log", max_hits=100)
    assert updated_options(logpoint, condition=None, hit_count=2).hit_count == 2
    assert plan_of(updated_options(HitOptions(), condition="x == 1")) is not None
    assert plan_of(updated_options(HitOptions(condition="x"), condition=None)) is None  # a plain breakpoint again
    with pytest.raises(InvalidArgument):
        plan_of(updated_options(HitOptions(), log_message="m"))  # a breakpoint that stops has no message
    with pytest.raises(InvalidArgument, match="column"):
        plan_of(updated_options(logpoint, condition="i +"))


def test_a_revision_says_what_changed_and_whether_hits_count_again() -> None:
    logpoint = plan_of(HitOptions(condition="i > 1", action="log", max_hits=100))
    message = revise(logpoint, log_message="{i}")
    assert message.changed and not message.recount  # a new message keeps the count
    assert message.plan is not None and message.plan.options.log_message == "{i}"
    counted = revise(logpoint, hit_count=3)
    assert counted.changed and counted.recount
    same = revise(logpoint, condition="i > 1")
    assert not same.changed and not same.recount
    assert revise(plan_of(HitOptions(condition="x")), condition=None).plan is None  # plain again
    # A method exit's hits are all judged: with its options cleared it keeps a plan of none.
    kept = revise(plan_of(HitOptions(condition="x")), condition=None, always_judged=True)
    assert kept.plan is not None and kept.plan.options == HitOptions()
    with pytest.raises(InvalidArgument):
        revise(None, log_message="m")  # a breakpoint that stops has no message; nothing to change
