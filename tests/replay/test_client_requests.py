"""The client's ways of sending: several commands in one write (``request_all``), a command whose reply nobody
waits for (``send``), and packets written straight into a socket, against a scripted VM end.

The scripted end stands for the VM side of the wire only (handshake, packets, replies in any order); a real
OpenJDK agent runs the same commands in tests/live. Every test runs under ``trio.fail_after``.
"""

from __future__ import annotations

import socket
import struct
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
import trio
import trio.testing

import jdwp
from jdwp.client import JdwpClient
from jdwp.protocol.commands import Event, ThreadReference, VirtualMachine
from jdwp.protocol.commands.events import Composite, ThreadStartEvent
from jdwp.protocol.commands.threads import ThreadNameReply, ThreadOut
from jdwp.protocol.commands.vm import ClassesBySignatureOut, ClassesBySignatureReply, ClassRef
from jdwp.protocol.constants import ErrorCode, SuspendPolicy, TypeTag
from jdwp.protocol.errors import CommandError, CommandTimeout, ConnectionClosed, JdwpError
from jdwp.protocol.types import ReferenceTypeId, ThreadId
from support.fakevm import FakeVm, ScriptedVm


def name_reply(name: str) -> bytes:
    return ThreadReference.Name.encode_reply(ThreadNameReply(name), None)


@asynccontextmanager
async def opened() -> AsyncIterator[tuple[FakeVm, JdwpClient, trio.Nursery]]:
    """A client on a scripted VM end over memory streams, and a nursery for the VM side's tasks."""
    client_end, vm_end = trio.testing.memory_stream_pair()
    fake = FakeVm(vm_end)
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(fake.open)
            async with jdwp.open_jdwp(client_end) as vm:
                yield fake, vm, nursery


async def test_request_all_sends_in_one_write_and_keeps_each_answer_in_its_place() -> None:
    async with opened() as (fake, vm, nursery):
        names = [(ThreadReference.Name, ThreadOut(ThreadId(t))) for t in (1, 2, 3)]
        nursery.start_soon(_answer_reversed, fake, 3)
        first, second, third = await vm.request_all(names)
    assert first.thread_name == "t1" and third.thread_name == "t3"
    assert isinstance(second, CommandError) and second.code == ErrorCode.INVALID_THREAD


async def test_request_all_hands_back_the_data_of_a_raw_reply_undecoded() -> None:
    """For a caller with a reader of its own (a breakpoint reads ``AllClasses`` as type IDs and signatures)."""
    async with opened() as (fake, vm, nursery):
        nursery.start_soon(_answer_reversed, fake, 3)
        first, second, third = await vm.request_all([(ThreadReference.Name, ThreadOut(ThreadId(t)))
                                                     for t in (1, 2, 3)], raw=(0, 1))
    assert first == name_reply("t1") and third.thread_name == "t3"
    assert isinstance(second, CommandError)  # an error is an error, raw or not


async def _answer_reversed(fake: FakeVm, count: int) -> None:
    packets = [await fake.receive() for _ in range(count)]
    for packet in reversed(packets):  # the last first: the call must still wait for every one
        assert packet is not None
        (thread,) = struct.unpack(">Q", packet.body)
        if thread == 2:
            await fake.reply(packet, error=ErrorCode.INVALID_THREAD)
        else:
            await fake.reply(packet, name_reply(f"t{thread}"))


async def test_request_all_times_out_as_a_whole_and_drops_late_replies() -> None:
    async with opened() as (fake, vm, _):
        with pytest.raises(CommandTimeout, match=r"ThreadReference\.Name, ThreadReference\.Name"):
            await vm.request_all([(ThreadReference.Name, ThreadOut(ThreadId(t))) for t in (1, 2)], timeout=0.05)
        assert vm.statistics()["in_flight"] == 0
        for _ in range(2):
            packet = await fake.receive()
            assert packet is not None
            await fake.reply(packet, name_reply("late"))
        assert await _version_after(vm, fake) == "FakeVm"


async def _version_after(vm: JdwpClient, fake: FakeVm) -> str:
    async with trio.open_nursery() as nursery:
        async def answer() -> None:
            packet = await fake.receive()
            assert packet is not None and packet.key == VirtualMachine.Version.key
            await fake.answer_version(packet)
        nursery.start_soon(answer)
        return (await vm.version()).vm_name


