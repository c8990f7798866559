"""The wire tables in specs/adb/ agree with the codecs (prevents docs drifting from code)."""

from __future__ import annotations

import re
from pathlib import Path

from pyjdwp_android import protocol
from pyjdwp_android.protocol import NEED_DATA, OKAY, Fail, ShellPacket
from pyjdwp_android.track_app import AppProcess, decode_app_processes

SPECS = Path(__file__).resolve().parents[3] / "specs" / "adb"


def _block(name: str, kind: str) -> list[str]:
    text = (SPECS / name).read_text()
    match = re.search(rf"```{kind}\n(.*?)```", text, re.S)
    assert match, f"no {kind} block in {name}"
    return [line for line in match.group(1).splitlines() if line.strip()]


def test_request_table() -> None:
    rows = _block("smart-socket.md", "requests")
    assert len(rows) >= 8
    for row in rows:
        service, wire = row.split()
        assert protocol.encode_request(service) == wire.encode()


def test_reply_transcripts() -> None:
    replies = {}
    for row in _block("smart-socket.md", "replies"):
        name, rest = row.split(None, 1)
        hex_part = re.match(r"((?:[0-9a-f]{2,}\s+)+)", rest + " ")
        assert hex_part
        replies[name] = bytearray(bytes.fromhex(hex_part.group(1)))
    version = replies["version"]
    assert protocol.read_status(version) is OKAY
    assert protocol.parse_version(protocol.read_hex_block(version)) == 41  # type: ignore[arg-type]
    assert protocol.read_status(replies["fail"]) == Fail("closed")
    assert protocol.read_status(replies["fail-empty"]) == Fail("")
    jdwp = replies["track-jdwp"]
    assert protocol.read_status(jdwp) is OKAY
    assert protocol.parse_pid_list(protocol.read_hex_block(jdwp).decode()) == [4242, 4301]  # type: ignore[union-attr]
    shell = replies["shell-v2"]
    assert protocol.read_shell_packet(shell) == ShellPacket(1, b"out")
    assert protocol.read_shell_packet(shell) == ShellPacket(3, b"\x07")
    assert protocol.read_shell_packet(shell) is NEED_DATA


def test_track_app_example() -> None:
    text = (SPECS / "track-app.md").read_text()
    match = re.search(r"Example \(hex\): `([0-9a-f ]+)`", text)
    assert match
    assert decode_app_processes(bytes.fromhex(match.group(1))) == [
        AppProcess(4242, debuggable=True, architecture="arm64")
    ]
