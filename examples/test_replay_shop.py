"""A replay test: the heap inspector (inspect_heap.py) run against a recorded JVM session.

    pytest examples/test_replay_shop.py                                # replays recordings/shop.jsonl
    pytest examples/test_replay_shop.py --jdwp-record 127.0.0.1:5005   # records it anew from a live VM

The live VM runs ``com.example.debuggee.Shop`` (fixtures/java). The ``jdwp_replay`` fixture comes with
pyjdwp (a pytest plugin); a command the code sends that the recording does not have fails the test with
``jdwp.ReplayMismatch``, naming the command, the one recorded there and the fields that differ.
"""

import inspect_heap  # the code under test: examples/inspect_heap.py


async def test_the_shop_is_named_and_stocked(jdwp_replay):
    async with jdwp_replay("recordings/shop.jsonl") as vm:
        shops = await inspect_heap.instances(vm, "com.example.debuggee.Shop")
    assert [(shop["name"], shop["stock"]) for shop in shops] == [("'corner'", "java.util.HashMap(size=3)")]
