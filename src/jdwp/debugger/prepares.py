"""Class-prepare requests shared by breakpoints: one JDWP request per set of modifiers, counted by its users.

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). A request is ``EventRequest.Set(CLASS_PREPARE, ALL,
modifiers)`` (15,1); it is cleared (15,2) when its last breakpoint no longer needs it.
"""

from __future__ import annotations

import dataclasses
import logging
from functools import partial

from ..client import JdwpClient
from ..protocol.commands.events import Modifier, SourceNameMatch
from ..protocol.constants import EventKind, SuspendPolicy
from ..protocol.errors import CommandError, ConnectionClosed
from ._gather import gather

log = logging.getLogger("jdwp.debugger")

Watch = tuple[Modifier, ...]


@dataclasses.dataclass
class _Watching:
    request_id: int
    users: int


class PrepareRequests:
    def __init__(self, vm: JdwpClient) -> None:
        self._vm = vm
        self._by_watch: dict[Watch, _Watching] = {}
        self._ids: set[int] = set()

    def is_ours(self, request_id: int) -> bool:
        return request_id in self._ids

    async def watch(self, watch: Watch) -> None:
        """One more user of the request; the first makes it.

        Raises:
            JdwpError: the VM refused or did not answer; nothing is recorded.
        """
        watching = self._by_watch.get(watch)
        if watching is not None:
            watching.users += 1
            return
        request_id = await self._vm.event_request.set(EventKind.CLASS_PREPARE, SuspendPolicy.ALL, list(watch))
        self._by_watch[watch] = _Watching(request_id, 1)
        self._ids.add(request_id)

    async def try_watch(self, watch: Watch) -> bool:
        """:meth:`watch`; False when the VM refuses a source-name filter (its version promised it)."""
        try:
            await self.watch(watch)
        except CommandError as exc:
            if not any(isinstance(m, SourceNameMatch) for m in watch):
                raise
            log.info("the VM refused a SourceNameMatch class-prepare request (%s): using class patterns", exc)
            return False
        return True

    async def unwatch(self, watch: Watch) -> list[str]:
        """One user fewer; the last clears the request. Returns what could not be cleared."""
        watching = self._by_watch.get(watch)
        if watching is None:
            return []
        if watching.users > 1:
            watching.users -= 1
            return []
        del self._by_watch[watch]
        self._ids.discard(watching.request_id)
        return await clear_request(self._vm, EventKind.CLASS_PREPARE, watching.request_id, _describe(watch))

    async def clear_all(self) -> list[str]:
        """Clear every class-prepare request, all at once (detach)."""
        watched = list(self._by_watch.items())
        self._by_watch.clear()
        self._ids.clear()
        results = await gather([partial(clear_request, self._vm, EventKind.CLASS_PREPARE, watching.request_id,
                                        _describe(watch)) for watch, watching in watched])
        return [what for failures in results for what in failures]


async def clear_request(vm: JdwpClient, kind: EventKind, request_id: int, what: str) -> list[str]:
    """Clear one event request; returns ``[what]`` when the connection is gone (an error reply means it is
    gone already, which is what clearing wants)."""
    try:
        await vm.event_request.clear(kind, request_id)
    except ConnectionClosed:
        return [what]
    except CommandError as exc:
        log.debug("clearing %s: %s", what, exc)
    return []


def _describe(watch: Watch) -> str:
    patterns = (getattr(m, "class_pattern", None) or getattr(m, "source_name_pattern", None) or repr(m)
                for m in watch)
    return f"class-prepare request for {' '.join(patterns)}"
