"""Which queued stops become current (:class:`jdwp.debugger.events.stops.Stops`): one none of whose reasons is
still wanted is handed back for release; one still wanted for another reason shows only what is still wanted."""

from __future__ import annotations

from typing import Any

from jdwp.debugger.events.stops import Stops, StopState, Suspension
from jdwp.debugger.ids import IdScheme
from jdwp.debugger.model import Stop, Stopped, StopReason
from jdwp.protocol.constants import SuspendPolicy
from jdwp.protocol.types import ThreadId


class _NoSteps:
    def pending(self, thread: ThreadId) -> tuple[()]:
        return ()


def stops(held: set[str], published: list[Any]) -> Stops:
    return Stops(IdScheme(), _NoSteps(), published.append,  # type: ignore[arg-type]
                 lambda breakpoint_id, revision: breakpoint_id in held and revision in (None, 0))


def state(number: int, reasons: tuple[StopReason, ...], breakpoint_ids: tuple[str, ...], **fields: Any) -> StopState:
    stop = Stop(f"stop-{number}", reasons, f"stop-{number}.t1", "worker", None, breakpoint_ids, **fields)
    return StopState(stop, Suspension(SuspendPolicy.ALL, ThreadId(1)), {})


def test_a_stop_of_removed_breakpoints_only_is_handed_back_and_the_next_wanted_one_made_current() -> None:
    published: list[Any] = []
    kept = stops({"bp-2"}, published)
    gone, wanted = state(1, ("breakpoint",), ("bp-1",)), state(2, ("breakpoint",), ("bp-2",))
    assert kept.arrive(state(3, ("pause",), ())) == []
    assert kept.arrive(gone) == [] and kept.arrive(wanted) == []
    kept.current = None
    assert kept.promote() == [gone]
    assert kept.current is wanted and [e.stop for e in published if isinstance(e, Stopped)][-1] is wanted.stop


def test_a_stop_still_wanted_names_only_the_breakpoints_still_held() -> None:
    kept = stops({"bp-2"}, [])
    both = state(1, ("breakpoint",), ("bp-1", "bp-2"))
    assert kept.arrive(both) == []
    assert kept.current is both and both.stop.breakpoint_ids == ("bp-2",)


def test_a_stop_that_ended_its_threads_step_stays_and_says_step_when_its_breakpoint_went() -> None:
    kept = stops(set(), [])
    ended = state(1, ("breakpoint",), ("bp-1",), ended_step="over")
    assert kept.arrive(ended) == []
    assert kept.current is ended and (ended.stop.reasons, ended.stop.breakpoint_ids) == (("step",), ())


def test_a_stop_judged_before_an_update_of_its_breakpoint_is_wanted_no_more() -> None:
    updated = Stops(IdScheme(), _NoSteps(), [].append,  # type: ignore[arg-type]
                    lambda breakpoint_id, revision: revision in (None, 1))  # bp-1 updated once
    old = state(1, ("breakpoint",), ("bp-1",))
    old.revisions = {"bp-1": 0}  # its hit was judged before the update
    assert updated.arrive(old) == [old] and updated.current is None
