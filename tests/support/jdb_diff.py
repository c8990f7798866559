"""The differential test against jdb (docs/design.md §3.6, issue 23): the same breakpoints and step-overs in a real
program, through pyjdwp's engine and through ``jdb -attach``, and the lines each reports.

Used by ``tests/live/test_jdb_diff_live.py`` (a few cases) and ``bench/jdb_diff.py`` (a few dozen).

1. **Cases** (:func:`discover`): lines a real run hits, found with our own library: a breakpoint at a known
   entry line, then step-intos through the program, keeping the lines of the program's own top-level classes
   it stops on; of those, the lines whose breakpoint binds at exactly one code index (read from the classes'
   line tables through :meth:`Debugger.set_breakpoint`). jdb's ``stop at`` binds the first location of a line
   only (its ``BreakpointSpec``: "TO DO: handle multiple locations"); we bind them all, so a line of several
   locations is left out rather than compared on where the two choose to stop.
2. **Traces** (:func:`engine_trace`, :func:`jdb_trace`): a fresh JVM each; the cases in discovery order, one
   breakpoint armed at a time: set it, run to it, clear it, three step-overs, set the next, run on. Each stop
   is ``Class.method:line`` (``-1`` for a place without a line, as JDI says). Where jdb's own exclusions run
   the program to its end (a step over main's last line), our step lands unfiltered in ``Thread.exit`` and
   says so: that ends our trace as the program's end ends jdb's. jdb's step-overs follow IntelliJ's rule for
   Kotlin inline calls (:func:`_jdb_step_over`), which ours follow: jdb's own ``next`` stops in every inlined
   line. Both follow the same policy on a
   deterministic program, so a case one reaches and the other does not is a disagreement too.
3. **Values** (:func:`engine_values`, :func:`jdb_values`): a fresh JVM each; every case armed, and at each
   case's first hit frame 0's primitive and string variables (arguments and locals), through
   ``get_debugger_locals``' engine call and through jdb's ``locals``, as jdb prints them (``n = 5``,
   ``s = "text"``). Objects are left out: jdb shows them by its own IDs (``instance of Foo(id=123)``); a string
   our summary cut (past 256 units) or that spans lines is left out too.
"""

from __future__ import annotations

import dataclasses
import os
import queue
import re
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import trio

import jdwp
from jdwp.debugger import BreakpointVerified, Debugger, Stop, Stopped, Terminated, open_debugger
from jdwp.debugger.requests.library_steps import NO_LANDING_NOTE
from support.coroutines import compile_coroutines, coroutine_mark, coroutines_classpath
from support.jvm import REPO, Debuggee
from support.live import require_tool
from support.real_programs import GSON_MAIN, GUAVA, classpath, gson_classpath, gson_mark, kotlinc_debuggee, require_jar

STEPS = 3
EVENT_TIMEOUT = 90.0  # a step over a call that compiles a whole file is slow on a loaded machine
_JDB_STOP = re.compile(r"(Breakpoint hit|Step completed): \"thread=[^\"]*\", ([\w.$<>]+)\.([\w$<>]+)\(\), "
                       r"line=([-\d,]+) bci=\d+")
GUAVA_SOURCES = REPO / "fixtures" / "guava"  # compiled against guava.jar, apart from fixtures/java
_JDB_PROMPT = re.compile(r"[\w-]+\[\d+\] ")
_JDB_EXITED = re.compile(r"The application (exited|has been disconnected)")
# Attached to a suspended VM, jdb reports the agent's VMStart event and then prompts with the thread's name; its
# first bare ``> `` prompt races that event and may never be printed, so the start is the event, not the prompt.
_JDB_VM_STARTED = re.compile(r"VM Started:")


@dataclasses.dataclass(frozen=True, slots=True, order=True)
class Case:
    class_name: str
    line: int

    def __str__(self) -> str:
        return f"{self.class_name}:{self.line}"


#: Per case: the breakpoint's stop, then each step-over's stop, as ``Class.method:line``.
Trace = dict[Case, tuple[str, ...]]


def place(class_name: str, method: str, line: int | None) -> str:
    return f"{class_name}.{method}:{-1 if line is None else line}"


# --- through pyjdwp ------------------------------------------------------------------------------------

