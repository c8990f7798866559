"""docs/agents.md's examples, played: each JSON call block after a ``<!-- journey: NAME -->`` line is made,
call by call, through the MCP server (the SDK's in-memory client) against that journey's program of
``fixtures/journeys`` on OpenJDK 17, and must find the root cause the bench checks for
(``support.agent_journeys``). The blocks are the bench's journeys, so the document shows what
``bench/agent_journeys.py`` measures: a journey changed in one place and not the other fails here.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from pyjdwp_server import Config, build_server
from support import agent_journeys as journeys
from support.live import require_tool

pytestmark = pytest.mark.live

DOC = Path(__file__).resolve().parents[2] / "docs" / "agents.md"
BLOCK = re.compile(r"<!-- journey: ([\w ]+) -->\s*```json\n(.*?)```", re.DOTALL)


def examples() -> dict[str, list[dict[str, Any]]]:
    """Journey name → the calls of its block in docs/agents.md."""
    return {name: json.loads(body) for name, body in BLOCK.findall(DOC.read_text(encoding="utf-8"))}


def test_the_document_shows_each_journey_as_the_bench_plays_it() -> None:
    shown = examples()
    assert sorted(shown) == sorted(j.name for j in journeys.journeys())
    for journey in journeys.journeys():
        assert shown[journey.name] == journey.calls, f"docs/agents.md's {journey.name} block is not the bench's"


@pytest.mark.parametrize("name", ["crash", "wrong value", "freeze", "invoice", "restock"])
async def test_each_example_finds_its_root_cause(journey_classes: Path, name: str) -> None:
    journey = next(j for j in journeys.journeys() if j.name == name)
    async with Client(build_server(Config())) as client:
        played = await journeys.run_journey(client, journey_classes, journey, java=require_tool("java"),
                                            calls=examples()[name])
    assert played.found
    assert played.calls[-1] == "detach_debugger"
