"""Which threads a pause's diagnosis counts as the VM's own (docs/design.md §3.9). HotSpot's are checked live
(tests/live/test_threads_live.py); ART's names and groups here, as ART's sources give them (a fake: no ART
runs in these tests)."""

from __future__ import annotations

from jdwp.debugger.reading.diagnosis import diagnose, is_system
from jdwp.debugger.reading.threads import ThreadInfo, ThreadsPage


def thread(name: str, group: str | None = "main") -> ThreadInfo:
    return ThreadInfo(name, "waiting", True, group)


def test_the_system_group_and_the_vm_s_names_are_the_vm_s() -> None:
    for name in ("HeapTaskDaemon", "ReferenceQueueDaemon", "FinalizerDaemon", "FinalizerWatchdogDaemon",
                 "Signal Catcher", "Profile Saver", "Jit thread pool", "Reference Handler"):
        assert is_system(thread(name, "system")), name
    for name in ("Binder:4321_1", "Binder:4321_A", "binder:123_2", "HwBinder:77_1", "Jit thread pool worker thread 0",
                 "Common-Cleaner", "C2 CompilerThread0", "Signal Catcher"):
        assert is_system(thread(name)), name
    assert is_system(thread("anything", "InnocuousThreadGroup"))


def test_the_app_s_threads_are_the_app_s() -> None:
    for name in ("main", "RenderThread", "worker-1", "OkHttp Dispatcher", "Binderella", "DefaultDispatcher-worker-1"):
        assert not is_system(thread(name)), name
    assert not is_system(thread("Finalizer", "pool"))  # a group of the app's own: the app named it so


def test_a_diagnosis_counts_the_vm_s_threads_and_lists_them_on_request() -> None:
    page = ThreadsPage((thread("main"), thread("Signal Catcher", "system"), thread("worker")), 3, False, ())
    found = diagnose(page)
    assert [t.name for t in found.threads] == ["main", "worker"]
    assert (found.system_count, found.system_threads, found.total) == (1, (), 3)
    assert [t.name for t in diagnose(page, system_threads=True).system_threads] == ["Signal Catcher"]
