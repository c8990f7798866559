"""What attach learns about the target beyond its identity: the first reply's time, and on Android how
debuggable the app really is (a non-debuggable app on a userdebug device, a release build).

Layer: ``server``; asks ``android`` (one shell call) and ``jdwp.debugger`` (a bounded class sample).
Issue 14 §3, docs/design.md §4.6. None of these checks fails an attach: a check that cannot be made leaves
its fact unknown.
"""

from __future__ import annotations

import dataclasses
import logging

import trio

from jdwp import JdwpClient, JdwpError
from jdwp.debugger import sample_release_build
from pyjdwp_android import AdbClient, AdbError
from pyjdwp_android.debuggability import read_app_debuggability

from ..answers.results import Limitation

log = logging.getLogger("pyjdwp.server")

#: A first reply slower than this is worth a word: on ART it is the JDWP agent loading.
SLOW_FIRST_REPLY_S = 2.0
#: Bound of the Android checks together (one shell call, three JDWP round trips).
CHECKS_LIMIT_S = 10.0

RELEASE_BUILD = Limitation(
    "release_build", "Most sampled app classes have no local-variable tables (a release build, or R8/D8 without "
                     "debug info): locals will be unavailable; breakpoints by line still work where line tables "
                     "remain. Debug a debug build for locals.")
NOT_DEBUGGABLE_APP = Limitation(
    "non_debuggable_app", "The app is not a debuggable build; this userdebug/eng device lets a debugger attach, "
                          "but ART keeps its code optimised: locals are often unavailable and some lines never "
                          "stop. Install a debug build (android:debuggable=true) for full debugging.")


@dataclasses.dataclass(frozen=True, slots=True)
class AttachFacts:
    first_reply_ms: int | None = None
    warnings: tuple[str, ...] = ()
    release_build_likely: bool | None = None
    limitations: tuple[Limitation, ...] = ()


def first_reply_warning(seconds: float | None, android: bool) -> str | None:
    """The note for a slow first reply (``None`` when it was quick)."""
    if seconds is None or seconds < SLOW_FIRST_REPLY_S:
        return None
    if android:
        return (f"the first reply took {seconds:.1f} s: ART was loading the debugger agent (libjdwp loads on the "
                "first JDWP command and tags every loaded class); it stays loaded, so the next attach to this "
                "process is quick")
    return f"the first reply took {seconds:.1f} s: the VM was slow to answer its first JDWP command"


async def gather_facts(vm: JdwpClient, *, adb: AdbClient | None = None, serial: str | None = None,
                       app_id: str | None = None) -> AttachFacts:
    """The facts for an attach result; the Android ones only with ``adb``, ``serial`` and ``app_id``."""
    android = adb is not None and serial is not None and app_id is not None
    seconds = vm.first_reply_s
    warnings = [w for w in (first_reply_warning(seconds, android),) if w]
    limitations: list[Limitation] = []
    release: bool | None = None
    if android and adb is not None and serial is not None and app_id is not None:
        with trio.move_on_after(CHECKS_LIMIT_S):
            try:
                debuggability = await read_app_debuggability(adb, serial, app_id)
            except AdbError as exc:
                log.info("could not read %s's debuggable flag: %s", app_id, exc)
            else:
                warning = debuggability.warning(app_id)
                if warning:
                    warnings.append(warning)
                    limitations.append(NOT_DEBUGGABLE_APP)
            try:
                sample = await sample_release_build(vm, (app_id,))
            except JdwpError as exc:
                log.info("could not sample %s's classes: %s", app_id, exc)
            else:
                if sample.sampled:
                    release = sample.release_build_likely
                if release:
                    limitations.append(RELEASE_BUILD)
                    warnings.append(f"{sample.without_tables} of {sample.sampled} sampled app classes have no "
                                    "local-variable tables: a release build is likely, so locals will be unavailable")
    return AttachFacts(None if seconds is None else round(seconds * 1000), tuple(warnings), release,
                       tuple(limitations))
