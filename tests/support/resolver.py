"""A hostname resolver answered from a table, installed through trio's own hook.

Tests cannot add a hosts-file alias or a DNS record, and must never ask real DNS: this stands in for the
system resolver (``trio.socket.set_custom_hostname_resolver``, which trio consults for names only; IP
literals never reach it). It records every name it is asked, so a test can prove a name was resolved once.
"""

from __future__ import annotations

import socket
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import trio


class TableResolver(trio.abc.HostnameResolver):
    def __init__(self, table: Mapping[str, Iterable[str]], *, hang: Iterable[str] = ()) -> None:
        self.table = {name: list(addresses) for name, addresses in table.items()}
        self.hang = set(hang)
        self.asked: list[str] = []

    async def getaddrinfo(self, host: bytes | None, port: bytes | str | int | None, family: int = 0,
                          type: int = 0, proto: int = 0, flags: int = 0) -> list[Any]:
        name = host.decode("ascii") if isinstance(host, bytes) else str(host)
        self.asked.append(name)
        if name in self.hang:
            await trio.sleep_forever()
        if name not in self.table:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        number = int(port or 0)
        return [(socket.AF_INET6, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (a, number, 0, 0)) if ":" in a
                else (socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (a, number))
                for a in self.table[name]]

    async def getnameinfo(self, sockaddr: tuple[str, int] | tuple[str, int, int, int], flags: int) -> tuple[str, str]:
        raise socket.gaierror(socket.EAI_NONAME, "the table resolver answers getaddrinfo only")


@contextmanager
def table_resolver(table: Mapping[str, Iterable[str]], *, hang: Iterable[str] = ()) -> Iterator[TableResolver]:
    """Resolve names from ``table`` (and never answer those in ``hang``) in this trio run, then restore."""
    resolver = TableResolver(table, hang=hang)
    previous = trio.socket.set_custom_hostname_resolver(resolver)
    try:
        yield resolver
    finally:
        trio.socket.set_custom_hostname_resolver(previous)
