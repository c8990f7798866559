"""What an Android session reports about its start and its ANR exposure (issue 14 §1–§2, docs/design.md §4.6).

Layer: ``server``; reads ``android`` facts (the launch, the DDM HELO, ``dumpsys activity processes``) and
turns them into the records of :mod:`.results`. Never raises for a fact the device cannot give.
"""

from __future__ import annotations

import logging

from pyjdwp_android import AdbClient, AdbError, ddm
from pyjdwp_android.anr import ANR_INPUT_TIMEOUT_S, DUMPSYS_COMMAND, parse_debugging, read_debugging
from pyjdwp_android.hello import FirstContact
from pyjdwp_android.launch import Launched

from ..answers.results import AndroidTarget, AppFacts, LaunchFacts
from .targets import Connected

log = logging.getLogger("pyjdwp.server")

__all__ = ["anr_exempt_of", "anr_warning", "app_facts", "debug_states", "launch_facts"]


def launch_facts(launched: Launched | None) -> LaunchFacts | None:
    if launched is None:
        return None
    return LaunchFacts(launched.activity, launched.pid, launched.api_level, launched.suspend_flag, launched.cleared)


def app_facts(contact: FirstContact | None, anr_exempt: bool | None) -> AppFacts:
    """The app's facts from its HELO reply (and the WAIT that came with it)."""
    hello = contact.hello if contact is not None else None
    waiting = True if contact is not None and contact.waiting else None
    # HELO and APNM come in either order, each with the real name or a placeholder: the last real one wins.
    # The APNMs here came before the HELO reply; later ones reach the session's DDM reader.
    names = [c for c in contact.chunks if isinstance(c, ddm.AppName)] if contact is not None else []
    said = [*(c.app_name for c in names), hello.app_name if hello is not None else None]
    name = next((n for n in reversed(said) if ddm.real_name(n)), None)
    packages = [hello.package_name if hello is not None else None, *(c.package_name for c in reversed(names))]
    package = next((p for p in packages if p), None)
    if hello is None:
        return AppFacts(name, waiting, package, anr_exempt=anr_exempt)
    return AppFacts(name, waiting, package, hello.user_id, hello.abi, hello.pointer_size, hello.boot_stage,
                    anr_exempt)


async def anr_exempt_of(adb: AdbClient, conn: Connected) -> bool | None:
    """True for an app this attach launched (``am start -D`` made it the debug app); else what
    ``dumpsys activity processes`` says of the pid (``None`` when the device cannot tell)."""
    if conn.launched is not None:
        return True
    target = conn.target
    if not isinstance(target, AndroidTarget):
        return None
    try:
        return await read_debugging(adb, conn.device, target.pid)
    except AdbError as exc:
        log.info("could not tell whether pid %d is the debug app: %s", target.pid, exc)
        return None


def anr_warning(anr_exempt: bool | None, *, at_attach: bool = False) -> str | None:
    """The warning a stop (or the attach) of an app that Android does not spare carries (``None`` for the
    debug app): the time left before an ANR is likely, counted from the stop."""
    if anr_exempt:
        return None
    seconds = f"{ANR_INPUT_TIMEOUT_S:g}"
    known = "is not" if anr_exempt is False else "may not be"
    when = "any stop" if at_attach else "this stop"
    return (f"this process {known} the debug app, so Android does not spare it ANRs: about {seconds} s after "
            f"{when}, input waiting for its main thread shows \"isn't responding\" (a background app may be "
            "killed). Resume within that, or attach again with launch to pause as long as you need")


async def debug_states(adb: AdbClient, serial: str, pids: list[int]) -> dict[int, bool | None]:
    """Whether each pid runs as the debug app, from one ``dumpsys activity processes`` (empty on failure)."""
    if not pids:
        return {}
    try:
        result = await adb.shell(serial, DUMPSYS_COMMAND, timeout=5.0)
    except AdbError as exc:
        log.info("could not read the debug app's state: %s", exc)
        return {}
    text = result.stdout.decode("utf-8", errors="replace")
    return {pid: parse_debugging(text, pid) for pid in pids}
