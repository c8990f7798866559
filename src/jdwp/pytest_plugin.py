"""The pytest plugin (entry point ``pytest11``, name ``jdwp``): replay tests of code that talks JDWP.

Layer: ``jdwp`` on trio and pytest; loaded by pytest only (nothing in the library imports it).

A test asks for the ``jdwp_replay`` fixture and opens a client on a recording, which plays the VM's side
of the recorded session (:func:`jdwp.open_replay`)::

    async def test_thread_names(jdwp_replay):
        async with jdwp_replay("recordings/threads.jsonl") as vm:
            names = [await vm.thread_reference.name(t) for t in await vm.all_threads()]
        assert "main" in names

Where the code diverges from the recording the test fails with a :class:`jdwp.ReplayMismatch` saying
which command, the recorded one, and the fields that differ (raised again when the block ends, so code
that catches library errors cannot hide it).

``pytest --jdwp-record HOST:PORT`` runs the same tests against the live VM listening at ``HOST:PORT``
(``java -agentlib:jdwp=transport=dt_socket,server=y,address=HOST:PORT``) and writes each recording anew:
bodies decoded, IDs renumbered, no times, so the diff shows what changed. ``--jdwp-max-reply BYTES``
keeps bigger replies in files beside the recording. Paths are relative to the test file's directory.
An ``async def`` test that uses the fixture runs under trio (the plugin marks it for pytest-trio).
"""

from __future__ import annotations

import argparse
import inspect
import io
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from .client import JdwpClient, open_jdwp
from .protocol.errors import ConnectionClosed
from .recording import load_text, save, tidy
from .recording_proxy import parse_address, record_session
from .replay import DEFAULT_STALL_TIMEOUT, open_replay

__all__ = ["JdwpReplay", "jdwp_replay", "pytest_addoption"]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("jdwp", "JDWP replay tests (pyjdwp)")
    group.addoption("--jdwp-record", metavar="HOST:PORT", default=None,
                    help="run the jdwp_replay tests against the live VM at HOST:PORT and write their recordings")
    group.addoption("--jdwp-max-reply", metavar="BYTES", type=int, default=None,
                    help="when recording, keep replies longer than BYTES in files beside the recording")
    group.addoption("--jdwp-stall-timeout", metavar="SECONDS", type=float, default=DEFAULT_STALL_TIMEOUT,
                    help="seconds of silence from the code, while a recording waits for its next command, "
                         f"that make that command 'never sent' (default {DEFAULT_STALL_TIMEOUT:g})")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """An ``async def`` test that asks for ``jdwp_replay`` runs under trio (pytest-trio's ``trio`` marker),
    whether or not the project sets ``trio_mode``."""
    for item in items:
        function = getattr(item, "obj", None)
        if ("jdwp_replay" in getattr(item, "fixturenames", ()) and inspect.iscoroutinefunction(function)
                and item.get_closest_marker("trio") is None):
            item.add_marker(pytest.mark.trio)


class JdwpReplay:
    """What the ``jdwp_replay`` fixture gives a test: call it with a recording's path (relative to the
    test file) for an ``async with`` block that yields a :class:`jdwp.JdwpClient`.

    Attributes:
        recording: whether this run records (``--jdwp-record``) instead of replaying.
    """

    def __init__(self, base: Path, nodeid: str, *, target: str | None, max_reply: int | None,
                 stall_timeout: float) -> None:
        self._base = base
        self._nodeid = nodeid
        self._target = _address(target) if target else None
        self._max_reply = max_reply
        self._stall_timeout = stall_timeout
        self.recording = target is not None

    def __call__(self, path: str | Path, **options: Any) -> AbstractAsyncContextManager[JdwpClient]:
        """Open a client on the recording at ``path`` (or, with ``--jdwp-record``, on the live VM, recording
        to ``path``). ``options`` go to :func:`jdwp.open_jdwp` (``first_requests``…).

        Raises:
            ReplayMismatch: the code diverged from the recording.
            RecordingError: the recording file cannot be read.
        """
        full = self._base / path
        if self._target is not None:
            return self._record(full, self._target, options)
        return open_replay(full, stall_timeout=self._stall_timeout, **options)

    @asynccontextmanager
    async def _record(self, path: Path, target: tuple[str, int], options: dict[str, Any]) -> AsyncIterator[JdwpClient]:
        try:
            vm_stream = await trio.open_tcp_stream(*target)
        except OSError as exc:
            raise ConnectionClosed(f"--jdwp-record: no JDWP agent at {target[0]}:{target[1]} "
                                   f"({exc.strerror or exc})") from None
        debugger_end, proxy_end = trio.testing.memory_stream_pair()
        text = io.StringIO()
        header: dict[str, Any] = {"vm": "", "synthetic": False,
                                  "note": f"recorded by pytest --jdwp-record ({self._nodeid})"}
        async with trio.open_nursery() as nursery:
            nursery.start_soon(record_session, proxy_end, vm_stream, text, {})
            async with open_jdwp(debugger_end, **options) as client:
                header["vm"] = f"{client.version_info.vm_name} {client.version_info.vm_version}"
                yield client
        rec = load_text(text.getvalue(), str(path))
        rec.header = header
        path.parent.mkdir(parents=True, exist_ok=True)
        save(tidy(rec), path, max_reply=self._max_reply)


def _address(text: str) -> tuple[str, int]:
    try:
        return parse_address(text)
    except argparse.ArgumentTypeError as exc:
        raise pytest.UsageError(f"--jdwp-record: {exc}") from None


@pytest.fixture
def jdwp_replay(request: pytest.FixtureRequest) -> JdwpReplay:
    """Replays recordings to the test's code (see :class:`JdwpReplay`); ``--jdwp-record HOST:PORT``
    records them anew against a live VM."""
    config = request.config
    return JdwpReplay(request.path.parent, request.node.nodeid, target=config.getoption("--jdwp-record"),
                      max_reply=config.getoption("--jdwp-max-reply"),
                      stall_timeout=config.getoption("--jdwp-stall-timeout"))
