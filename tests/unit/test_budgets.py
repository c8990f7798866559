"""docs/design.md §5.8's budgets, computed on what the code generates (no JVM): the tool definitions a model is
given, and the answers the server's own code builds for a JVM session (the envelope every call pays,
attach's answer, value summaries, logpoint events). tests/server/test_server_budgets.py measures the same
on a real session over stdio; bench/tool_budget.py prints them against the goals.
"""

from __future__ import annotations

import secrets
from typing import Any

from jdwp import IdSizes
from jdwp.debugger import BoundLocation, Breakpoint, Local, Locals, LogpointHit, SourcePosition, Stop
from pyjdwp_server.answers import budgets
from pyjdwp_server.answers.capabilities import CAPABILITIES
from pyjdwp_server.answers.envelope import envelope, jsonable
from pyjdwp_server.answers.results import JvmTarget, VmFacts, placed_by_breakpoint
from pyjdwp_server.answers.tool_list import listed_tools
from pyjdwp_server.answers.tool_schemas import definitions
from pyjdwp_server.app import INSTRUCTIONS
from pyjdwp_server.session.config import Config
from pyjdwp_server.session.debug_session import DebugSession
from pyjdwp_server.session.ring import EventRing
from pyjdwp_server.tools import TOOLS
from pyjdwp_server.tools.attach_debugger import _attached
from pyjdwp_server.transport.handling import session_fields

ENVELOPE_KEYS = {"success", "debug_session_id", "device", "target", "state", "captured_at_ms", "capabilities",
                 "limitations", "cleanup"}
ADDRESS = "127.0.0.1:50711"  # an ephemeral port: as long as a JVM's address gets


def test_all_tool_definitions_fit_the_budget() -> None:
    # Every tool the server lists (tools/list answers tool_list.json), and every tool of the table: a tool
    # added to one and not the other is caught by tests/unit/test_tool_list.py, and counted here either way.
    listed = [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in listed_tools()]
    assert {tool["name"] for tool in listed} == {tool.name for tool in TOOLS}
    for definitions_ in (listed, definitions()):
        total = budgets.definitions_size(definitions_)
        assert total <= budgets.TOOL_DEFINITIONS.held, f"{total} B of tool definitions for {len(definitions_)} tools"


def _field_descriptions(schema: Any) -> list[str]:
    found = []
    if isinstance(schema, dict):
        for prop in schema.get("properties", {}).values():
            if "description" in prop:
                found.append(prop["description"])
            found += _field_descriptions(prop)
    return found


def test_descriptions_are_short_and_details_are_in_the_docs() -> None:
    for tool in definitions():
        assert len(tool["description"]) <= budgets.DESCRIPTION_CHARS, tool["name"]
        for text in _field_descriptions(tool["inputSchema"]):
            assert len(text) <= budgets.FIELD_DESCRIPTION_CHARS, (tool["name"], text)
    # What every tool shares is said once, in the server's instructions.
    for shared in ("timeoutMs 100-30000", "unknown fields rejected", "docs/tools.md", "DEBUGGER_STALE_REFERENCE",
                   "without a type is a string", "capture (breakpoints, steps, resume) is {stack"):
        assert shared in INSTRUCTIONS


class _Session(DebugSession):
    """A JVM session as the envelope sees it once attached (no engine: its state is given)."""

    shown_state = "running"

    @property
    def state(self) -> Any:
        return self.shown_state


def _jvm_session() -> _Session:
    session = _Session(f"dbg-{secrets.token_hex(6)}", ADDRESS, Config())
    session.device = ADDRESS
    session.target = JvmTarget("jvm", ADDRESS, ADDRESS, VmFacts(
        "OpenJDK 64-Bit Server VM", "17.0.15", "17.0", IdSizes(8, 8, 8, 8, 8)))
    return session


async def test_a_session_calls_envelope() -> None:
    session = _jvm_session()
    session.shown_state = "paused"
    body = envelope(session_fields(session, full=False), result={"breakpoint_id": "s1-bp-1", "removed": True})
    assert ENVELOPE_KEYS <= body.keys()  # every spec-025 field, in its short form
    assert body["target"] == {"platform": "jvm"} and body["capabilities"] == {"profile": CAPABILITIES.profile}
    assert budgets.envelope_size(body) <= budgets.SESSION_ENVELOPE.held, body


