"""The debugger engine replayed from OpenJDK 17 recordings: the same flows as the live tests, no JVM needed.

The recordings (``fixtures/recordings/openjdk-17/engine_*.jsonl``) were made by ``record_fixtures.py``
running ``debugger_scenarios.py`` through the recording proxy; their header holds what the engine
reported then. Replaying runs the engine over a memory stream against :class:`jdwp.replay.ReplayVm`
(whole packets and a one-byte trickle) and must give the same results and play every recorded packet.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing
from debugger_scenarios import DEBUGGER_SCENARIOS
from test_replay import trickle_stream_pair

import jdwp
from jdwp import recording
from jdwp.debugger import EngineClosed, Terminated, open_debugger
from jdwp.replay import ReplayVm

RECORDINGS = Path(__file__).resolve().parents[2] / "fixtures" / "recordings" / "openjdk-17"
LAZY = "com.example.debuggee.Lazy"


async def replay(name: str, *, trickle: bool = False) -> tuple[recording.Recording, dict[str, Any], ReplayVm]:
    rec = recording.load(RECORDINGS / f"{name}.jsonl")
    assert rec.header["scenario"] == name and not rec.synthetic

    async def no_control(command: str) -> None:
        pass  # the recording already holds what the debuggee did

    debugger_end, vm_end = trickle_stream_pair() if trickle else trio.testing.memory_stream_pair()
    vm = ReplayVm(rec)
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(vm.serve, vm_end)
            async with jdwp.open_jdwp(debugger_end) as client:
                summary = await DEBUGGER_SCENARIOS[name](client, no_control, **rec.header["options"])
    assert vm.result.mismatch is None, vm.result.mismatch
    assert vm.result.complete, f"played {vm.result.played} of {vm.result.total}"
    return rec, summary, vm


@pytest.mark.parametrize("trickle", [False, True], ids=["whole", "one-byte-trickle"])
@pytest.mark.parametrize("name", sorted(DEBUGGER_SCENARIOS))
async def test_engine_replays_to_the_recorded_results(name: str, trickle: bool) -> None:
    rec, summary, _ = await replay(name, trickle=trickle)
    assert summary == rec.header["expected"]


async def test_journey_pending_bind_stop_stack_locals_step_resume_detach() -> None:
    rec, summary, _ = await replay("engine_journey")
    line = rec.header["options"]["lazy_line"]
    assert summary["set"]["status"] == "pending" and summary["set"]["locations"] == []
    kinds = [e["kind"] for e in summary["events"]]
    assert kinds == ["breakpoint_verified", "stopped", "stopped", "stopped", "terminated"]
    verified, hit, stepped, again, ended = summary["events"]
    (location,) = verified["breakpoint"]["locations"]
    assert (location["class_name"], location["method"], location["line"]) == (LAZY, "run", line)

    assert hit["stop"]["reason"] == "breakpoint" and "reasons" not in hit["stop"]  # one reason: said once
    assert hit["stop"]["breakpoint_ids"] == ["bp-1"]
    assert hit["stop"]["location"]["line"] == line and hit["stop"]["thread_name"] == "main"
    frames = summary["stack"]["frames"]
    assert [(f["class_name"], f["method"]) for f in frames[:2]] == [(LAZY, "run"),
                                                                    ("com.example.debuggee.Main", "main")]
    assert frames[0]["frame_id"] == f"{hit['stop']['thread_id']}.f0"
    assert summary["stack"]["total"] == len(frames) and summary["stack"]["next_offset"] is None
    hit_locals = {local["name"]: local for local in summary["locals"]["locals"]}
    assert summary["locals"]["availability"] == "available"
    # The declared types say the kinds (answers leave such a kind out): an object, a string, an array.
    assert summary["locals"]["this"]["type"] == LAZY and summary["locals"]["this"]["object_id"]
    assert "kind" not in summary["locals"]["this"]
    assert hit_locals["label"]["type"] == "java.lang.String" and hit_locals["label"]["value"].startswith("run ")
    assert hit_locals["history"]["type"].endswith("[]") and hit_locals["history"]["length"] >= 1
    assert "i" in {local["name"] for local in summary["caller_locals"]["locals"]}

    assert stepped["stop"]["reason"] == "step" and stepped["stop"]["breakpoint_ids"] == []
    assert stepped["stop"]["location"]["line"] == line + 1 and stepped["stop"]["stop_id"] == "stop-2"
    assert again["stop"]["reason"] == "breakpoint" and again["stop"]["location"]["line"] == line
    assert summary["cleanup"] == {"status": "complete", "execution_state": "running"}  # empty lists left out
    assert ended["reason"] == "detached" and summary["state"] == "detached"


async def test_two_loaders_bind_one_breakpoint_twice() -> None:
    _, summary, _ = await replay("engine_two_loaders")
    verified = [e["breakpoint"] for e in summary["events"] if e["kind"] == "breakpoint_verified"]
    assert [len(bp["locations"]) for bp in verified] == [1, 2]
    first, both = verified
    assert both["locations"][0] == first["locations"][0]
    loaders = {location["class_loader_id"] for location in both["locations"]}
    assert len(loaders) == 2
    assert {(loc["class_name"], loc["method"], loc["code_index"]) for loc in both["locations"]} == {
        (LAZY, "run", first["locations"][0]["code_index"])}
    stops = [e["stop"] for e in summary["events"] if e["kind"] == "stopped"]
    assert len(stops) >= 2 and all(stop["breakpoint_ids"] == ["bp-1"] for stop in stops)
    assert [stop["stop_id"] for stop in stops] == [f"stop-{n}" for n in range(1, len(stops) + 1)]
    assert len(set(summary["receivers"])) == 2  # each copy of the class stopped
    assert summary["breakpoints"] == []
    assert summary["cleanup"]["status"] == "complete" and summary["events"][-1]["reason"] == "detached"


async def test_kotlin_inline_code_binds_stops_and_reads_as_written() -> None:
    rec, summary, _ = await replay("engine_kotlin")
    options = rec.header["options"]
    app, late = "com.example.kt.AppKt", "com.example.kt.Late"
    inline = summary["set_inline"]
    assert inline["status"] == "verified" and inline["file"].endswith("com/example/kt/Inline.kt")
    assert inline["class_name"] is None and len(inline["locations"]) == 3
    assert {(loc["class_name"], loc["source"], loc["line"], loc["inlined"]) for loc in inline["locations"]} == {
        (app, "Inline.kt", options["square_line"], True)}
    top = summary["inline_stack"]["frames"][0]
    assert (top["class_name"], top["method"], top["source"], top["line"], top["inlined"]) == (
        "com.example.kt.InlineKt", "square", "Inline.kt", options["square_line"], True)
    real = summary["inline_stack"]["frames"][3]  # below square, the lambda and twice: round at its call
    assert (real["class_name"], real["method"], real["frame_id"]) == (app, "round", "stop-1.t1.f0")
    assert "inlined" not in real  # only shown when true
    names = [local["name"] for local in summary["inline_locals"]["locals"]]
    assert names and not [n for n in names if n.startswith("$i$") or n.endswith("$iv")]
    captured = {local["name"]: local for local in summary["lambda_locals"]["locals"] if local.get("captured")}
    assert set(captured) == {"base", "point"} and captured["base"]["value"] == "3"
    assert summary["set_cube"]["status"] == "rejected"
    kinds = [event["kind"] for event in summary["events"]]
    assert kinds == ["stopped", "stopped", "breakpoint_verified", "stopped", "terminated"]
    (location,) = summary["events"][2]["breakpoint"]["locations"]
    assert (location["class_name"], location["source"], location["line"], location["inlined"]) == (
        late, "Inline.kt", options["cube_line"], True)
    late_top, late_real = summary["late_stack"]["frames"][:2]
    assert (late_top["class_name"], late_top["source"], late_top["line"], late_top["inlined"]) == (
        "com.example.kt.InlineKt", "Inline.kt", options["cube_line"], True)
    assert (late_real["class_name"], late_real["source"], late_real.get("inlined")) == (late, "Late.kt", None)
    assert summary["cleanup"]["status"] == "complete" and summary["state"] == "detached"


async def test_a_different_conversation_is_a_mismatch_not_a_hang() -> None:
    """The replay pins the engine's requests: asking what the recording lacks fails, and quickly."""
    rec = recording.load(RECORDINGS / "engine_journey.jsonl")
    debugger_end, vm_end = trio.testing.memory_stream_pair()
    vm = ReplayVm(rec)
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(vm.serve, vm_end)
            async with jdwp.open_jdwp(debugger_end) as client:
                async with open_debugger(client) as debugger:
                    with pytest.raises((jdwp.ConnectionClosed, jdwp.CommandTimeout)):
                        await debugger.set_breakpoint("com.example.Other", 3)
                    ended = await debugger.events.receive()
                    assert isinstance(ended, Terminated) and ended.reason == "disconnected"
                    with pytest.raises(EngineClosed):
                        await debugger.set_breakpoint(LAZY, 3)
    assert vm.result.mismatch is not None
