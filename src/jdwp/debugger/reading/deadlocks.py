"""Monitor deadlocks: cycles of threads each blocked on a monitor that the next one owns.

Layer: ``jdwp.debugger`` (pure: no I/O, no trio). docs/design.md §3.9.

A thread blocked entering a monitor (JDWP status ``MONITOR``) waits for exactly one owner, so "who waits
for whom" is a graph with at most one edge out of each thread, and each of its cycles is a deadlock: no
thread of it can go on until another of it does. Threads in ``Object.wait`` are left out: they wait for a
``notify``, which any thread may send, not for an owner.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable, Mapping, Sequence
from typing import TypeVar

from ..model import OMIT_EMPTY, bound_names

__all__ = ["Deadlock", "DeadlockLink", "find_cycles", "links"]

T = TypeVar("T", bound=Hashable)


@dataclasses.dataclass(frozen=True, slots=True)
class DeadlockLink:
    """One thread of a deadlock: the monitor it waits for, and the thread of the cycle that owns it."""

    thread_id: str
    thread_name: str
    waiting_for: str
    runtime_type: str | None
    owner_thread: str
    truncated_names: tuple[str, ...] = dataclasses.field(default=(), metadata=OMIT_EMPTY)
    #: The monitor object's preview (:mod:`.previews`), when previews were read.
    preview: str | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)

    def __post_init__(self) -> None:
        bound_names(self, "thread_name", "runtime_type")


@dataclasses.dataclass(frozen=True, slots=True)
class Deadlock:
    """A cycle: each thread waits for the monitor the next one owns, and the last for the first's."""

    threads: tuple[DeadlockLink, ...]


def find_cycles(waits_for: Mapping[T, T]) -> list[list[T]]:
    """Every cycle of the "blocked on a monitor owned by" graph, each once.

    ``waits_for`` maps a blocked thread to the owner of the monitor it waits for. A cycle starts at its
    smallest member's position in ``waits_for``'s order, so the answer does not depend on where a walk
    happened to enter it. Chains that lead into a cycle (a thread waiting for a deadlocked one) are not
    part of it.
    """
    order = {thread: index for index, thread in enumerate(waits_for)}
    state: dict[T, int] = {}  # 1: on the current walk, 2: done
    cycles: list[list[T]] = []
    for start in waits_for:
        walk: list[T] = []
        node: T | None = start
        while node is not None and node not in state:
            state[node] = 1
            walk.append(node)
            node = waits_for.get(node)
        if node is not None and state[node] == 1:
            cycle = walk[walk.index(node):]
            first = min(range(len(cycle)), key=lambda i: order.get(cycle[i], len(order)))
            cycles.append(cycle[first:] + cycle[:first])
        for seen in walk:
            state[seen] = 2
    return cycles


def links(cycle: Sequence[T], describe: Mapping[T, tuple[str | None, ...]]) -> Deadlock:
    """A cycle as records; ``describe`` gives each thread's (thread_id, name, monitor object_id, type[, preview])."""
    out = []
    for index, thread in enumerate(cycle):
        thread_id, name, monitor, runtime_type, *rest = describe[thread]
        preview = rest[0] if rest else None
        assert thread_id is not None and name is not None and monitor is not None
        owner = describe[cycle[(index + 1) % len(cycle)]][0] or ""
        out.append(DeadlockLink(thread_id, name, monitor, runtime_type, owner, preview=preview))
    return Deadlock(tuple(out))
