"""Fault injection, CI-sized: the reference journey with each fault at a sample of its packets.

The full matrix (every packet x every fault) is ``python bench/fault_matrix.py``, which writes
docs/reliability.md; this runs seven points spread over the journey (the first and the last packet
included) with all four faults, against one real JVM reused run after run.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import trio

from support.live import require_tool

from .journey import Bench, Outcome, packet_points
from .proxy import FAULTS

SAMPLE = 7


async def test_every_fault_at_sampled_packets_ends_cleanly(java_classes: Path) -> None:
    await run_sampled(java_classes, "reference", SAMPLE, lambda clean: clean.end == "detached (detached)"
                      and clean.packets > 50)


@pytest.mark.parametrize("journey", ["condition", "logpoint", "watch"])
async def test_conditions_and_logpoints_end_cleanly_under_faults(java_classes: Path, journey: str) -> None:
    """The conditional-breakpoint and logpoint-storm journeys (docs/design.md §3.5) at three points each: hits
    judged or logged while the connection fails still leave the VM running and the session named."""
    await run_sampled(java_classes, journey, 3, lambda clean: True)


async def run_sampled(java_classes: Path, journey: str, sample: int, expected: Callable[[Outcome], bool]) -> None:
    """A clean run of ``journey`` (checked by ``expected``), then every fault at ``sample`` packets of it."""
    bench = Bench(java_classes, require_tool("java"))
    failures: list[str] = []
    try:
        with trio.fail_after(110):
            async with trio.open_nursery() as nursery:
                await bench.serve(nursery)
                clean = await bench.run(None, None, journey=journey)
                assert clean.clean and not clean.failed_at, clean
                assert expected(clean), clean
                for point in packet_points(clean.packets, sample):
                    for fault in FAULTS:
                        outcome = await bench.run(point, fault, journey=journey)
                        if not outcome.clean:
                            failures.append(f"packet {point} ({outcome.injected}) {fault}: " + "; ".join(
                                outcome.hangs + outcome.escaped + outcome.unnamed + outcome.leaks))
                nursery.cancel_scope.cancel()
    finally:
        bench.stop()
    assert not failures, "\n".join(failures)
    assert bench.restarts == 0