async def test_send_reports_an_error_answer_and_a_closed_connection_to_its_callback() -> None:
    errors: list[JdwpError] = []
    async with opened() as (fake, vm, _):
        await vm.send(ThreadReference.Resume, ThreadOut(ThreadId(7)), on_error=errors.append)
        packet = await fake.receive()
        assert packet is not None and packet.key == ThreadReference.Resume.key
        await fake.reply(packet, error=ErrorCode.INVALID_THREAD)
        await vm.send(ThreadReference.Resume, ThreadOut(ThreadId(8)), on_error=errors.append)
        while not errors:
            await trio.sleep(0.001)
        assert vm.statistics()["in_flight"] == 1  # the second one's answer is still due
    # leaving the block closed the connection: the unanswered one hears of it
    assert isinstance(errors[0], CommandError) and errors[0].code == ErrorCode.INVALID_THREAD
    assert isinstance(errors[1], ConnectionClosed)


async def test_the_oldest_unanswered_send_is_the_first_one_the_vm_has_not_answered() -> None:
    """How the engine tells a VM that reads no more commands (a release sent without waiting, unanswered for a
    whole request timeout) from one that is slow at one command."""
    async with opened() as (fake, vm, _):
        assert vm.oldest_unanswered_send() is None
        await vm.send(ThreadReference.Resume, ThreadOut(ThreadId(7)), on_error=lambda error: None)
        first = trio.current_time()
        await trio.sleep(0.01)
        await vm.send(ThreadReference.Resume, ThreadOut(ThreadId(8)), on_error=lambda error: None)
        sent = vm.oldest_unanswered_send()
        assert sent is not None and sent <= first
        packet = await fake.receive()
        assert packet is not None
        await fake.reply(packet)
        while (later := vm.oldest_unanswered_send()) == sent:
            await trio.sleep(0.001)
        assert later is not None and later > first  # the second one's answer is still due


async def test_a_packet_the_socket_takes_only_in_part_is_finished_before_the_next_one() -> None:
    """Over a real socket pair whose buffers are small: the direct write takes what fits, the rest goes out
    through the write lock, and a request made meanwhile waits its turn, so the VM sees both packets whole."""
    ours, theirs = socket.socketpair()
    for sock in (ours, theirs):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    big = bytes(range(256)) * 4096  # 1 MiB: far more than the socket buffers hold
    fake = FakeVm(trio.SocketStream(trio.socket.from_stdlib_socket(theirs)))
    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(fake.open)
            async with jdwp.open_jdwp(trio.SocketStream(trio.socket.from_stdlib_socket(ours))) as vm:
                assert vm._fd is not None  # the direct path is the one under test
                got: dict[str, object] = {}

                async def big_one() -> None:
                    got["big"] = await vm.request_raw(99, 1, big)

                async def small_one() -> None:
                    got["small"] = await vm.request_raw(99, 2, b"after")

                nursery.start_soon(big_one)
                await trio.testing.wait_all_tasks_blocked()  # the big one is part-written and waits on the socket
                nursery.start_soon(small_one)
                for _ in range(2):
                    packet = await fake.receive()
                    assert packet is not None
                    await fake.reply(packet, struct.pack(">i", len(packet.body)))
                while len(got) < 2:
                    await trio.sleep(0.001)
        assert got == {"big": struct.pack(">i", len(big)), "small": struct.pack(">i", 5)}


async def test_first_requests_go_out_with_the_id_sizes_and_keep_their_answers() -> None:
    """``open_jdwp(first_requests=…)``: one write at open; each answer (a reply read with the ID sizes, or the
    VM's error) is kept by its request, and a request that was not among them has none."""
    loaded = ClassesBySignatureOut("Lsun/launcher/LauncherHelper;")
    refused = ClassesBySignatureOut("Lcom/example/Refused;")
    client_end, vm_end = trio.testing.memory_stream_pair()
    fake = ScriptedVm(vm_end, {"VirtualMachine.ClassesBySignature": lambda out: ClassesBySignatureReply(
        [ClassRef(TypeTag.CLASS, ReferenceTypeId(0x123456789), 7)]) if out == loaded else ErrorCode.INVALID_STRING})
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(fake.serve)
            asked = [(VirtualMachine.ClassesBySignature, loaded), (VirtualMachine.ClassesBySignature, refused)]
            async with jdwp.open_jdwp(client_end, first_requests=asked) as vm:
                assert vm.statistics()["writes"] == 1
                found = vm.first_answer(VirtualMachine.ClassesBySignature, loaded)
                assert [c.type_id for c in found.classes] == [0x123456789]  # read with the VM's 8-byte IDs
                error = vm.first_answer(VirtualMachine.ClassesBySignature, refused)
                assert isinstance(error, CommandError) and error.code == ErrorCode.INVALID_STRING
                assert vm.first_answer(VirtualMachine.ClassesBySignature, ClassesBySignatureOut("LOther;")) is None
            nursery.cancel_scope.cancel()


