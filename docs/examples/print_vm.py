"""Attach to a JVM's JDWP agent, print its version and threads, and leave it running.

    python docs/examples/print_vm.py 127.0.0.1 5005
"""

import sys

import trio

import jdwp


async def main(host: str, port: int) -> None:
    async with jdwp.open_jdwp_tcp(host, port) as vm:
        version = await vm.version()
        print(f"{version.vm_name} {version.vm_version} (JDWP {version.jdwp_major}.{version.jdwp_minor})")
        for thread in await vm.all_threads():
            name = await vm.thread_reference.name(thread)
            status = await vm.thread_reference.status(thread)
            print(f"  thread {name!r}: {status.status.name.lower()}")
        await vm.dispose()  # the VM forgets us and keeps running


if __name__ == "__main__":
    trio.run(main, sys.argv[1], int(sys.argv[2]))
