"""Breakpoint options checked and parsed at set time (jdwp.debugger.requests.hits), and the logpoint rate limit."""

from __future__ import annotations

import pytest

from jdwp.debugger.errors import InvalidArgument
from jdwp.debugger.events.judge import RateLimit
from jdwp.debugger.reading.expressions import ExpressionSyntaxError, Name
from jdwp.debugger.requests.hits import DEFAULT_MAX_HITS, HitOptions, parse_template, plan_hits


def test_a_logpoint_gets_the_default_max_hits_and_the_thread_policy() -> None:
    plan = plan_hits(HitOptions(action="log"))
    assert plan.options.max_hits == DEFAULT_MAX_HITS and plan.template is None
    assert plan.options.holds_thread_only
    assert not HitOptions().holds_thread_only and not HitOptions(hit_count=1).holds_thread_only
    assert HitOptions(hit_count=2).holds_thread_only and HitOptions(suspend="thread").holds_thread_only


def test_templates_split_into_text_and_expressions() -> None:
    assert parse_template("i={i}, {{literal}} {m[\"}\"]}!") == (
        "i=", Name("i", 1), ", {literal} ", parse_template('{m["}"]}')[0], "!")
    assert parse_template("no parts") == ("no parts",)


@pytest.mark.parametrize(("template", "column"), [("a {i +}", 7), ("x {", 3), ("x {}", 3), ("a } b", 3),
                                                  ("ok {i} {1 +* 2}", 12)])
def test_template_errors_have_the_column_in_the_whole_message(template: str, column: int) -> None:
    with pytest.raises(ExpressionSyntaxError) as caught:
        parse_template(template)
    assert caught.value.column == column and caught.value.code == "INVALID_ARGUMENT"


def test_a_condition_error_has_its_column() -> None:
    with pytest.raises(ExpressionSyntaxError) as caught:
        plan_hits(HitOptions(condition="i == "))
    assert caught.value.column == 6 and "condition" in str(caught.value)


@pytest.mark.parametrize("options", [HitOptions(hit_count=0), HitOptions(hit_count=True), HitOptions(max_hits=0),
                                     HitOptions(log_message="x"), HitOptions(action="log", max_hits=10_001),
                                     HitOptions(action="log", max_hits=0), HitOptions(action="log", suspend="thread"),
                                     HitOptions(action="jump"), HitOptions(suspend="none"),  # type: ignore[arg-type]
                                     HitOptions(action="log", log_message="x" * 513)])
def test_bad_options_are_invalid_arguments(options: HitOptions) -> None:
    with pytest.raises(InvalidArgument):
        plan_hits(options)


def test_the_rate_limit_admits_100_in_any_second_and_counts_the_rest() -> None:
    now = [0.0]
    rate = RateLimit(100, clock=lambda: now[0])
    assert all(rate.admit() == (True, 0) for _ in range(100))
    assert [rate.admit() for _ in range(7)] == [(False, 0)] * 7
    now[0] = 0.999
    assert rate.admit() == (False, 0)
    now[0] = 1.0  # the first second's captures leave the window: the next capture reports the 8 dropped
    assert rate.admit() == (True, 8)
    assert rate.admit() == (True, 0)


@pytest.mark.parametrize(("options", "column"), [
    (HitOptions(condition="i > 0 && list.isEmpty()"), 15),  # the method name's column
    (HitOptions(condition="size(a.b(1))"), 1),
    (HitOptions(action="log", log_message="n={m.get(k)} i={i}"), 6),
])
def test_conditions_and_log_parts_never_call_methods(options: HitOptions, column: int) -> None:
    """A hit is judged while the app runs on: refused at set time, whatever --allow-invoke says."""
    with pytest.raises(InvalidArgument) as caught:
        plan_hits(options)
    assert f"column {column}:" in str(caught.value) and "never call methods" in str(caught.value)
