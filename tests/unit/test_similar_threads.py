"""Similar threads folded (jdwp.debugger.reading.similar_threads): which threads fold, which never do, and the
order an agent reads them in. The Jetty pool is checked live (tests/server/test_server_threads.py)."""

from __future__ import annotations

import itertools

from jdwp.debugger import (
    MAX_NAME,
    Deadlock,
    DeadlockLink,
    Frame,
    Monitor,
    SimilarThreads,
    SourcePosition,
    ThreadInfo,
    WaitingFor,
    fold_threads,
    frame_text,
)
from jdwp.debugger.reading.similar_threads import SHOWN_NAMES
from pyjdwp_server.answers.envelope import jsonable

PARK = ("jdk.internal.misc.Unsafe", "park", "Unsafe.java", None, -1)
POLL = ("org.eclipse.jetty.util.BlockingArrayQueue", "poll", "BlockingArrayQueue.java", 382, 88)
TAKE = ("java.util.concurrent.LinkedBlockingQueue", "take", "LinkedBlockingQueue.java", 435, 40)
HANDLE = ("com.example.jetty.JettyApp", "handle", "JettyApp.java", 31, 4)
READ = ("java.io.FileInputStream", "readBytes", "FileInputStream.java", None, -1)
_NUMBERS = itertools.count(0x1000)


def thread(name: str, *places: tuple[str, str, str, int | None, int], status: str = "waiting", group: str = "main",
           number: int | None = None, **extra: object) -> ThreadInfo:
    handle = f"s1-stop-1.t{number if number is not None else next(_NUMBERS):x}"
    frames = tuple(Frame(f"{handle}.f{index}", index, *place) for index, place in enumerate(places))
    return ThreadInfo(name, status, True, group, handle, len(frames) + 3, frames, **extra)  # type: ignore[arg-type]


def pool(count: int, *places: tuple[str, str, str, int | None, int], first: int = 100) -> list[ThreadInfo]:
    return [thread(f"qtp-{n}", *places, number=first + n) for n in range(count)]


def test_threads_at_the_same_frames_fold_into_one_entry_with_every_id() -> None:
    idle = pool(7, PARK, POLL)
    [folded] = fold_threads(idle)
    assert isinstance(folded, SimilarThreads)
    assert (folded.count, folded.status, folded.group) == (7, "waiting", "main")
    assert folded.thread_names == tuple(f"qtp-{n}" for n in range(SHOWN_NAMES))
    assert folded.thread_ids == tuple(t.thread_id for t in idle)
    assert folded.frames == ("jdk.internal.misc.Unsafe.park(Native Method)",
                             "org.eclipse.jetty.util.BlockingArrayQueue.poll(BlockingArrayQueue.java:382)")
    shown = jsonable(folded)
    assert set(shown) == {"count", "status", "frames", "thread_names", "thread_ids", "group"}


def test_a_set_of_one_stays_the_thread_itself() -> None:
    lone = thread("scheduler", PARK, TAKE)
    entries = fold_threads([*pool(3, PARK, POLL), lone])
    assert lone in entries and len(entries) == 2


def test_frames_status_and_thread_group_must_all_match() -> None:
    deeper = pool(2, PARK, POLL) + pool(2, PARK, TAKE, first=200)
    assert sorted(e.count for e in fold_threads(deeper) if isinstance(e, SimilarThreads)) == [2, 2]
    line_apart = [thread("a", PARK, POLL, number=1), thread("b", PARK, (*POLL[:3], 383, 90), number=2)]
    assert all(isinstance(e, ThreadInfo) for e in fold_threads(line_apart))
    # The frames are compared as the listing writes them: two code indexes of one line read the same.
    [same_line] = fold_threads([thread("a", PARK, POLL, number=1), thread("b", PARK, (*POLL[:4], 90), number=2)])
    assert isinstance(same_line, SimilarThreads) and same_line.count == 2
    statuses = [thread("a", PARK, number=1), thread("b", PARK, status="running", number=2)]
    assert all(isinstance(e, ThreadInfo) for e in fold_threads(statuses))
    groups = [thread("a", PARK, number=1), thread("b", PARK, group="workers", number=2)]
    assert all(isinstance(e, ThreadInfo) for e in fold_threads(groups))
    [together] = fold_threads(groups, by_group=False)  # pause's app threads: no groups shown
    assert isinstance(together, SimilarThreads) and together.group is None and "group" not in jsonable(together)


