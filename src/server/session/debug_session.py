"""One debugging session: its connection, engine, event ring, time limits and cleanup.

Layer: ``server`` (trio); drives ``jdwp.debugger`` and, for Android, ``android``. docs/design.md §5.4.

The session runs as one task in the server's nursery for as long as it is attached: it owns the JDWP
connection and the engine (so they outlive any single tool call), copies the engine's events into the
ring, and enforces the three limits — detach after ``pause_limit_s`` on one stop, ``idle_limit_s``
without client calls (polling counts), and ``session_limit_s`` in total. When it ends — detach, a limit,
VM death, a lost connection — the engine detaches (its own 10 s deadline, shielded) and the ring gets one
``terminated`` event naming the reason.
"""

from __future__ import annotations

import dataclasses
import itertools
import logging
from pathlib import Path

import trio

from jdwp import JdwpClient
from jdwp.debugger import (
    BreakpointRejected,
    BreakpointSpent,
    BreakpointVerified,
    ClassPath,
    Cleanup,
    Debugger,
    LogpointHit,
    Stop,
    Stopped,
    Terminated,
    open_debugger,
)
from pyjdwp_android import AdbClient, ddm

from ..answers.results import (
    AndroidTarget,
    AnyBreakpointAnswer,
    AppFacts,
    LaunchFacts,
    SessionState,
    Target,
    VmFacts,
    answer_of,
    placed_by_breakpoint,
)
from .art_facts import AttachFacts, gather_facts
from .launching import anr_exempt_of, anr_warning, app_facts, launch_facts
from .models import TargetInput
from .ring import EventRing
from .targets import Config, connect

log = logging.getLogger("pyjdwp.server")

TERMINAL_STATES = frozenset({"detached", "disconnected", "failed"})
_STATE_OF_REASON: dict[str, SessionState] = {
    "detached": "detached", "pause_limit": "detached", "idle_limit": "detached", "session_limit": "detached",
    "shutdown": "detached", "vm_death": "disconnected", "disconnected": "disconnected", "failed": "failed"}

VM_START_WAIT_S = 3.0
#: The server's --class-path, read once for every session of the process (on a session's first need).
_CLASS_PATHS: dict[tuple[str, ...], ClassPath] = {}


def shared_class_path(entries: tuple[str, ...]) -> ClassPath:
    found = _CLASS_PATHS.get(entries)
    if found is None:
        found = _CLASS_PATHS[entries] = ClassPath(tuple(Path(entry) for entry in entries))
    return found

_ID_TAGS = itertools.count(1)  # one per session of this process: the sessions' IDs never meet


