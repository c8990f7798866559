"""A breakpoint on a nested class's line, set before anything of it loads, on OpenJDK 17 (issue 23 item 12).

``Nest`` (fixtures/java/com/example/debuggee/Nest.java) loads first and has no code at ``nest-inner``, the
line of ``Nest$Inner``, which loads a moment later: ``breakpoint_rejected`` comes first, then
``breakpoint_verified``. The rejection's reason must say what was seen (the classes loaded so far) and that
the breakpoint may still bind, since it does.
"""

from __future__ import annotations

import trio

import jdwp
from jdwp.debugger import BreakpointRejected, BreakpointVerified, open_debugger
from support.jvm import Debuggee, find_mark

NEST = "com.example.debuggee.Nest"


async def test_a_rejection_before_the_nested_class_loads_says_it_may_still_bind(debuggee: Debuggee) -> None:
    line = find_mark("nest-inner")[1]
    with trio.fail_after(60):
        async with jdwp.open_jdwp_tcp("127.0.0.1", debuggee.port) as vm, open_debugger(vm) as debugger:
            bp = await debugger.set_breakpoint(NEST, line)
            assert bp.status == "pending"
            debuggee.send(f"load {NEST}")
            rejected = await debugger.events.receive()
            assert isinstance(rejected, BreakpointRejected), rejected
            reason = rejected.breakpoint.reason
            assert reason is not None and reason.code == "DEBUGGER_LOCATION_UNAVAILABLE"
            assert reason.message.startswith(f"no code at line {line} in {NEST} loaded so far; it may still bind")
            assert "watches classes that load later" in reason.message
            verified = await debugger.events.receive()
            assert isinstance(verified, BreakpointVerified) and verified.breakpoint.reason is None
            assert [loc.class_name for loc in verified.breakpoint.locations] == [f"{NEST}$Inner"]
