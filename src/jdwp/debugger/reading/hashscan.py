"""Hash tables (``HashMap``, ``HashSet``'s map, ``ConcurrentHashMap``) read as far as a page needs, with what
was read kept for the stop.

Layer: ``jdwp.debugger`` (via ``jdwp.client``). docs/design.md §2.7 ("a page costs what the page needs").

A table is scanned in slot order, chunk by chunk (:func:`.tables.read_region`, each command at most 4,096 slots),
only as far as the page's end needs: an entry's position in iteration order is the number of nodes in the chains
before it, so a page at offset ``k`` walks the chains of the buckets before it once — level by level, the
buckets' nodes of one level in one write (``ObjectReference.GetValues`` 9,2, at most
:data:`MAX_COMMANDS_PER_WRITE` to a write) — and keeps the nodes' IDs in order. A second page at the same stop
reads only its own nodes. A scan is kept per table in the stop's cache (:mod:`.stop_cache`: a new stop has a new
one; an invoked method's run empties it), checked against the table's ID and the map's size.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import trio

from ...client import JdwpClient
from ...protocol.commands import ObjectReference
from ...protocol.constants import ErrorCode
from ...protocol.errors import CommandError
from ...protocol.types import FieldId, ObjectId
from ...protocol.values import Value
from .._gather import gather
from .tables import MAX_CHUNKS_PER_WRITE, chunk_size, read_region

#: The most ``ObjectReference.GetValues`` in one write when many nodes are read.
MAX_COMMANDS_PER_WRITE = 4096
#: The most seconds one page spends locating its entries (walking the chains or links before it, about
#: 20,000–50,000 nodes a second on OpenJDK over loopback); the walk so far is kept for the stop and the page
#: answers :class:`Unfinished`, to be asked again.
PAGE_BUDGET = 10.0

#: A chain's nodes, each ``(node ID, key, value)``, for each bucket head given, key and value read only when
#: the second argument says so (else null); raises :class:`Resizing`.
Chains = Callable[[Sequence[int], bool], Awaitable[list[list[tuple[int, Value, Value]]]]]


class Unfinished(Exception):
    """The page's entries were not located within :data:`PAGE_BUDGET`: ``located`` of the ``wanted`` entries
    before the page's end are known (and kept for the stop)."""

    def __init__(self, located: int, wanted: int) -> None:
        super().__init__(located, wanted)
        self.located, self.wanted = located, wanted


class Resizing(Exception):
    """A ``ConcurrentHashMap`` stopped in the middle of a resize (a ``ForwardingNode`` in its table)."""


async def read_fields(vm: JdwpClient, objects: Sequence[int], fields: list[FieldId]) -> list[list[Value]]:
    """The same fields of many objects, :data:`MAX_COMMANDS_PER_WRITE` commands to a write.

    Raises:
        CommandError: the VM refused one (the first refusal).
    """
    out: list[list[Value]] = []
    for at in range(0, len(objects), MAX_COMMANDS_PER_WRITE):
        replies = await vm.request_all([
            (ObjectReference.GetValues, ObjectReference.GetValues.out(object=ObjectId(o), fields=fields))
            for o in objects[at:at + MAX_COMMANDS_PER_WRITE]])
        for reply in replies:
            if isinstance(reply, CommandError):
                raise reply
            out.append(reply.values)
    return out


async def walk_chains(vm: JdwpClient, heads: Sequence[int], ids: list[FieldId], limit: int, pairs: bool = True
                      ) -> list[list[tuple[int, Value, Value]]]:
    """Each head's chain along ``next``; ``ids`` are the nodes' ``key``, ``value``, ``next`` fields (without
    ``pairs``, only ``next`` is read and key and value are null). One write per chain level for all the heads; a
    chain stops at a node met before in it or after ``limit`` nodes."""
    chains: list[list[tuple[int, Value, Value]]] = [[] for _ in heads]
    current = list(enumerate(heads))
    asked = ids if pairs else ids[2:]
    none = Value.null()
    while current:
        following: list[tuple[int, int]] = []
        for (slot, node), read in zip(current, await read_fields(vm, [n for _, n in current], asked), strict=True):
            key, value, nxt = read if pairs else (none, none, read[0])
            chain = chains[slot]
            chain.append((node, key, value))
            if not nxt.is_null and len(chain) < limit and all(n != nxt.object_id for n, _, _ in chain):
                following.append((slot, nxt.object_id))
        current = following
    return chains


