"""Hidden classes' names on OpenJDK 17 as jdb prints them (issue 23 item 12).

``Nest.round`` (fixtures/java/com/example/debuggee/Nest.java) calls a lambda: HotSpot spins its proxy as a
hidden class, whose JDWP signature is ``Lcom/example/debuggee/Nest$$Lambda$N.0x…;``. The stack's frame of the
proxy, its ``this`` and a local holding the lambda name it ``com.example.debuggee.Nest$$Lambda$N/0x…``, as
jdb does, and that name given back as a breakpoint's ``className`` finds the loaded class.
"""

from __future__ import annotations

import functools
import re

import trio

from jdwp.debugger import Debugger, Stop
from support.engines import engine
from support.jvm import Debuggee, find_mark
from support.stops import next_stop

NEST = "com.example.debuggee.Nest"
HIDDEN = re.compile(r"^com\.example\.debuggee\.Nest\$\$Lambda\$\d+/0x[0-9a-f]+$")


async def load_nest(debuggee: Debuggee) -> None:
    debuggee.send(f"load {NEST}")
    await trio.to_thread.run_sync(functools.partial(debuggee.wait_for_line, "^nest ran$", timeout=20))


async def stop_at(debugger: Debugger, breakpoint_id: str) -> Stop:
    """The next stop of this breakpoint (stops of others resumed on the way)."""
    while True:
        stop = await next_stop(debugger)
        if breakpoint_id in stop.breakpoint_ids:
            return stop
        await debugger.resume(stop.stop_id)


async def test_a_lambda_proxy_is_named_as_jdb_names_it(debuggee: Debuggee) -> None:
    line = find_mark("nest-lambda")[1]
    with trio.fail_after(60):
        await load_nest(debuggee)
        async with engine(debuggee) as debugger:
            body = await debugger.set_breakpoint(NEST, line)
            while True:  # the line's body location, in lambda$round$0, called from the proxy
                stop = await stop_at(debugger, body.breakpoint_id)
                if stop.location.method.startswith("lambda$"):
                    break
                await debugger.resume(stop.stop_id)
            page = await debugger.stack(stop.stop_id, stop.thread_id, limit=3)
            proxy = page.frames[1]
            assert HIDDEN.match(proxy.class_name), proxy.class_name
            assert proxy.method == "applyAsInt" and page.frames[2].class_name == NEST
            held = await debugger.locals(stop.stop_id, proxy.frame_id)
            assert held.this is not None and held.this.type == proxy.class_name
            caller = await debugger.locals(stop.stop_id, page.frames[2].frame_id)
            by_name = {local.name: local for local in caller.locals}
            assert by_name["lambda"].runtime_type == proxy.class_name  # the class of the object it holds
            await debugger.resume(stop.stop_id)
            await debugger.remove_breakpoint(body.breakpoint_id)

            # Typed back, the printed name is that loaded class: it has no line table (a proxy has none),
            # so the breakpoint is rejected for it, not left pending for a class that never loads.
            typed = await debugger.set_breakpoint(proxy.class_name, 1)
            assert typed.status == "rejected", typed
            assert typed.reason is not None and "no line table" in typed.reason.message
            assert proxy.class_name in typed.reason.message
