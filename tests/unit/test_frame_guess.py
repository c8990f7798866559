"""Guessing frame 0's ID at a thread's next hit (jdwp/frame_guess.py) and which names a condition looks
up in its frame (``expressions.frame_names``): what lets a judged hit read its locals with its frames."""

from __future__ import annotations

import pytest

from jdwp.debugger.reading.expressions import frame_names, parse_expression
from jdwp.debugger.requests.hits import HitOptions, plan_hits
from jdwp.frame_guess import FrameGuesses


def test_no_guess_before_two_hits_of_the_thread() -> None:
    guesses = FrameGuesses()
    assert guesses.guess(1) is None
    guesses.saw(1, 0x10000)
    assert guesses.guess(1) is None
    guesses.saw(1, 0x20000)
    assert guesses.guess(1) == 0x30000


def test_the_step_is_each_threads_own_and_follows_the_latest_hits() -> None:
    guesses = FrameGuesses()
    for frame_id in (0x10000, 0x20000):
        guesses.saw(1, frame_id)
    for frame_id in (0x50000, 0x80000):
        guesses.saw(2, frame_id)
    assert (guesses.guess(1), guesses.guess(2)) == (0x30000, 0xB0000)
    guesses.saw(1, 0x70000)  # another suspension came between: the step follows
    assert guesses.guess(1) == 0xC0000


def test_events_let_go_unread_step_the_guess_once_each() -> None:
    """A traced thread calls a method with arguments (its frame read) and one without (let go unread) in turn:
    each release moves the generation by one, read or not, so the guess steps over the unread ones."""
    guesses = FrameGuesses()
    guesses.saw(1, 0x10000)
    guesses.passed(1)
    guesses.saw(1, 0x30000)
    assert guesses.guess(1) == 0x40000  # the step is one generation, not the two between the reads
    guesses.passed(1)
    guesses.passed(1)
    assert guesses.certain(1) == 0x60000
    guesses.saw(1, 0x60000)
    assert guesses.guess(1) == 0x70000
    guesses.passed(2)  # a thread never seen: nothing to step from
    assert guesses.guess(2) is None
    guesses.forget(1)
    assert guesses.guess(1) is None


def test_the_least_recently_hit_threads_are_forgotten() -> None:
    guesses = FrameGuesses(kept=2)
    for thread in (1, 2, 3):
        guesses.saw(thread, 0)
        guesses.saw(thread, 1)
    assert guesses.guess(1) is None and guesses.guess(3) == 2


def test_a_guess_goes_alone_only_once_the_ids_showed_openjdks_layout() -> None:
    guesses = FrameGuesses()
    guesses.saw(1, 0x10000)
    assert guesses.certain(1) is None  # no step seen yet
    guesses.saw(1, 0x20000)
    assert guesses.certain(1) == 0x30000
    guesses.saw(2, 0x7)
    guesses.saw(2, 0x9)  # another layout: generation and depth not apart
    assert guesses.certain(1) is None and guesses.certain(2) is None and guesses.guess(2) == 0xB
    guesses.saw(1, 0x30000)
    assert guesses.certain(1) is None  # for good: one VM, one layout


def test_a_first_step_off_the_layout_never_trusts_the_guess_alone() -> None:
    guesses = FrameGuesses()
    guesses.saw(1, 100)
    guesses.saw(1, 200)
    guesses.saw(2, 0x10000)
    guesses.saw(2, 0x20000)
    assert guesses.certain(2) is None and guesses.guess(2) == 0x30000


@pytest.mark.parametrize(("text", "names"), [
    ("i == 777", {"i"}),
    ("i % 3 == 0 && name.length() > 2", None),  # a call may have this as its receiver
    ("list.size > 2 && arr[j] != null", {"list", "arr", "j"}),
    ("this.count > 1", None),
    ("!done", {"done"}),
    ("x instanceof String", {"x"}),
    ("com.example.Config.DEBUG", {"com"}),  # the first part of a dotted name is looked up like any name
    ("42", set()),
])
def test_frame_names_are_every_name_looked_up_or_none_when_this_is_needed(text: str, names: set[str] | None) -> None:
    found = frame_names(parse_expression(text))
    assert found == (None if names is None else frozenset(names))


def test_a_plan_joins_the_names_of_its_condition_and_its_message() -> None:
    plan = plan_hits(HitOptions(condition="i > 2", action="log", log_message="i={i} total={total}"))
    assert plan.frame_names == frozenset({"i", "total"})
    assert plan_hits(HitOptions(action="log", log_message="{this}")).frame_names is None
    assert plan_hits(HitOptions()).frame_names == frozenset()


def test_the_same_hit_told_twice_keeps_the_step() -> None:
    guesses = FrameGuesses()
    for frame_id in (0x10000, 0x20000, 0x20000):  # judged, then its stop: one hit
        guesses.saw(1, frame_id)
    assert guesses.guess(1) == 0x30000
