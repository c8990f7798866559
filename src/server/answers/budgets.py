"""What an agent pays to read this server, in bytes of compact JSON, and docs/design.md §5.8's budgets for it.

Layer: ``server`` (arithmetic only: imports nothing of the engine). An agent reads every tool definition on
every turn, and every byte of every answer; these are the sizes that cost it. Measured by
``bench/tool_budget.py``, held by ``tests/unit/test_budgets.py`` (the generated definitions, and answers
built by the server's own code) and ``tests/server/test_server_budgets.py`` (a real JVM session over stdio).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping
from typing import Any

#: The keys of an envelope that carry a call's own answer; the rest is the fixed envelope every call pays.
PAYLOAD_KEYS = ("result", "error", "events", "next_cursor", "overflow", "timed_out")


@dataclasses.dataclass(frozen=True, slots=True)
class Budget:
    """A size an agent pays: the goal, and the ceiling the tests hold (the goal, unless something outside
    this budget's reach keeps it from being met: then ``blocked`` says what)."""

    name: str
    goal: int
    held: int
    blocked: str = ""


#: Every tool's name, description and input schema (compact JSON, as a model is given them), every tool the
#: server lists counted: nineteen took 11.9 KB before issue 36 and take about 7.1 KB since (what every tool
#: shares is said once, in the server's instructions), which leaves room for the tools and inputs of its round.
TOOL_DEFINITIONS = Budget("tool definitions (name, description, inputSchema)", 8_000, 8_000)
#: Guard for per-tool text: a description a model reads every turn (details go to docs/tools.md).
DESCRIPTION_CHARS = 300
#: A field's description: a few words.
FIELD_DESCRIPTION_CHARS = 80
#: attach_debugger's whole answer on a JVM (envelope and result): the session and the resolved target, every
#: envelope field; the operations are get_debugger_capabilities' (1,426 B before issue 36, about 600 since).
ATTACH_ANSWER = Budget("attach_debugger answer (JVM)", 700, 700)
#: A session call's envelope without its payload, every spec-025 field present.
SESSION_ENVELOPE = Budget(
    "session call's fixed envelope (JVM)", 200, 260,
    "the nine spec-025 keys alone take 121 B, the clock 13 digits, the JVM's address ~17 B; target "
    '{"platform": "jvm"} and limitations ["no_invocation"] are asserted by tests/server/test_server_jvm.py')
#: A line logpoint's event beside its message (its thread's name included): about 330 B before issue 36.
LOGPOINT_OVERHEAD = Budget("logpoint event beside its message", 120, 120)
#: A local ``int``'s summary (``{"name": "cut", "type": "int", "value": "2"}``): 77 B before issue 36.
INT_LOCAL = Budget("an int local's summary", 45, 45)

BUDGETS = (TOOL_DEFINITIONS, ATTACH_ANSWER, SESSION_ENVELOPE, LOGPOINT_OVERHEAD, INT_LOCAL)


def size(value: Any) -> int:
    """Bytes of ``value`` as the server writes it: compact JSON, UTF-8, non-ASCII as itself."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())


def model_view(definitions: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The tools as a model sees them: name, description and input schema of each ``tools/list`` entry."""
    return [{"name": d["name"], "description": d.get("description"), "inputSchema": d["inputSchema"]}
            for d in definitions]


def definitions_size(definitions: Iterable[Mapping[str, Any]]) -> int:
    return size(model_view(definitions))


def envelope_size(body: Mapping[str, Any]) -> int:
    """Bytes of an answer's fixed envelope: everything but its payload, with ``cleanup`` as every call of a
    live session has it (``null``): its content is the news of the calls that end a session."""
    fixed = {key: value for key, value in body.items() if key not in PAYLOAD_KEYS}
    if "cleanup" in fixed:
        fixed["cleanup"] = None
    return size(fixed)


def logpoint_overhead(event: Mapping[str, Any]) -> int:
    """Bytes of a logpoint event beside its message's text (the rest, its thread's name too, is ours)."""
    message = event.get("message")
    return size(event) - (size(message) - 2 if isinstance(message, str) else 0)
