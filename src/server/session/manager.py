"""All sessions of one server: limits, lookup, terminal summaries, retries of failed cleanup, shutdown.

Layer: ``server`` (trio). docs/design.md §5.4: one active session per device (per address for a JVM), four per
server; a device whose cleanup failed takes no new session until a detach retry succeeds; terminal
sessions stay readable for 10 minutes (at most 100); shutdown cleans up every session.
"""

from __future__ import annotations

import logging
import secrets
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

import trio

from jdwp.debugger import AGENT_RESET, Cleanup, threads_suspended_now
from pyjdwp_android import AdbClient

from ..answers.failures import ToolFailure
from ..answers.results import AndroidTarget
from .debug_session import DebugSession
from .models import AttachInput, TargetInput
from .targets import Config, check_target, connect, device_keys

log = logging.getLogger("pyjdwp.server")

MAX_ACTIVE = 4
SUMMARY_TTL_S = 600.0
MAX_SUMMARIES = 100
RETRY_DEADLINE = 10.0


class SessionManager:
    def __init__(self, config: Config, nursery: trio.Nursery, adb: AdbClient | None = None) -> None:
        self.config = config
        self._nursery = nursery
        self.adb = adb or AdbClient()
        self._active: dict[str, DebugSession] = {}
        self._by_device: dict[str, str] = {}
        self._ended: OrderedDict[str, tuple[float, DebugSession]] = OrderedDict()
        self._blocked: dict[str, str] = {}  # device key -> session whose cleanup failed
        self._inputs: dict[str, TargetInput] = {}
        self._keys: dict[str, tuple[str, ...]] = {}  # session id -> its device keys (a JVM: one per address)
        self._cleanups: dict[str, trio.Event] = {}  # session id -> set when its detach or retry finished

    def spawn(self, fn: Callable[..., Awaitable[Any]], *args: Any) -> None:
        """Run ``fn(*args)`` in the server's nursery (work that must outlive the tool call)."""
        self._nursery.start_soon(fn, *args)

    @property
    def active(self) -> list[DebugSession]:
        return list(self._active.values())

    def session_on(self, key: str) -> DebugSession | None:
        sid = self._by_device.get(key)
        return self._active.get(sid) if sid else None

    async def attach(self, inp: TargetInput) -> DebugSession:
        """Resolve, connect and start a session.

        Raises:
            ToolFailure: DEBUGGER_BUSY (device taken — a JVM under any spelling of its address — or four
                sessions), DEBUGGER_CLEANUP_FAILED (the device's last cleanup is unconfirmed),
                INVALID_ARGUMENT (a refused address), DEBUGGER_ATTACH_FAILED (the address did not resolve).
            AdbError, JdwpError: from resolving or attaching; nothing stays open (:meth:`_abandon`).
        """
        inp = await check_target(inp, self.config)  # a JVM's address, resolved once, before any connection
        keys = device_keys(inp)
        for key in keys:
            if key in self._by_device:
                taken = key.split(":", 1)[1]
                spelling = "" if inp.platform != "jvm" or inp.address == taken else f" ({inp.address} is {taken})"
                raise ToolFailure("DEBUGGER_BUSY", f"session {self._by_device[key]} is already attached to "
                                  f"{taken}{spelling}; detach it first (one session per device)")
        for key in keys:
            if key in self._blocked:
                raise ToolFailure("DEBUGGER_CLEANUP_FAILED", f"the cleanup of session {self._blocked[key]} on this "
                                  "device is not confirmed; call detach_debugger on it again before attaching",
                                  retryable=True)
        if len(self._active) >= MAX_ACTIVE:
            raise ToolFailure("DEBUGGER_BUSY", f"this server already has {MAX_ACTIVE} sessions; detach one first")
        session = DebugSession(f"dbg-{secrets.token_hex(6)}", keys[0], self.config)
        self._active[session.id] = session
        self._keys[session.id] = keys
        for key in keys:
            self._by_device[key] = session.id
        self._inputs[session.id] = inp
        started = False
        try:
            await self._nursery.start(self._run, session, inp)
            started = True
            if session.launch is not None and isinstance(inp, AttachInput):
                # A cleanup retry reconnects to the process this launch started; it must never launch again.
                self._inputs[session.id] = inp.launched(session.launch.pid)
        except BaseException:
            await self._abandon(session, started)
            raise
        return session

    async def abandon(self, session: DebugSession) -> None:
        """Undo an attach whose answer failed after the session started: as :meth:`_abandon`."""
        await self._abandon(session, True)

    async def _abandon(self, session: DebugSession, started: bool) -> None:
        """An attach that fails leaves nothing: no session, no suspension of ours, no forward. Shielded.

        A failure before the session started has been cleaned up by its own task (the engine detached on
        the way out: requests cleared, our suspensions — a launch's hold too — released; the stream closed,
        and with it an adb forward). One after it started (the app launched, attached and held) detaches
        here, as detach_debugger would. The failed attach's answer names no session, so none is kept —
        unless its cleanup failed: then the device stays blocked on it, with its summary and target, for
        detach_debugger's retry (the next attach names that session).
        """
        if started:
            with trio.CancelScope(shield=True):
                await session.close("failed")
                with trio.move_on_after(RETRY_DEADLINE + 1):
                    await session.done.wait()
            if not session.done.is_set():  # its task still ends: it retires the session as any other
                return
        if session.cleanup is not None and session.cleanup.status == "failed" and session.id in self._ended:
            log.warning("attach failed and its cleanup too: session %s blocks its device until a detach retry",
                        session.id)
            return
        self._release(session)
        self._ended.pop(session.id, None)
        self._keys.pop(session.id, None)
        self._inputs.pop(session.id, None)

    async def _run(self, session: DebugSession, inp: TargetInput, *,
                   task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        try:
            await session.run(inp, self.adb, task_status=task_status)
        finally:
            if session.engine is not None:  # it had started: keep a summary
                self._retire(session)

    def _release(self, session: DebugSession) -> None:
        self._active.pop(session.id, None)
        for key in self._keys.get(session.id, (session.device_key,)):
            if self._by_device.get(key) == session.id:
                del self._by_device[key]

    def _retire(self, session: DebugSession) -> None:
        """Free the session's device and keep its summary: once (a detach retires it before its task ends; a
        later retire would block the device again after a retried cleanup unblocked it)."""
        if session.id in self._ended or session.engine is None:
            return
        self._release(session)
        if session.cleanup is not None and session.cleanup.status == "failed":
            for key in self._keys.get(session.id, (session.device_key,)):
                self._blocked[key] = session.id
        self._ended[session.id] = (trio.current_time() + SUMMARY_TTL_S, session)
        self._ended.move_to_end(session.id)
        self._expire()

    def _expire(self) -> None:
        # Every tool call comes here: the summaries are kept in the order they expire (one TTL, appended
        # as they end), so only the expired ones at the front are looked at.
        now = trio.current_time()
        while self._ended and (next(iter(self._ended.values()))[0] <= now or len(self._ended) > MAX_SUMMARIES):
            self._forget(next(iter(self._ended)))

    def _forget(self, sid: str) -> None:
        _, session = self._ended.pop(sid)
        self._inputs.pop(sid, None)
        self._keys.pop(sid, None)
        session.engine = None  # frames, handles and caches go with it

    def get(self, session_id: str) -> DebugSession:
        """An active session, or a terminal one still within its 10 minutes.

        Raises:
            ToolFailure: DEBUGGER_NOT_FOUND.
        """
        self._expire()
        session = self._active.get(session_id)
        if session is None and session_id in self._ended:
            session = self._ended[session_id][1]
        if session is None:
            raise ToolFailure("DEBUGGER_NOT_FOUND", f"no debugging session {session_id!r} (ended sessions are "
                              "kept 10 minutes); attach_debugger starts one")
        return session

    async def detach(self, session: DebugSession) -> None:
        """Detach an active session, or retry the unconfirmed cleanup of an ended one, and wait for it.

        The cleanup runs in the server's nursery, not in the caller's task: a caller that stops waiting
        (its ``timeoutMs`` ran out) leaves it running to its own deadline, and a second call joins it.
        """
        done = self._cleanups.get(session.id)
        if done is None:
            if not session.is_terminal or session.id in self._active:
                retry = False
                if session.engine is not None and session.cleanup is None:
                    session.cleanup = Cleanup("pending", "unknown")
            elif session.cleanup is not None and session.cleanup.status == "failed":
                retry = True
            else:
                return
            done = self._cleanups[session.id] = trio.Event()
            self.spawn(self._clean_up, session, retry, done)
        await done.wait()

    async def _clean_up(self, session: DebugSession, retry: bool, done: trio.Event) -> None:
        try:
            if retry:
                await self._retry_cleanup(session)
            else:
                await session.close("detached")
                # The terminal reason is known once the session's task has taken the engine's last event;
                # its connection was closed by the detach, so the answer need not wait for the task to end.
                with trio.move_on_after(RETRY_DEADLINE + 1):
                    await session.ended.wait()
                self._retire(session)
        except Exception as exc:  # a bug: never into the server's nursery, which would end every session
            log.error("cleanup of session %s failed", session.id, exc_info=exc)
            session.cleanup = Cleanup("failed", "unknown", session.cleanup.remaining if session.cleanup else (),
                                      (f"internal error ({type(exc).__name__}); see the server's log",))
        finally:
            del self._cleanups[session.id]
            done.set()

    async def _retry_cleanup(self, session: DebugSession) -> None:
        """Connect again and look: with no thread left suspended, the app provably runs.

        A JDWP agent drops a debugger's requests and suspensions when its connection ends (the "agent
        reset"); the new connection's suspend counts restart at 0, so the evidence is each thread's
        status as the VM reports it (:func:`threads_suspended_now`). Then goodbye with ``Dispose``.
        """
        inp = self._inputs.get(session.id)
        if isinstance(inp, AttachInput) and inp.launch is not None:
            # An attach that failed before it started keeps its launch input: reconnect to the process that
            # launch started (the target names it once connected), never launch — force-stop — it again.
            target = session.target
            inp = inp.launched(target.pid) if isinstance(target, AndroidTarget) else None
        if inp is None:
            return
        with trio.CancelScope(shield=True), trio.move_on_after(RETRY_DEADLINE) as scope:
            try:
                async with connect(inp, self.config, self.adb) as conn:
                    suspended = await threads_suspended_now(conn.vm)
                    await conn.vm.dispose()
                if suspended == 0:
                    session.cleanup = Cleanup("complete", "running",
                                              notes=(AGENT_RESET + "; the VM reports no thread suspended",))
                    for key in self._keys.get(session.id, (session.device_key,)):
                        if self._blocked.get(key) == session.id:
                            del self._blocked[key]
                    return
                why = ("a thread ended while they were counted" if suspended is None
                       else f"{AGENT_RESET}, yet the VM reports {suspended} threads suspended")
                self._retry_failed(session, why)
            except Exception as exc:  # JdwpError, ToolFailure, AdbError or a bug: the cleanup stays unconfirmed
                self._retry_failed(session, f"retry failed: {exc}")
        if scope.cancelled_caught:
            self._retry_failed(session, "retry did not finish within 10 s")

    @staticmethod
    def _retry_failed(session: DebugSession, error: str) -> None:
        remaining = session.cleanup.remaining if session.cleanup else ()
        session.cleanup = Cleanup("failed", "unknown", remaining, (error,))

    async def shutdown(self) -> None:
        """Clean up every session (server exit: stdin EOF, SIGTERM). Shielded; bounded by each detach."""
        with trio.CancelScope(shield=True):
            async with trio.open_nursery() as nursery:
                for session in self.active:
                    nursery.start_soon(self._close_for_shutdown, session)

    @staticmethod
    async def _close_for_shutdown(session: DebugSession) -> None:
        """Detach, then let the session's task finish its summary before the server's nursery is cancelled."""
        await session.close("shutdown")
        with trio.move_on_after(RETRY_DEADLINE + 1):
            await session.done.wait()
