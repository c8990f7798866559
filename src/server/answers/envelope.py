"""The response envelope every tool returns, its output schema, and the one place answers become JSON.

Layer: ``server``. docs/design.md §5.2: every response is ``{success, debug_session_id, device, target, state,
captured_at_ms, capabilities, limitations, cleanup, result?, error?}`` (a wait puts its events beside
them). :class:`Envelope` is that shape, typed; :func:`jsonable` turns it — and everything in it — into
JSON values in one pass, making every string JSON-safe (:func:`json_text`); :func:`output_schema`
derives each tool's output schema from the same types.
"""

from __future__ import annotations

import dataclasses
import enum
import re
import time
import types
from collections.abc import Callable, Mapping
from typing import Any, cast, get_args

from pydantic import TypeAdapter

from jdwp.debugger import Cleanup

from .failures import ErrorBody
from .results import (
    CapabilitiesRef,
    EventsPage,
    RingEvent,
    SessionState,
    Target,
    TargetRef,
    optional,
)
from .tool_words import WORDED_FIELDS, in_tool_words


@dataclasses.dataclass(frozen=True, slots=True)
class SessionFields:
    """The session fields of an envelope (all ``None`` before a session exists)."""

    debug_session_id: str | None = None
    device: str | None = None
    target: Target | TargetRef | None = None
    state: SessionState | None = None
    capabilities: CapabilitiesRef | None = None
    limitations: tuple[str, ...] | None = None
    cleanup: Cleanup | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class Envelope:
    success: bool
    debug_session_id: str | None
    device: str | None
    target: Target | TargetRef | None
    state: SessionState | None
    captured_at_ms: int
    capabilities: CapabilitiesRef | None
    limitations: tuple[str, ...] | None
    cleanup: Cleanup | None
    result: Any = optional()
    error: ErrorBody | None = optional()
    events: tuple[RingEvent, ...] | None = optional()
    next_cursor: int | None = optional()
    overflow: bool | None = optional()
    timed_out: bool | None = optional()


@dataclasses.dataclass(frozen=True, slots=True)
class Answer:
    """One call's answer before MCP framing: the envelope as JSON values (the structured content) and as
    the JSON text of the first content block."""

    body: dict[str, Any]
    text: str

    @property
    def is_error(self) -> bool:
        return not self.body["success"]


def now_ms() -> int:
    return int(time.time() * 1000)


def envelope(fields: SessionFields, *, result: Any = None, error: ErrorBody | None = None) -> dict[str, Any]:
    """The answer to one call, as JSON values: ``result`` (an :class:`EventsPage` stands beside the
    envelope's fields instead), or ``error``."""
    page = result if isinstance(result, EventsPage) else None
    body = Envelope(
        error is None, fields.debug_session_id, fields.device, fields.target, fields.state, now_ms(),
        fields.capabilities, fields.limitations, fields.cleanup,
        result=None if page is not None else result, error=error,
        events=page.events if page else None, next_cursor=page.next_cursor if page else None,
        overflow=page.overflow if page else None, timed_out=page.timed_out if page else None)
    answer: dict[str, Any] = jsonable(body)  # the one pass that turns the whole answer into JSON values and text
    return answer


# --- JSON ------------------------------------------------------------------------------------------

_SURROGATES = re.compile("[\ud800-\udbff][\udc00-\udfff]|[\ud800-\udfff]")


def _surrogate_text(match: re.Match[str]) -> str:
    found = match.group()
    if len(found) == 2:  # a well-formed pair that arrived as two code points: the character it encodes
        return chr(0x10000 + ((ord(found[0]) - 0xD800) << 10) + (ord(found[1]) - 0xDC00))
    return f"\\u{ord(found):04X}"


def json_text(text: str) -> str:
    """Java text as JSON-safe text: each lone UTF-16 surrogate becomes the six characters ``\\uXXXX``.

    Java strings, chars and names are UTF-16 and may hold unpaired surrogates (``'\\uD83D'`` is a legal
    ``char``). Python keeps them as lone surrogate code points, which no UTF-8 encoder accepts: the SDK's
    serialisation and the stdout writer would fail on them and take the answer, or the server, down.
    So an answer carries each one escaped, visibly, as JSON itself would write it (``x\\uD800y``), never
    dropped; well-formed pairs stay the real character. The library (``jdwp.debugger``) keeps the real
    text: this is the server's representation, applied once, by :func:`jsonable`, to every string.
    """
    if text.isascii() or _SURROGATES.search(text) is None:
        return str(text)  # a plain str, not a subclass such as the wire's WireString
    return _SURROGATES.sub(_surrogate_text, text)


_KEEP, _OMIT_NONE, _OMIT_EMPTY = 0, 1, 2
#: When a field is left out: one of the three rules, or a predicate of the record (``omit_when`` metadata).
_Rule = int | Callable[[Any], bool]
_FIELDS: dict[type, tuple[tuple[str, _Rule], ...]] = {}
_SCALARS = frozenset({bool, int, float, type(None)})