async def _next_stop(debugger: Debugger) -> Stop | None:
    """The next stop (a VM start is resumed), or ``None`` once the program has ended."""
    with trio.fail_after(EVENT_TIMEOUT):
        while True:
            event = await debugger.events.receive()
            if isinstance(event, Terminated):
                return None
            if isinstance(event, Stopped):
                if event.stop.reasons == ("vm_start",):
                    await debugger.resume(event.stop.stop_id)
                    continue
                return event.stop
            if not isinstance(event, BreakpointVerified):
                continue


def _where(stop: Stop) -> str:
    location = stop.location
    if location is None:
        return "?"
    return place(location.class_name, location.method, location.line)


async def discover(debuggee: Debuggee, entries: list[Case], prefix: str, *, walk: int, want: int) -> list[Case]:
    """About ``want`` cases, in the order the run reaches them: each entry line (reached in that order), and
    lines the run stops at in ``walk`` step-intos from each, of top-level classes named ``prefix…``, spread
    over the walks; only lines whose breakpoint binds at one code index, and one line a method."""
    methods: set[tuple[str, str]] = set()  # one case a method: a case's step-overs stay clear of the next's line
    async with jdwp.open_jdwp_tcp("127.0.0.1", debuggee.port) as vm, open_debugger(vm) as debugger:
        stop: Stop | None = None
        single: list[Case] = []
        for entry in entries:
            bp = await debugger.set_breakpoint(entry.class_name, entry.line)
            if stop is not None:
                await debugger.resume(stop.stop_id)
            stop = await _next_stop(debugger)
            if stop is None:  # the walk before went past it, and it runs once: the entries after it are later
                break
            await debugger.remove_breakpoint(bp.breakpoint_id)
            if await _binds_once(debugger, entry):  # its class is loaded now: all its locations are known
                single.append(entry)
            if stop.location is not None:
                methods.add((stop.location.class_name, stop.location.method))
            next_stop: Stop | None = stop
            for _ in range(walk):
                location = stop.location
                if (location is not None and location.line is not None and not location.inlined
                        and location.class_name.startswith(prefix) and "$" not in location.class_name
                        and (location.class_name, location.method) not in methods):
                    methods.add((location.class_name, location.method))
                    # Its binding is read now, while the program runs: a walk may reach the program's end.
                    case = Case(location.class_name, location.line)
                    if case not in entries and await _binds_once(debugger, case):
                        single.append(case)
                await debugger.step(stop.stop_id, stop.thread_id or "", "into")
                next_stop = await _next_stop(debugger)
                if next_stop is None:
                    break
                stop = next_stop
            if next_stop is None:
                break
        if debugger.current_stop is not None:
            await debugger.resume(debugger.current_stop.stop_id)
    walked = [case for case in single if case not in entries]
    stride = max(1, len(walked) // max(1, want - len(entries)))
    chosen = set(walked[::stride][:max(0, want - len(entries))])
    return [case for case in single if case in entries or case in chosen]


async def _binds_once(debugger: Debugger, case: Case) -> bool:
    """Whether the case's breakpoint binds at exactly one code index (set and removed again)."""
    bound = await debugger.set_breakpoint(case.class_name, case.line)
    await debugger.remove_breakpoint(bound.breakpoint_id)
    return bound.status == "verified" and len(bound.locations) == 1


async def engine_trace(debuggee: Debuggee, cases: list[Case]) -> Trace:
    """Each case's stop and step-overs through pyjdwp's engine (every case armed from the start)."""
    trace: Trace = {}
    async with jdwp.open_jdwp_tcp("127.0.0.1", debuggee.port) as vm, open_debugger(vm) as debugger:
        owners = {(await debugger.set_breakpoint(c.class_name, c.line)).breakpoint_id: c for c in cases}
        stop = await _next_stop(debugger)
        while stop is not None and owners:
            spent = [bp for bp in stop.breakpoint_ids if bp in owners]
            for bp in spent:  # a case is recorded once: its breakpoint goes at its first hit
                await debugger.remove_breakpoint(bp)
            hit = [owners.pop(bp) for bp in spent]
            if not hit:
                await debugger.resume(stop.stop_id)
                stop = await _next_stop(debugger)
                continue
            places = [_where(stop)]
            for _ in range(STEPS):
                await debugger.step(stop.stop_id, stop.thread_id or "", "over")
                stop = await _next_stop(debugger)
                if stop is not None and stop.note == NO_LANDING_NOTE:
                    # Out of main: jdb's default exclusions run the program to its end, our step lands unfiltered
                    # and says so (docs/tools.md, step_debugger). The same end of the trace, by design.
                    await debugger.resume(stop.stop_id)
                    stop = None
                if stop is None:
                    break
                places.append(_where(stop))
                for bp in stop.breakpoint_ids:  # another case reached by the steps is spent too (as in jdb)
                    if owners.pop(bp, None) is not None:
                        await debugger.remove_breakpoint(bp)
            trace[hit[0]] = tuple(places)
            if stop is not None:
                await debugger.resume(stop.stop_id)
                stop = await _next_stop(debugger) if owners else None
        if debugger.current_stop is not None:
            await debugger.resume(debugger.current_stop.stop_id)
    return trace


# --- through jdb ---------------------------------------------------------------------------------------

class Jdb:
    """``jdb -attach`` driven through a pipe: commands in, its output read by a thread and matched by pattern."""

    def __init__(self, jdb: str, port: int) -> None:
        self.process = subprocess.Popen([jdb, "-attach", f"127.0.0.1:{port}"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self._chunks: queue.Queue[str | None] = queue.Queue()
        self.text = ""
        self._reader = threading.Thread(target=self._read, name="jdb-stdout", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        while chunk := os.read(self.process.stdout.fileno(), 65536):  # prompts end without a newline
            self._chunks.put(chunk.decode("utf-8", "replace"))
        self._chunks.put(None)

    def send(self, command: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(command.encode() + b"\n")
        self.process.stdin.flush()

    def until(self, *patterns: re.Pattern[str], timeout: float = EVENT_TIMEOUT) -> re.Match[str]:
        """The first match of any pattern in what jdb printed since the last match; that text is consumed."""
        deadline = time.monotonic() + timeout
        while True:
            found = [m for m in (p.search(self.text) for p in patterns) if m is not None]
            if found:
                first = min(found, key=lambda m: m.start())
                self.text = self.text[first.end():]
                return first
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"jdb printed none of {[p.pattern for p in patterns]}: {self.text[-600:]!r}")
            try:
                chunk = self._chunks.get(timeout=remaining)
            except queue.Empty:
                continue
            if chunk is None:
                raise EOFError(f"jdb ended: {self.text[-600:]!r}")
            self.text += chunk

    def stop(self) -> tuple[str, list[tuple[str, int]]] | None:
        """The next stop: its place and the breakpoints it hit (class, line), or ``None`` once the program ended.

        jdb prints a line per event of a set (a step that ends at a breakpoint: "Breakpoint hit" and "Step
        completed") and then its prompt (``main[1] ``): all the lines before the prompt are one stop.
        """
        first = self.until(_JDB_STOP, _JDB_EXITED)
        if first.re is _JDB_EXITED:
            return None
        prompt = self.until(_JDB_PROMPT)
        events = [first, *_JDB_STOP.finditer(prompt.string[:prompt.start()])]
        hits = [(m[2], int(m[4].replace(",", ""))) for m in events if m[1] == "Breakpoint hit"]
        return _jdb_place(first), hits

    def close(self) -> None:
        if self.process.poll() is None:
            try:
                self.send("exit")
                self.process.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait(timeout=10)
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None:
                pipe.close()


def _jdb_place(match: re.Match[str]) -> str:
    return place(match[2], match[3], int(match[4].replace(",", "")))


def _armed_jdb(jdb_path: str, debuggee: Debuggee, cases: list[Case], *,
               exclude_none: bool = False) -> tuple[Jdb, dict[tuple[str, int], Case]]:
    """``jdb -attach`` to a suspended VM, a breakpoint at every case, the VM let go; with the cases by place.
    ``exclude_none``: jdb's ``exclude none`` first (its default exclusions, ``com.sun.*`` among them, would run a
    step over inside javac to javac's end). Closed on failure; the caller closes it otherwise."""
    jdb = Jdb(jdb_path, debuggee.port)
    try:
        jdb.until(_JDB_VM_STARTED)
        jdb.until(_JDB_PROMPT)
        if exclude_none:
            jdb.send("exclude none")
            jdb.until(_JDB_PROMPT)
        for case in cases:
            jdb.send(f"stop at {case.class_name}:{case.line}")
        jdb.send("cont")
    except BaseException:
        jdb.close()
        raise
    return jdb, {(c.class_name, c.line): c for c in cases}


def jdb_trace(jdb_path: str, debuggee: Debuggee, cases: list[Case], *, exclude_none: bool = False) -> Trace:
    """Each case's stop and step-overs through ``jdb -attach`` (blocking; run it in a thread), by the policy of
    :func:`engine_trace` (``exclude_none``: :func:`_armed_jdb`'s)."""
    trace: Trace = {}
    jdb, armed = _armed_jdb(jdb_path, debuggee, cases, exclude_none=exclude_none)
    try:
        while armed:
            stop = jdb.stop()
            if stop is None:
                break
            where, hits = stop
            hit = [armed.pop(key) for key in hits if key in armed]
            for case in hit:
                jdb.send(f"clear {case.class_name}:{case.line}")
            if not hit:
                jdb.send("cont")
                continue
            places = [where]
            ended = False
            for _ in range(STEPS):
                step = _jdb_step_over(jdb, where)
                if step is None:
                    ended = True
                    break
                where, spent_keys = step
                places.append(where)
                for key in spent_keys:
                    spent = armed.pop(key, None)
                    if spent is not None:
                        jdb.send(f"clear {spent.class_name}:{spent.line}")
            trace[hit[0]] = tuple(places)
            if ended:
                break
            jdb.send("cont")
    finally:
        jdb.close()
    return trace


def _jdb_step_over(jdb: Jdb, start: str) -> tuple[str, list[tuple[str, int]]] | None:
    """One step over from ``start`` (``Class.method:line``) by IntelliJ's rule for Kotlin inline calls, on jdb's
    ``next``s: a landing in the same method whose source file is not the one the step began in (an inline
    function's body, ``_Sequences.kt`` 332 in kotlinc's ``findMainClass``), or back on the line it began on
    after one, is the call's: ``next`` again. Returns the landing and the breakpoints hit on the way, or
    ``None`` once the program ended."""
    method, _, line = start.rpartition(":")
    source = _jdb_top(jdb)[0]
    hits: list[tuple[str, int]] = []
    walked = False
    for _ in range(MAX_JDB_NEXTS):
        jdb.send("next")
        step = jdb.stop()
        if step is None:
            return None
        where, step_hits = step
        hits += step_hits
        here, _, here_line = where.rpartition(":")
        if here == method and (_jdb_top(jdb)[0] != source or (walked and here_line == line)):
            walked = True
            continue
        return where, hits
    return where, hits


def _jdb_top(jdb: Jdb) -> tuple[str, int]:
    """Frame 0's source file and line, by jdb's ``where`` (``[1] com.x.Foo.bar (Foo.kt:12)``; -1: no line)."""
    jdb.send("where")
    top = jdb.until(_JDB_TOP_FRAME)
    jdb.until(_JDB_PROMPT)
    source, _, number = top[1].rpartition(":")
    number = number.replace(",", "")
    return (source, int(number)) if number.isdigit() else (top[1], -1)


# --- values at the cases' stops ----------------------------------------------------------------------------

#: Per case: frame 0's primitive and string variables at its first hit, ``name -> text`` as jdb prints them.
ValueTrace = dict[Case, dict[str, str]]
_JDB_VARIABLE = re.compile(r"^(\w+) = (.*)$")
# A prompt at a line's start: inside ``locals``' output an array's type looks like one (``char[1024] ``).
_JDB_LINE_PROMPT = re.compile(r"\n[\w-]+\[\d+\] ")


def _comparable(kind: str, value: str | None, truncated: bool) -> str | None:
    """A variable's text as jdb's ``locals`` prints it, or ``None`` when it is not compared."""
    if kind == "primitive" and value is not None:
        return value
    if kind == "null":
        return "null"
    if kind == "string" and value is not None and not truncated and "\n" not in value and "\r" not in value:
        return f'"{value}"'
    return None


async def engine_values(debuggee: Debuggee, cases: list[Case]) -> ValueTrace:
    """Each case's variables at its first hit, through pyjdwp's engine (every case armed from the start)."""
    found: ValueTrace = {}
    async with jdwp.open_jdwp_tcp("127.0.0.1", debuggee.port) as vm, open_debugger(vm) as debugger:
        owners = {(await debugger.set_breakpoint(c.class_name, c.line)).breakpoint_id: c for c in cases}
        stop = await _next_stop(debugger)
        while stop is not None:
            for bp in [bp for bp in stop.breakpoint_ids if bp in owners]:
                await debugger.remove_breakpoint(bp)
                case = owners.pop(bp)
                if case not in found and stop.frame_id is not None:
                    listed = await debugger.locals(stop.stop_id, stop.frame_id)
                    found[case] = {local.name: text for local in listed.locals
                                   if local.name != "this" and (text := _comparable(
                                       local.kind, local.value, local.truncated)) is not None}
            await debugger.resume(stop.stop_id)
            stop = await _next_stop(debugger) if owners else None
        if debugger.current_stop is not None:
            await debugger.resume(debugger.current_stop.stop_id)
    return found


def jdb_values(jdb_path: str, debuggee: Debuggee, cases: list[Case], compared: ValueTrace) -> ValueTrace:
    """Each case's variables at its first hit through ``jdb -attach`` (blocking): jdb's ``locals``, the names
    :func:`engine_values` compared (``compared``) kept, so that objects (by jdb's IDs) are left out alike."""
    found: ValueTrace = {}
    jdb, armed = _armed_jdb(jdb_path, debuggee, cases)
    try:
        while armed:
            stop = jdb.stop()
            if stop is None:
                break
            for key in stop[1]:
                case = armed.pop(key, None)
                if case is None:
                    continue
                jdb.send(f"clear {case.class_name}:{case.line}")
                jdb.send("locals")
                jdb.until(re.compile(r"(Method arguments|Local variable information not available|No local variables)"))
                prompt = jdb.until(_JDB_LINE_PROMPT)
                printed = dict(m.groups() for line in prompt.string[:prompt.start()].splitlines()
                               if (m := _JDB_VARIABLE.match(line.strip())) is not None)
                wanted = compared.get(case, {})
                found[case] = {name: text for name, text in printed.items() if name in wanted}
            jdb.send("cont")
    finally:
        jdb.close()
    return found


@dataclasses.dataclass(frozen=True, slots=True)
class ValueOutcome:
    cases: list[Case]
    engine: ValueTrace
    jdb: ValueTrace

    @property
    def compared(self) -> list[Case]:
        """Cases both reached that have a variable to compare."""
        return [c for c in self.cases if self.engine.get(c) and c in self.jdb]

    @property
    def differing(self) -> list[Case]:
        return [c for c in self.compared if self.engine[c] != self.jdb[c]]

    @property
    def variables(self) -> int:
        return sum(len(self.engine[c]) for c in self.compared)

    def report(self) -> str:
        lines = [f"{len(self.compared) - len(self.differing)}/{len(self.compared)} stops agree on "
                 f"{self.variables} variables"]
        for case in self.differing:
            lines.append(f"  {case}: pyjdwp {self.engine.get(case)} jdb {self.jdb.get(case)}")
        return "\n".join(lines)


def _on_fresh_jvms(start: Callable[[], Debuggee], ours: Callable[[Debuggee], Any],
                   theirs: Callable[[Debuggee, Any], Any]) -> tuple[Any, Any]:
    """``ours`` (through the engine), then ``theirs`` (through jdb, handed what ours found), each on a fresh
    JVM from ``start``."""
    debuggee = start()
    try:
        engine = ours(debuggee)
    finally:
        debuggee.stop()
    debuggee = start()
    try:
        return engine, theirs(debuggee, engine)
    finally:
        debuggee.stop()


def compare_values(start: Callable[[], Debuggee], jdb_path: str, cases: list[Case]) -> ValueOutcome:
    """Both value traces of ``cases``, each on a fresh JVM from ``start``."""
    engine, other = _on_fresh_jvms(start, lambda debuggee: trio.run(engine_values, debuggee, cases),
                                   lambda debuggee, found: jdb_values(jdb_path, debuggee, cases, found))
    return ValueOutcome(cases, engine, other)


# --- Kotlin inline library calls: a step over against IntelliJ's rule, applied to jdb's landings ------------------

#: jdb's ``where``: frame 1's class and method, and its place (``[1] com.x.Pipeline.process (Mutex.kt:107)``).
_JDB_TOP_FRAME = re.compile(r"\[1\] [\w.$<>]+ \(([^()]*)\)")
_JDB_RUNNING_PROMPT = re.compile(r"^> ", re.MULTILINE)
MAX_JDB_NEXTS = 40  # jdb's `next`s through one statement's inlined calls


@dataclasses.dataclass(frozen=True, slots=True, order=True)
class InlineProbe:
    """A statement of the user's file that calls a Kotlin inline function of a library: its class, source file,
    first line (the call's) and last line (the lambda's closing brace)."""

    class_name: str
    source: str
    first: int
    last: int

    def __str__(self) -> str:
        return f"{self.source}:{self.first}"

    def lands_at(self, source: str, line: int) -> bool:
        """IntelliJ's rule for a step over the statement: the first landing on a line of the user's file outside
        the statement (the inlined library lines, ``Mutex.kt`` 107…, and the lambda's lines are the call's)."""
        return source == self.source and not self.first <= line <= self.last


#: Per probe: where one step over the statement lands (``Source.kt:line``), or ``None`` (never reached).
InlineTrace = dict[InlineProbe, str | None]


async def engine_inline_trace(debuggee: Debuggee, probes: list[InlineProbe], command: str) -> InlineTrace:
    """Each probe's first hit and one step over (default filters) through pyjdwp's engine; ``command`` (sent to
    the program's stdin) runs the code."""
    trace: InlineTrace = {}
    async with jdwp.open_jdwp_tcp("127.0.0.1", debuggee.port) as vm, open_debugger(vm) as debugger:
        owners = {(await debugger.set_breakpoint(file=p.source, line=p.first)).breakpoint_id: p for p in probes}
        debuggee.send(command)
        while owners:
            stop = await _next_stop(debugger)
            if stop is None:
                break
            hit = [owners.pop(bp) for bp in stop.breakpoint_ids if bp in owners]
            for bp in stop.breakpoint_ids:
                await debugger.remove_breakpoint(bp)
            if hit:
                await debugger.step(stop.stop_id, stop.thread_id or "", "over")
                landed = await _next_stop(debugger)
                if landed is None:
                    break
                where = landed.location
                trace[hit[0]] = None if where is None else f"{where.source}:{where.line}"
                stop = landed
            await debugger.resume(stop.stop_id)
    return trace


def jdb_inline_trace(jdb_path: str, debuggee: Debuggee, probes: list[InlineProbe], command: str) -> InlineTrace:
    """Each probe's first hit through ``jdb -attach`` (``exclude none``), then ``next`` until a landing that
    IntelliJ's rule keeps (:meth:`InlineProbe.lands_at`; each landing's source read with ``where``)."""
    trace: InlineTrace = {}
    jdb = Jdb(jdb_path, debuggee.port)
    try:
        jdb.until(_JDB_RUNNING_PROMPT)  # attached to a running VM: no thread is current
        jdb.send("exclude none")
        jdb.until(_JDB_RUNNING_PROMPT)
        armed = {(p.class_name, p.first): p for p in probes}
        for probe in probes:
            jdb.send(f"stop at {probe.class_name}:{probe.first}")
        debuggee.send(command)
        while armed:
            stop = jdb.stop()
            if stop is None:
                break
            hit = [armed.pop(key) for key in stop[1] if key in armed]
            for probe in hit:
                jdb.send(f"clear {probe.class_name}:{probe.first}")
            if hit:
                trace[hit[0]] = _jdb_next_landing(jdb, hit[0])
            jdb.send("cont")
    finally:
        jdb.close()
    return trace


def _jdb_next_landing(jdb: Jdb, probe: InlineProbe) -> str | None:
    for _ in range(MAX_JDB_NEXTS):
        jdb.send("next")
        if jdb.stop() is None:
            return None
        source, line = _jdb_top(jdb)
        if probe.lands_at(source, line):
            return f"{source}:{line}"
    return None


def compare_inline(start: Callable[[], Debuggee], jdb_path: str, probes: list[InlineProbe],
                   command: str) -> Outcome:
    """Both inline traces of ``probes``, each on a fresh JVM from ``start`` (which has printed ``ready``)."""
    engine, other = _on_fresh_jvms(start, lambda debuggee: trio.run(engine_inline_trace, debuggee, probes, command),
                                   lambda debuggee, _: jdb_inline_trace(jdb_path, debuggee, probes, command))
    return Outcome(probes, engine, other)


PIPELINE = "com.example.ktpipeline.Pipeline"
#: Pipeline.kt's statements that call kotlinx-coroutines' inline functions: ``mutex.withLock { … }`` and
#: ``select<String> { … }`` (fixtures/coroutines).
PIPELINE_PROBES = [
    InlineProbe(PIPELINE, "Pipeline.kt", coroutine_mark("kp-with-lock"), coroutine_mark("kp-lock-print") + 1),
    InlineProbe(PIPELINE, "Pipeline.kt", coroutine_mark("kp-select"), coroutine_mark("kp-select") + 3)]


def pipeline_start(work: Path) -> Callable[[], Debuggee]:
    """Compiles fixtures/coroutines into ``work``; starts the pipeline (it waits for ``run`` on stdin)."""
    classes = work / "pipeline-classes"
    classes.mkdir(exist_ok=True)
    compile_coroutines(classes, kotlinc=require_tool("kotlinc"))

    def start() -> Debuggee:
        debuggee = Debuggee(coroutines_classpath(classes), "com.example.ktpipeline.PipelineKt",
                            java=require_tool("java"))
        debuggee.wait_for_line("^ready$", timeout=30)
        return debuggee

    return start


# --- both ------------------------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True, slots=True)
class Outcome:
    """Both traces of the cases (:class:`Case`, or :class:`InlineProbe` with :data:`InlineTrace`)."""

    cases: list[Any]
    engine: dict[Any, Any]
    jdb: dict[Any, Any]

    @property
    def agreed(self) -> list[Case]:
        return [c for c in self.cases if c in self.engine and self.engine.get(c) == self.jdb.get(c)]

    @property
    def differing(self) -> list[Case]:
        return [c for c in self.cases if self.engine.get(c) != self.jdb.get(c)]

    @property
    def compared(self) -> list[Case]:
        """Cases either tool reached (a case neither reached says nothing of lines)."""
        return [c for c in self.cases if c in self.engine or c in self.jdb]

    def report(self) -> str:
        lines = [f"{len(self.agreed)}/{len(self.compared)} agree"]
        for case in self.differing:
            lines.append(f"  {case}: pyjdwp {self.engine.get(case)} jdb {self.jdb.get(case)}")
        return "\n".join(lines)


def compare(start: Callable[[], Debuggee], jdb_path: str, cases: list[Case], *,
            exclude_none: bool = False) -> Outcome:
    """Both traces of ``cases``, each on a fresh JVM from ``start`` (``exclude_none``: :func:`jdb_trace`'s)."""
    engine, other = _on_fresh_jvms(start, lambda debuggee: trio.run(engine_trace, debuggee, cases),
                                   lambda debuggee, _: jdb_trace(jdb_path, debuggee, cases,
                                                                 exclude_none=exclude_none))
    return Outcome(cases, engine, other)


def discover_cases(start: Callable[[], Debuggee], entries: list[Case], prefix: str, *, walk: int,
                   want: int) -> list[Case]:
    """:func:`discover` on a fresh JVM from ``start``."""
    debuggee = start()
    try:
        found: list[Case] = trio.run(_discover, debuggee, entries, prefix, walk, want)
    finally:
        debuggee.stop()
    return found


async def _discover(debuggee: Debuggee, entries: list[Case], prefix: str, walk: int, want: int) -> Any:
    return await discover(debuggee, entries, prefix, walk=walk, want=want)



# --- the real programs -------------------------------------------------------------------------------------

KOTLINC = "org.jetbrains.kotlin.cli.jvm"
#: Lines kotlinc runs, in that order, compiling a small file: doExecute's call of configureExplicitContentRoots
#: (a step into it is issue 23's ``line: null``), its call of compileBunchOfSources, findMainClass's
#: index 16 (five entries there: 225, 232, 225, 226, 225).
KOTLINC_ENTRIES = [Case(f"{KOTLINC}.K2JVMCompiler", 89), Case(f"{KOTLINC}.K2JVMCompiler", 180),
                   Case(f"{KOTLINC}.compiler.KotlinToJVMBytecodeCompiler", 225)]
GUAVA_MAIN = "com.example.guava.GuavaMain"
#: GuavaMain's lines that call Guava (fixtures/guava), in the order they run.
GUAVA_ENTRIES = [Case(GUAVA_MAIN, 18), Case(GUAVA_MAIN, 19), Case(GUAVA_MAIN, 20), Case(GUAVA_MAIN, 22)]
KOTLIN_SOURCE = """fun main(args: Array<String>) {
    val xs = listOf(1, 2, 3)
    println(xs.map { it * 2 }.sum())
}
"""


JAVAC = "com.sun.tools.javac"
#: Lines javac 17 runs, in that order, compiling fixtures/javac (the first line of JavaCompiler.compile,
#: JavaTokenizer.readToken, Attr.visitMethodDef, TransPatterns.visitTypeTest, LambdaToMethod.visitLambda,
#: Lower.visitClassDef, Gen.genMethod): all in ``com.sun.*``, which our step filters exclude.
#: GsonMain's lines that call Gson (fixtures/gson), in the order they run: a record graph read into maps, lists
#: and BigDecimal; an object written; one read back.
GSON_ENTRIES = [Case(GSON_MAIN, gson_mark(mark)) for mark in ("gson-read", "gson-write", "gson-read-back")]
#: Lines of Gson 2.10's JsonReader (Debian's gson.jar, compiled with variable tables) where frame 0 holds
#: primitives and a string: ``peekNumber``'s end (``p``, ``l``, ``value``, ``negative``, ``fitsInLong``,
#: ``last``, ``i``) and ``nextName``'s (``p`` and the name read, ``result``).
GSON_VALUE_CASES = [Case("com.google.gson.stream.JsonReader", 740), Case("com.google.gson.stream.JsonReader", 801)]
JAVAC_ENTRIES = [Case(f"{JAVAC}.main.JavaCompiler", 882), Case(f"{JAVAC}.parser.JavaTokenizer", 784),
                 Case(f"{JAVAC}.comp.Attr", 991), Case(f"{JAVAC}.comp.TransPatterns", 187),
                 Case(f"{JAVAC}.comp.LambdaToMethod", 337), Case(f"{JAVAC}.comp.Lower", 2158),
                 Case(f"{JAVAC}.jvm.Gen", 943)]
JAVAC_SOURCES = REPO / "fixtures" / "javac"  # Java 17 for javac to compile: records, sealed types, lambdas


def javac_start(work: Path) -> Callable[[], Debuggee]:
    """Starts javac (``com.sun.tools.javac.Main`` of the JDK's jdk.compiler; suspended, under the agent)
    compiling fixtures/javac into ``work``."""
    out = work / "javac-out"
    out.mkdir(exist_ok=True)
    sources = tuple(sorted(str(p) for p in JAVAC_SOURCES.rglob("*.java")))
    return lambda: Debuggee(work, f"{JAVAC}.Main", suspend=True, java=require_tool("java"),
                            args=("-d", str(out), *sources))


def kotlinc_start(work: Path) -> Callable[[], Debuggee]:
    """Starts kotlinc (suspended, under the agent) compiling a small file in ``work``."""
    source = work / "Hello.kt"
    source.write_text(KOTLIN_SOURCE, encoding="utf-8")
    return lambda: kotlinc_debuggee([source], work / "kotlinc-out")


def guava_start(work: Path) -> Callable[[], Debuggee]:
    """Compiles fixtures/guava against Debian's guava.jar into ``work``; starts GuavaMain (suspended)."""
    guava = require_jar(GUAVA)
    classes = work / "guava-classes"
    classes.mkdir(exist_ok=True)
    sources = sorted(str(p) for p in GUAVA_SOURCES.rglob("*.java"))
    subprocess.run([require_tool("javac"), "-g", "-cp", str(guava), "-d", str(classes), *sources], check=True,
                   capture_output=True, text=True)
    return lambda: Debuggee(classpath(classes, guava), GUAVA_MAIN, suspend=True, java=require_tool("java"))


def gson_start(work: Path) -> Callable[[], Debuggee]:
    """Compiles fixtures/gson against Debian's gson.jar (and guava.jar) into ``work``; starts GsonMain
    (suspended)."""
    path = gson_classpath(work)
    return lambda: Debuggee(path, GSON_MAIN, suspend=True, java=require_tool("java"))