class DebugSession:
    def __init__(self, session_id: str, device_key: str, config: Config) -> None:
        self.id = session_id
        self.id_prefix = f"s{next(_ID_TAGS)}-"  # starts every stop, thread, frame and breakpoint ID
        self.device_key = device_key
        self.config = config
        self.device: str | None = None
        self.target: Target | None = None
        self.engine: Debugger | None = None
        self.ring = EventRing()
        self.lock = trio.Lock()
        self.cleanup: Cleanup | None = None
        self.facts = AttachFacts()  # first reply time, Android debuggability, release build
        self.terminal_reason: str | None = None
        self.terminal_message: str | None = None
        self._close_reason: str | None = None
        self._closed: trio.Event | None = None  # set once close()'s detach has finished
        self._started = trio.current_time()
        self.last_activity = self._started
        self._pause_mark: tuple[str, float] | None = None
        self._wake = trio.Event()
        self.done = trio.Event()
        #: Set once the terminal reason is known (the ``terminated`` event is in the ring); the task may still
        #: be closing its connection, which a detach need not wait for.
        self.ended = trio.Event()
        self.launch: LaunchFacts | None = None
        self.anr_exempt: bool | None = None  # Android: spared ANRs (the debug app)?

    # --- what the tools read -----------------------------------------------------------------------

    @property
    def state(self) -> SessionState:
        if self.terminal_reason is not None:
            return _STATE_OF_REASON.get(self.terminal_reason, "failed")
        if self._close_reason is not None:
            return "detaching"
        if self.engine is None:
            return "attaching"
        return "paused" if self.engine.current_stop is not None else "running"

    @property
    def is_terminal(self) -> bool:
        return self.terminal_reason is not None

    def current_stop(self) -> Stop | None:
        return self.engine.current_stop if self.engine and not self.is_terminal else None

    def breakpoints(self) -> tuple[AnyBreakpointAnswer, ...]:
        if self.engine is None:
            return ()
        return tuple(answer_of(b) for b in self.engine.list_breakpoints())

    def touch(self) -> None:
        """A client call: resets the idle timer (never the pause or total limit).

        The timers task is not woken: the idle deadline only moves later, and the task reads it again when
        the one it sleeps until comes (a wake on every call cost a scheduler pass of every tool call)."""
        self.last_activity = trio.current_time()

    def _poke(self) -> None:
        self._wake.set()

    # --- the session task --------------------------------------------------------------------------

    async def run(self, inp: TargetInput, adb: AdbClient, *,
                  task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Attach, report ``started``, then live until the session ends. Attach errors propagate."""
        started = False
        try:
            async with connect(inp, self.config, adb) as conn:
                self.device, self.target = conn.device, conn.target
                # An app started for debugging, or one waiting for its debugger (DDM WAIT), is held at
                # once: Debug.waitForDebugger() lets it run 1.3 s after our last command.
                hold = conn.launched is not None or (conn.contact is not None and conn.contact.waiting)
                if conn.recheck is not None and not hold:
                    await conn.recheck()  # PROCESS_CHANGED if the pid now names another process
                version = conn.vm.version_info
                self.target = dataclasses.replace(conn.target, vm=VmFacts(
                    version.vm_name, version.vm_version, f"{version.jdwp_major}.{version.jdwp_minor}",
                    conn.vm.id_sizes))
                async with open_debugger(conn.vm, id_prefix=self.id_prefix, launch=hold) as engine:
                    engine.allow_invoke = self.config.allow_invoke
                    if self.config.class_path:
                        engine.coroutines.class_path = shared_class_path(self.config.class_path)
                    engine.allow_mutation = self.config.allow_mutation
                    self.engine = engine
                    if hold:
                        # With --suspend (API 34+) ART's VM_START is the launch stop: give it a moment.
                        suspend_flag = conn.launched is not None and conn.launched.suspend_flag
                        await engine.hold_at_launch(vm_start_within=VM_START_WAIT_S if suspend_flag else 0.0)
                        if conn.recheck is not None:
                            await conn.recheck()
                    # After the hold: an app waiting for its debugger runs 1.3 s after our last command,
                    # and these checks may take longer than that.
                    target = self.target
                    if isinstance(target, AndroidTarget):
                        self.facts = await gather_facts(conn.vm, adb=adb, serial=conn.device, app_id=target.app_id)
                    else:
                        self.facts = await gather_facts(conn.vm)
                    if isinstance(self.target, AndroidTarget):
                        self.launch = launch_facts(conn.launched)
                        self.anr_exempt = await anr_exempt_of(adb, conn)
                        self.target = dataclasses.replace(self.target, app=app_facts(conn.contact, self.anr_exempt))
                    task_status.started()
                    started = True
                    async with trio.open_nursery() as nursery:
                        nursery.start_soon(self._timers, nursery.cancel_scope)
                        if conn.android:
                            nursery.start_soon(self._ddm, conn.vm)
                        await self._pump(engine)
                        nursery.cancel_scope.cancel()
                await self._record_cleanup()
        except BaseException as exc:
            if not started:
                # The engine detached on the way out: its report decides whether the device stays blocked
                # (kept as an ended session, for detach_debugger's retry).
                if self.engine is not None:
                    self._end("failed", f"the attach failed: {type(exc).__name__}")
                await self._record_cleanup()
                raise
            # A cancellation from outside (server shutdown) reaches us wrapped in the nursery's group.
            cancelled = isinstance(exc, trio.Cancelled) or (
                isinstance(exc, BaseExceptionGroup) and exc.split(trio.Cancelled)[1] is None)
            if not cancelled:
                log.error("session %s failed", self.id, exc_info=exc)
            self._end("failed", f"the session failed: {type(exc).__name__}")
            await self._record_cleanup()
            if cancelled:
                raise
        finally:
            if started:
                self._end(self._close_reason or "disconnected", "the session ended")
                self.ring.close()
                cleanup = self.cleanup
                log.info("session %s ended (%s); cleanup %s, app %s", self.id, self.terminal_reason,
                         cleanup.status if cleanup else "not reported",
                         cleanup.execution_state if cleanup else "unknown")
            self.ended.set()  # also when the attach never started
            self.done.set()

    async def _record_cleanup(self) -> None:
        """Keep the report of the detach that did the work.

        After close(), that is close()'s own result: ``open_debugger``'s exit detaches once more when the
        connection ends, possibly while close()'s detach is still running, and that second detach sees
        only a closed connection (it would report ``complete``/``unknown`` even when cleanup failed, and
        the device would not be blocked). So wait for close() — bounded by its 10 s detach deadline.
        """
        if self._closed is not None:
            with trio.CancelScope(shield=True):
                await self._closed.wait()
        elif self.engine is not None and self.engine.cleanup is not None:
            self.cleanup = self.engine.cleanup

    async def _pump(self, engine: Debugger) -> None:
        async for event in engine.events:
            if isinstance(event, Stopped):
                warning = anr_warning(self.anr_exempt) if isinstance(self.target, AndroidTarget) else None
                self.ring.append("stopped", stop=event.stop, warning=warning)
            elif isinstance(event, BreakpointVerified | BreakpointRejected | BreakpointSpent):
                self.ring.append(event.kind, breakpoint=answer_of(event.breakpoint))
            elif isinstance(event, LogpointHit):
                owner = next((b for b in engine.list_breakpoints() if b.breakpoint_id == event.breakpoint_id), None)
                self.ring.append("logpoint", logpoint=event, placed=placed_by_breakpoint(event, owner))
            elif isinstance(event, Terminated):
                reason = self._close_reason or event.reason
                if reason == event.reason:
                    self._end(reason, event.message, event.truncated_names)
                else:
                    self._end(reason, _LIMIT_TEXT.get(reason, event.message))
            self._poke()

    def _end(self, reason: str, message: str, truncated_names: tuple[str, ...] = ()) -> None:
        if self.terminal_reason is not None:
            return
        self.terminal_reason = reason
        self.terminal_message = message
        self.ring.append("terminated", reason=reason, message=message, truncated_names=truncated_names)
        self.ended.set()

    async def _timers(self, scope: trio.CancelScope) -> None:
        config = self.config
        while True:
            now = trio.current_time()
            deadlines = [(self._started + config.session_limit_s, "session_limit"),
                         (self.last_activity + config.idle_limit_s, "idle_limit")]
            stop = self.engine.current_stop if self.engine else None
            if stop is None:
                self._pause_mark = None
            else:
                if self._pause_mark is None or self._pause_mark[0] != stop.stop_id:
                    self._pause_mark = (stop.stop_id, now)
                deadlines.append((self._pause_mark[1] + config.pause_limit_s, "pause_limit"))
            deadline, reason = min(deadlines)
            if now >= deadline:
                log.info("session %s: %s reached; detaching", self.id, reason)
                await self.close(reason)
                return
            self._wake = trio.Event()
            with trio.move_on_at(deadline):
                await self._wake.wait()

    async def _ddm(self, vm: JdwpClient) -> None:
        """Android's unasked DDM chunks: the app's name, and whether it waits for a debugger."""
        while True:
            try:
                chunk = await vm.receive_ddm()
            except Exception:
                return
            try:
                info = ddm.decode_chunk(chunk.type, chunk.data)
            except Exception:  # a chunk we cannot read says nothing we need
                continue
            target = self.target
            if not isinstance(target, AndroidTarget):
                continue
            app = target.app or AppFacts()
            if isinstance(info, ddm.Hello | ddm.AppName):
                # A placeholder (<pre-initialized>, "") never replaces a name: HELO and APNM come in either order.
                app = dataclasses.replace(app, app_name=ddm.real_name(info.app_name) or app.app_name,
                                          package_name=info.package_name or app.package_name)
            elif isinstance(info, ddm.Waiting):
                app = dataclasses.replace(app, waiting_for_debugger=True)
            elif isinstance(info, ddm.BootStage):
                app = dataclasses.replace(app, boot_stage=info.stage)
            self.target = dataclasses.replace(target, app=app)

    # --- ending ------------------------------------------------------------------------------------

    async def close(self, reason: str = "detached") -> Cleanup | None:
        """Detach (idempotent; shielded, 10 s). Returns the cleanup report."""
        if self._close_reason is None and self.terminal_reason is None:
            self._close_reason = reason
        if self._closed is None:  # a trio.Event has no truth value: `self._closed or …` raised on a second close
            self._closed = trio.Event()
        closed = self._closed
        engine = self.engine
        try:
            if engine is not None:
                with trio.CancelScope(shield=True):
                    self.cleanup = await engine.detach()
        finally:
            closed.set()
        self._poke()
        return self.cleanup


_LIMIT_TEXT = {
    "pause_limit": "detached: the VM stayed paused on one stop longer than the pause limit",
    "idle_limit": "detached: no client call within the idle limit",
    "session_limit": "detached: the session reached its total time limit",
    "shutdown": "detached: the server is shutting down",
    "detached": "detached by the client",
}

