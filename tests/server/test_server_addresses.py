"""JVM addresses through the server, against real JVMs and hand-made peers.

- A name is resolved once and every address it resolves to must be loopback: spellings of 127.0.0.1
  attach (``LOCALHOST``, ``localhost.``, ``127.1``, ``[::ffff:127.0.0.1]``…), a name with one remote
  address is refused, and the connection goes to the checked address (the resolver is asked once).
  Names the system resolver here does not know (a hosts-file alias, ``ip6-localhost``) are answered by a
  table resolver (support.resolver): tests cannot edit /etc/hosts.
- One session per JVM, compared after resolving: another spelling of a held JVM is DEBUGGER_BUSY.
- A JVM held by another debugger (its agent stops listening) is named as such, not retryable.
- A peer that is not a free JDWP agent — silent, echoing, answering HTTP, hanging up — fails the attach as
  DEBUGGER_ATTACH_FAILED naming the handshake, well within ``timeoutMs`` (not DEBUGGER_TIMEOUT).
- IPv6 addresses are written back in brackets.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial

import pytest
import trio
from mcpkit import Mcp, agent_port, attached, connect, heartbeats_continue

from pyjdwp_server import Config
from support.jvm import Debuggee
from support.net import HANDSHAKE
from support.resolver import table_resolver


async def attach_and_detach(mcp: Mcp, jvm: Debuggee, spelling: str) -> None:
    """Attach to the JVM's agent under ``spelling`` (with the agent's current port), then detach."""
    port = await agent_port(jvm)
    address = f"{spelling}:{port}"
    body = await mcp.ok("attach_debugger", platform="jvm", address=address)
    attached(jvm)
    assert body["device"] == f"127.0.0.1:{port}", body  # the address that was checked and connected
    assert body["target"]["address"] == f"127.0.0.1:{port}"
    assert body["target"]["requested_address"] == address
    await mcp.ok("detach_debugger", debugSessionId=body["debug_session_id"])


async def test_spellings_of_loopback_attach(shared_jvm: Debuggee) -> None:
    with trio.fail_after(90):
        async with connect() as mcp:
            # "localhost." is not in this machine's hosts file: RFC 6761 makes it loopback all the same.
            for spelling in ("localhost", "LOCALHOST", "localhost.", "127.1", "[::ffff:127.0.0.1]", "2130706433"):
                await attach_and_detach(mcp, shared_jvm, spelling)
        await heartbeats_continue(shared_jvm)


async def test_names_are_resolved_once_and_connected_as_checked(shared_jvm: Debuggee) -> None:
    table = {"jvm-alias": ["127.0.0.1"], "ip6-localhost": ["::1"], "both-families": ["::1", "127.0.0.1"]}
    with trio.fail_after(60), table_resolver(table) as resolver:
        async with connect() as mcp:
            caps = await mcp.ok("get_debugger_capabilities", platform="jvm", address="ip6-localhost:5005")
            assert caps["result"]["prerequisites"]["jvm"]["address"] == "[::1]:5005"
            assert caps["result"]["prerequisites"]["jvm"]["loopback"] is True
            resolver.asked.clear()
            # A hosts-file alias of 127.0.0.1: resolved once, then connected by address (no second lookup).
            await attach_and_detach(mcp, shared_jvm, "jvm-alias")
            assert resolver.asked == ["jvm-alias"]
            # Two loopback addresses: ::1 refuses (the agent listens on 127.0.0.1), the next one answers.
            await attach_and_detach(mcp, shared_jvm, "both-families")
        await heartbeats_continue(shared_jvm)


async def test_a_name_with_any_remote_address_needs_the_flag() -> None:
    table = {"split-horizon": ["127.0.0.1", "192.0.2.7"]}
    with trio.fail_after(20), table_resolver(table):
        async with connect() as mcp:
            for tool in ("get_debugger_capabilities", "attach_debugger"):
                body = await mcp.fails(tool, "INVALID_ARGUMENT", retryable=False, platform="jvm",
                                       address="split-horizon:5005")
                assert "192.0.2.7" in body["error"]["message"] and "--allow-remote-jvm" in body["error"]["message"]
        async with connect(Config(allow_remote_jvm=True)) as mcp:
            caps = await mcp.ok("get_debugger_capabilities", platform="jvm", address="split-horizon:5005")
            assert caps["result"]["prerequisites"]["jvm"]["loopback"] is False


async def test_names_that_do_not_resolve() -> None:
    with trio.fail_after(20), table_resolver({}, hang={"slow-dns"}):
        async with connect() as mcp:
            body = await mcp.fails("attach_debugger", "INVALID_ARGUMENT", retryable=False, platform="jvm",
                                   address="no-such-host:5005")
            assert "does not resolve" in body["error"]["message"]
            # A resolver that never answers: the attach fails on its own bound, within timeoutMs.
            started = trio.current_time()
            body = await mcp.fails("attach_debugger", "DEBUGGER_ATTACH_FAILED", retryable=True, platform="jvm",
                                   address="slow-dns:5005", timeoutMs=1000)
            assert "resolving 'slow-dns'" in body["error"]["message"]
            assert trio.current_time() - started < 1.0


async def test_another_spelling_of_a_held_jvm_is_busy(shared_jvm: Debuggee) -> None:
    table = {"localhost": ["127.0.0.1"], "jvm-alias": ["127.0.0.1"]}
    with trio.fail_after(60), table_resolver(table):
        async with connect() as mcp:
            port = await agent_port(shared_jvm)
            attached_body = await mcp.ok("attach_debugger", platform="jvm", address=f"127.0.0.1:{port}")
            attached(shared_jvm)
            sid = attached_body["debug_session_id"]
            for spelling in ("localhost", "LOCALHOST", "localhost.", "127.1", "[::ffff:127.0.0.1]", "jvm-alias"):
                busy = await mcp.fails("attach_debugger", "DEBUGGER_BUSY", retryable=False, platform="jvm",
                                       address=f"{spelling}:{port}")
                assert sid in busy["error"]["message"] and f"127.0.0.1:{port}" in busy["error"]["message"]
            await mcp.ok("detach_debugger", debugSessionId=sid)
        await heartbeats_continue(shared_jvm)


async def test_a_jvm_held_by_another_debugger(shared_jvm: Debuggee) -> None:
    with trio.fail_after(60):
        port = await agent_port(shared_jvm)
        other = await trio.open_tcp_stream("127.0.0.1", port)  # another debugger: a raw JDWP client
        async with other:
            await other.send_all(HANDSHAKE)
            assert await receive_exactly(other, len(HANDSHAKE)) == HANDSHAKE
            attached(shared_jvm)
            async with connect() as mcp:
                body = await mcp.fails("attach_debugger", "DEBUGGER_ATTACH_FAILED", retryable=False, platform="jvm",
                                       address=f"127.0.0.1:{port}")
                assert "another debugger holds it" in body["error"]["message"]
                assert body["debug_session_id"] is None
        await heartbeats_continue(shared_jvm)  # it left without a command: the JVM runs on


async def receive_exactly(stream: trio.SocketStream, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = await stream.receive_some(size - len(data))
        if not chunk:
            break
        data += chunk
    return data


# --- peers that are not a free JDWP agent -------------------------------------------------------------

async def silent(stream: trio.SocketStream) -> None:
    await trio.sleep_forever()


async def echo(stream: trio.SocketStream) -> None:
    # Our handshake comes back as its answer; so does our first command, which a VM never sends.
    while data := await stream.receive_some(65536):
        await stream.send_all(data)
    await trio.sleep_forever()


async def http(stream: trio.SocketStream) -> None:
    await stream.receive_some(65536)
    await stream.send_all(b"HTTP/1.0 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
    await stream.aclose()


async def hangs_up(stream: trio.SocketStream) -> None:
    await stream.aclose()


PEERS: dict[str, tuple[Callable[[trio.SocketStream], Awaitable[None]], str]] = {
    "silent": (silent, "no JDWP handshake from the peer within 0.5 s"),
    "echo": (echo, "answered the JDWP handshake but not its first command"),
    "http": (http, "its handshake starts b'HTTP/1.0"),
    "hangs-up": (hangs_up, "closed it during the JDWP handshake"),
}


@pytest.mark.parametrize("peer", PEERS)
async def test_a_peer_that_is_not_a_free_jdwp_agent(peer: str) -> None:
    handler, says = PEERS[peer]
    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            listeners = await nursery.start(partial(trio.serve_tcp, handler, 0, host="127.0.0.1"))
            port = listeners[0].socket.getsockname()[1]
            async with connect() as mcp:
                started = trio.current_time()
                body = await mcp.fails("attach_debugger", "DEBUGGER_ATTACH_FAILED", retryable=False,
                                       platform="jvm", address=f"127.0.0.1:{port}", timeoutMs=2000)
                elapsed = trio.current_time() - started
                message = body["error"]["message"]
                assert "JDWP handshake" in message and says in message, message
                assert elapsed < 2.0 and body["debug_session_id"] is None and body["state"] is None
                # Nothing was left behind: no session holds that address (it would answer DEBUGGER_BUSY).
                await mcp.fails("attach_debugger", "DEBUGGER_ATTACH_FAILED", platform="jvm",
                                address=f"127.0.0.1:{port}", timeoutMs=2000)
            nursery.cancel_scope.cancel()


async def test_ipv6_addresses_are_written_in_brackets(shared_jvm: Debuggee) -> None:
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            listeners = await nursery.start(partial(trio.serve_tcp, forwarder(shared_jvm), 0, host="::1"))
            port = listeners[0].socket.getsockname()[1]
            address = f"[::1]:{port}"
            async with connect() as mcp:
                caps = await mcp.ok("get_debugger_capabilities", platform="jvm", address=address)
                assert caps["result"]["prerequisites"]["jvm"]["address"] == address
                body = await mcp.ok("attach_debugger", platform="jvm", address=address)
                assert body["device"] == address and body["target"]["address"] == address
                busy = await mcp.fails("attach_debugger", "DEBUGGER_BUSY", platform="jvm", address=address)
                assert f"attached to {address}" in busy["error"]["message"]
                await mcp.ok("detach_debugger", debugSessionId=body["debug_session_id"])
            nursery.cancel_scope.cancel()
        await heartbeats_continue(shared_jvm)


def forwarder(jvm: Debuggee) -> Callable[[trio.SocketStream], Awaitable[None]]:
    """A byte pump from an IPv6 loopback listener to the JVM's agent (which listens on 127.0.0.1)."""

    async def forward(client: trio.SocketStream) -> None:
        vm = await trio.open_tcp_stream("127.0.0.1", await agent_port(jvm))
        attached(jvm)
        async with client, vm, trio.open_nursery() as nursery:

            async def pump(src: trio.SocketStream, dst: trio.SocketStream) -> None:
                try:
                    while data := await src.receive_some(65536):
                        await dst.send_all(data)
                except trio.BrokenResourceError:
                    pass
                nursery.cancel_scope.cancel()

            nursery.start_soon(pump, client, vm)
            nursery.start_soon(pump, vm, client)

    return forward
