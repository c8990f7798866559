"""A JVM's ``host:port``: parsing, one resolution, the loopback rule, and how an address is written back.

Layer: ``server`` (trio's resolver only; never ``jdwp`` or ``android``). docs/design.md §5.1: a JVM address is
loopback unless the server runs with ``--allow-remote-jvm``, and "one session per device" compares
addresses after resolving.

Why it is done this way:

- A name is resolved once, here, and the connection goes to the addresses that were checked: a second
  resolution could answer differently (DNS rebinding) and reach a host nobody checked.
- Every address a name resolves to must be loopback: a name that resolves to one loopback and one
  remote address could be connected through either.
- ``localhost`` and the names under it (``localhost.``, ``app.localhost``) are loopback by definition
  (RFC 6761 §6.3), but not every resolver knows the trailing-dot form: they are resolved as ``localhost``.
- An IPv4-mapped IPv6 address (``::ffff:127.0.0.1``) is its IPv4 address, for the loopback rule and for
  the session's key alike.
- Ports are ASCII digits: ``str.isdigit`` and ``int`` also accept ``１２３`` (and ``isdigit`` accepts
  ``²``, which ``int`` then refuses).
- IPv6 literals are written in brackets (``[::1]:5005``) both ways: without them ``::1:5005`` is
  ambiguous.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import socket

import trio

from ..answers.failures import ToolFailure

__all__ = ["JvmAddress", "format_address", "is_ascii_number", "normal_ip", "parse_address", "resolve_jvm_address"]

_NOT_FOUND = {socket.EAI_NONAME, getattr(socket, "EAI_NODATA", socket.EAI_NONAME)}


def is_ascii_number(text: str) -> bool:
    """True for one or more ASCII digits and nothing else (no sign, space or other script's digits)."""
    return text.isascii() and text.isdigit()


def format_address(host: str, port: int) -> str:
    """``host:port``, with an IPv6 address in brackets."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def parse_address(address: str) -> tuple[str, int]:
    """Split ``host:port`` or ``[ipv6]:port``; the host is returned without brackets.

    Raises:
        ToolFailure: INVALID_ARGUMENT, naming what is wrong.
    """
    usage = f"address must be host:port (e.g. 127.0.0.1:5005, [::1]:5005), got {address!r}"
    host, sep, port = address.rpartition(":")
    if not sep or not host:
        raise ToolFailure("INVALID_ARGUMENT", usage)
    if host.startswith("[") or host.endswith("]"):
        if not (host.startswith("[") and host.endswith("]")) or len(host) < 3:
            raise ToolFailure("INVALID_ARGUMENT", usage)
        host = host[1:-1]
    elif ":" in host:
        raise ToolFailure("INVALID_ARGUMENT", f"{usage}: an IPv6 address goes in brackets, as in [{host}]:{port}")
    if "[" in host or "]" in host:
        raise ToolFailure("INVALID_ARGUMENT", usage)
    if not is_ascii_number(port) or not 0 < int(port) < 65536:
        raise ToolFailure("INVALID_ARGUMENT", f"{usage}: the port must be ASCII digits from 1 to 65535")
    return host, int(port)


def normal_ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    """An address as a resolver wrote it, with IPv4-mapped IPv6 folded to its IPv4 address.

    Raises:
        ValueError: not an IP address.
    """
    ip = ipaddress.ip_address(text)
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


@dataclasses.dataclass(frozen=True)
class JvmAddress:
    """A JVM address as given, and the addresses it resolved to, every one of them checked."""

    given: str
    port: int
    addresses: tuple[str, ...]  # in the resolver's order of preference; IPv4-mapped folded to IPv4
    loopback: bool  # every address is loopback

    @property
    def text(self) -> str:
        """The first address with its port: what the session reports until it knows which one answered."""
        return format_address(self.addresses[0], self.port)

    def keys(self) -> tuple[str, ...]:
        """Keys of "one session per JVM": one per resolved address, so two spellings of one JVM collide."""
        return tuple(f"jvm:{format_address(a, self.port)}" for a in self.addresses)


async def resolve_jvm_address(address: str, *, allow_remote: bool, timeout: float) -> JvmAddress:
    """Parse, resolve (once, within ``timeout`` seconds) and check a JVM address.

    Raises:
        ToolFailure: INVALID_ARGUMENT (malformed, unknown name, or not loopback without
            ``--allow-remote-jvm``); DEBUGGER_ATTACH_FAILED, retryable (the resolver failed for
            now, or did not answer within ``timeout``).
    """
    host, port = parse_address(address)
    try:
        found = [normal_ip(host)]
        literal = True
    except ValueError:
        found = await _resolve(host, port, timeout)
        literal = False
    remote = [str(ip) for ip in found if not ip.is_loopback]
    if remote and not allow_remote:
        what = (f"{host} is not a loopback address" if literal
                else f"{host} resolves to {', '.join(remote)}, which is not loopback")
        raise ToolFailure("INVALID_ARGUMENT", f"{what}; JDWP has no authentication, so remote JVMs are refused "
                                              "unless the server runs with --allow-remote-jvm")
    return JvmAddress(address, port, tuple(dict.fromkeys(str(ip) for ip in found)), not remote)


async def _resolve(host: str, port: int, timeout: float) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    bare = (host[:-1] if host.endswith(".") else host).lower()
    name = "localhost" if bare == "localhost" or bare.endswith(".localhost") else host
    try:
        with trio.fail_after(timeout):
            answers = await trio.socket.getaddrinfo(name, port, type=socket.SOCK_STREAM)
    except trio.TooSlowError:
        raise ToolFailure("DEBUGGER_ATTACH_FAILED", f"resolving {host!r} took longer than {timeout:g} s; "
                          "try again, or give an IP address", retryable=True) from None
    except socket.gaierror as exc:
        if exc.errno in _NOT_FOUND:
            raise ToolFailure("INVALID_ARGUMENT", f"the host name {host!r} does not resolve ({exc.strerror}); "
                              "give an IP address such as 127.0.0.1, or a name this machine knows") from None
        raise ToolFailure("DEBUGGER_ATTACH_FAILED", f"resolving {host!r} failed: {exc.strerror or exc}",
                          retryable=True) from None
    except (UnicodeError, ValueError) as exc:
        raise ToolFailure("INVALID_ARGUMENT", f"{host!r} is not a valid host name ({exc})") from None
    except OSError as exc:
        raise ToolFailure("DEBUGGER_ATTACH_FAILED", f"resolving {host!r} failed: {exc.strerror or exc}",
                          retryable=True) from None
    found = []
    for *_, sockaddr in answers:
        try:
            found.append(normal_ip(str(sockaddr[0])))
        except ValueError:
            continue  # a family without IP addresses: nothing to connect to
    if not found:
        raise ToolFailure("INVALID_ARGUMENT", f"the host name {host!r} resolves to no IP address")
    return found