async def test_attach_says_each_thing_once_and_only_what_applies() -> None:
    session = _jvm_session()
    body = envelope(session_fields(session, full=True), result=_attached(session))
    assert ENVELOPE_KEYS <= body.keys()
    text = budgets.size(body), str(body)
    assert text[1].count("id_sizes") == 1  # the VM's facts: result.vm only
    assert text[1].count(session.id) == 1  # the session: the envelope's debug_session_id only
    assert "vm" not in body["target"] and body["result"]["vm"]["name"] == "OpenJDK 64-Bit Server VM"
    assert body["target"] == {"platform": "jvm", "address": ADDRESS}  # resolved as asked: no requested_address
    assert "target" not in body["result"]  # the envelope's
    # The operations, limits and the profile's limitations are get_debugger_capabilities' answer.
    assert body["capabilities"] == {"profile": CAPABILITIES.profile}
    assert not any("ANR" in limitation for limitation in body["limitations"])  # Android's, not a JVM's
    assert budgets.size(body) <= budgets.ATTACH_ANSWER.held, body


def test_value_summaries_carry_no_key_that_does_not_apply() -> None:
    number = jsonable(Local("cut", "int", "primitive", "2"))
    assert number == {"name": "cut", "type": "int", "value": "2"}  # the type says primitive; nothing was cut
    assert budgets.size(number) <= budgets.INT_LOCAL.held
    assert jsonable(Local("s", "java.lang.String", "null", None)) == {
        "name": "s", "type": "java.lang.String", "kind": "null"}  # only the kind says null
    text = jsonable(Local("s", "java.lang.String", "string", "", length=0, object_id="s1-obj-2",
                          runtime_type="java.lang.String"))
    assert text == {"name": "s", "type": "java.lang.String", "value": "", "length": 0,
                    "object_id": "s1-obj-2"}  # an empty string's length applies; its runtime type is the declared
    wider = jsonable(Local("o", "java.lang.Object", "string", "x", length=1, object_id="s1-obj-3",
                           runtime_type="java.lang.String"))
    assert wider["runtime_type"] == "java.lang.String" and "kind" not in wider  # the runtime type says string
    thing = jsonable(Local("w", "com.x.Worker", "object", None, object_id="s1-obj-4", runtime_type="com.x.Worker",
                           preview="Worker()"))
    assert thing == {"name": "w", "type": "com.x.Worker", "object_id": "s1-obj-4", "preview": "Worker()"}
    cut = jsonable(Local("t", "java.lang.String", "string", "a" * 256, truncated=True, length=300,
                         object_id="s1-obj-5"))
    assert cut["truncated"] is True and cut["length"] == 300
    sized = jsonable(Local("n", "int[]", "array", None, length=3, object_id="s1-obj-6", runtime_type="int[]"))
    assert sized == {"name": "n", "type": "int[]", "length": 3, "object_id": "s1-obj-6"}
    assert jsonable(Locals("available", (Local("cut", "int", "primitive", "2"),))) == {
        "availability": "available", "locals": [number]}  # no this: null, reason: null, truncated: false


def test_a_stop_says_its_reasons_only_when_there_are_several() -> None:
    where = SourcePosition("com.x.Main", "run", "Main.java", 12, 4)
    one = jsonable(Stop("s1-stop-1", ("breakpoint",), "s1-stop-1.t1", "main", where, ("s1-bp-1",)))
    assert one["reason"] == "breakpoint" and "reasons" not in one
    two = jsonable(Stop("s1-stop-2", ("step", "breakpoint"), "s1-stop-2.t1", "main", where, ("s1-bp-1",)))
    assert (two["reason"], two["reasons"]) == ("step", ["step", "breakpoint"])


async def test_a_logpoint_event_is_lean() -> None:
    ring = EventRing()
    where = SourcePosition("com.example.debuggee.Worker", "step", "Worker.java", 19, 99)
    hit = LogpointHit("s1-bp-1", "DefaultDispatcher-worker-12", where, "total=-500 for voucher x1 (40 chars)...",
                      captured_at_ms=1796236888096)
    bound = BoundLocation(where.class_name, where.method, where.source, 19, 99, "0x233")
    breakpoint = Breakpoint("s1-bp-1", where.class_name, 19, "verified", (bound,))
    for _ in range(999):
        ring.append("logpoint", logpoint=hit, placed=placed_by_breakpoint(hit, breakpoint))
    event = jsonable(ring.append("logpoint", logpoint=hit, placed=placed_by_breakpoint(hit, breakpoint)))
    # Its breakpoint's answer says where; the sequence orders it; no hit was dropped.
    assert event == {"sequence": 1000, "kind": "logpoint", "message": hit.message, "breakpoint_id": "s1-bp-1",
                     "thread_name": "DefaultDispatcher-worker-12"}
    assert budgets.logpoint_overhead(event) <= budgets.LOGPOINT_OVERHEAD.held, event
    # Elsewhere than the breakpoint's own locations (a watchpoint's access, inlined code), it says where.
    elsewhere = jsonable(ring.append("logpoint", logpoint=hit, placed=placed_by_breakpoint(hit, None)))
    assert elsewhere["location"] == {"class_name": "com.example.debuggee.Worker", "method": "step", "line": 19}
