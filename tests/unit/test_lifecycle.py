"""The life of a breakpoint of any kind (``requests/lifecycle.py``): its table of moves, read as data."""

from __future__ import annotations

import typing

import pytest

from jdwp.debugger.errors import InvalidArgument
from jdwp.debugger.requests.lifecycle import LIVE, TRANSITIONS, Move, State, after

STATES: tuple[State, ...] = typing.get_args(State)
MOVES: tuple[Move, ...] = typing.get_args(Move)


def test_every_state_is_reached_from_pending_and_only_removed_is_final() -> None:
    reached, frontier = {"pending"}, ["pending"]
    while frontier:
        state = frontier.pop()
        for (start, _), end in TRANSITIONS.items():
            if start == state and end not in reached:
                reached.add(end)
                frontier.append(end)
    assert reached == set(STATES)
    assert {start for start, _ in TRANSITIONS} == set(STATES) - {"removed"}


def test_binding_spending_and_removing_a_one_shot() -> None:
    state: State = "pending"
    for move, expected in (("found_nothing", "rejected"), ("bound", "verified"), ("spend", "spent"),
                           ("remove", "removed")):
        state = after("bp-1", state, move)  # type: ignore[arg-type]
        assert state == expected


def test_only_live_states_want_their_events_and_a_disabled_one_comes_back_pending() -> None:
    assert LIVE == {"pending", "verified", "rejected"}
    assert after("bp-1", "verified", "disable") == "disabled"
    assert after("bp-1", "disabled", "enable") == "pending"


@pytest.mark.parametrize(("state", "move"), [("spent", "enable"), ("spent", "bound"), ("removed", "remove"),
                                             ("removed", "spend"), ("disabled", "bound")])
def test_a_move_not_in_the_table_is_refused_with_the_state(state: State, move: Move) -> None:
    assert (state, move) not in TRANSITIONS and move in MOVES
    with pytest.raises(InvalidArgument, match=f"bp-1 is {state}"):
        after("bp-1", state, move)
