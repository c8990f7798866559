"""Trace the calls and returns of the classes you name, with their arguments and return values.

    python examples/trace_calls.py 127.0.0.1:5005 'com.example.*' --limit 20

The VM runs with ``-agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=127.0.0.1:5005``. Calls
are indented by depth per thread; strings are shown as text. The VM keeps running when the tracer stops.
"""

from __future__ import annotations

import argparse

import trio

import jdwp


async def show(vm: jdwp.JdwpClient, value: jdwp.Value) -> str:
    """A value as a Java programmer reads it: strings as text, other objects by type."""
    if value.tag == jdwp.Tag.STRING and not value.is_null:
        return repr(await vm.string_reference.value(value.object_id))
    if value.is_object:
        return "null" if value.is_null else f"<{value.tag.name.lower()} #{value.value}>"
    if value.tag == jdwp.Tag.BOOLEAN:
        return "true" if value.value else "false"
    return "void" if value.tag == jdwp.Tag.VOID else str(value.value)


async def trace(host: str, port: int, classes: list[str], limit: int) -> None:
    depth: dict[int, int] = {}
    seen = calls = 0
    async with jdwp.open_jdwp_tcp(host, port) as vm:
        async with jdwp.open_tracer(vm, classes) as events:
            async for event in events:
                level = depth.get(event.thread, 0)
                if event.kind == "call":
                    shown = [f"{a.name}={await show(vm, a.value)}" for a in event.arguments]
                    print(f"{'  ' * level}→ {event.class_name}.{event.method}({', '.join(shown)})")
                    depth[event.thread] = level + 1
                    calls += 1
                else:
                    depth[event.thread] = level = max(level - 1, 0)
                    value = "" if event.value is None else f" = {await show(vm, event.value)}"
                    print(f"{'  ' * level}← {event.method}{value}")
                seen += 1
                if seen == limit:
                    break
            # What was shown: the statistics count what the VM sent, some of it after the last event taken.
            print(f"traced {calls} calls", flush=True)
        await vm.dispose()  # the tracer cleared its requests; the VM runs on


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("address", help="the VM's JDWP address, host:port")
    parser.add_argument("classes", nargs="+", help="class patterns: com.example.Shop, com.example.*, *.Shop")
    parser.add_argument("--limit", type=int, default=0, help="stop after this many events (0: until Ctrl-C)")
    args = parser.parse_args()
    host, _, port = args.address.rpartition(":")
    trio.run(trace, host or "127.0.0.1", int(port), args.classes, args.limit)


if __name__ == "__main__":
    main()