def test_threads_a_freeze_is_read_from_are_never_folded() -> None:
    lock = Monitor("s1-obj-1", "com.example.Account")
    owner = thread("owner", PARK, POLL, number=1, owned_monitors=(lock,))
    waiter = thread("waiter", PARK, POLL, number=2, waiting_for=WaitingFor("s1-obj-2", "java.lang.Object"))
    looped = thread("looped", PARK, POLL, number=3)
    cycle = Deadlock((DeadlockLink(looped.thread_id or "", "looped", "s1-obj-3", None, "s1-stop-1.t9"),))
    entries = fold_threads([owner, waiter, looped, *pool(2, PARK, POLL)], (cycle,))
    assert {owner, waiter, looped} <= set(entries)
    assert [e.count for e in entries if isinstance(e, SimilarThreads)] == [2]
    no_monitors = thread("idle", PARK, POLL, number=4, owned_monitors=())  # the VM can tell: it owns none
    assert isinstance(fold_threads([no_monitors, *pool(1, PARK, POLL)])[0], SimilarThreads)


def test_threads_without_frames_or_ids_are_never_folded() -> None:
    running = [ThreadInfo(f"t{n}", "waiting", False, "main") for n in range(3)]  # no stop: no ids, no frames
    assert fold_threads(running) == tuple(running)
    bare = [thread(f"t{n}", number=n) for n in range(3)]  # stackDepth 0: nothing says they are alike
    assert fold_threads(bare) == tuple(bare)


def test_the_most_telling_come_first_and_the_vm_s_threads_last() -> None:
    vm_own = thread("Finalizer", PARK, group="system", number=1)
    idle = pool(5, PARK, POLL)
    reserved = pool(2, PARK, TAKE, first=300)
    sleeper = thread("sleeper", PARK, status="sleeping", number=2)
    reader = thread("main", READ, status="running", number=3)  # running, but in a native method: waits
    owner = thread("selector", PARK, number=4, owned_monitors=(Monitor("s1-obj-1", "sun.nio.ch.EPollSelectorImpl"),))
    busy = thread("qtp-busy", HANDLE, POLL, status="running", number=5)
    blocked = thread("blocked", HANDLE, status="monitor", number=6,
                     waiting_for=WaitingFor("s1-obj-2", "java.lang.Object", "s1-stop-1.t4", "selector"))
    a = thread("a", HANDLE, status="monitor", number=7, waiting_for=WaitingFor("s1-obj-3", None, "s1-stop-1.t8"))
    b = thread("b", HANDLE, status="monitor", number=8, waiting_for=WaitingFor("s1-obj-4", None, "s1-stop-1.t7"))
    cycle = Deadlock((DeadlockLink(a.thread_id or "", "a", "s1-obj-3", None, b.thread_id or ""),
                      DeadlockLink(b.thread_id or "", "b", "s1-obj-4", None, a.thread_id or "")))
    listing = [vm_own, *idle, sleeper, reader, *reserved, owner, busy, blocked, a, b]
    names = [e.name if isinstance(e, ThreadInfo) else f"{e.count} alike" for e in fold_threads(listing, (cycle,))]
    assert names == ["a", "b", "blocked", "qtp-busy", "selector", "sleeper", "main", "2 alike", "5 alike", "Finalizer"]


def test_a_listed_frame_is_one_line_as_jstack_writes_it() -> None:
    assert frame_text(SourcePosition(*HANDLE)) == "com.example.jetty.JettyApp.handle(JettyApp.java:31)"
    assert frame_text(SourcePosition(*PARK)) == "jdk.internal.misc.Unsafe.park(Native Method)"
    assert frame_text(SourcePosition("a.B", "run", "B.java", None, 3)) == "a.B.run(B.java)"  # no line table
    assert frame_text(SourcePosition("a.B", "run", None, None, 3)) == "a.B.run(Unknown Source)"
    assert frame_text(SourcePosition("a.B", "run", None, 12, 3)) == "a.B.run(Unknown Source:12)"
    inlined = SourcePosition("a.MainKt", "main", "Inline.kt", 5, 7, inlined=True)
    assert frame_text(inlined) == "a.MainKt.main(Inline.kt:5) [inlined]"
    long_name = "x" * (MAX_NAME + 10)
    cut = Frame("s1-stop-1.t1.f0", 0, "a.B", long_name, "B.java", 4, 2)
    assert cut.truncated_names == ("method",)
    assert frame_text(cut) == f"a.B.{'x' * MAX_NAME}…(B.java:4)"
