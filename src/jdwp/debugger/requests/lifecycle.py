"""The life of a breakpoint of any kind, as one table: its states, and what moves it from one to another.

Layer: ``jdwp.debugger``; pure (no trio, no wire). Written once for every kind (:mod:`.kind`); a kind says
*when* a move happens (a class binds it, a hit spends it), this table says *where it goes*, as h11's state
tables do for HTTP.

States:

- ``pending``: held and armed, bound in no class yet (none of its classes is loaded);
- ``verified``: bound in some class (its JDWP requests are set);
- ``rejected``: classes of its target are loaded, none has what it names; it stays armed for later ones;
- ``disabled``: held, counted, with none of its requests (``update_debugger_breakpoint`` ``enabled: false``);
- ``spent``: its ``maxHits`` reached: its requests cleared. A logpoint stays held, ``spent``; a breakpoint
  that stops is removed at once (``maxHits: 1`` is a one-shot);
- ``removed``: gone, its requests cleared. An event of it may still be on its way, or a stop of it queued:
  that event means nothing (its request ID is nobody's), and a queued stop is wanted only if its hit was one
  of a spent breakpoint's budget (:meth:`.manager.Requests.wants`).

Only the *live* states (pending, verified, rejected) want their events.
"""

from __future__ import annotations

from typing import Literal

from ..errors import InvalidArgument

__all__ = ["LIVE", "TRANSITIONS", "Move", "State", "after"]

State = Literal["pending", "verified", "rejected", "disabled", "spent", "removed"]
Move = Literal["bound", "found_nothing", "unbound", "disable", "enable", "spend", "remove"]

LIVE: frozenset[State] = frozenset({"pending", "verified", "rejected"})

#: Every legal move, once: (state, move) -> the state it leads to. A move not listed is a bug of ours.
TRANSITIONS: dict[tuple[State, Move], State] = {
    # binding, while armed: a class with what it names binds it; one without leaves it rejected unless bound
    ("pending", "bound"): "verified",
    ("rejected", "bound"): "verified",
    ("verified", "bound"): "verified",
    ("pending", "found_nothing"): "rejected",
    ("rejected", "found_nothing"): "rejected",
    # its requests cleared to be made anew (a change of options or suspend policy), or as it is disabled
    ("pending", "unbound"): "pending",
    ("verified", "unbound"): "pending",
    ("rejected", "unbound"): "pending",
    ("disabled", "unbound"): "disabled",
    ("pending", "disable"): "disabled",
    ("verified", "disable"): "disabled",
    ("rejected", "disable"): "disabled",
    ("disabled", "disable"): "disabled",
    ("disabled", "enable"): "pending",
    ("pending", "enable"): "pending",
    ("verified", "enable"): "verified",
    ("rejected", "enable"): "rejected",
    ("pending", "spend"): "spent",
    ("verified", "spend"): "spent",
    ("rejected", "spend"): "spent",
    ("disabled", "spend"): "spent",  # its last hit was judged as it was disabled: spent all the same
    ("pending", "remove"): "removed",
    ("verified", "remove"): "removed",
    ("rejected", "remove"): "removed",
    ("disabled", "remove"): "removed",
    ("spent", "remove"): "removed",
}


def after(breakpoint_id: str, state: State, move: Move) -> State:
    """The state ``move`` leads to from ``state``.

    Raises:
        InvalidArgument: the move is not one of ``state``'s (a spent or removed breakpoint takes no change).
    """
    found = TRANSITIONS.get((state, move))
    if found is None:
        raise InvalidArgument(f"{breakpoint_id} is {state} and cannot be {_PAST[move]}; set a new one")
    return found


_PAST: dict[Move, str] = {"bound": "bound", "found_nothing": "rejected", "unbound": "re-armed",
                          "disable": "disabled", "enable": "enabled", "spend": "spent", "remove": "removed"}
