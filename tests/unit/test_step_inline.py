"""A step's landings in Kotlin inline calls (``Steps.step_over_inlined``), on Pipeline.kt's ``process`` as kotlinc
1.3.31 wrote it: line 22 ``mutex.withLock {`` (code indexes 97…), Mutex.kt 107… inlined at raw lines 74…80
(``$i$f$withLock`` from index 109), the user's lambda at 206…250 (``$i$a$-withLock-…``), line 26 after the call."""

from __future__ import annotations

from typing import Any, cast

import pytest

from jdwp.client import JdwpClient
from jdwp.debugger.classes.symbols import Symbols
from jdwp.debugger.requests.library_steps import InlineOrigin, StepInFlight
from jdwp.debugger.requests.steps import Steps
from jdwp.protocol.commands.reftypes import VariableSlot
from jdwp.protocol.constants import StepDepth
from jdwp.protocol.types import Location, MethodId, ReferenceTypeId, ThreadId

WITH_LOCK = VariableSlot(109, "$i$f$withLock", "I", 173, 6)
LAMBDA = VariableSlot(206, "$i$a$-withLock-Pipeline$process$2", "I", 45, 8)
MUTEX_KT = "kotlinx.coroutines.sync.MutexKt"
PIPELINE = "com.example.ktpipeline.Pipeline"
#: Per code index: its raw line, the markers live there, whether inlined, and the source's class.
PLACES: dict[int, tuple[int, list[VariableSlot], bool, str]] = {
    97: (22, [], False, PIPELINE), 103: (74, [], True, MUTEX_KT), 109: (75, [WITH_LOCK], True, MUTEX_KT),
    206: (23, [WITH_LOCK, LAMBDA], False, PIPELINE), 256: (79, [WITH_LOCK], True, MUTEX_KT),
    271: (22, [], False, PIPELINE), 282: (26, [], False, PIPELINE)}


def stepping(kind: str, monkeypatch: pytest.MonkeyPatch, start: int = 97) -> tuple[Steps, StepInFlight, list[Any]]:
    client = cast(JdwpClient, object())
    steps = Steps(client, Symbols(client))
    armed: list[Any] = []

    async def place(location: Location) -> tuple[int, list[VariableSlot], bool, str]:
        return PLACES[location.index]

    async def restep(step: StepInFlight, depth: StepDepth, exclude: str | None = None, counted: bool = True) -> bool:
        armed.append((depth, counted))
        step.inline_steps += not counted
        return True

    monkeypatch.setattr(steps, "_inline_place", place)
    monkeypatch.setattr(steps, "_restep", restep)
    line, markers, inlined, _ = PLACES[start]
    step = StepInFlight(1, ThreadId(7), "main", kind, True)  # type: ignore[arg-type]
    step.inline = InlineOrigin(1, 2, frozenset((m.name, m.code_index) for m in markers), line, inlined)
    return steps, step, armed


def at(index: int) -> Location:
    return Location(1, ReferenceTypeId(1), MethodId(2), index)


@pytest.mark.parametrize(("index", "steps_on"), [(103, True), (109, True), (206, True), (256, True), (282, False)])
async def test_a_step_over_steps_on_through_the_inlined_call_to_the_users_next_line(
        index: int, steps_on: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    steps, step, armed = stepping("over", monkeypatch)
    assert await steps.step_over_inlined(step, at(index)) is steps_on
    assert armed == ([(StepDepth.OVER, False)] if steps_on else [])


async def test_back_on_the_starting_line_after_the_body_is_the_call_too(monkeypatch: pytest.MonkeyPatch) -> None:
    steps, step, _ = stepping("over", monkeypatch)
    assert not await steps.step_over_inlined(step, at(271))  # the line itself, before any inlined code ran
    assert await steps.step_over_inlined(step, at(256))
    assert await steps.step_over_inlined(step, at(271))  # `val picked = select {…}` stores the result there


@pytest.mark.parametrize(("index", "steps_on"), [(103, True), (109, True), (206, False), (282, False)])
async def test_a_step_into_stops_in_the_users_lambda_never_in_the_librarys_lines(
        index: int, steps_on: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    steps, step, armed = stepping("into", monkeypatch)
    assert await steps.step_over_inlined(step, at(index)) is steps_on
    assert armed == ([(StepDepth.INTO, False)] if steps_on else [])


async def test_a_step_over_inside_the_lambda_goes_line_by_line(monkeypatch: pytest.MonkeyPatch) -> None:
    steps, step, _ = stepping("over", monkeypatch, start=206)
    assert not await steps.step_over_inlined(step, at(206))  # the lambda's markers were live where it began
    assert await steps.step_over_inlined(step, at(256))  # the rest of withLock's body: inlined, not the user's
    assert not await steps.step_over_inlined(step, at(282))


async def test_another_method_or_a_step_out_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    steps, step, armed = stepping("over", monkeypatch)
    assert not await steps.step_over_inlined(step, Location(1, ReferenceTypeId(1), MethodId(3), 103))
    step.kind = "out"
    assert not await steps.step_over_inlined(step, at(103))
    assert armed == []
