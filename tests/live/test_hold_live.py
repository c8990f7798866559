"""Holding a VM at a launch (Debugger.hold_at_launch) against a real OpenJDK 17 debuggee: one owned
VirtualMachine.Suspend made into a stop of reason launch on the main thread, released exactly by resume."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

import jdwp
from jdwp.debugger import Stopped, open_debugger, suspended_threads
from support.jvm import Debuggee, debuggees
from support.live import require_tool


@pytest.fixture
def running(java_classes: Path) -> Iterator[Debuggee]:
    yield from debuggees(java_classes, "com.example.debuggee.Main", java=require_tool("java"))


async def test_hold_suspends_the_vm_on_a_launch_stop_that_resume_releases(running: Debuggee) -> None:
    with trio.fail_after(30):
        async with jdwp.open_jdwp_tcp("127.0.0.1", running.port) as vm, open_debugger(vm) as debugger:
            assert debugger.current_stop is None
            stop = await debugger.hold_at_launch()
            assert stop.reason == "launch" and stop.reasons == ("launch",) and stop.thread_name == "main"
            assert stop.note is not None and "Debugger.resume()" in stop.note
            assert debugger.state == "paused"
            assert (await debugger.events.receive()) == Stopped(stop)
            assert await suspended_threads(vm) == len(await vm.all_threads())  # the whole VM
            frames = await debugger.stack(stop.stop_id, stop.thread_id)
            assert frames.frames  # the main thread's stack is readable at the launch stop
            assert await debugger.hold_at_launch() == stop  # holding again changes nothing
            await debugger.resume(stop.stop_id)
            assert debugger.state == "running"
            assert await suspended_threads(vm) == 0  # exactly our suspension was released
