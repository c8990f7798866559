"""What a pause answers, so that a freeze is one call: the app's threads with their status, top frame and
monitors (with previews), the deadlocks among them, and the VM's own threads counted apart.

Layer: ``jdwp.debugger`` (pure: it sorts a :class:`.threads.ThreadsPage`). docs/design.md §3.9.

A VM's own threads are not the app's: a reader of a freeze wants the threads the app made. A thread is the
VM's when it is in the ``system`` thread group, where both VMs put theirs — HotSpot its ``Reference Handler``,
``Finalizer``, ``Signal Dispatcher``, ``Attach Listener`` and ``Notification Thread``; ART its daemons
(``HeapTaskDaemon``, ``ReferenceQueueDaemon``, ``FinalizerDaemon``, ``FinalizerWatchdogDaemon``: libcore's
``libart/src/main/java/java/lang/Daemons.java`` starts them in ``ThreadGroup.systemThreadGroup``) and the
native threads its runtime attaches with ``GetSystemThreadGroup()`` (``Signal Catcher``,
art/runtime/signal_catcher.cc; ``Profile Saver``, art/runtime/jit/profile_saver.cc; ``Jit thread pool``,
art/runtime/jit/jit.cc, whose workers ART gives peers so that a debugger sees them) — or when its name is one
such a VM gives a thread of another group: JDK 17's ``Common-Cleaner`` (in the ``InnocuousThreadGroup``), the
JIT's ``C1``/``C2 CompilerThread``\\ s, the JDWP agent's own, and Android's binder threads (``Binder:<pid>_<n>``,
named by libbinder's ``ProcessState::makeBinderThreadName``; ``HwBinder:`` for HIDL). A thread the app made and
put in the system group itself is counted as the VM's: JDWP cannot tell them apart, and a reader asks for the
system threads (``system_threads``) to see it.
"""

from __future__ import annotations

import dataclasses
import re

from ..model import OMIT_EMPTY, OMIT_NONE
from .deadlocks import Deadlock
from .threads import ThreadInfo, ThreadsPage

__all__ = ["Diagnosis", "diagnose", "is_system"]

SYSTEM_GROUPS = frozenset({"system", "InnocuousThreadGroup"})
#: Names a VM gives its own threads outside the system group (or on a VM that names no groups).
_SYSTEM_NAMES = re.compile(
    r"Reference Handler|Finalizer|Signal Dispatcher|Attach Listener|Common-Cleaner|Notification Thread"
    r"|Service Thread|Sweeper thread|process reaper|(?:C1|C2) CompilerThread\d+|JDWP .*"
    r"|HeapTaskDaemon|ReferenceQueueDaemon|FinalizerDaemon|FinalizerWatchdogDaemon|Jit thread pool.*"
    r"|Signal Catcher|Profile Saver|ADB-JDWP Connection Control Thread|(?:Hw)?[Bb]inder[:_].*")


@dataclasses.dataclass(frozen=True, slots=True)
class Diagnosis:
    """The app's threads (``threads``, at most the listing's bound, in the VM's order), the VM's own counted
    (``system_count``) and listed only when asked (``system_threads``), and the deadlocks among all of them;
    ``total`` counts every thread of the VM, ``truncated`` says the listing's bound cut it."""

    threads: tuple[ThreadInfo, ...]
    system_count: int
    deadlocks: tuple[Deadlock, ...] | None = dataclasses.field(default=None, metadata=OMIT_NONE)
    system_threads: tuple[ThreadInfo, ...] = dataclasses.field(default=(), metadata=OMIT_EMPTY)
    total: int = 0
    truncated: bool = dataclasses.field(default=False, metadata=OMIT_EMPTY)
    note: str | None = dataclasses.field(default=None, metadata=OMIT_NONE)


def is_system(thread: ThreadInfo) -> bool:
    """Whether the thread is the VM's own (see the module)."""
    if thread.group in SYSTEM_GROUPS:
        return True
    return thread.group in (None, "main") and _SYSTEM_NAMES.fullmatch(thread.name) is not None


def diagnose(page: ThreadsPage, system_threads: bool = False) -> Diagnosis:
    """Sort a listing into the app's threads and the VM's; the VM's are listed when ``system_threads``."""
    app = tuple(t for t in page.threads if not is_system(t))
    system = tuple(t for t in page.threads if is_system(t))
    return Diagnosis(app, len(system), page.deadlocks, system if system_threads else (), page.total, page.truncated,
                     page.note)
