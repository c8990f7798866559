"""Methods' line tables (``Method.LineTable``, 6,1) and variable tables (``Method.VariableTable``, 6,2), asked
once per method for the session, and how a code index maps to a line as JDI maps it.

Layer: ``jdwp.debugger.classes`` (trio, via ``jdwp.client``); no MCP, no ``android``.
"""

from __future__ import annotations

import bisect
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, ClassVar, Generic, TypeVar

from ...client import JdwpClient
from ...protocol.commands import Command, Method
from ...protocol.commands.reftypes import LineTableReply, MethodOut, VariableTableReply
from ...protocol.constants import ErrorCode
from ...protocol.errors import AbsentInformation, CommandError
from ...protocol.types import Location, MethodId, ReferenceTypeId
from ..model import NO_CODE_INDEX

__all__ = ["LineTables", "Obsolete", "VariableTables", "code_index", "line_at", "line_locations"]

Table = TypeVar("Table", LineTableReply, VariableTableReply)


class Obsolete:
    """The methods of a class redefined this session (``VirtualMachine.RedefineClasses`` 1,18) that its new code
    does not list: a frame may still run one's old body, and it has no tables here. HotSpot's JDWP agent ends the
    VM when asked ``Method.LineTable`` or ``VariableTable`` of one (libjdwp ``util.c`` ``isMethodNative`` treats
    JVMTI's INVALID_METHODID as fatal: "JDWP exit error … on checking for a native interface"), so neither
    table keeper ever asks for one."""

    def __init__(self, methods: Callable[[ReferenceTypeId], Awaitable[dict[int, Any]]]) -> None:
        self._methods = methods
        self.redefined: set[int] = set()

    async def holds(self, ref: int, method: int) -> bool:
        return ref in self.redefined and method not in await self._methods(ReferenceTypeId(ref))

    async def kept(self, keys: Iterable[tuple[int, int]], tables: dict[tuple[int, int], Any]) -> list[tuple[int, int]]:
        """``keys`` without the obsolete methods', which are cached in ``tables`` as having none."""
        keys = list(dict.fromkeys(keys))
        if not self.redefined or not any(ref in self.redefined for ref, _ in keys):
            return keys
        kept = []
        for key in keys:
            if await self.holds(*key):
                tables.setdefault(key, None)
            else:
                kept.append(key)
        return kept


class _MethodTables(Generic[Table]):
    """One table per method, keyed ``(class, method)`` and asked once for the session: :meth:`get` one (an
    obsolete method's, or one the VM says is absent, is ``None``), :meth:`forget` a redefined class's, and
    :meth:`_fetch` many in one round trip."""

    #: ``Method.LineTable`` (6,1) or ``Method.VariableTable`` (6,2).
    COMMAND: ClassVar[Command[MethodOut, Any]]

    def __init__(self, vm: JdwpClient, obsolete: Obsolete) -> None:
        self._vm = vm
        self._obsolete = obsolete
        self._tables: dict[tuple[int, int], Table | None] = {}

    async def get(self, ref: ReferenceTypeId, method: MethodId) -> Table | None:
        key = (ref, method)
        if key not in self._tables and await self._obsolete.holds(ref, method):
            self._tables[key] = None
        if key not in self._tables:
            try:
                self._tables[key] = await self._vm.request(self.COMMAND, ref_type=ref, method_id=method)
            except CommandError as exc:
                if not _is_absent(exc):
                    raise
                self._tables[key] = None
        return self._tables[key]

    def forget(self, ref: int) -> None:
        """The class was redefined: its methods' tables are asked anew (:class:`Obsolete` guards the old ones)."""
        for key in [key for key in self._tables if key[0] == ref]:
            del self._tables[key]

    async def _fetch(self, keys: Iterable[tuple[int, int]]) -> CommandError | None:
        """The tables of every (class, method) not cached yet, in one round trip; a table the VM says is absent
        is cached as ``None``. The first other failure is returned (its table left uncached)."""
        missing = [k for k in await self._obsolete.kept(keys, self._tables) if k not in self._tables]
        if not missing:
            return None
        # One write, answered in this task.
        replies = await self._vm.request_all([(self.COMMAND, MethodOut(ReferenceTypeId(ref), MethodId(method)))
                                              for ref, method in missing])
        failure: CommandError | None = None
        for key, reply in zip(missing, replies, strict=True):
            if not isinstance(reply, CommandError):
                self._tables.setdefault(key, reply)
            elif _is_absent(reply):
                self._tables.setdefault(key, None)
            else:
                failure = failure or reply
        return failure


