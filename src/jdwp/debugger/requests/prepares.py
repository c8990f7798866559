"""The class-prepare kind: requests shared by breakpoints, one JDWP request per set of modifiers, counted by
its users; and clearing requests of any kind (:class:`ClearRequest`, :func:`clear_requests`).

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). A request is ``EventRequest.Set(CLASS_PREPARE, ALL,
modifiers)`` (15,1); it is cleared (15,2) when its last breakpoint no longer needs it. Its event makes no
stop: it tells the breakpoint kinds of a class to bind in (:meth:`.manager.Requests.on_class_prepare`).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence
from typing import NamedTuple

from ...client import JdwpClient
from ...protocol.commands import Command, Empty, EventRequest
from ...protocol.commands.events import ClassPrepareEvent, ClearOut, Modifier, SetOut, SetReply, SourceNameMatch
from ...protocol.constants import EventKind, SuspendPolicy
from ...protocol.errors import CommandError, ConnectionClosed
from .kind import Meaning, RequestKind

log = logging.getLogger("jdwp.debugger")

Watch = tuple[Modifier, ...]


class ClearRequest(NamedTuple):
    """An event request of ours to clear with ``EventRequest.Clear`` (15,2), and what to call it in a
    cleanup report when that cannot be confirmed. Detach takes every one at once and sends their clears
    in one write (:mod:`.detach`)."""

    kind: EventKind
    request_id: int
    what: str

    def command(self) -> tuple[Command[ClearOut, Empty], ClearOut]:
        return EventRequest.Clear, ClearOut(int(self.kind), self.request_id)


@dataclasses.dataclass
class _Watching:
    request_id: int
    users: int


class PrepareRequests(RequestKind):
    """The class-prepare kind: every class-prepare request of the session, shared by the breakpoints that use
    it. Its event makes no stop: it tells the breakpoint kinds a class to bind in."""

    EVENTS = (ClassPrepareEvent,)

    def __init__(self, vm: JdwpClient) -> None:
        self._vm = vm
        self._by_watch: dict[Watch, _Watching] = {}
        self._ids: set[int] = set()

    def is_ours(self, request_id: int) -> bool:
        return request_id in self._ids

    def meaning(self, event: ClassPrepareEvent) -> Meaning | None:
        return Meaning(None, prepare=True) if event.request_id in self._ids else None

    async def watch(self, watch: Watch) -> None:
        """One more user of the request; the first makes it.

        Raises:
            JdwpError: the VM refused or did not answer; nothing is recorded.
        """
        if self.share(watch):
            return
        reply = await self._vm.request(*self.request(watch))
        self.record(watch, reply.request_id)

    async def try_watch(self, watch: Watch) -> bool:
        """:meth:`watch`; False when the VM refuses a source-name filter (its version promised it)."""
        try:
            await self.watch(watch)
        except CommandError as exc:
            if not refuses_filter(watch, exc):
                raise
            return False
        return True

    # A caller that sends the request along with others: share, else request and record the answer.

    def share(self, watch: Watch) -> bool:
        """One more user of the request if it is made already; False when it is not."""
        watching = self._by_watch.get(watch)
        if watching is None:
            return False
        watching.users += 1
        return True

    @staticmethod
    def request(watch: Watch) -> tuple[Command[SetOut, SetReply], SetOut]:
        """``EventRequest.Set(CLASS_PREPARE, ALL, watch)`` (15,1)."""
        return EventRequest.Set, SetOut(int(EventKind.CLASS_PREPARE), int(SuspendPolicy.ALL), list(watch))

    def record(self, watch: Watch, request_id: int) -> None:
        """The request the VM made for ``watch``, with its first user."""
        self._by_watch[watch] = _Watching(request_id, 1)
        self._ids.add(request_id)

    def drop(self, watch: Watch) -> list[ClearRequest]:
        """One user fewer; the last one's request is forgotten and returned to clear (:func:`clear_requests`)."""
        watching = self._by_watch.get(watch)
        if watching is None:
            return []
        if watching.users > 1:
            watching.users -= 1
            return []
        del self._by_watch[watch]
        self._ids.discard(watching.request_id)
        return [ClearRequest(EventKind.CLASS_PREPARE, watching.request_id, _describe(watch))]

    def take_all(self) -> list[ClearRequest]:
        """Forget every class-prepare request and return them to clear (detach)."""
        taken = [ClearRequest(EventKind.CLASS_PREPARE, watching.request_id, _describe(watch))
                 for watch, watching in self._by_watch.items()]
        self._by_watch.clear()
        self._ids.clear()
        return taken


def refuses_filter(watch: Watch, error: CommandError) -> bool:
    """Whether ``error`` is the VM refusing a source-name filter its version promised (then class patterns
    must do)."""
    if not any(isinstance(m, SourceNameMatch) for m in watch):
        return False
    log.info("the VM refused a SourceNameMatch class-prepare request (%s): using class patterns", error)
    return True


async def clear_requests(vm: JdwpClient, requests: Sequence[ClearRequest]) -> list[str]:
    """Clear event requests of ours in one write; returns what could not be, when the connection is gone.

    Raises:
        CommandTimeout: the VM did not answer.
    """
    if not requests:
        return []
    try:
        answers = await vm.request_all([request.command() for request in requests])
    except ConnectionClosed:
        return [request.what for request in requests]
    note_cleared(requests, answers)
    return []


def note_cleared(requests: Sequence[ClearRequest], answers: Sequence[object]) -> None:
    """Take the VM's answers to clearing ``requests``: an error means the request is gone already (a step's
    ``Count(1)`` expired it), which is what clearing wants."""
    for request, answer in zip(requests, answers, strict=True):
        if isinstance(answer, CommandError):
            log.debug("clearing %s: %s", request.what, answer)


def _describe(watch: Watch) -> str:
    patterns = (getattr(m, "class_pattern", None) or getattr(m, "source_name_pattern", None) or repr(m)
                for m in watch)
    return f"class-prepare request for {' '.join(patterns)}"
