"""A coroutine step's re-arm hands its resume breakpoint and exit request to the new step; when the VM refuses
the new step, they are cleared, not left set in the VM with no step owning them (``Steps._restep``)."""

from __future__ import annotations

from typing import Any, cast

import pytest

from jdwp.client import JdwpClient
from jdwp.debugger.classes.symbols import Symbols
from jdwp.debugger.requests.library_steps import StepInFlight
from jdwp.debugger.requests.resumes import Resume
from jdwp.debugger.requests.steps import Steps
from jdwp.protocol.constants import ErrorCode, EventKind, StepDepth
from jdwp.protocol.errors import CommandError
from jdwp.protocol.types import ObjectId, ThreadId

THREAD = ThreadId(7)


class EventRequests:
    """``EventRequest.Set`` (15,1) and ``Clear`` (15,2) as a VM answers them; ``refuse``: Set fails."""

    def __init__(self) -> None:
        self.refuse = False
        self.next_id = 100
        self.cleared: list[tuple[EventKind, int]] = []

    async def set(self, kind: EventKind, policy: int, modifiers: list[Any]) -> int:
        if self.refuse:
            raise CommandError("EventRequest.Set", ErrorCode.INVALID_THREAD)
        self.next_id += 1
        return self.next_id

    async def clear(self, kind: EventKind, request_id: int) -> None:
        self.cleared.append((kind, request_id))


class Vm:
    def __init__(self) -> None:
        self.event_request = EventRequests()


def armed(vm: Vm) -> tuple[Steps, StepInFlight]:
    client = cast(JdwpClient, vm)
    steps = Steps(client, Symbols(client))
    step = StepInFlight(1, THREAD, "main", "over", True, resume=Resume(11, ObjectId(0x50)), exit_request=12,
                        leaving=(0x10, 0x20), returns="Ljava/lang/Object;")
    steps._by_thread[THREAD] = step
    return steps, step


async def test_a_restep_hands_the_resume_breakpoint_and_the_exit_request_to_the_new_step() -> None:
    vm = Vm()
    steps, step = armed(vm)
    assert await steps._restep(step, StepDepth.OVER)
    again = steps.of_thread(THREAD)
    assert again is not None and again is not step
    assert again.resume == Resume(11, ObjectId(0x50)) and again.exit_request == 12 and again.leaving == (0x10, 0x20)
    assert vm.event_request.cleared == [(EventKind.SINGLE_STEP, 1)]  # only the old step's own request


async def test_a_restep_the_vm_refuses_clears_what_the_old_step_handed_on() -> None:
    vm = Vm()
    steps, step = armed(vm)
    vm.event_request.refuse = True
    with pytest.raises(CommandError):
        await steps._restep(step, StepDepth.OVER)
    assert steps.of_thread(THREAD) is None
    assert sorted(vm.event_request.cleared) == sorted([
        (EventKind.SINGLE_STEP, 1), (EventKind.BREAKPOINT, 11), (EventKind.METHOD_EXIT_WITH_RETURN_VALUE, 12)])
    assert steps.take_all() == []  # nothing left for detach to clear
