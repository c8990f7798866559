"""One debugging session's shared parts, made once and handed to each collaborator as it is constructed.

Layer: ``jdwp.debugger.reading``; no MCP, no ``android``. The engine (:class:`..engine.Debugger`) makes one
:class:`Session` with :func:`new_session` and gives it to the collaborators it builds (the read side
:class:`..inspection.Inspection`, the event sets, the hit judge, the capture reader): none of them is
completed after construction, and none reaches back into the engine. What is shared:

- the connection (``vm``), the class facts (``symbols``), the session's ID scheme (``ids``);
- the readers of values (``values``, which gets the class ``layouts``, the inline values of boxes and enums
  and the previews as it is made) and the session's method invocations (``calls``);
- the :class:`Gate`: whether the session is still open, and the lock its changes of state hold;
- the :class:`Options` the caller may change while the session runs (invocation, mutation, preview depth).

What holds only for one stop is not here but on the stop (:mod:`.stop_cache`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import trio

from ...client import JdwpClient
from ...protocol.types import ThreadId
from ..classes.symbols import Symbols
from ..errors import EngineClosed
from ..ids import IdScheme
from ..model import Terminated
from .inline import Inline
from .invoke import Calls
from .objects import Layouts
from .previews import Previews
from .values import Values

__all__ = ["Gate", "Options", "Session", "new_session"]


@dataclasses.dataclass(slots=True)
class Options:
    """What the user of a session may change while it runs."""

    #: Whether expressions may call methods (app code runs): the server's ``--allow-invoke``.
    allow_invoke: bool = False
    #: Whether ``set_value`` may change the app's state: the server's ``--allow-mutation``.
    allow_mutation: bool = False
    #: How deep the summaries of locals, evaluation results and monitors are previewed (:mod:`.previews`): 1 by
    #: default, 0 for none (a library user who wants no read past the values themselves).
    preview_depth: int = 1


class Gate:
    """Whether the session is open (``terminal`` says why it ended), and the lock that changes of its state
    (breakpoints, binding, resume, step, detach) hold; reads take no lock."""

    __slots__ = ("lock", "terminal")

    def __init__(self) -> None:
        self.lock = trio.Lock()
        self.terminal: Terminated | None = None

    def check_open(self) -> None:
        """Raises:
            EngineClosed: the session has ended.
        """
        if self.terminal is not None:
            raise EngineClosed(f"the debugging session has ended: {self.terminal.message}", self.terminal.reason)

    @asynccontextmanager
    async def changing(self) -> AsyncIterator[None]:
        """The block holds the lock, the session open when it starts: checked before the lock is waited for (a
        closed session waits for nothing) and again once it is held (it may have ended meanwhile).

        Raises:
            EngineClosed: the session has ended.
        """
        self.check_open()
        async with self.lock:
            self.check_open()
            yield


@dataclasses.dataclass(frozen=True, slots=True)
class Session:
    """The parts of one debugging session its collaborators share (see the module)."""

    vm: JdwpClient
    symbols: Symbols
    ids: IdScheme
    values: Values
    layouts: Layouts
    calls: Calls
    gate: Gate
    options: Options

    @property
    def invocations(self) -> Calls | None:
        """The session's invocations while it may run app code (:attr:`Options.allow_invoke`), else ``None``."""
        return self.calls if self.options.allow_invoke else None


def new_session(vm: JdwpClient, id_prefix: str = "", *, nursery: trio.Nursery | None = None,
                late_return: Callable[[ThreadId, str], Any]) -> Session:
    """A session over ``vm``: IDs start with ``id_prefix``; ``nursery`` holds the method calls that outlive their
    evaluation, and ``late_return`` is told of each that returns after its stop (:class:`.invoke.Calls`)."""
    symbols = Symbols(vm)
    layouts = Layouts(vm, symbols)
    values = Values(vm, symbols, id_prefix, layouts=layouts, inline=Inline(layouts), previews=Previews(layouts))
    return Session(vm, symbols, IdScheme(id_prefix), values, layouts, Calls(vm, nursery, late_return), Gate(),
                   Options())