def _rule_of(field: dataclasses.Field[Any]) -> _Rule:
    said = field.metadata.get("omit_when")
    if said is not None:
        return cast(Callable[[Any], bool], said)
    return _OMIT_EMPTY if field.metadata.get("omit_empty") else _OMIT_NONE if field.metadata.get("omit_none") else _KEEP


def _fields_of(cls: type) -> tuple[tuple[str, _Rule], ...]:
    """A record type's field names, each with when it is left out (cached per type)."""
    found = _FIELDS.get(cls)
    if found is None:
        found = _FIELDS[cls] = tuple((f.name, _rule_of(f)) for f in dataclasses.fields(cls))
    return found


def _left_out(record: Any, value: Any, rule: _Rule) -> bool:
    if rule == _KEEP:
        return False
    if not isinstance(rule, int):
        return rule(record)  # what the record's other fields already say
    if value is None:
        return True
    # An empty collection, or a flag that is off (``inlined``, ``captured``); never ``0``.
    return rule == _OMIT_EMPTY and (value is False or (isinstance(value, tuple | list | dict) and not value))


def jsonable(obj: Any) -> Any:
    """Records, tuples, enums and mappings as JSON values (field names unchanged), every string made
    JSON-safe by :func:`json_text`. A field whose metadata says ``omit_none`` is left out while ``None``;
    ``omit_empty``, also while an empty collection or ``False`` (a flag that is off; never for ``0``);
    ``omit_when``, when its predicate of the record says the other fields say it already.

    Every answer goes through here once, so the common cases are tested first, by exact type.
    """
    kind = type(obj)
    if kind is str:
        return obj if obj.isascii() else json_text(obj)
    if kind in _SCALARS:
        return obj
    rules = _FIELDS.get(kind)
    if rules is not None or (dataclasses.is_dataclass(obj) and not isinstance(obj, type)):
        out = {}
        for name, rule in rules or _fields_of(kind):
            value = getattr(obj, name)
            if rule == _KEEP or not _left_out(obj, value, rule):
                if name in WORDED_FIELDS and type(value) is str:
                    value = in_tool_words(value)
                out[name] = jsonable(value)
        return out
    if kind is tuple or kind is list:
        return [jsonable(v) for v in obj]
    if isinstance(obj, str):
        return json_text(obj)  # a str subclass (the wire's WireString): always a plain str out
    if isinstance(obj, Mapping):
        return {json_text(str(k)): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [jsonable(v) for v in obj]
    if isinstance(obj, enum.Enum):
        return jsonable(obj.value)
    return obj


# --- the output schema -----------------------------------------------------------------------------

def output_schema(result_type: type | types.UnionType | None) -> dict[str, Any]:
    """The envelope's JSON schema, derived from :class:`Envelope`, with ``result`` of ``result_type``.

    The envelope's own fields are exact (types, enums, nullability, what is required); the records inside
    them (the result, the target, a stop) are ``{"type": "object"}`` named by ``title``, one level deep
    on purpose: clients validate every structured result against this schema, and a schema that
    describes every nested record made the SDK's validation take ten times longer per call
    (``jsonschema``: 2.4 ms against 0.2 ms for a page of locals) — docs/tools.md gives each record's fields.
    Fields left out while empty are not required; nullable ones are ``anyOf [X, null]`` (portable to
    clients that understand one type per schema).
    """
    schema: dict[str, Any] = TypeAdapter(Envelope).json_schema(mode="serialization")
    properties = {name: _shallow(prop) for name, prop in schema["properties"].items()}
    for name, rule in _fields_of(Envelope):
        if rule != _KEEP:  # left out while None: when present, never null
            choices = [c for c in properties[name].get("anyOf", ()) if c != {"type": "null"}]
            if len(choices) == 1:
                properties[name] = choices[0]
    if result_type is None or result_type is EventsPage:
        del properties["result"]
    else:
        properties["result"] = {"type": "object", "title": " | ".join(kind.__name__ for kind in get_args(result_type))
                                if isinstance(result_type, types.UnionType) else result_type.__name__}
    if result_type is not EventsPage:
        for name in ("events", "next_cursor", "overflow", "timed_out"):
            del properties[name]
    return {"type": "object", "properties": properties,
            "required": [name for name, rule in _fields_of(Envelope) if rule == _KEEP and name in properties]}


def _shallow(node: Any) -> Any:
    """A property's schema with each referenced record as an object named by its title."""
    if isinstance(node, dict):
        if "$ref" in node:
            return {"type": "object", "title": node["$ref"].rsplit("/", 1)[-1]}
        return {key: _shallow(value) for key, value in node.items() if key not in ("title", "default")}
    if isinstance(node, list):
        return [_shallow(value) for value in node]
    return node
