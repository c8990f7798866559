"""Line breakpoints by class or by source file: bound in every loaded class of that code, armed for later ones.

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). docs/design.md §3.1.

What a breakpoint covers is :mod:`.targets`' business: a class and the classes nested in it from the same
source file, or every class of a source file, plus Kotlin inline functions' bodies wherever they were
inlined (the classes' source maps say so). Setting one takes, in order:

1. one round, sent in this order: the class-prepare requests that tell about classes loaded later
   (``ClassMatch`` ``Foo`` and ``Foo$*``, or ``SourceNameMatch`` on a file's name), then
   ``VirtualMachine.AllClasses`` (1,3) — so no class loads unseen between the two;
2. source file, source map and methods of the listed classes that may be the target's (by name, or by
   package for a file), in one round; a file's sweep of the listing comes along (every class's map for a
   Kotlin file, the top-level classes' source files for a bare name: :meth:`LineBreakpoints._bind_file`), each
   one write of raw commands, cached for the session;
3. their line tables, in one round (for a class target in Kotlin, the maps of the classes of its package
   root come along: a class that inlined its code has it in its map);
4. one ``EventRequest.Set(BREAKPOINT, ALL, LocationOnly)`` per code index whose line (read through the
   map) is the requested one and that the breakpoint's ``lambda`` choice and names keep (:mod:`.line_choice`,
   after the methods' variable tables in one round where it needs them), with the class loaders, in one
   round (``EVENT_THREAD`` for a breakpoint with a condition, hit count, logpoint or ``suspend: "thread"``:
   :mod:`.hits`).

A line is never moved to another line. Statuses (docs/design.md §3.1): ``verified`` once some class has code
at the line; ``rejected`` while classes of the target are loaded but none has code there — it stays
armed, and a class loaded later with code there verifies it; ``pending`` while nothing of the target is
loaded (with a hint in ``reason`` when the name looks mistyped).

The line kind of :mod:`.manager` (which holds the IDs and the limit of 100 breakpoints of every kind); what
it shares with the other kinds (update, enable, disable, spend, removal) is :mod:`.breakpoint_kind`'s.

A breakpoint can be changed in place (:meth:`.breakpoint_kind.BreakpointKind.update`): its condition, hit count
and log message, checked before anything changes, then its requests made again (the line's choice of code
indexes depends on the names they read, a hit's suspend policy on whether it is judged); and disabled —
every JDWP request of it cleared (breakpoint and class-prepare requests), the breakpoint kept, status
``disabled`` — or enabled again, bound anew as when it was set.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Awaitable, Callable, Iterable
from functools import partial
from typing import Any

from ...client import JdwpClient
from ...protocol.commands import Command, Empty, EventRequest, ReferenceType, VirtualMachine
from ...protocol.commands.events import BreakpointEvent, ClassPrepareEvent, LocationOnly, SetOut
from ...protocol.commands.reftypes import RefTypeOut
from ...protocol.commands.vm import prepared_classes
from ...protocol.constants import EventKind, TypeTag
from ...protocol.errors import CommandError
from ...protocol.types import Location, MethodId, ReferenceTypeId
from .._gather import gather
from ..classes.lambdas import LambdaChoice, Passes, PassSpot
from ..classes.smap import Smap
from ..classes.symbols import CodeLine, Symbols, line_locations
from ..classes.synthetic import is_nested_in, named_after, package_of
from ..errors import InvalidArgument
from ..model import LOCATION_UNAVAILABLE, NEAR_MISS, BoundLocation, Breakpoint, Reason
from ..names import binary_name_of
from .breakpoint_kind import BreakpointKind, Entry, Owners
from .hits import INVOKES_NOTE, HitPlan
from .kind import Meaning
from .line_choice import LineChoice
from .prepares import ClearRequest, PrepareRequests, Watch, refuses_filter
from .targets import (
    JDK_PACKAGES,
    ClassTarget,
    FileTarget,
    Listing,
    Sweep,
    Target,
    covers,
    is_targets,
    listed_candidates,
    near_miss,
    of_target,
    package_root,
    source_watch,
    watches,
)

log = logging.getLogger("jdwp.debugger")

@dataclasses.dataclass(kw_only=True)
class _Entry(Entry):
    target: Target
    line: int
    locations: list[BoundLocation] = dataclasses.field(default_factory=list)
    reason: Reason | None = None
    at: dict[int, Location] = dataclasses.field(default_factory=dict)  # JDWP request ID -> its location
    expected_source: str | None = None  # a class target: the source file of the class it names
    classes_seen: int = 0  # classes of the target looked at so far
    any_table: bool = False  # some class of the target had a line table
    lambda_choice: LambdaChoice = "all"  # which of the line's locations (:mod:`.lambdas`)
    choosing: LineChoice = dataclasses.field(default_factory=LineChoice)

    def progress(self) -> Any:
        return self.state, len(self.locations)

    @property
    def inline_source(self) -> str | None:
        """The Kotlin source whose inline functions other classes may have copied, when known."""
        if isinstance(self.target, FileTarget):
            return self.target.name if self.target.kotlin else None
        source = self.expected_source
        return source if source is not None and source.endswith((".kt", ".kts")) else None


class LineBreakpoints(BreakpointKind[_Entry, Breakpoint]):
    """The line breakpoints of one session and the JDWP requests behind them."""

    EVENTS = (BreakpointEvent,)

    def __init__(self, vm: JdwpClient, symbols: Symbols, prepares: PrepareRequests, reserve: Callable[[], str],
                 owners: Owners) -> None:
        super().__init__(vm, prepares, reserve, owners)
        self._symbols = symbols
        self._names: dict[int, str] = {}  # class ID -> binary name, as listings and class-prepare events gave it
        self._nesting: dict[int, str] = {}  # class ID -> its top-level class's signature, for sweeps (Listing.sweep)
        #: The pass each thread is in through each breakpoint's line (:mod:`.lambdas`, used by :mod:`.judge`).
        self.passes = Passes()

    def meaning(self, event: BreakpointEvent) -> Meaning | None:
        """A hit of a line breakpoint of ours: stop reason ``breakpoint``."""
        entry = self.entry_of(event.request_id)
        return Meaning("breakpoint", entry.breakpoint_id) if entry is not None else None

    def _snapshot(self, entry: _Entry) -> Breakpoint:
        target = entry.target
        plan = entry.plan
        return Breakpoint(entry.breakpoint_id, target.class_name if isinstance(target, ClassTarget) else None,
                          entry.line, entry.shown_status, tuple(entry.locations),
                          entry.reason, target.text if isinstance(target, FileTarget) else None,
                          plan.options if plan else None, entry.counts.hits if plan else None,
                          entry.counts.dropped if plan and plan.options.action == "log" else None,
                          None if entry.lambda_choice == "all" else entry.lambda_choice, tuple(entry.choosing.skipped),
                          INVOKES_NOTE if plan is not None and plan.invokes else None)

    def pass_spot(self, breakpoint_id: str, location: Location | None) -> PassSpot | None:
        """Where a hit's location sits among the linked locations of its breakpoint's line, when the pass rule
        applies to it (``None``: a location alone in its run, or not one of the breakpoint's)."""
        entry = self._entries.get(breakpoint_id)
        if entry is None or location is None:
            return None
        spot = entry.choosing.spots.get(location)
        return spot if spot is not None and spot.chain is not None else None

    async def add(self, target: Target, line: int, plan: HitPlan | None = None,
                  lambda_choice: LambdaChoice = "all") -> Breakpoint:
        """Set a breakpoint; the answer says ``pending``, ``verified`` (with locations) or ``rejected``.

        Raises:
            InvalidArgument: a line below 1. Nothing is changed.
            LimitReached: the session holds 100 breakpoints already. Nothing is changed.
        """
        if not isinstance(line, int) or isinstance(line, bool) or line < 1:
            raise InvalidArgument(f"line must be a positive integer, got {line!r}")
        return await self._hold(_Entry(self._reserve(), plan, target=target, line=line, lambda_choice=lambda_choice))

    async def _arm(self, entry: _Entry) -> None:
        """Make a breakpoint's requests: watch for its classes, list the loaded ones and bind in them."""
        target = entry.target
        capabilities = self._symbols.capabilities.known
        if capabilities is None and not self._symbols.capabilities.version_known:
            capabilities = await self._symbols.capabilities.get()  # with the version: a round of its own
        # Before the capabilities are known, a file's request is made with a source-name filter anyway
        # (JDWP 1.6 has them; OpenJDK's back end implements them): a VM that refuses it gets class
        # patterns, at the cost of one more round, instead of every VM paying a round for the question.
        wanted = watches(target, capabilities.source_name_filters if capabilities else True)
        listing, refused = await self._watch_and_list(entry, wanted)
        if refused:  # the VM refused SourceNameMatch after all: class patterns
            self._symbols.capabilities.refuse_source_name_filters()
            listing, _ = await self._watch_and_list(entry, watches(target, False))
        await self._bind_listed(entry, listing)
        if entry.state == "pending":
            alike = (self._symbols.files.named_alike((ref for ref, _ in listing.classes), target.name)
                     if isinstance(target, FileTarget) else ())
            hint = near_miss(target, listing.names(), alike)
            if hint is not None:
                entry.reason = Reason(NEAR_MISS, hint)

    def _unbound(self, entry: _Entry) -> None:
        super()._unbound(entry)
        entry.reason = None
        entry.locations.clear()
        entry.at.clear()
        entry.classes_seen, entry.any_table = 0, False
        entry.choosing = LineChoice()
        self.passes.forget(entry.breakpoint_id)

    def _rearms(self, entry: _Entry, changed: bool, policy_before: int) -> bool:
        """Any change of options makes its requests anew: the line's choice of code indexes depends on the names
        they read, a hit's suspend policy on whether it is judged."""
        return changed

    def _forget(self, entry: _Entry) -> list[ClearRequest]:
        self.passes.forget(entry.breakpoint_id)
        return []

    async def _watch_and_list(self, entry: _Entry, wanted: list[Watch]) -> tuple[Listing, bool]:
        """Make the class-prepare requests of ``wanted`` that are not made yet, and list the prepared classes
        (``VirtualMachine.AllClasses`` (1,3), read as type IDs and signatures only), in one write — after
        ``CapabilitiesNew`` (1,17) while the capabilities are not known. The VM runs them in that order, so
        a class that loads meanwhile is listed or reported, never neither.

        Returns the listing, and whether the VM refused a source-name filter (nothing is recorded for it).

        Raises:
            JdwpError: the VM refused another request (those it made are recorded: cleared with the
                breakpoint), refused the listing, or did not answer.
        """
        fresh = [watch for watch in wanted if watch not in entry.watches and not self._share(entry, watch)]
        ask = self._symbols.capabilities.known is None
        requests: list[tuple[Command[Any, Any], Any]] = [(VirtualMachine.CapabilitiesNew, Empty())] if ask else []
        requests += [PrepareRequests.request(watch) for watch in fresh]
        requests.append((VirtualMachine.AllClasses, Empty()))
        answers = await self._vm.request_all(requests, raw=(len(requests) - 1,))
        if ask:
            self._symbols.capabilities.learn(answers[0])
        refused, failure = False, None
        for watch, answer in zip(fresh, answers[ask:-1], strict=True):
            if not isinstance(answer, CommandError):
                self._prepares.record(watch, answer.request_id)
                entry.watches.append(watch)
            elif refuses_filter(watch, answer):
                refused = True
            elif failure is None:
                failure = answer
        if failure is not None:
            raise failure
        if isinstance(answers[-1], CommandError):
            raise answers[-1]
        listing = Listing(prepared_classes(answers[-1], self._vm.id_sizes))
        self._symbols.classes.note_listing(listing.signatures)
        return listing, refused

    def _share(self, entry: _Entry, watch: Watch) -> bool:
        """Become one more user of a class-prepare request another breakpoint made already."""
        if not self._prepares.share(watch):
            return False
        entry.watches.append(watch)
        return True

    async def on_class_prepare(self, event: ClassPrepareEvent) -> list[Breakpoint]:
        """Bind waiting breakpoints in a class just loaded; return those whose status or locations changed.

        The class's facts (source, map, methods) come first, in one round; only when some breakpoint
        covers its code are its line tables read and requests set (two more rounds).
        """
        changed: list[Breakpoint] = []
        ref = event.type_id
        entries = [e for e in self._entries.values() if ref not in e.bound_types and e.live]
        if not entries or event.ref_type_tag == TypeTag.ARRAY:
            return changed
        name = self._names[ref] = binary_name_of(event.signature)
        await self._symbols.prefetch_classes([ref])
        later: list[Callable[[], Awaitable[Any]]] = []
        for entry in entries:  # a class target learns its source from its own class
            if isinstance(entry.target, ClassTarget) and name == entry.target.class_name:
                later += self._learn_source(entry, [ref])
        concerned = [e for e in entries if self._may_cover(e, ref)]
        if concerned:
            later.append(partial(self._symbols.lines.fetch, self._method_keys([ref])))
        if later:
            await gather(later)
        for entry in concerned:
            before = entry.progress()
            await self._bind(entry, [ref])
            if entry.progress() != before:
                changed.append(self._snapshot(entry))
        return changed

    # --- binding -----------------------------------------------------------------------------------

    async def _bind_listed(self, entry: _Entry, listing: Listing) -> None:
        """Bind in the listed classes that may be the target's, and in those that inlined its code.

        A class target: the class and those nested in it (``direct``: their facts come at once); ``scan``
        classes (the app's package root, for Kotlin) are asked only their map. Those that turn out to hold the
        target's code follow, one round behind. A file target: :meth:`_bind_file`.
        """
        target = entry.target
        if isinstance(target, FileTarget):
            await self._bind_file(entry, target, listing)
            return
        direct = listed_candidates(target, listing)
        for ref in direct:
            self._names[ref] = listing.name(ref)
        scan = self._scan(entry, listing, direct)
        await gather([partial(self._symbols.prefetch_classes, direct),
                      partial(self._symbols.files.fetch_maps, scan)])
        later = self._learn_source(entry, [ref for ref in direct if self._names[ref] == target.class_name])
        late = [] if scan else self._scan(entry, listing, direct)  # a class's language is known now
        hits = self._inline_users(entry, scan)
        for ref in hits:
            self._names.setdefault(ref, listing.name(ref))
        later += self._learn_source_from_maps(entry, hits)
        await gather([partial(self._symbols.lines.fetch, self._method_keys(direct)),
                      partial(self._symbols.prefetch_classes, hits),
                      partial(self._symbols.files.fetch_maps, late), *later])
        more = self._inline_users(entry, late)
        for ref in more:
            self._names.setdefault(ref, listing.name(ref))
        if more:
            later = self._learn_source_from_maps(entry, more)
            await gather([partial(self._symbols.prefetch_classes, more), *later])
        await self._symbols.lines.fetch(self._method_keys(hits + more))
        await self._bind(entry, list(dict.fromkeys(direct + hits + more)))

    async def _bind_file(self, entry: _Entry, target: FileTarget, listing: Listing) -> None:
        """Bind a file in every listed class that holds its code: its own classes and, for Kotlin, the classes
        that inlined its functions — in every package, the platform's and the libraries' too.

        1. The classes named after the file (``Foo``, its facade ``FooKt``, …: :func:`.synthetic.named_after`)
           get their facts; the other classes of their packages (a path: of the packages it names) their source
           file. With them, a sweep of the listing (:meth:`.targets.Listing.sweep`; a Kotlin file's skips the
           JDK): for Kotlin on a VM with maps, every class's map, whose header names the class's own file too;
           else, for a bare name, every top-level class's source file (a Java name only when no class named
           after it is loaded).
        2. A bare Kotlin name: the source files of the top-level classes that had no map (``@file:JvmName``
           facades, classes without inlined code). A nested class shares its top-level class's file.
        3. Facts of the classes found, with the line tables of the first ones; then theirs; then the requests.

        Every answer is cached for the session: the next file's sweep asks only classes loaded since.
        """
        candidates = listed_candidates(target, listing)
        for ref in candidates:
            self._names[ref] = listing.name(ref)
        direct = [ref for ref in candidates if named_after(self._names[ref], target.stem)]
        chosen = set(direct)
        probe = [ref for ref in candidates if ref not in chosen]
        capabilities = self._symbols.capabilities.known
        maps = target.kotlin and capabilities is not None and capabilities.source_debug_extension
        # A bare name is swept for in every package — but a Java file with a class named after it loaded: its
        # public class is that class, and a file's classes share its package, which ``probe`` covers.
        bare = not target.directories and (target.kotlin or not direct)
        sweep = listing.sweep(JDK_PACKAGES if target.kotlin else (), self._nesting) if maps or bare else None
        first = [partial(self._symbols.prefetch_classes, direct), partial(self._symbols.files.fetch_names, probe)]
        if sweep is not None:
            first.append(partial(self._symbols.files.fetch_maps if maps else self._symbols.files.fetch_names,
                                 sweep.refs if maps else sweep.top))
        await gather(first)
        if sweep is not None and maps and bare:
            await self._symbols.files.fetch_names([ref for ref in sweep.top if not self._symbols.files.has_map(ref)])
        found = [ref for ref in probe if self._symbols.files.known_name(ref) == target.name]
        if sweep is not None:
            found += self._swept(target, sweep, maps, bare)
        found = [ref for ref in dict.fromkeys(found) if ref not in chosen]
        for ref in found:
            self._names.setdefault(ref, listing.name(ref))
        await gather([partial(self._symbols.lines.fetch, self._method_keys(direct)),
                      partial(self._symbols.prefetch_classes, found)])
        await self._symbols.lines.fetch(self._method_keys(found))
        await self._bind(entry, direct + found)

    def _swept(self, target: FileTarget, sweep: Sweep, maps: bool, bare: bool) -> list[int]:
        """The swept classes that may hold the file's code (their facts are read before anything binds): for
        a bare name, those whose source file (asked, named by their map, or their top-level class's) is the
        file; for Kotlin, those whose map names it."""
        symbols = self._symbols
        name = target.name

        def source_of(ref: int) -> str | None:
            return symbols.files.known_name(ref) or symbols.files.output_file(ref)

        found = []
        for ref in sweep.refs:
            if maps and symbols.files.has_map(ref):  # a class's map names its own file too
                if symbols.files.map_mentions(ref, name):
                    found.append(ref)
            elif bare and (source_of(ref) == name or (ref in sweep.outer and source_of(sweep.outer[ref]) == name)):
                found.append(ref)
        return found

    def _scan(self, entry: _Entry, listing: Listing, direct: list[int]) -> list[int]:
        """The classes whose maps may hold inlined copies of a class target's Kotlin code: those in its package
        root (``com.example`` for ``com.example.app``), but for ``direct`` ones (their maps come with their
        facts). Empty for Java, and for a VM without maps. (A file target sweeps every package: _bind_file.)"""
        capabilities = self._symbols.capabilities.known
        if capabilities is None or not capabilities.source_debug_extension:
            return []
        target = entry.target
        if not isinstance(target, ClassTarget):
            return []
        if entry.inline_source is None and (entry.expected_source is not None or listing.has(target.class_name)
                                            or not target.class_name.endswith("Kt")):
            # Java, or not known yet (decided once the class's source is). A Kotlin file class
            # (``UtilsKt``) of inline functions may never load: only the maps of its users name it.
            return []
        roots = {package_root(package_of(target.class_name))}
        exclude = set(direct)
        return [ref for ref in listing.under(root + "." for root in roots if root) if ref not in exclude]

    def _inline_users(self, entry: _Entry, refs: Iterable[int]) -> list[int]:
        """The classes (maps cached) whose maps name the target's source."""
        return [ref for ref in refs if self._names_target(entry, self._symbols.files.known_map(ref))]

    @staticmethod
    def _names_target(entry: _Entry, smap: Smap | None) -> bool:
        if smap is None:
            return False
        target = entry.target
        if isinstance(target, FileTarget):
            return smap.mentions(target.name)
        return any(file.path is not None and is_nested_in(file.path.replace("/", "."), target.class_name)
                   and (entry.expected_source is None or file.name == entry.expected_source) for file in smap.files)

    def _learn_source(self, entry: _Entry, refs: list[int]) -> list[Callable[[], Awaitable[Any]]]:
        """Learn a class target's source file from the class it names. Returns the request to make with the
        next round: a watch for classes loaded later that inline that (Kotlin) source's functions (a class
        that loads in between is seen only if it is the target's own)."""
        if entry.expected_source is not None or not refs:
            return []
        entry.expected_source = self._symbols.files.known_name(refs[0])
        return self._source_watch(entry)

    def _learn_source_from_maps(self, entry: _Entry, refs: list[int]) -> list[Callable[[], Awaitable[Any]]]:
        """A class target that never loads (a Kotlin file of inline functions, ``UtilsKt``) has its source
        named in the maps of the classes that inlined it."""
        target = entry.target
        if not isinstance(target, ClassTarget) or entry.expected_source is not None:
            return []
        for ref in refs:
            smap = self._symbols.files.known_map(ref)
            for file in smap.files if smap is not None else ():
                if file.path is not None and is_nested_in(file.path.replace("/", "."), target.class_name):
                    entry.expected_source = file.name
                    return self._source_watch(entry)
        return []

    def _source_watch(self, entry: _Entry) -> list[Callable[[], Awaitable[Any]]]:
        capabilities = self._symbols.capabilities.known
        source = entry.inline_source
        if source is None or capabilities is None or not capabilities.source_name_filters:
            return []
        return [partial(self._try_watch, entry, source_watch(source))]

    def _may_cover(self, entry: _Entry, ref: int) -> bool:
        """Whether a class just loaded (facts cached) may hold the entry's code: its own, or inlined."""
        return self._is_targets_class(entry, ref) or bool(self._inline_users(entry, [ref]))

    def _method_keys(self, refs: Iterable[int]) -> list[tuple[int, int]]:
        return [(ref, method) for ref in refs for method in self._symbols.members.known_methods(ref)]

    def _name(self, ref: int) -> str | None:
        """A class's name as the listing or event that brought it named it (matching is by that name)."""
        if ref in self._names:
            return self._names[ref]
        signature = self._symbols.signatures.known(ref)
        return binary_name_of(signature) if signature else None

    async def _bind(self, entry: _Entry, types: list[int]) -> None:
        """Resolve a line breakpoint's locations in classes (``types``: facts and line tables cached) and set
        requests at every code index that is the line: the one place that does, for a class found when it is
        set, prepared later, or to be resolved again (a class it was bound in is skipped while it is in
        ``bound_types``; its requests are ``entry.at``'s, by location)."""
        targets: list[tuple[int, Location, CodeLine]] = []
        for type_id in types:
            if type_id in entry.bound_types:
                continue
            entry.bound_types.add(type_id)
            own = self._is_targets_class(entry, type_id)
            entry.classes_seen += own
            seen = own
            for method_id in self._symbols.members.known_methods(type_id):
                table = self._symbols.lines.known(type_id, method_id)
                if table is None:
                    continue
                # Only where the line is the one reported there (JDI's line locations: of several entries at
                # one code index the last): kotlinc's 232 among 225, 232, 225, 226, 225 at one index is not 232.
                for code_index, line_number in line_locations(table):
                    code = self._symbols.code_line(type_id, line_number, self._name(type_id))
                    if not of_target(entry.target, code, entry.expected_source):
                        continue
                    entry.any_table = True
                    if not seen:
                        entry.classes_seen += 1
                        seen = True
                    if covers(entry.target, code, entry.line, entry.expected_source):
                        location = Location(TypeTag.CLASS, ReferenceTypeId(type_id), MethodId(method_id),
                                            code_index)
                        targets.append((type_id, location, code))
        unique = list({t[1]: t for t in targets}.values())
        # Which of them the breakpoint keeps: its lambda choice, and the names its condition or message reads.
        chosen = await entry.choosing.choose(self._symbols, [(t, loc, code.source) for t, loc, code in unique],
                                             entry.line, entry.lambda_choice, entry.plan, self._name)
        unique = [t for t in unique if t[1] in chosen]
        if not unique:
            if not entry.locations and entry.classes_seen:
                entry.move("found_nothing")
                entry.reason = Reason(LOCATION_UNAVAILABLE, entry.choosing.why_none(entry.lambda_choice)
                                      or self._why_no_code(entry))
            return
        # The requests and the loaders not known yet (a location names its class's), in one write. A request
        # the VM made is recorded even when another failed: it is cleared with the breakpoint.
        unknown = [t for t in dict.fromkeys(type_id for type_id, _, _ in unique)
                   if self._symbols.classes.loader(t) is None]
        answers = await self._vm.request_all(
            [(EventRequest.Set, SetOut(int(EventKind.BREAKPOINT), int(entry.suspend_policy), [LocationOnly(loc)]))
             for _, loc, _ in unique]
            + [(ReferenceType.ClassLoader, RefTypeOut(ReferenceTypeId(t))) for t in unknown])
        made, loaders = answers[:len(unique)], answers[len(unique):]
        for (_, location, _), answer in zip(unique, made, strict=True):
            if not isinstance(answer, CommandError):
                self._made(entry, answer.request_id, EventKind.BREAKPOINT)
                entry.at[answer.request_id] = location
        for type_id, answer in zip(unknown, loaders, strict=True):
            if not isinstance(answer, CommandError):
                self._symbols.classes.note_loader(type_id, answer.class_loader)
        failure = next((answer for answer in answers if isinstance(answer, CommandError)), None)
        if failure is not None:
            raise failure
        for type_id, location, code in unique:
            position = self._symbols.position(location)
            loader = self._symbols.classes.loader(type_id)
            ordinal = chosen[location]
            entry.locations.append(BoundLocation(position.class_name, position.method, code.source, entry.line,
                                                 location.index, f"{loader:#x}", code.inlined,
                                                 truncated_names=position.truncated_names,
                                                 in_lambda=ordinal is not None, lambda_ordinal=ordinal))
        entry.move("bound")
        entry.reason = None

    def _is_targets_class(self, entry: _Entry, ref: int) -> bool:
        """Whether a class is the target's own (its name and source), whatever its line tables say."""
        name = self._name(ref)
        return name is not None and is_targets(entry.target, name, self._symbols.files.known_name(ref),
                                               package_of(name).replace(".", "/"), entry.expected_source)

    @staticmethod
    def _why_no_code(entry: _Entry) -> str:
        target = entry.target
        what = target.class_name if isinstance(target, ClassTarget) else target.text
        # Said of the classes loaded so far only: a nested class with code at the line often loads a moment
        # later (issue 23: rejected, then verified 40-120 ms after), so the reason must not sound final.
        armed = ("; it may still bind: it stays armed and watches classes that load later (one of that source "
                 "with code at the line, such as a nested, local or anonymous class, binds it)")

        def classes(count: int) -> str:
            return f"{count} class" if count == 1 else f"{count} classes"

        if not entry.any_table:
            return f"{what} has no line table in the classes loaded so far (compiled without -g?){armed}"
        if isinstance(target, ClassTarget):
            nested = entry.classes_seen - 1
            among = f" nor in the {classes(nested)} nested in it" if nested > 0 else ""
            return f"no code at line {entry.line} in {what}{among} loaded so far{armed}"
        return f"no code at line {entry.line} in the {classes(entry.classes_seen)} of {what} loaded so far{armed}"

    # --- class-prepare requests and breakpoint requests -------------------------------------------

    async def _try_watch(self, entry: _Entry, watch: Watch) -> bool:
        if watch in entry.watches:
            return True
        # Listed before the request: concurrent watches keep the order they were asked in,
        # whatever order trio resumes them in (a recording replays only one order of dependent requests).
        entry.watches.append(watch)
        made = await self._prepares.try_watch(watch)
        if not made:
            entry.watches.remove(watch)
        return made

