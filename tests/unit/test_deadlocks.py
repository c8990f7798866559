"""Deadlock cycles of the "blocked on a monitor owned by" graph (pure: :mod:`jdwp.debugger.reading.deadlocks`)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from jdwp.debugger.reading.deadlocks import find_cycles, links


def test_two_threads_waiting_for_each_other_are_one_cycle() -> None:
    assert find_cycles({1: 2, 2: 1}) == [[1, 2]]


def test_a_cycle_starts_at_its_first_listed_thread_whatever_the_walk() -> None:
    assert find_cycles({3: 1, 1: 2, 2: 3}) == [[3, 1, 2]]
    assert find_cycles({5: 1, 1: 2, 2: 3, 3: 1}) == [[1, 2, 3]]


def test_a_chain_into_a_cycle_is_not_part_of_it_and_a_chain_alone_is_none() -> None:
    assert find_cycles({9: 1, 1: 2, 2: 1}) == [[1, 2]]
    assert find_cycles({1: 2, 2: 3}) == []  # 3 runs (it waits for nothing): no deadlock


def test_two_separate_cycles_and_a_self_wait() -> None:
    assert find_cycles({1: 2, 2: 1, 3: 4, 4: 3, 5: 5}) == [[1, 2], [3, 4], [5]]


def test_links_name_the_next_thread_as_owner() -> None:
    described = {1: ("t1", "a", "obj-1", "LockB"), 2: ("t2", "b", "obj-2", "LockA")}
    deadlock = links([1, 2], described)
    assert [(x.thread_id, x.waiting_for, x.owner_thread) for x in deadlock.threads] == [
        ("t1", "obj-1", "t2"), ("t2", "obj-2", "t1")]


@given(st.dictionaries(st.integers(0, 12), st.integers(0, 12)))
def test_every_cycle_is_closed_and_disjoint(graph: dict[int, int]) -> None:
    cycles = find_cycles(graph)
    seen: set[int] = set()
    for cycle in cycles:
        assert all(graph[a] == b for a, b in zip(cycle, cycle[1:] + cycle[:1], strict=True))
        assert not seen & set(cycle)
        seen |= set(cycle)
    # A thread on no cycle reaches a thread that waits for nothing, or a cycle, by following its owner.
    for start in set(graph) - seen:
        node, steps = start, 0
        while node in graph and node not in seen and steps <= len(graph):
            node, steps = graph[node], steps + 1
        assert node not in graph or node in seen
