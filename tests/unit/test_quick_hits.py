"""Which conditions a hit's callbacks judge on its locals' values alone (events/quick_hits.py): the others
need a round trip (a string's text, a box, a field, a call) and go to the full judge."""

from __future__ import annotations

import pytest

from jdwp.debugger.events.quick_hits import NeedsRoundTrip, needs_only_values, run_now
from jdwp.debugger.reading.expressions.parser import parse_expression

LOCALS = {"i": "I", "total": "J", "ready": "Z", "ratio": "D", "label": "Ljava/lang/String;", "boxed":
          "Ljava/lang/Integer;"}


@pytest.mark.parametrize("condition", [
    "i == 777", "i * 2 > total && !ready", "-ratio < 0.5 || i % 3 == 0", "label == null", "null != label",
    "i == 1 || label == null", "'a' + i == 98",
])
def test_numbers_booleans_and_null_checks_need_only_the_values(condition: str) -> None:
    assert needs_only_values(parse_expression(condition), LOCALS)


@pytest.mark.parametrize("condition", [
    'label == "item"', "label.length() > 3", "boxed > 3", "boxed == i", "this.count == 1", "count == 1",
    "label == boxed", "i in 1..3", "label != null && label.isEmpty()",
])
def test_strings_boxes_fields_calls_and_casts_go_to_the_full_judge(condition: str) -> None:
    assert not needs_only_values(parse_expression(condition), LOCALS)


async def _at_once() -> int:
    return 7


async def _waits() -> int:
    import trio

    await trio.sleep(0)
    return 7


def test_run_now_finishes_a_coroutine_that_does_not_wait_and_refuses_one_that_does() -> None:
    assert run_now(_at_once()) == 7
    with pytest.raises(NeedsRoundTrip):
        run_now(_waits())