class TableScan:
    """One table's slots and chains as far as read at this stop: ``nodes`` in iteration order."""

    def __init__(self, vm: JdwpClient, table: int, size: int, chains: Chains, pair_ids: list[FieldId]) -> None:
        self.vm, self.table, self.size = vm, table, size
        self._chains, self.pair_ids = chains, pair_ids
        self.length: int | None = None
        self.scanned = 0  # slots read
        self.heads: list[int] = []  # the non-null slots' nodes, in slot order
        self.walked = 0  # heads whose chains are in ``nodes``
        self.nodes: list[int] = []

    def use(self, chains: Chains, pair_ids: list[FieldId]) -> None:
        """The nodes' reader and their key and value fields, once the nodes' class is known."""
        self._chains, self.pair_ids = chains, pair_ids

    async def start(self, length: Callable[[], Awaitable[int]], guess: int | None, wanted: int) -> None:
        """Read the table's length with its first slots (from ``guess``, its likely length), in one round trip."""
        first = min(guess, self._slots_for(wanted, guess)) if guess else 0

        async def slots() -> Any:
            if not first:
                return None
            try:
                return await read_region(self.vm, ObjectId(self.table), 0, first)
            except CommandError as exc:
                if exc.code in (ErrorCode.INVALID_LENGTH, ErrorCode.INVALID_INDEX):
                    return None  # a wrong guess: shorter than it
                raise

        self.length, region = await gather([length, slots])
        if region is not None:
            self._take(region.values)

    def _slots_for(self, nodes: int, length: int | None) -> int:
        """How many slots likely hold ``nodes`` more nodes (a fifth more than the average, a chunk at least)."""
        most = chunk_size(self.vm)
        if not length or not self.size:
            return most
        return max(most, math.ceil(nodes * length / self.size * 1.2))

    def _take(self, slots: Sequence[Value]) -> None:
        self.scanned += len(slots)
        self.heads.extend(v.object_id for v in slots if not v.is_null)

    async def first_head(self) -> int | None:
        """The table's first node (scanning on as needed: to learn the nodes' class); ``None``: it is empty."""
        while not self.heads and self.length is not None and self.scanned < self.length:
            await self.scan_more(1)
        return self.heads[0] if self.heads else None

    async def scan_more(self, nodes: int) -> None:
        """Read the next slots, as many as likely hold ``nodes`` more nodes (a write at most)."""
        assert self.length is not None
        count = min(self.length - self.scanned, self._slots_for(nodes, self.length),
                    chunk_size(self.vm) * MAX_CHUNKS_PER_WRITE)
        region = await read_region(self.vm, ObjectId(self.table), self.scanned, count)
        self._take(region.values)

    async def entries(self, start: int, end: int) -> list[tuple[Value, Value]]:
        """Entries ``start`` … ``end-1`` (fewer when the table holds fewer nodes than the size says).

        Raises:
            Unfinished: not located within :data:`PAGE_BUDGET` (asking again goes on from there).
        """
        page: dict[int, tuple[Value, Value]] = {}
        deadline = trio.current_time() + PAGE_BUDGET
        while len(self.nodes) < end:
            if trio.current_time() > deadline:
                raise Unfinished(len(self.nodes), end)
            if self.walked == len(self.heads):
                if self.length is None or self.scanned >= self.length:
                    break
                await self.scan_more(end - len(self.nodes))
                continue
            batch = self.heads[self.walked:self.walked + min(MAX_COMMANDS_PER_WRITE, end - len(self.nodes))]
            # Far before the page, only the links are read (a smaller reply; the VM's cost is mostly per
            # command); near it, the entries too (a guess: a node placed in the page without them is read after).
            pairs = len(self.nodes) + 2 * len(batch) >= start
            chains = await self._chains(batch, pairs)
            self.walked += len(batch)  # only once read: a read cancelled (a deadline) leaves the scan whole
            for chain in chains:
                for node, key, value in chain:
                    if pairs and start <= len(self.nodes) < end:
                        page[len(self.nodes)] = (key, value)
                    self.nodes.append(node)
        missing = [p for p in range(start, min(end, len(self.nodes))) if p not in page]
        if missing:
            read = await read_fields(self.vm, [self.nodes[p] for p in missing], self.pair_ids)
            page.update((p, (pair[0], pair[1])) for p, pair in zip(missing, read, strict=True))
        return [page[p] for p in range(start, min(end, len(self.nodes)))]


async def no_chains(heads: Sequence[int], pairs: bool) -> list[list[tuple[int, Value, Value]]]:
    """The reader of a scan whose nodes' class is not known yet (:meth:`TableScan.use` replaces it)."""
    raise AssertionError("a table scan walked before its nodes' fields were known")


class LinkedScan:
    """A ``LinkedHashMap``'s entries in insertion order as far as read at this stop: from ``head`` along
    ``after`` and from ``tail`` along ``before``, one node a round trip (each link is known only from the node
    before it), from the end nearer the page. ``ids``: the entries' ``key``, ``value``, ``after``, ``before``."""

    def __init__(self, vm: JdwpClient, size: int, head: int, tail: int, ids: list[FieldId]) -> None:
        self.vm, self.size, self._ids = vm, size, ids
        self.front: list[tuple[Value, Value]] = []
        self.back: list[tuple[Value, Value]] = []  # from the tail: back[0] is the last entry
        self._next_front: int | None = head or None
        self._next_back: int | None = tail or None
        self._seen: set[int] = set()

    async def entries(self, start: int, end: int) -> list[tuple[Value, Value]]:
        """Entries ``start`` … ``end-1`` (fewer when the links end early: the map changing meanwhile).

        Raises:
            Unfinished: not reached within :data:`PAGE_BUDGET` (asking again goes on from there).
        """
        from_front = end - len(self.front)
        from_back = (self.size - start) - len(self.back)
        if from_front > 0 and from_back > 0:
            if from_front <= from_back:
                await self._walk(self.front, end, forward=True)
            else:
                await self._walk(self.back, self.size - start, forward=False)
        if end <= len(self.front):
            return self.front[start:end]
        if start >= self.size - len(self.back):
            ordered = self.back[:self.size - start][::-1]
            return ordered[:end - start]
        return self.front[start:end]

    async def _walk(self, into: list[tuple[Value, Value]], count: int, forward: bool) -> None:
        here = self._next_front if forward else self._next_back
        deadline = trio.current_time() + PAGE_BUDGET
        try:
            while len(into) < count and here is not None and here not in self._seen:
                if trio.current_time() > deadline:
                    raise Unfinished(len(self.front) + len(self.back), count)
                here = await self._step(into, here, forward)
        finally:
            if forward:
                self._next_front = here
            else:
                self._next_back = here

    async def _step(self, into: list[tuple[Value, Value]], here: int, forward: bool) -> int | None:
        ((key, value, after, before),) = await read_fields(self.vm, [here], self._ids)
        self._seen.add(here)
        into.append((key, value))
        link = after if forward else before
        return None if link.is_null else link.object_id
