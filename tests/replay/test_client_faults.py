"""The client against a scripted VM end: faults a real VM does not produce on demand.

Every test runs under ``trio.fail_after``: a hang is a failure, never a stuck suite.
"""

from __future__ import annotations

import struct

import pytest
import trio
import trio.testing

import jdwp
from jdwp.protocol.commands import Empty, VirtualMachine
from jdwp.protocol.commands.vm import VersionReply
from jdwp.protocol.wire import HANDSHAKE
from support.fakevm import FakeVm

VERSION = VersionReply("test VM", 17, 0, "17.0", "Fake")


def version_body() -> bytes:
    return VirtualMachine.Version.encode_reply(VERSION, jdwp.IdSizes(8, 8, 8, 8, 8))


async def test_pipelined_requests_match_replies_by_id() -> None:
    client_end, vm_end = trio.testing.memory_stream_pair()
    fake = FakeVm(vm_end)
    results: dict[str, object] = {}
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(fake.open)
            async with jdwp.open_jdwp(client_end) as vm:
                async def ask_version() -> None:
                    results["version"] = await vm.version()

                async def ask_threads() -> None:
                    results["threads"] = await vm.all_threads()

                nursery.start_soon(ask_version)
                nursery.start_soon(ask_threads)
                first, second = await fake.receive(), await fake.receive()
                assert first is not None and second is not None
                by_key = {first.key: first, second.key: second}
                # Answer in the opposite order of arrival.
                await fake.reply(by_key[VirtualMachine.AllThreads.key], struct.pack(">iQQ", 2, 5, 6))
                await fake.reply(by_key[VirtualMachine.Version.key], version_body())
                while len(results) < 2:
                    await trio.sleep(0.001)
                assert results == {"version": VERSION, "threads": [5, 6]}
                assert vm.statistics()["in_flight"] == 0


async def _open_then(script) -> jdwp.JdwpError:  # type: ignore[no-untyped-def]
    """Open a client against a fake VM that runs ``script(fake)`` and return the error a request gets."""
    client_end, vm_end = trio.testing.memory_stream_pair()
    fake = FakeVm(vm_end)
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            async def vm_side() -> None:
                await fake.open()
                await fake.receive()
                await script(fake)

            nursery.start_soon(vm_side)
            async with jdwp.open_jdwp(client_end) as vm:
                with pytest.raises(jdwp.JdwpError) as info:
                    await vm.version()
                # Every later request fails at once with the same kind of error, without hanging.
                with pytest.raises(type(info.value)):
                    await vm.all_threads()
                assert vm.is_closed
                return info.value
    raise AssertionError("unreachable")


async def test_eof_mid_packet_fails_the_waiter() -> None:
    async def script(fake: FakeVm) -> None:
        await fake.stream.send_all(struct.pack(">IIBH", 40, 2, 0x80, 0) + b"partial")
        await fake.stream.aclose()

    error = await _open_then(script)
    assert isinstance(error, jdwp.ConnectionClosed)
    assert "mid-packet" in str(error)


async def test_length_below_header_is_a_protocol_error() -> None:
    async def script(fake: FakeVm) -> None:
        await fake.stream.send_all(struct.pack(">IIBH", 5, 2, 0x80, 0))

    error = await _open_then(script)
    assert isinstance(error, jdwp.ProtocolError)
    assert "shorter than" in str(error)


