"""Record a JDWP session: a transparent loopback proxy between a debugger and a VM.

Layer: ``jdwp`` on trio; frames each direction with the sans-IO :class:`JdwpConnection` so every line of
the recording is a whole packet. Bytes are forwarded as they arrive, before framing, so the proxy adds no
delay beyond a copy and changes nothing.

Command line::

    pyjdwp-record --target 127.0.0.1:5005 --listen 127.0.0.1:0 --out session.jsonl

Point the debugger at the address printed on stdout (``pyjdwp-record: connect the debugger to
127.0.0.1:N``). One debugger connection is recorded, then the proxy exits. The file is then tidied
(:func:`jdwp.recording.tidy`: bodies decoded, IDs renumbered, no times) unless ``--raw``; ``--times``
keeps times, ``--max-reply N`` keeps replies over N bytes in files beside the recording.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import AsyncIterator
from functools import partial
from typing import Any, TextIO

import trio

from .protocol.connection import NEED_DATA, Closed, JdwpConnection, Oversized, State
from .protocol.errors import ProtocolError
from .protocol.wire import DEFAULT_MAX_PACKET, HANDSHAKE, encode_packet
from .recording import IN, OUT, Writer, load, save, tidy

__all__ = ["main", "open_listener", "parse_address", "read_packets", "record_session", "serve_recording_proxy"]


async def open_listener(host: str = "127.0.0.1", port: int = 0) -> trio.SocketListener:
    """One TCP listener on ``host:port`` (port 0: the OS picks one; read it from ``listener.socket``).

    ``trio.open_tcp_listeners`` may open one per address family; a proxy wants exactly one.
    """
    listeners = await trio.open_tcp_listeners(port, host=host)
    for extra in listeners[1:]:
        await extra.aclose()
    return listeners[0]


async def read_packets(stream: trio.abc.Stream, *, max_packet: int = DEFAULT_MAX_PACKET) -> AsyncIterator[bytes]:
    """Yield what one side of a JDWP connection sends: its handshake, then each whole packet, header
    included, byte for byte — for proxies that look at, delay or alter traffic. Ends at end of stream.

    Raises:
        FramingError: the bytes are not JDWP (a wrong handshake, an impossible length).
    """
    framing = JdwpConnection(max_packet)
    while True:
        data = await stream.receive_some(65536)
        handshaking = framing.state is State.AWAIT_HANDSHAKE
        framing.receive_data(data)
        if handshaking and framing.state is State.OPEN:
            yield HANDSHAKE
        while (event := framing.next_event()) is not NEED_DATA:
            if isinstance(event, Closed):
                return
            assert not isinstance(event, Oversized)  # this framing does not skip: an over-cap length raises
            yield encode_packet(event)
        if not data:
            return


async def _pump(source: trio.abc.Stream, sink: trio.abc.Stream, direction: str, writer: Writer) -> None:
    framing = JdwpConnection(DEFAULT_MAX_PACKET)
    try:
        while True:
            data = await source.receive_some(65536)
            if data:
                await sink.send_all(data)
            handshaking = framing.state is State.AWAIT_HANDSHAKE
            framing.receive_data(data)
            if handshaking and framing.state is State.OPEN:
                writer.handshake(direction)
            while (event := framing.next_event()) is not NEED_DATA:
                if isinstance(event, Closed):
                    return
                assert not isinstance(event, Oversized)  # this framing does not skip: an over-cap length raises
                writer.packet(direction, event, encode_packet(event))
            if not data:
                return
    except ProtocolError as exc:
        print(f"pyjdwp-record: {direction}: {exc}; recording stops here", file=sys.stderr)
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        pass
    finally:
        await trio.aclose_forcefully(sink)


async def record_session(debugger: trio.abc.Stream, vm: trio.abc.Stream, out: TextIO,
                         header: dict[str, Any], *, times: bool = False) -> None:
    """Relay one session between two open streams, writing every packet to ``out`` as it passes (times
    only when ``times``)."""
    writer = Writer(out, header, times=times)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_pump, debugger, vm, OUT, writer)
        nursery.start_soon(_pump, vm, debugger, IN, writer)


async def serve_recording_proxy(listen_host: str, listen_port: int, target_host: str, target_port: int,
                                 out: TextIO, header: dict[str, Any], *, times: bool = False,
                                 task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
    """Accept one debugger on ``listen_host:listen_port``, connect it to the target VM, record the session.

    ``task_status.started`` reports the port actually bound (useful with port 0).
    """
    listener = await open_listener(listen_host, listen_port)
    async with listener:
        task_status.started(listener.socket.getsockname()[1])
        debugger = await listener.accept()
    vm = await trio.open_tcp_stream(target_host, target_port)
    await record_session(debugger, vm, out, header, times=times)


def parse_address(text: str) -> tuple[str, int]:
    """``host:port`` (``:port`` means 127.0.0.1) as a pair; ``argparse.ArgumentTypeError`` for anything else."""
    host, sep, port = text.rpartition(":")
    if not sep or not (port.isascii() and port.isdigit()):
        raise argparse.ArgumentTypeError(f"expected host:port, got {text!r}")
    return host or "127.0.0.1", int(port)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="pyjdwp-record", description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", type=parse_address, required=True, help="the VM's JDWP address, host:port")
    parser.add_argument("--listen", type=parse_address, default=("127.0.0.1", 0),
                        help="where the debugger connects (default 127.0.0.1:0, a free port)")
    parser.add_argument("--out", required=True, help="the recording file to write (JSON lines)")
    parser.add_argument("--vm", default="", help="what VM this is, for the header (e.g. 'OpenJDK 17.0.15')")
    parser.add_argument("--note", default="", help="what the session does, for the header")
    parser.add_argument("--times", action="store_true", help="keep each packet's time (seconds since the start)")
    parser.add_argument("--raw", action="store_true",
                        help="keep the file as recorded: no decoded bodies, IDs as the VM gave them")
    parser.add_argument("--max-reply", type=int, default=None, metavar="BYTES",
                        help="keep replies longer than BYTES in files beside the recording (<stem>.blobs/)")
    args = parser.parse_args(argv)
    header = {"vm": args.vm, "synthetic": False, "note": args.note}

    async def run() -> None:
        with open(args.out, "w", encoding="utf-8") as out:
            async with trio.open_nursery() as nursery:
                port = await nursery.start(partial(serve_recording_proxy, times=args.times), args.listen[0],
                                           args.listen[1], args.target[0], args.target[1], out, header)
                # stdout: the one line a script waits for; diagnostics go to stderr
                print(f"pyjdwp-record: connect the debugger to {args.listen[0]}:{port}", flush=True)

    trio.run(run)
    if not args.raw or args.max_reply is not None:
        rec = load(args.out)
        save(rec if args.raw else tidy(rec, times=args.times), args.out, max_reply=args.max_reply)
    return 0


if __name__ == "__main__":
    sys.exit(main())