async def test_submit_hands_the_replies_to_its_callback_from_the_reader() -> None:
    """``submit`` (a judged hit's reads, events/quick_hits.py): no task waits; the callback gets every answer in
    its place, errors included, once the last is in; what it sends with ``send_now`` goes out."""
    async with opened() as (fake, vm, _):
        got: list[Any] = []
        failed: list[JdwpError] = []
        release_failed = trio.Event()

        def on_error(error: JdwpError) -> None:
            failed.append(error)
            release_failed.set()

        def on_replies(replies: list[Any] | JdwpError) -> None:
            got.append(replies)
            vm.send_now(ThreadReference.Name, ThreadOut(ThreadId(9)), on_error=on_error)

        vm.submit([(ThreadReference.Name, ThreadOut(ThreadId(t))) for t in (1, 2, 3)], on_replies)
        await _answer_reversed(fake, 3)
        follow_up = await fake.receive()  # written from the callback, once the reader had taken the replies
        assert follow_up is not None and struct.unpack(">Q", follow_up.body) == (9,)
        await fake.reply(follow_up, error=ErrorCode.INVALID_THREAD)
        await release_failed.wait()  # the callback's own send failed: its on_error is told
        ((first, second, third),) = got
        assert first.thread_name == "t1" and third.thread_name == "t3"
        assert isinstance(second, CommandError) and isinstance(failed[0], CommandError)
        assert vm.statistics()["in_flight"] == 0


async def test_submit_tells_its_callback_once_when_the_connection_ends_first() -> None:
    async with opened() as (fake, vm, _):
        got: list[Any] = []
        vm.submit([(ThreadReference.Name, ThreadOut(ThreadId(t))) for t in (1, 2)], got.append)
        assert await fake.receive() is not None
        await fake.stream.aclose()
        await vm.wait_closed()
        assert len(got) == 1 and isinstance(got[0], ConnectionClosed)
        with pytest.raises(ConnectionClosed):
            vm.submit([(ThreadReference.Name, ThreadOut(ThreadId(1)))], got.append)
        assert len(got) == 1


async def test_an_event_handler_takes_each_set_in_the_reader_and_hears_the_end() -> None:
    """``handle_events`` (the tracer, jdwp/tracing.py): each set goes to the handler as it is read, not to
    ``receive_event``; what the handler sends leaves with that read's other writes; the end is told once."""
    async with opened() as (fake, vm, _):
        seen: list[Composite | None] = []
        second = trio.Event()

        def handler(composite: Composite | None) -> None:
            seen.append(composite)
            if composite is not None:
                vm.send_now(ThreadReference.Resume, ThreadOut(composite.events[0].thread), on_error=print)
                if len(seen) == 2:
                    second.set()

        vm.handle_events(handler)
        body = Event.Composite.encode_out(Composite(SuspendPolicy.EVENT_THREAD, [ThreadStartEvent(7, ThreadId(5))]),
                                          vm.id_sizes)
        await fake.send_command(64, 100, body, packet_id=1)
        await fake.send_command(64, 100, body, packet_id=2)
        await second.wait()
        resumes = [await fake.receive(), await fake.receive()]
        assert all(p is not None and p.key == ThreadReference.Resume.key for p in resumes)
        with pytest.raises(trio.WouldBlock):
            vm.receive_event_nowait()
        vm.handle_events(None)  # queued again, for receive_event
        await fake.send_command(64, 100, body, packet_id=3)
        assert (await vm.receive_event()).events[0].thread == 5
        vm.handle_events(lambda composite: False)  # a handler that gives a set back: queued as well
        await fake.send_command(64, 100, body, packet_id=4)
        assert (await vm.receive_event()).events[0].thread == 5
        vm.handle_events(handler)
        await fake.stream.aclose()
        await vm.wait_closed()
        assert seen[-1] is None and seen.count(None) == 1 and vm.statistics()["events_handled_in_reader"] == 3
