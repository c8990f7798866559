"""Pause and the thread listing against a real OpenJDK 17 debuggee (``Knots``): statuses, a deadlock of two
threads on two monitors, stepping a thread the pause found, and a pause that detach releases.

Debuggee (``fixtures/java/com/example/debuggee/Knots.java``): "locker-a" holds a ``Knots$LockA`` and waits
for the ``Knots$LockB`` that "locker-b" holds (and the other way round), "waiter" is in ``Object.wait``,
"sleeper" in ``Thread.sleep``, "spinner" runs the marked lines, and a heartbeat thread prints. It prints
"ready" once the lockers are blocked. Lines are found by their ``// MARK:`` comments.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trio

import jdwp
from jdwp.debugger import AlreadyPaused, Debugger, NotFound, Stopped, ThreadInfo, open_debugger, suspended_threads
from pyjdwp_server.answers.envelope import jsonable
from support.engines import engine
from support.jvm import LISTENING, Debuggee, debuggees, find_mark
from support.live import require_tool

KNOTS = "com.example.debuggee.Knots"


@pytest.fixture
def knots(java_classes: Path) -> Iterator[Debuggee]:
    yield from debuggees(java_classes, KNOTS, java=require_tool("java"))


async def next_stop(debugger: Debugger) -> Any:
    event = await debugger.events.receive()
    assert isinstance(event, Stopped), f"expected Stopped, got {event}"
    return event.stop


def by_name(threads: tuple[ThreadInfo, ...]) -> dict[str, ThreadInfo]:
    return {t.name: t for t in threads}


async def heartbeats(debuggee: Debuggee) -> None:
    await trio.to_thread.run_sync(debuggee.wait_for_more_heartbeats)


async def test_running_threads_show_status_and_group_only(knots: Debuggee) -> None:
    """Without a stop: every thread with its status; Object.wait is waiting, Thread.sleep sleeping, the
    deadlocked lockers monitor; no IDs, frames or monitors (the threads run)."""
    with trio.fail_after(60):
        async with engine(knots) as debugger:
            page = await debugger.threads()
            threads = by_name(page.threads)
            assert threads["waiter"].status == "waiting" and threads["sleeper"].status == "sleeping"
            assert threads["locker-a"].status == "monitor" and threads["locker-b"].status == "monitor"
            assert threads["main"].group == "main" and threads["Reference Handler"].group == "system"
            assert not any(t.suspended for t in page.threads)
            assert all(t.thread_id is None and t.owned_monitors is None for t in page.threads)
            assert page.deadlocks is None and "stop_id" in (page.note or "")
            assert page.total == len(page.threads) and not page.truncated
            shown = jsonable(page.threads[0])
            assert set(shown) == {"name", "status", "suspended", "group"}, shown


async def test_a_pause_finds_the_deadlock_as_one_cycle(knots: Debuggee) -> None:
    """Pause: the two lockers form one cycle, each waiting for the monitor the other owns; the waiter and
    the sleeper keep their statuses and own/wait for what they should."""
    with trio.fail_after(60):
        async with engine(knots) as debugger:
            stop = await debugger.pause()
            assert stop.reason == "pause" and stop.thread_id is None and stop.location is None
            assert debugger.state == "paused"
            assert (await next_stop(debugger)) == stop
            page = await debugger.threads(stop.stop_id, stack_depth=3)
            threads = by_name(page.threads)
            a, b = threads["locker-a"], threads["locker-b"]
            assert all(t.suspended for t in page.threads)
            assert [m.runtime_type for m in a.owned_monitors or ()] == [f"{KNOTS}$LockA"]
            assert [m.runtime_type for m in b.owned_monitors or ()] == [f"{KNOTS}$LockB"]
            assert a.waiting_for is not None and b.waiting_for is not None
            assert a.waiting_for.runtime_type == f"{KNOTS}$LockB" and a.waiting_for.owner_thread == b.thread_id
            assert b.waiting_for.runtime_type == f"{KNOTS}$LockA" and b.waiting_for.owner_name == "locker-a"
            # HotSpot places a thread blocked in monitorenter at the bytecode after it: the block's first line.
            second = find_mark("knots-second")[1]
            assert a.frames[0].method == "lock" and a.frames[0].line in (second, second + 1), a.frames[0]
            assert page.deadlocks is not None and len(page.deadlocks) == 1
            cycle = page.deadlocks[0].threads
            assert {link.thread_name for link in cycle} == {"locker-a", "locker-b"}
            for link in cycle:
                other = b if link.thread_name == "locker-a" else a
                assert link.owner_thread == other.thread_id
                assert link.waiting_for == (other.owned_monitors or ())[0].object_id
            waiter, sleeper = threads["waiter"], threads["sleeper"]
            assert waiter.status == "waiting" and sleeper.status == "sleeping"
            assert waiter.waiting_for is not None and waiter.waiting_for.runtime_type == "java.lang.Object"
            assert waiter.waiting_for.owner_thread is None  # nobody owns GATE while its waiter waits
            assert [f.method for f in sleeper.frames[:2]] == ["sleep", "pause"]
            await debugger.resume(stop.stop_id)
            await heartbeats(knots)


async def test_pause_then_step_a_thread_found_by_the_listing(knots: Debuggee) -> None:
    """Pause, list threads, read the spinner's stack and locals by its thread ID, step it (a step stop in
    that thread follows), resume: the app runs on."""
    with trio.fail_after(60):
        async with engine(knots) as debugger:
            stop = await debugger.pause()
            await next_stop(debugger)
            with pytest.raises(AlreadyPaused) as refused:
                await debugger.pause()
            assert refused.value.code == "DEBUGGER_BUSY" and stop.stop_id in str(refused.value)
            # no thread of its own: IDs come from the list
            with pytest.raises(NotFound, match=r"Debugger\.threads\(\)"):
                await debugger.stack(stop.stop_id, f"{stop.stop_id}.t1")
            threads = by_name((await debugger.threads(stop.stop_id)).threads)
            spinner = threads["spinner"].thread_id
            assert spinner is not None
            page = await debugger.stack(stop.stop_id, spinner)
            assert page.frames[0].class_name == KNOTS and page.frames[0].method in {"spin", "turn"}
            spin = next(f for f in page.frames if f.method == "spin")
            names = {v.name for v in (await debugger.locals(stop.stop_id, spin.frame_id)).locals}
            assert "total" in names
            await debugger.step(stop.stop_id, spinner, "over")
            stepped = await next_stop(debugger)
            assert stepped.reasons == ("step",) and stepped.thread_name == "spinner", stepped
            assert stepped.location.class_name == KNOTS
            await debugger.resume(stepped.stop_id)
            await heartbeats(knots)
            assert debugger.state == "running"


async def test_detach_releases_a_pause(knots: Debuggee) -> None:
    """A pause left current at detach: the VM runs afterwards. Detach reports ``running`` only when
    ``suspended_threads`` counts none suspended after its release; the heartbeats prove it too."""
    with trio.fail_after(60):
        async with jdwp.open_jdwp_tcp("127.0.0.1", knots.port) as vm:
            async with open_debugger(vm) as debugger:
                await debugger.pause()
                assert await suspended_threads(vm) == len(await vm.all_threads())
                cleanup = await debugger.detach()
            assert cleanup.status == "complete" and cleanup.execution_state == "running", cleanup
        # The agent listens again, on a new port, once a debugger has left: look from outside as well.
        first = knots.lines.index(next(line for line in knots.lines if LISTENING.search(line)))
        again = await trio.to_thread.run_sync(lambda: knots.wait_for_line(LISTENING, after=first + 1, timeout=15))
        async with jdwp.open_jdwp_tcp("127.0.0.1", int(again.group(1))) as vm:
            assert await suspended_threads(vm) == 0
        await heartbeats(knots)


async def test_a_breakpoint_hit_while_paused_queues_behind_the_pause(knots: Debuggee) -> None:
    """While paused, a breakpoint on the spinner's line is hit as soon as the pause is resumed; it is its own
    stop, and the listing at it gives the other threads IDs too."""
    with trio.fail_after(60):
        async with engine(knots) as debugger:
            stop = await debugger.pause()
            await next_stop(debugger)
            await debugger.set_breakpoint(KNOTS, find_mark("knots-after")[1])
            await debugger.resume(stop.stop_id)
            hit = await next_stop(debugger)
            assert hit.reasons == ("breakpoint",) and hit.thread_name == "spinner"
            threads = by_name((await debugger.threads(hit.stop_id, stack_depth=1)).threads)
            assert threads["spinner"].thread_id == hit.thread_id
            sleeper = threads["sleeper"].thread_id
            assert sleeper is not None and sleeper.startswith(hit.stop_id + ".t")
            assert (await debugger.stack(hit.stop_id, sleeper)).frames[0].method == "sleep"
            await debugger.resume(hit.stop_id)


async def test_a_pause_diagnosis_lists_the_app_s_threads_with_monitors_and_counts_the_vm_s(knots: Debuggee) -> None:
    """One read after a pause answers the freeze: the app's threads (statuses, top frames, monitors with
    previews), the deadlock, and HotSpot's own threads (Reference Handler, Finalizer, …) only counted."""
    with trio.fail_after(60):
        async with engine(knots) as debugger:
            stop = await debugger.pause()
            found = await debugger.diagnosis(stop.stop_id)
            threads = by_name(found.threads)
            assert {"main", "locker-a", "locker-b", "waiter", "sleeper", "spinner", "heartbeat"} <= set(threads)
            assert not {"Reference Handler", "Finalizer", "Signal Dispatcher", "Common-Cleaner"} & set(threads)
            assert found.system_count >= 3 and found.system_threads == ()
            assert found.total == len(found.threads) + found.system_count
            locker = threads["locker-a"]
            assert locker.status == "monitor" and len(locker.frames) == 1
            assert locker.frames[0].class_name == KNOTS
            assert locker.waiting_for is not None and locker.waiting_for.preview == "LockB()"
            assert [m.preview for m in locker.owned_monitors or ()] == ["LockA()"]
            assert found.deadlocks is not None and len(found.deadlocks) == 1
            assert {link.preview for link in found.deadlocks[0].threads} == {"LockA()", "LockB()"}
            everyone = await debugger.diagnosis(stop.stop_id, system_threads=True)
            assert "Reference Handler" in {t.name for t in everyone.system_threads}
            assert len(everyone.system_threads) == everyone.system_count == found.system_count
            await debugger.resume(stop.stop_id)
