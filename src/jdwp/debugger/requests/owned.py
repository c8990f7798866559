"""The base of every kind of breakpoint that owns JDWP event requests: which breakpoint each request ID
belongs to (what an event's request ID is matched against), and forgetting a breakpoint's requests all
at once, to clear them (``EventRequest.Clear`` 15,2, :func:`.prepares.clear_requests`) or to hand them to
detach, which clears every one in one write.

Layer: ``jdwp.debugger.requests``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar, Protocol

from ...client import JdwpClient
from ...protocol.constants import EventKind
from .prepares import ClearRequest, clear_requests


class _RequestIds(Protocol):
    def __iter__(self) -> Iterator[int]: ...
    def clear(self) -> None: ...


class Owner(Protocol):
    """A breakpoint's entry: its ID and the IDs of the requests made for it (a list, or a dict by ID)."""

    @property
    def breakpoint_id(self) -> str: ...
    @property
    def requests(self) -> _RequestIds: ...


class OwnedRequests:
    """Request IDs by owning breakpoint, for one event kind (``KIND``; ``WHAT`` names a request of it in a
    cleanup report)."""

    KIND: ClassVar[EventKind]
    WHAT: ClassVar[str]

    def __init__(self, vm: JdwpClient) -> None:
        self._vm = vm
        self._by_request: dict[int, str] = {}

    def owner_of(self, request_id: int) -> str | None:
        """The breakpoint ID behind a JDWP request ID of this kind."""
        return self._by_request.get(request_id)

    def _own(self, entry: Owner, request_id: int) -> None:
        """Note that ``request_id`` (just made; the entry lists it) belongs to ``entry``'s breakpoint."""
        self._by_request[request_id] = entry.breakpoint_id

    async def _clear(self, entry: Owner) -> list[str]:
        """Clear every request of one breakpoint, all at once; what could not be confirmed cleared."""
        return await clear_requests(self._vm, self._take(entry))

    def _take(self, entry: Owner) -> list[ClearRequest]:
        """Forget one breakpoint's requests and return them to clear."""
        taken = [ClearRequest(self.KIND, request_id, f"{self.WHAT} of {entry.breakpoint_id}")
                 for request_id in entry.requests]
        for request_id in entry.requests:
            self._by_request.pop(request_id, None)
        entry.requests.clear()
        return taken