class LineTables(_MethodTables[LineTableReply]):
    """Each method's line table (``None`` for a method compiled without ``-g:lines``, or native): :meth:`get`
    one, :meth:`fetch` many in one round trip, :meth:`known` from the cache (``None`` too for a method without
    one)."""

    COMMAND = Method.LineTable

    def known(self, ref: int, method: int) -> LineTableReply | None:
        return self._tables.get((ref, method))

    async def fetch(self, keys: Iterable[tuple[int, int]]) -> None:
        """Line tables of every (class, method) not cached yet: one round trip.

        Raises:
            CommandError: the first error :meth:`get` would raise, once every answer is kept.
        """
        failure = await self._fetch(keys)
        if failure is not None:
            raise failure


class VariableTables(_MethodTables[VariableTableReply]):
    """Each method's variable table (``None`` when absent: compiled without ``-g:vars``, or native): :meth:`get`
    one, :meth:`fetch` many in one round trip (never raising: what it cannot read is asked again where the error
    belongs), :meth:`known` from the cache."""

    COMMAND = Method.VariableTable

    def known(self, ref: int, method: int) -> tuple[VariableTableReply | None] | None:
        """``(table,)`` once :meth:`get` has an answer (the table may be ``None``: absent), else ``None``: lets a
        hot path skip an await when everything it needs is cached."""
        key = (ref, method)
        return (self._tables[key],) if key in self._tables else None

    async def fetch(self, keys: Iterable[tuple[int, int]]) -> None:
        """Variable tables of every (class, method) not cached yet: one round trip. A table the VM cannot give
        is cached as absent only when it says so; other failures are left uncached (and not raised)."""
        await self._fetch(keys)


def code_index(loc: Location) -> int:
    """The location's code index; a native method's (JDWP's unsigned 64-bit -1) is -1."""
    return NO_CODE_INDEX if loc.index >= 1 << 63 else loc.index


def _is_absent(exc: CommandError) -> bool:
    """ABSENT_INFORMATION, or NATIVE_METHOD: HotSpot's answer for a native method's tables (it has no code)."""
    return isinstance(exc, AbsentInformation) or exc.code == ErrorCode.NATIVE_METHOD


def line_locations(table: LineTableReply) -> list[tuple[int, int]]:
    """The method's line locations as JDI reads its table: ``(code index, line)`` by code index, one per index.

    Of entries with the same code index the last in table order is kept: kotlinc writes several at one index
    (``KotlinToJVMBytecodeCompiler.findMainClass``: 225, 232, 225, 226, 225 at index 16) and JDI's
    ``ConcreteMethodImpl.getBaseLocations`` (openjdk/jdk, src/jdk.jdi/share/classes/com/sun/tools/jdi/) records
    "only the last line entry at a particular location" — the line jdb shows there, 225. HotSpot's back end
    steps by the same rule (its ``findLineNumber`` in stepControl.c), so a step stops where these lines change.
    """
    cached = _LOCATIONS.get(id(table))
    if cached is not None and cached[0] is table:
        return cached[1]
    by_index: dict[int, int] = {}
    # Sorted here, never assumed: ART's tables come unsorted by code index (docs/reliability.md, "ART as devices
    # show it"). The sort is stable, so entries of one index keep their table order.
    for entry in sorted(table.lines, key=lambda e: e.line_code_index):
        by_index[entry.line_code_index] = entry.line_number
    found = sorted(by_index.items())
    if len(_LOCATIONS) >= _LOCATIONS_KEPT:
        _LOCATIONS.pop(next(iter(_LOCATIONS)))
    _LOCATIONS[id(table)] = (table, found)
    return found


#: :func:`line_locations` of recent tables, keyed by the table object and checked by identity (a stack
#: describes the same few methods again and again).
_LOCATIONS: dict[int, tuple[LineTableReply, list[tuple[int, int]]]] = {}
_LOCATIONS_KEPT = 1024


def line_at(table: LineTableReply, index: int) -> int | None:
    """The line of the code index, as JDI's ``ConcreteMethodImpl.codeIndexToLineInfo`` gives it: the line location
    with the greatest code index at or before it (:func:`line_locations`), and code before the first location
    belongs to the first location's line ("prolog" code: kotlinc's parameter checks of a public function come
    before its first entry, so a step into it lands there, on the function's first line as jdb shows it).
    ``None`` only for a method without line entries, or a native method's index.
    """
    if not table.lines or index < 0:
        return None
    found = line_locations(table)
    position = bisect.bisect_right(found, (index, 1 << 62)) - 1
    return found[max(position, 0)][1]
