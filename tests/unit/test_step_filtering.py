"""Where a step starts decides whether its filters apply (``Steps.filtering_for``): a step that starts in filtered
code runs without them (IntelliJ's ``checkPositionNotFiltered``); one whose callers are all filtered runs
without them too and says so where it lands in filtered code; otherwise its request carries the
``ClassExclude`` modifiers."""

from __future__ import annotations

import dataclasses
from typing import Any, cast

import pytest

from jdwp.client import JdwpClient
from jdwp.debugger.classes.symbols import Symbols
from jdwp.debugger.requests.library_steps import FILTERED, NO_LANDING_NOTE, UNFILTERED, Filtering, is_filtered_class
from jdwp.debugger.requests.steps import Steps
from jdwp.protocol.commands.events import ClassExclude
from jdwp.protocol.constants import ErrorCode
from jdwp.protocol.errors import CommandError
from jdwp.protocol.types import Location, MethodId, ReferenceTypeId, ThreadId

THREAD = ThreadId(7)
SIGNATURES = {1: "Lcom/example/App;", 2: "Ljava/lang/Thread;", 3: "Lcom/sun/tools/javac/comp/Attr;",
              4: "Ljava/util/concurrent/ThreadPoolExecutor;"}


@dataclasses.dataclass
class Frame:
    location: Location


class Threads:
    """``ThreadReference.Frames`` (11,6) of one stack: classes by ID, frame 0 first."""

    def __init__(self, classes: list[int]) -> None:
        self.stack = [Frame(Location(1, ReferenceTypeId(c), MethodId(0x100 + i), 0)) for i, c in enumerate(classes)]

    async def frames(self, thread: ThreadId, start: int, length: int) -> list[Frame]:
        end = len(self.stack) if length == -1 else start + length
        if end > len(self.stack):
            raise CommandError("ThreadReference.Frames", ErrorCode.INVALID_LENGTH)
        return self.stack[start:end]


class Types:
    async def signature(self, ref: int) -> str:
        return SIGNATURES[ref]


class Requests:
    def __init__(self) -> None:
        self.modifiers: list[Any] = []

    async def set(self, kind: int, policy: int, modifiers: list[Any]) -> int:
        self.modifiers = modifiers
        return 101


class Vm:
    def __init__(self, classes: list[int]) -> None:
        self.thread_reference = Threads(classes)
        self.reference_type = Types()
        self.event_request = Requests()


async def filtering(classes: list[int], monkeypatch: pytest.MonkeyPatch) -> tuple[Filtering, Vm, Steps]:
    vm = Vm(classes)
    client = cast(JdwpClient, vm)
    steps = Steps(client, Symbols(client))

    async def no_coroutine(location: Location) -> bool:
        return False

    monkeypatch.setattr(steps, "_is_state_machine", no_coroutine)
    return await steps.filtering_for(THREAD, True), vm, steps


def test_the_filters_match_packages_as_jdwp_patterns_do() -> None:
    assert is_filtered_class("com.sun.tools.javac.comp.Attr") and is_filtered_class("java.lang.Thread")
    assert not is_filtered_class("com.example.App") and not is_filtered_class("javafx.App")


async def test_a_step_from_app_code_with_an_app_caller_is_filtered(monkeypatch: pytest.MonkeyPatch) -> None:
    made, vm, steps = await filtering([1, 4, 1], monkeypatch)
    assert made == FILTERED
    await steps.start(THREAD, "main", "over", True, filtering=made)
    assert any(isinstance(m, ClassExclude) for m in vm.event_request.modifiers)


async def test_a_step_that_starts_in_filtered_code_runs_without_filters(monkeypatch: pytest.MonkeyPatch) -> None:
    made, vm, steps = await filtering([3, 3, 1], monkeypatch)
    assert made == UNFILTERED
    step = await steps.start(THREAD, "main", "over", True, filtering=made)
    assert not any(isinstance(m, ClassExclude) for m in vm.event_request.modifiers)
    assert step.filters and not step.excluding  # synthetic methods are still stepped past


@pytest.mark.parametrize("classes", [[1], [1, 4, 2]])  # main (the launcher calls it); a pool thread's task
async def test_a_step_whose_callers_are_all_filtered_runs_without_filters_and_says_so(
        classes: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    made, vm, steps = await filtering(classes, monkeypatch)
    assert made == Filtering(False, NO_LANDING_NOTE, len(classes))
    await steps.start(THREAD, "main", "over", True, filtering=made)
    assert not any(isinstance(m, ClassExclude) for m in vm.event_request.modifiers)


async def test_without_filters_nothing_is_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    vm = Vm([])
    client = cast(JdwpClient, vm)
    assert await Steps(client, Symbols(client)).filtering_for(THREAD, False) == UNFILTERED
