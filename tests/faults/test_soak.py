"""Soak, CI-sized: 600 stop/resume cycles through the MCP server on a hot-loop breakpoint.

Asserts what must not grow — the event ring (at most 256), open file descriptors, living trio tasks —
not absolute memory (``python bench/soak.py`` runs 10,000 cycles and reports RSS in docs/reliability.md).
"""

from __future__ import annotations

import trio

from support.jvm import Debuggee

from .soakrun import soak

CYCLES = 600  # past the ring's 256, then as many again


async def test_stop_resume_cycles_grow_nothing(debuggee: Debuggee) -> None:
    with trio.fail_after(60):
        samples = await soak(debuggee.port, CYCLES, every=100)
    assert [s.cycle for s in samples] == list(range(0, CYCLES + 1, 100))
    assert samples[-1].newest == CYCLES  # one stopped event per cycle, none lost or doubled
    assert max(s.ring for s in samples) == 256
    warm = samples[1]  # after the first 100 cycles: connections, caches and the SDK's tasks are all up
    for s in samples[2:]:
        assert s.fds <= warm.fds, samples
        assert s.tasks <= warm.tasks, samples
