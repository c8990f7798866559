"""The three agent journeys of issue 24 (docs/design.md §5.8): a Kotlin crash, a Java wrong value, a Java
deadlock, each as the shortest sequence of MCP tool calls that finds its root cause.

Shared by ``bench/agent_journeys.py`` (repetitions, the table of docs/performance.md) and
``tests/server/test_agent_journeys.py`` (one run of each, in CI). The programs are in
``fixtures/journeys`` (compiled here with ``javac -g`` and Debian's ``kotlinc`` 1.3).

A journey is data: a list of calls ``{"tool", "arguments"}`` whose argument strings may name what an
earlier answer gave — ``$address`` (the JVM's agent), ``$session``, ``$stop``, ``$thread``, ``$frame``,
``$cursor`` (0 until a wait gave ``next_cursor``) — so that docs/agents.md can show the same calls as
JSON and the prompts can name them.
A call with ``"repeat": "until stopped"`` is played again (each time counted) until a ``stopped`` event
arrived: what an agent must do with a wait that can return other events first. :func:`play` drives
the calls through any connected ``mcp.Client``; each journey's ``found`` reads the root cause out of the
answers, or says what is missing.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import trio
from mcp import Client

from support.jvm import KOTLIN_STDLIB, LISTENING, Debuggee, compile_fixtures, compile_kotlin

REPO = Path(__file__).resolve().parents[2]
SOURCES = REPO / "fixtures" / "journeys"
#: How many times a ``repeat`` call may be played before the journey counts as failed.
MAX_REPEATS = 20
Call = dict[str, Any]


class JourneyFailed(RuntimeError):
    """A journey did not find its root cause (a failed call, a missing stop, values that do not show it)."""


def compile_programs(out_dir: Path, *, javac: str = "javac", kotlinc: str = "kotlinc") -> Path:
    """Compile the journeys' Java programs (``javac -g``) and the Kotlin one (``kotlinc``) into ``out_dir``."""
    compile_fixtures(out_dir, javac=javac, sources_dir=SOURCES)
    return compile_kotlin(out_dir, kotlinc=kotlinc, sources_dir=SOURCES)


def classpath(classes: Path) -> str:
    return f"{classes}{os.pathsep}{KOTLIN_STDLIB}"


