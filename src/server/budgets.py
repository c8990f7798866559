"""What an agent pays to read this server, in bytes of compact JSON, and DESIGN.md §8.6's budgets for it.

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
#: attach_debugger's whole answer on a JVM (envelope and result).
ATTACH_ANSWER = Budget(
    "attach_debugger answer (JVM)", 1_200, 1_500,
    "capabilities.operations (~610 B with round 3's watchpoints, method breakpoints and return values), "
    "capabilities.limitations' codes, result.vm.id_sizes and target.requested_address stay in attach's answer: "
    "round 1-2 assertions (tests/server/test_server_exceptions.py, test_server_jvm.py, test_server_addresses.py; "
    "kept by issue 24) assert them there")
#: A session call's envelope without its payload, every spec-025 field present.
SESSION_ENVELOPE = Budget(
    "session call's fixed envelope (JVM)", 200, 260,
    "the nine spec-025 keys alone take 121 B, the clock 13 digits, the JVM's address ~17 B; target "
    '{"platform": "jvm"} and limitations ["no_invocation"] are asserted by tests/server/test_server_jvm.py')
#: A logpoint event's bytes beside what the app names in it (its message, thread, class and method names).
LOGPOINT_OVERHEAD = Budget("logpoint event beside its message and names", 220, 220)

BUDGETS = (TOOL_DEFINITIONS, ATTACH_ANSWER, SESSION_ENVELOPE, LOGPOINT_OVERHEAD)


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
    """Bytes of a logpoint event beside the text the app gave it: its message, thread name, class and
    method names (a longer name costs what it is long; the rest is ours)."""
    location = event.get("location") or {}
    named = [event.get("message"), event.get("thread_name"), location.get("class_name"), location.get("method")]
    return size(event) - sum(size(text) - 2 for text in named if isinstance(text, str))
