"""``bench/agent_journeys.py`` in its sample mode (one run of each journey), as CI runs it: pyjdwp-mcp over
stdio (the SDK's client, this checkout's sources), the three programs of ``fixtures/journeys`` on
OpenJDK 17, each journey played as its shortest call sequence and, for comparison, as its round-2 one.

Every journey must end with its root cause read out of the answers (``support.agent_journeys``: the
voucher's discount times the quantity; fewer samples counted than divided by; both tellers in one
deadlock cycle) and its program running on after the detach. Calls and bytes are held at each
journey's budget (``BUDGETS``: issue 36's), or where a journey says what blocks it, at the figure measured
when it last changed (so a regression shows, and the bench prints how far the budget still is). The
crash's capture must show the voucher with its preview.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from support import agent_journeys as journeys
from support.live import require_tool

pytestmark = pytest.mark.live

BENCH = Path(__file__).resolve().parents[2] / "bench"


def bench_module() -> ModuleType:
    """bench/agent_journeys.py as a module (bench/ first on the path: it imports its ``common``)."""
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    spec = importlib.util.spec_from_file_location("agent_journeys_bench", BENCH / "agent_journeys.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


async def test_the_bench_in_sample_mode_finds_every_root_cause(journey_classes: Path) -> None:
    bench = bench_module()
    shortest, baseline, tools, prompts = await bench.run(journey_classes, 1, require_tool("java"))
    for journey in journeys.journeys():
        if not journey.blocked:  # a budget not held must say why
            assert journey.held is None, journey.name
        (played,) = shortest[journey.name]
        assert played.found, journey.name
        assert len(played.calls) <= journey.held_calls, (journey.name, played.calls)
        assert played.bytes <= journey.held_bytes, (journey.name, played.sizes)
        assert played.calls[0] == "attach_debugger" and played.calls[-1] == "detach_debugger"
        if journey.baseline:
            (before,) = baseline[journey.name]
            assert before.found and len(before.calls) > len(played.calls), (journey.name, before.calls)
    # The crash's capture: frame 0's locals, objects with their previews (capture reads with the previews).
    (crash,) = shortest["crash"]
    voucher = next(v for item in journeys.walk(crash.answers) for v in item.get("locals") or ()
                   if isinstance(v, dict) and v.get("name") == "voucher")
    assert voucher["preview"] == 'Voucher(code="SPRING5", cents=500)', voucher
    assert 0 < prompts < tools
    text = "\n".join(table.text() for table in bench.tables(shortest, baseline, tools, prompts, 1))
    assert all(journey.name in text for journey in journeys.journeys())
    assert bench.failures(shortest, tools) == []  # what the bench exits 1 for
