"""What the typed command namespaces need from a client: one ``request`` coroutine.

Layer: ``jdwp`` (no I/O of its own).
"""

from __future__ import annotations

from typing import Any, Protocol, TypeVar

from ..protocol.commands import Command

R = TypeVar("R")


class Requester(Protocol):
    async def request(self, command: Command[Any, R], out: Any = None, /, *, timeout: float | None = None,
                      **fields: Any) -> R: ...


class Namespace:
    """A command set's typed methods, bound to one client."""

    def __init__(self, client: Requester) -> None:
        self._client = client

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"