async def test_an_over_cap_reply_fails_its_request_only_and_is_never_held() -> None:
    # Stands for ART's StringReference.Value (10,1) of a huge string: the VM sends the whole reply. Its
    # header fails that request at once; its body is skipped as it streams in; the next request is answered.
    client_end, vm_end = trio.testing.memory_stream_pair()
    fake = FakeVm(vm_end)
    body = 300_000
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            async def vm_side() -> None:
                await fake.open()
                asked = await fake.receive()
                assert asked is not None
                await fake.stream.send_all(struct.pack(">IIBH", 11 + body, asked.id, 0x80, 0))
                for _ in range(body // 10_000):
                    await fake.stream.send_all(b"\xee" * 10_000)
                threads = await fake.receive()
                assert threads is not None
                await fake.reply(threads, struct.pack(">iQ", 1, 5))

            nursery.start_soon(vm_side)
            async with jdwp.open_jdwp(client_end, max_packet=64 * 1024) as vm:
                with pytest.raises(jdwp.ReplyTooLarge) as info:
                    await vm.version()
                assert (info.value.length, info.value.limit) == (11 + body, 64 * 1024)
                assert "VirtualMachine.Version" in str(info.value) and "exceeds" in str(info.value)
                assert isinstance(info.value, jdwp.CommandError)
                assert await vm.all_threads() == [5]
                assert not vm.is_closed and vm.statistics()["oversized"] == 1


async def test_an_over_cap_reply_in_a_pipelined_write_is_that_request_s_answer() -> None:
    client_end, vm_end = trio.testing.memory_stream_pair()
    fake = FakeVm(vm_end)
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            async def vm_side() -> None:
                await fake.open()
                first, second = await fake.receive(), await fake.receive()
                assert first is not None and second is not None
                await fake.stream.send_all(struct.pack(">IIBH", 11 + 5000, first.id, 0x80, 0) + b"\x00" * 5000)
                await fake.reply(second, struct.pack(">iQ", 1, 6))

            nursery.start_soon(vm_side)
            async with jdwp.open_jdwp(client_end, max_packet=1024) as vm:
                answers = await vm.request_all([(VirtualMachine.Version, Empty()),
                                                (VirtualMachine.AllThreads, Empty())])
                assert isinstance(answers[0], jdwp.ReplyTooLarge)
                assert answers[0].command == "VirtualMachine.Version"
                assert list(answers[1].threads) == [6]


async def test_garbage_handshake_is_a_protocol_error() -> None:
    client_end, vm_end = trio.testing.memory_stream_pair()
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            async def vm_side() -> None:
                await vm_end.receive_some(100)
                await vm_end.send_all(b"HTTP/1.1 400 Bad")

            nursery.start_soon(vm_side)
            with pytest.raises(jdwp.ProtocolError, match="not a JDWP agent"):
                async with jdwp.open_jdwp(client_end):
                    pass


async def test_peer_closing_during_handshake_says_busy() -> None:
    client_end, vm_end = trio.testing.memory_stream_pair()
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            async def vm_side() -> None:
                await vm_end.receive_some(100)
                await vm_end.aclose()

            nursery.start_soon(vm_side)
            with pytest.raises(jdwp.ConnectionClosed, match="another one attached"):
                async with jdwp.open_jdwp(client_end):
                    pass


async def test_handshake_timeout(autojump_clock: trio.testing.MockClock) -> None:
    client_end, _silent_vm = trio.testing.memory_stream_pair()
    with trio.fail_after(100):
        with pytest.raises(jdwp.CommandTimeout, match="no JDWP handshake"):
            async with jdwp.open_jdwp(client_end, handshake_timeout=5):
                pass


async def test_handshake_is_one_write() -> None:
    client_end, vm_end = trio.testing.memory_stream_pair()
    writes: list[bytes] = []
    send_stream = client_end.send_stream
    original = send_stream.send_all

    async def recording_send_all(data: bytes) -> None:
        writes.append(bytes(data))
        await original(data)

    send_stream.send_all = recording_send_all  # type: ignore[method-assign]
    fake = FakeVm(vm_end)
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(fake.open)
            async with jdwp.open_jdwp(client_end):
                pass
    assert writes[0] == HANDSHAKE


async def test_timeout_leaves_the_connection_usable_and_drops_the_late_reply(
        autojump_clock: trio.testing.MockClock) -> None:
    client_end, vm_end = trio.testing.memory_stream_pair()
    fake = FakeVm(vm_end)
    with trio.fail_after(100):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(fake.open)
            async with jdwp.open_jdwp(client_end, request_timeout=2) as vm:
                with pytest.raises(jdwp.CommandTimeout, match=r"VirtualMachine.Version: no reply within 2 s"):
                    await vm.version()
                late = await fake.receive()
                assert late is not None
                await fake.reply(late, version_body())  # arrives after the waiter gave up

                async def answer() -> None:
                    packet = await fake.receive()
                    assert packet is not None
                    await fake.reply(packet, version_body())

                nursery.start_soon(answer)
                assert await vm.version() == VERSION
                assert vm.statistics()["late_replies"] == 1


async def test_cancelled_caller_mid_read_does_not_desynchronise() -> None:
    client_end, vm_end = trio.testing.memory_stream_pair()
    fake = FakeVm(vm_end)
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(fake.open)
            async with jdwp.open_jdwp(client_end) as vm:
                with trio.CancelScope() as scope:
                    async def cancel_when_sent() -> None:
                        packet = await fake.receive()
                        assert packet is not None
                        # Half of the reply, then the caller goes away, then the other half.
                        reply = struct.pack(">IIBH", 11 + len(version_body()), packet.id, 0x80, 0) + version_body()
                        await fake.stream.send_all(reply[:15])
                        await trio.testing.wait_all_tasks_blocked()
                        scope.cancel()
                        await fake.stream.send_all(reply[15:])

                    nursery.start_soon(cancel_when_sent)
                    await vm.version()
                assert scope.cancelled_caught

                async def answer() -> None:
                    packet = await fake.receive()
                    assert packet is not None
                    await fake.reply(packet, struct.pack(">iQ", 1, 9))

                nursery.start_soon(answer)
                assert await vm.all_threads() == [9]


async def test_unknown_vm_commands_and_ddm_are_never_fatal() -> None:
    client_end, vm_end = trio.testing.memory_stream_pair()
    fake = FakeVm(vm_end)
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            async def vm_side() -> None:
                await fake.handshake()
                # Before any reply: an unknown VM command and a DDM chunk.
                await fake.send_command(99, 42, b"\x01\x02")
                await fake.send_command(199, 1, b"HELO" + struct.pack(">I", 4) + b"\x00\x00\x00\x01")
                packet = await fake.receive()
                assert packet is not None
                await fake.reply(packet, VirtualMachine.IDSizes.encode_reply(fake.sizes, None))
                packet = await fake.receive()
                assert packet is not None
                await fake.reply(packet, version_body())

            nursery.start_soon(vm_side)
            async with jdwp.open_jdwp(client_end, read_version=False) as vm:  # IDSizes is the first reply
                assert await vm.version() == VERSION
                chunk = await vm.receive_ddm()
                assert (chunk.type_name, chunk.data) == ("HELO", b"\x00\x00\x00\x01")
                assert vm.statistics()["unknown_commands"] == 1


async def test_command_error_reply_is_typed() -> None:
    client_end, vm_end = trio.testing.memory_stream_pair()
    fake = FakeVm(vm_end)
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            async def vm_side() -> None:
                await fake.open()
                packet = await fake.receive()
                assert packet is not None
                await fake.reply(packet, error=jdwp.ErrorCode.VM_DEAD)

            nursery.start_soon(vm_side)
            async with jdwp.open_jdwp(client_end) as vm:
                with pytest.raises(jdwp.VmDead, match=r"VirtualMachine.Version failed: VM_DEAD \(112\)"):
                    await vm.version()


async def test_events_end_when_the_connection_ends() -> None:
    client_end, vm_end = trio.testing.memory_stream_pair()
    fake = FakeVm(vm_end)
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            async def vm_side() -> None:
                await fake.open()
                body = bytes([0, 0, 0, 0, 1, jdwp.EventKind.VM_DEATH]) + struct.pack(">i", 0)
                await fake.send_command(64, 100, body)
                await fake.stream.aclose()

            nursery.start_soon(vm_side)
            async with jdwp.open_jdwp(client_end) as vm:
                received = [event_set async for event_set in vm.events()]
                assert [type(e) for s in received for e in s.events] == [jdwp.VMDeathEvent]
                assert isinstance(vm.terminal_error, jdwp.ConnectionClosed)
                with pytest.raises(jdwp.ConnectionClosed):
                    await vm.version()


async def test_exceptions_from_the_block_are_not_wrapped() -> None:
    client_end, vm_end = trio.testing.memory_stream_pair()
    fake = FakeVm(vm_end)
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(fake.open)
            with pytest.raises(KeyError):
                async with jdwp.open_jdwp(client_end):
                    raise KeyError("mine")


async def test_usage_errors_change_nothing() -> None:
    client_end, vm_end = trio.testing.memory_stream_pair()
    fake = FakeVm(vm_end)
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(lambda: fake.open(version=False))
            async with jdwp.open_jdwp(client_end, read_version=False) as vm:
                with pytest.raises(jdwp.UsageError):
                    await vm.classes_by_signature(42)  # type: ignore[arg-type]
                with pytest.raises(jdwp.UsageError):
                    await vm.request(VirtualMachine.ClassesBySignature, wrong_field="x")
                assert vm.statistics()["requests"] == 1  # only IDSizes went out


async def test_events_end_when_the_peer_sends_unframeable_bytes() -> None:
    client_end, vm_end = trio.testing.memory_stream_pair()
    fake = FakeVm(vm_end)
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            async def vm_side() -> None:
                await fake.open()
                body = bytes([0, 0, 0, 0, 1, jdwp.EventKind.VM_DEATH]) + struct.pack(">i", 0)
                await fake.send_command(64, 100, body)
                await fake.stream.send_all(struct.pack(">IIBH", 5, 9, 0, 0))  # a length shorter than the header

            nursery.start_soon(vm_side)
            async with jdwp.open_jdwp(client_end) as vm:
                received = [event_set async for event_set in vm.events()]  # ends; never raises
                assert [type(e) for s in received for e in s.events] == [jdwp.VMDeathEvent]
                assert isinstance(vm.terminal_error, jdwp.ProtocolError)


async def test_version_goes_out_with_id_sizes_in_one_round_trip() -> None:
    """Attach costs one round trip: both commands are sent before either reply (issue 10)."""
    client_end, vm_end = trio.testing.memory_stream_pair()
    fake = FakeVm(vm_end)
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            async def vm_side() -> None:
                await fake.handshake()
                first, second = await fake.receive(), await fake.receive()  # no reply sent yet
                assert first is not None and second is not None
                assert [first.key, second.key] == [VirtualMachine.IDSizes.key, VirtualMachine.Version.key]
                await fake.reply(second, version_body())
                await fake.reply(first, VirtualMachine.IDSizes.encode_reply(fake.sizes, None))

            nursery.start_soon(vm_side)
            async with jdwp.open_jdwp(client_end) as vm:
                assert vm.version_info == VERSION
                assert vm.statistics()["requests"] == 2


async def test_version_info_without_reading_it_is_a_usage_error() -> None:
    client_end, vm_end = trio.testing.memory_stream_pair()
    fake = FakeVm(vm_end)
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(lambda: fake.open(version=False))
            async with jdwp.open_jdwp(client_end, read_version=False) as vm:
                with pytest.raises(jdwp.UsageError, match="version was not read"):
                    vm.version_info  # noqa: B018 - the property is what raises