def mark(name: str) -> tuple[str, int]:
    """The file name and line of the line of fixtures/journeys marked ``// MARK: name``."""
    pattern = re.compile(rf"//\s*MARK:\s*{re.escape(name)}\s*$")
    for path in sorted(SOURCES.rglob("*.*")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if pattern.search(line):
                return path.name, number
    raise LookupError(f"no line marked {name!r} in {SOURCES}")


# --- what the answers showed ------------------------------------------------------------------------

@dataclasses.dataclass
class Played:
    """One journey played: the calls made, the bytes of each answer, and the answers themselves."""

    journey: str
    calls: list[str] = dataclasses.field(default_factory=list)
    arguments: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    sizes: list[int] = dataclasses.field(default_factory=list)
    answers: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    found: str = ""

    @property
    def bytes(self) -> int:
        return sum(self.sizes)

    def stops(self) -> list[dict[str, Any]]:
        """Every stop the answers carried, in order (stopped events, a pause's or a run-to's ``stop``)."""
        found = []
        for answer in self.answers:
            for event in answer.get("events") or ():
                if event.get("kind") == "stopped":
                    found.append(event["stop"])
            result = answer.get("result")
            if isinstance(result, dict) and isinstance(result.get("stop"), dict):
                found.append(result["stop"])
        return found


class Context:
    """The ``$names`` of a journey, filled from each answer as it comes."""

    def __init__(self, address: str) -> None:
        self.values: dict[str, Any] = {"address": address, "cursor": 0}

    def learn(self, answer: dict[str, Any]) -> None:
        if answer.get("debug_session_id"):
            self.values["session"] = answer["debug_session_id"]
        if "next_cursor" in answer:
            self.values["cursor"] = answer["next_cursor"]
        stops = Played("", answers=[answer]).stops()
        result = answer.get("result")
        if stops:
            stop = stops[-1]
            self.values["stop"] = stop["stop_id"]
            if stop.get("thread_id"):
                self.values["thread"] = stop["thread_id"]
            frame = stop.get("frame_id") or next(iter(f.get("frame_id") for f in stop.get("frames") or ()), None)
            if frame:
                self.values["frame"] = frame
        elif isinstance(result, dict) and result.get("frames"):
            self.values["frame"] = result["frames"][0]["frame_id"]

    def fill(self, value: Any) -> Any:
        if isinstance(value, str) and value.startswith("$"):
            name = value[1:]
            if name not in self.values:
                raise JourneyFailed(f"{value} is not known yet (no earlier answer gave it)")
            return self.values[name]
        if isinstance(value, dict):
            return {key: self.fill(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self.fill(item) for item in value]
        return value


def answer_bytes(result: Any) -> int:
    """Bytes of the answer a model reads: the JSON text of the result's first content block."""
    return len(result.content[0].text.encode())


async def play(client: Client, name: str, calls: Sequence[Call], address: str) -> Played:
    """Make ``calls`` in order (each ``repeat`` call until a stop came); every call must succeed."""
    played = Played(name)
    context = Context(address)
    for call in calls:
        for _ in range(MAX_REPEATS):
            arguments = context.fill(copy.deepcopy(call.get("arguments", {})))
            result = await client.call_tool(call["tool"], arguments)
            body = json.loads(result.content[0].text)
            played.calls.append(call["tool"])
            played.arguments.append(arguments)
            played.sizes.append(answer_bytes(result))
            played.answers.append(body)
            if not body.get("success"):
                raise JourneyFailed(f"{name}: {call['tool']} failed: {body.get('error')}")
            context.learn(body)
            if call.get("repeat") != "until stopped" or Played("", answers=[body]).stops():
                break
        else:
            raise JourneyFailed(f"{name}: no stop after {MAX_REPEATS} calls of {call['tool']}")
    return played


def walk(value: Any) -> list[dict[str, Any]]:
    """Every object in ``value`` (nested), so that checks need not know where a tool put a field."""
    found: list[dict[str, Any]] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found.append(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def named_values(played: Played) -> dict[str, str]:
    """``name`` → ``value`` of every named value (locals) and ``expression`` → value text the answers show."""
    values: dict[str, str] = {}
    for arguments, answer in zip(played.arguments, played.answers, strict=True):
        result = answer.get("result")
        if isinstance(arguments.get("expression"), str) and isinstance(result, dict) and "value" in result:
            values[arguments["expression"]] = str(result["value"])  # one expression a call: its value
    for item in walk(played.answers):
        value = item.get("value")
        if isinstance(value, dict):
            value = value.get("value", value.get("preview"))
        if isinstance(item.get("name"), str) and value is not None:
            values[item["name"]] = str(value)
        if isinstance(item.get("expression"), str) and value is not None:
            values[item["expression"]] = str(value)
    return values


# --- the journeys -----------------------------------------------------------------------------------

#: Each journey's budget (issue 36): calls, and bytes of the answers' JSON text, attach and detach included.
#: A journey of this file is a row here and a function in :data:`JOURNEYS`; nothing else lists it.
BUDGETS: dict[str, tuple[int, int]] = {
    "crash": (3, 4_000),
    "wrong value": (3, 4_000),
    "freeze": (3, 4_000),
    # Two of this round's own, on programs of their own (fixtures/journeys), using its new inputs.
    "invoice": (4, 6_000),
    "restock": (4, 6_000),
}


@dataclasses.dataclass(frozen=True)
class Journey:
    """One misbehaving program, its calls, and what the answers must show."""

    name: str
    title: str
    main_class: str
    #: A line the program prints once the misbehaviour is there to be found.
    ready: str
    calls: list[Call]
    #: Reads the root cause out of the answers (a sentence), or raises :class:`JourneyFailed`.
    found: Callable[[Played], str]
    #: What tests/server/test_agent_journeys.py holds when the budget is not met yet (the figure measured when
    #: the journey last changed, with room for ids and names that vary), and ``blocked`` says why.
    held: tuple[int, int] | None = None
    blocked: str = ""
    #: The same journey with round 2's tools only (no capture, one expression a call, pause then threads);
    #: None while it is the same as ``calls``.
    baseline: list[Call] | None = None

    @property
    def goal_calls(self) -> int:
        return BUDGETS[self.name][0]

    @property
    def goal_bytes(self) -> int:
        return BUDGETS[self.name][1]

    @property
    def held_calls(self) -> int:
        return (self.held or BUDGETS[self.name])[0]

    @property
    def held_bytes(self) -> int:
        return (self.held or BUDGETS[self.name])[1]


def crash_found(played: Played) -> str:
    stop = next((s for s in played.stops() if s.get("reason") == "exception"), None)
    if stop is None:
        raise JourneyFailed("crash: no exception stop")
    exception = stop.get("exception") or {}
    if exception.get("type") != "java.lang.IllegalStateException" or "negative total" not in (
            exception.get("message") or ""):
        raise JourneyFailed(f"crash: stopped on {exception}")
    values = named_values(played)
    if not {"subtotal", "qty", "discount", "total"} <= values.keys():
        raise JourneyFailed(f"crash: the locals of applyVoucher are not in the answers ({sorted(values)})")
    if values["qty"] == "1" or int(values["discount"]) <= int(values["subtotal"]):
        raise JourneyFailed(f"crash: the values do not show the cause: {values}")
    return (f"{exception['message']}: the voucher's discount {values['discount']} is its value times qty "
            f"{values['qty']}, above the subtotal {values['subtotal']}")


def mean_found(played: Played) -> str:
    values = named_values(played)
    size = values.get("samples.size")
    if size is None:
        size = next((m.group(1) for m in (re.search(r"size=(\d+)", v) for v in values.values()) if m), None)
    if "counted" not in values or "total" not in values or size is None:
        raise JourneyFailed(f"wrong value: total, counted and the samples' size are not all in the answers "
                            f"({sorted(values)})")
    if values["counted"] == size:
        raise JourneyFailed(f"wrong value: counted equals the size ({size}): nothing shows the cause")
    return (f"mean = total {values['total']} / samples.size {size}, but only {values['counted']} samples "
            f"were counted (failed ones skipped)")


def freeze_found(played: Played) -> str:
    cycles = [item["deadlocks"] for item in walk(played.answers) if item.get("deadlocks")]
    if not cycles:
        raise JourneyFailed("freeze: no deadlock in the answers")
    text = json.dumps(cycles[-1])
    names = sorted(set(re.findall(r"teller-\d", text)))
    if names != ["teller-1", "teller-2"]:
        raise JourneyFailed(f"freeze: the deadlock does not name both tellers: {text[:400]}")
    return f"deadlock: {' and '.join(names)} each hold one Account and wait for the other's"


# The calls every journey shares.
SESSION = {"debugSessionId": "$session"}
STOP = {"debugSessionId": "$session", "stopId": "$stop"}
ATTACH = {"tool": "attach_debugger", "arguments": {"platform": "jvm", "address": "$address"}}
DETACH = {"tool": "detach_debugger", "arguments": SESSION}
#: One wait that returns at the stop (or after 30 s), however many other events come first.
UNTIL_STOPPED = {"tool": "wait_for_debugger_event", "arguments": {**SESSION, "until": "stopped", "timeoutMs": 30000}}
#: Round 2's wait: it returns at the first event, so an agent calls it again until a stop came.
POLL = {"tool": "wait_for_debugger_event", "arguments": {**SESSION, "afterSequence": "$cursor", "timeoutMs": 5000},
        "repeat": "until stopped"}
FRAME0 = [{"tool": "get_debugger_stack", "arguments": {**STOP, "threadId": "$thread", "limit": 1}},
          {"tool": "get_debugger_locals", "arguments": {**STOP, "frameId": "$frame"}}]
#: Why crash and wrong value take four calls on this server: their three-call form arms the breakpoint and
#: waits for its stop in the attach itself.


def attach_and_wait(breakpoint: dict[str, Any]) -> Call:
    """attach_debugger with one breakpoint (a line's, or an exception's) armed, answering its first stop."""
    return {"tool": "attach_debugger", "arguments": {"platform": "jvm", "address": "$address", "wait": True,
                                                     "timeoutMs": 30000, "breakpoints": [breakpoint]}}


def crash_journey() -> Journey:
    crash_class = {"exceptionClass": "java.lang.IllegalStateException"}
    return Journey(
        "crash", "Kotlin checkout crashes (IllegalStateException on a worker thread)",
        "com.example.shop.CheckoutKt", r"^Exception in thread \"checkout-",
        [attach_and_wait({**crash_class, "capture": {"locals": True}}),
         DETACH],
        crash_found,
        baseline=[ATTACH, {"tool": "set_debugger_exception_breakpoint", "arguments": {**SESSION, **crash_class}},
                  POLL, *FRAME0, DETACH])


def wrong_value_journey() -> Journey:
    mean_file, mean_line = mark("journeys-mean")
    mean_at = {"file": mean_file, "line": mean_line}
    return Journey(
        "wrong value", "Java latency mean too low (divides by every sample, sums only some)",
        "com.example.metrics.LatencyReport", r"^round \d+ mean latency",
        [attach_and_wait({**mean_at, "capture": {"locals": True, "expressions": ["samples.size"]}}),
         DETACH],
        mean_found,
        baseline=[ATTACH, {"tool": "set_debugger_breakpoint", "arguments": {**SESSION, **mean_at}}, POLL, *FRAME0,
                  {"tool": "evaluate_debugger_expression",
                   "arguments": {**STOP, "frameId": "$frame", "expression": "samples.size"}},
                  DETACH])


def freeze_journey() -> Journey:
    return Journey(
        "freeze", "Java bank balances freeze (two tellers, two accounts, opposite lock order)",
        "com.example.bank.Transfers", r"^stale$",
        [ATTACH, {"tool": "pause_debugger", "arguments": SESSION}, DETACH],
        freeze_found,
        baseline=[ATTACH, {"tool": "pause_debugger", "arguments": SESSION},
                  {"tool": "get_debugger_threads", "arguments": {**STOP, "stackDepth": 1}}, DETACH])


def invoice_found(played: Played) -> str:
    captured = _captured(played)
    lines = captured.get("lines.map { it.qty * it.unitCents }")
    summed = captured.get("lines.sumOf { it.qty * it.unitCents }")
    total = named_values(played).get("total")
    if not isinstance(lines, dict) or not isinstance(summed, dict) or total is None:
        raise JourneyFailed(f"invoice: the capture does not show the lines and their sum ({sorted(captured)})")
    amounts = [int(e["value"]) for e in lines.get("elements") or ()]
    if int(summed["value"]) != sum(amounts) or int(total) != sum(amounts[1:]) or amounts[0] == 0:
        raise JourneyFailed(f"invoice: total {total}, lines {amounts}: nothing shows the cause")
    return (f"total() returned {total} but the lines sum to {summed['value']}: it leaves out the first line "
            f"({amounts[0]} cents), its loop starts at index 1")


def restock_found(played: Played) -> str:
    holds = next((item for item in walk(played.answers) if item.get("view") == "map" and item.get("entries")), None)
    if holds is None:
        raise JourneyFailed("restock: the holds map's entries are not in the answers")
    negative = [e for e in holds["entries"] if e["value"].get("value", "0").lstrip("-").isdigit()
                and int(e["value"]["value"]) < 0]
    captured = _captured(played)
    low = [e.get("value") for e in (captured.get("low.map { it }") or {}).get("elements") or ()]
    short = [e.get("value") for e in (captured.get("w.onHand.filter { it.value < 5 }.keys") or {}).get("elements")
             or ()]
    if not negative or not short:
        raise JourneyFailed(f"restock: no negative hold, or no stock below the minimum: {holds['entries']}")
    sku = negative[0]["key"]["value"]
    if sku not in short or sku in low:
        raise JourneyFailed(f"restock: {sku} (hold {negative[0]['value']['value']}) is in {low} or not in {short}")
    return (f"the hold on {sku} is {negative[0]['value']['value']} (released twice): it counts as stock, so {sku}, "
            f"below the minimum on hand, is not in the reorder list {low}")


def _captured(played: Played) -> dict[str, Any]:
    """Each captured expression's value (a summary, or a list an operation made) by its text."""
    return {item["expression"]: item["value"] for item in walk(played.answers)
            if isinstance(item.get("expression"), str) and isinstance(item.get("value"), dict)}


def invoice_journey() -> Journey:
    """Issue 36's inputs: attach with a breakpoint and ``wait`` (the first stop and its capture in the attach's
    answer), collection operations in the capture."""
    invoice_file, invoice_line = mark("journeys-invoice")
    return Journey(
        "invoice", "Java invoice totals short by a varying amount (the first line is never added)",
        "com.example.billing.Invoices", r"^invoice \d+ total",
        [{"tool": "attach_debugger", "arguments": {
            "platform": "jvm", "address": "$address", "wait": True, "timeoutMs": 30000,
            "breakpoints": [{"file": invoice_file, "line": invoice_line, "capture": {
                "locals": True,
                "expressions": ["lines.map { it.qty * it.unitCents }",
                                "lines.sumOf { it.qty * it.unitCents }"]}}]}},
         DETACH],
        invoice_found)


def restock_journey() -> Journey:
    """Issue 36's inputs: attach and ``wait``, collection operations in the capture, an evaluation with
    ``depth``."""
    restock_file, restock_line = mark("journeys-restock")
    return Journey(
        "restock", "Kotlin restock never reorders a SKU that is out of stock (a hold released twice)",
        "com.example.stock.RestockKt", r"^round \d+ reorder",
        [{"tool": "attach_debugger", "arguments": {
            "platform": "jvm", "address": "$address", "wait": True, "timeoutMs": 30000,
            "breakpoints": [{"file": restock_file, "line": restock_line, "capture": {
                "expressions": ["low.map { it }", "w.onHand.filter { it.value < 5 }.keys"]}}]}},
         {"tool": "evaluate_debugger_expression",
          "arguments": {**SESSION, "stopId": "$stop", "expression": "w.holds", "depth": 1}},
         DETACH],
        restock_found)


#: Every journey, in the order the bench plays and the docs show them: one function each.
JOURNEYS: tuple[Callable[[], Journey], ...] = (crash_journey, wrong_value_journey, freeze_journey, invoice_journey,
                                               restock_journey)


def journeys() -> list[Journey]:
    """Every journey, each as the shortest call sequence the tools allow, and as round 2 played it."""
    return [make() for make in JOURNEYS]


# --- running them -----------------------------------------------------------------------------------

class Program:
    """A journey's program under the JDWP agent, once it printed the journey's ``ready`` line."""

    def __init__(self, classes: Path, journey: Journey, *, java: str = "java") -> None:
        self.debuggee = Debuggee(classpath(classes), journey.main_class, java=java)
        self._listened = len(self.debuggee.lines)  # up to the agent's first "Listening" line
        try:
            self.debuggee.wait_for_line(journey.ready, timeout=30)
        except BaseException:
            self.debuggee.stop()
            raise

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.debuggee.port}"

    def runs_on(self, journey: Journey) -> None:
        """After the detach the JVM's agent listens again for the next debugger, and the program goes on:
        the crash and wrong-value ones print more of their lines (the frozen bank cannot, and need not)."""
        after = len(self.debuggee.lines)
        self.debuggee.wait_for_line(LISTENING, after=self._listened, timeout=15)
        if journey.name != "freeze":
            self.debuggee.wait_for_line(journey.ready, after=after, timeout=15)

    def stop(self) -> None:
        self.debuggee.stop()


async def run_journey(client: Client, classes: Path, journey: Journey, *, java: str = "java",
                      calls: Sequence[Call] | None = None) -> Played:
    """Start the journey's program, play its calls (or ``calls``), check the root cause and that the
    program runs on after the detach; the program is stopped at the end."""
    program = await trio.to_thread.run_sync(lambda: Program(classes, journey, java=java))
    try:
        played = await play(client, journey.name, journey.calls if calls is None else calls, program.address)
        played.found = journey.found(played)
        await trio.to_thread.run_sync(lambda: program.runs_on(journey))
        return played
    finally:
        program.stop()


async def prompt_definition_bytes(client: Client) -> int:
    """Bytes of ``prompts/list``'s prompts (compact JSON, as a client would show them to choose one)."""
    listed = (await client.list_prompts()).prompts
    dumped = [p.model_dump(mode="json", by_alias=True, exclude_none=True) for p in listed]
    return len(json.dumps(dumped, ensure_ascii=False, separators=(",", ":")).encode())


def tool_definition_bytes(tools: Sequence[Any]) -> int:
    """Bytes of the tool definitions a model carries: compact JSON of name, description and inputSchema."""
    listed = [{"name": t.name, "description": t.description, "inputSchema": t.input_schema} for t in tools]
    return len(json.dumps(listed, ensure_ascii=False, separators=(",", ":")).encode())
