"""The JDWP half of ``pyjdwp-doctor``: stop once in a framework method every app runs, look, let go.

Layer: ``server`` (uses ``jdwp`` and ``jdwp.debugger``; no MCP). Issue 14 §4. It runs over any open
:class:`jdwp.JdwpClient`, so a recording of a device session replays through it (``jdwp.replay``).

Privacy: values are read from framework frames only (``android.*``, ``java.*``…); of the app's frames
only their locations travel, so a recording of this session holds no value of the app's.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

import trio

from jdwp import JdwpClient, JdwpError
from jdwp.debugger import Debugger, DebuggerError, Stopped, open_debugger

__all__ = ["FRAMEWORK_METHODS", "Check", "FrameworkMethod", "inspect_framework_stop", "is_framework"]

_FRAMEWORK_PREFIXES = ("android.", "com.android.", "dalvik.", "libcore.", "java.", "javax.", "jdk.", "sun.",
                       "com.sun.")


@dataclasses.dataclass(frozen=True, slots=True)
class FrameworkMethod:
    class_name: str
    method: str
    signature: str | None = None  # JNI signature, when the name is overloaded

    @classmethod
    def parse(cls, text: str) -> FrameworkMethod:
        """``pkg.Class.method`` or ``pkg.Class.method(JNI-args)`` (``poll(JLjava/util/concurrent/TimeUnit;)``).

        Raises:
            ValueError: not of that form.
        """
        name, sep, args = text.partition("(")
        class_name, dot, method = name.rpartition(".")
        if not dot or not class_name or not method or (sep and not args.endswith(")")):
            raise ValueError(f"expected pkg.Class.method or pkg.Class.method(args), got {text!r}")
        return cls(class_name, method, f"({args}" if sep else None)

    def __str__(self) -> str:
        return f"{self.class_name}.{self.method}" + (self.signature or "")


#: Methods every Android app's main thread runs (its message loop), then the JDK's own blocking queue,
#: which stands for it on the OpenJDK testbed (an app process there polls one for its "messages").
FRAMEWORK_METHODS: tuple[FrameworkMethod, ...] = (
    FrameworkMethod("android.os.MessageQueue", "next", "()Landroid/os/Message;"),
    FrameworkMethod("android.os.Looper", "loopOnce"),
    FrameworkMethod("android.os.Looper", "loop", "()V"),
    FrameworkMethod("java.util.concurrent.LinkedBlockingQueue", "poll", "(JLjava/util/concurrent/TimeUnit;)"),
)


def is_framework(class_name: str, app_id: str | None) -> bool:
    """A platform class whose values may be read: never one of the app's own packages."""
    if app_id and (class_name == app_id or class_name.startswith(app_id + ".")):
        return False
    return class_name.startswith(_FRAMEWORK_PREFIXES)


@dataclasses.dataclass(frozen=True, slots=True)
class Check:
    """One line of the doctor's report."""

    name: str
    ok: bool
    detail: str
    ms: int | None = None
    warning: bool = False


Report = Callable[[Check], None]


async def _first_line(vm: JdwpClient, target: FrameworkMethod) -> int | None:
    """The line at the lowest code index of the method, when its class is loaded and has a line table."""
    signature = "L" + target.class_name.replace(".", "/") + ";"
    for ref in await vm.classes_by_signature(signature):
        for method in await vm.reference_type.methods(ref.type_id):
            if method.name != target.method:
                continue
            if target.signature and not method.signature.startswith(target.signature):
                continue
            try:
                table = await vm.method.line_table(ref.type_id, method.method_id)
            except JdwpError:
                continue
            if table.lines:
                return min(table.lines, key=lambda e: e.line_code_index).line_number
    return None


def _ms(since: float) -> int:
    return round((time.monotonic() - since) * 1000)


async def inspect_framework_stop(vm: JdwpClient, report: Report, *, candidates: tuple[FrameworkMethod, ...],
                                 app_id: str | None, wait_s: float) -> bool:
    """Breakpoint → one stop → stack → framework locals → detach; each step reported. Returns success."""
    started = time.monotonic()
    chosen: tuple[FrameworkMethod, int] | None = None
    for candidate in candidates:
        line = await _first_line(vm, candidate)
        if line is not None:
            chosen = (candidate, line)
            break
    if chosen is None:
        report(Check("breakpoint", False, "none of " + ", ".join(map(str, candidates)) + " is loaded with a line "
                     "table; pass --break pkg.Class.method for a method the app runs", _ms(started)))
        return False
    method, line = chosen
    async with open_debugger(vm, id_prefix="doc-") as engine:
        bp = await engine.set_breakpoint(method.class_name, line)
        report(Check("breakpoint", bp.status == "verified", f"{method} line {line}: {bp.status}", _ms(started)))
        if bp.status != "verified":
            return False
        started = time.monotonic()
        stop = None
        thread_id = None
        with trio.move_on_after(wait_s):
            async for event in engine.events:
                # Only a breakpoint stop has a thread to read (a pause has none).
                if isinstance(event, Stopped) and event.stop.thread_id is not None:
                    stop, thread_id = event.stop, event.stop.thread_id
                    break
        if stop is None or thread_id is None:
            report(Check("stop", False, f"no thread reached {method} within {wait_s:g} s: is the app idle in the "
                         "background, or frozen? Bring it to the foreground and touch it", _ms(started)))
            return False
        where = stop.location
        at = f"{where.class_name}.{where.method}:{where.line}" if where else "no location"
        report(Check("stop", True, f"thread {stop.thread_name!r} at {at}", _ms(started)))
        ok = await _look(engine, stop.stop_id, thread_id, app_id, report)
        await engine.resume(stop.stop_id)
        started = time.monotonic()
        cleanup = await engine.detach()
        report(Check("detach", cleanup.status == "complete",
                     f"cleanup {cleanup.status}, app {cleanup.execution_state}", _ms(started)))
        return ok and cleanup.status == "complete"


async def _look(engine: Debugger, stop_id: str, thread_id: str, app_id: str | None, report: Report) -> bool:
    started = time.monotonic()
    try:
        page = await engine.stack(stop_id, thread_id, 0, 100, async_frames=False)
    except (JdwpError, DebuggerError) as exc:
        report(Check("stack", False, str(exc), _ms(started)))
        return False
    framework = [f for f in page.frames if is_framework(f.class_name, app_id)]
    report(Check("stack", bool(page.frames), f"{page.total} frames: {len(framework)} framework, "
                 f"{len(page.frames) - len(framework)} of the app (locations only)", _ms(started)))
    started = time.monotonic()
    with_values = without = read = 0
    for frame in framework:
        try:
            found = await engine.locals(stop_id, frame.frame_id)
        except (JdwpError, DebuggerError) as exc:
            report(Check("locals", False, f"{frame.class_name}.{frame.method}: {exc}", _ms(started)))
            return False
        if found.availability == "available":
            with_values += 1
            read += len(found.locals)
        else:
            without += 1
    report(Check("locals", True, f"framework frames only: {with_values} with locals ({read} read, not shown), "
                 f"{without} without (no variable table: optimised or stripped framework code)", _ms(started)))
    return True
