"""One ``tools/call`` handled, whichever dispatcher got it: input validated by its pydantic model (unknown
fields rejected), the handler run under the call's ``timeoutMs``, and the answer the envelope.

Layer: ``server``. The engine, ``android`` and the tool table come in with this module, which
:mod:`.app` imports at the server's first tool call: ``initialize`` and ``tools/list`` do without them.
A timeout or cancellation of a call that changes what the VM does (attach, step, resume) leaves its outcome
unknown, so the session is torn down; of an inspection or a wait, it changes nothing.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import trio
from pydantic import ValidationError

from ..answers.capabilities import PROFILE_WIDE, capabilities_for
from ..answers.envelope import Answer, SessionFields, envelope
from ..answers.failures import ErrorBody, ToolFailure, failure_of
from ..session.debug_session import DebugSession
from ..session.manager import SessionManager
from ..tools import BY_NAME, Call

log = logging.getLogger("pyjdwp.server")


def session_fields(session: DebugSession | None, *, full: bool) -> SessionFields:
    """The envelope's session fields.

    Where ``full`` (attach): the target's identity, and in words the limitations this session adds to its
    profile's (its flags', platform's and target's), each said once. The VM's facts are attach's
    ``result.vm``; the operations, limits and the profile's own limitations are get_debugger_capabilities'
    answer, which the ``profile`` names. Elsewhere: the profile, the target's identity only and the codes of
    what this session adds to the profile's limitations, since every response repeats them and tokens are an
    agent's cost (docs/tools.md, "Full and compact envelopes")."""
    if session is None:
        return SessionFields()
    target = session.target
    platform = target.platform if target else None
    capabilities, texts, codes = capabilities_for(session.config.allow_invoke, platform, session.config.allow_mutation)
    own = session.facts.limitations  # this target's: a release build, a non-debuggable app
    # What the session adds to its profile's limitations; the profile's own are its codes in ``capabilities``,
    # worded by get_debugger_capabilities.
    added = [(text, code) for text, code in zip(texts, codes, strict=True) if code not in PROFILE_WIDE]
    if full:
        return SessionFields(session.id, session.device, target.identity() if target else None, session.state,
                             capabilities.compact(),
                             tuple(text for text, _ in added) + tuple(x.text for x in own), session.cleanup)
    return SessionFields(session.id, session.device, target.compact() if target else None, session.state,
                         capabilities.compact(), tuple(code for _, code in added) + tuple(x.code for x in own),
                         session.cleanup)


def _json(value: Any) -> str:
    """``value`` as the JSON text a transport writes, without the padding spaces (an agent pays for every
    byte); raises where the SDK's serialisation would fail later, out of our hands (a lone surrogate, an
    object that is not a JSON value, NaN)."""
    text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    text.encode("utf-8")
    return text


def answer_of(body: dict[str, Any]) -> Answer:
    """An envelope with its JSON text.

    The SDK serialises a result after the handler returns; a failure there would answer a bare JSON-RPC
    error (or, on stdio, end the server). So the body is serialised here first, and one that cannot be is
    answered as DEBUGGER_WORKER_FAILED in an envelope that keeps only the session's id and state.
    """
    try:
        return Answer(body, _json(body))
    except (TypeError, ValueError, RecursionError) as exc:  # UnicodeEncodeError is a ValueError
        log.error("an answer could not be serialised", exc_info=exc)
        fields = SessionFields(_plain_text(body.get("debug_session_id")), _plain_text(body.get("device")),
                               state=body.get("state") if isinstance(body.get("state"), str) else None)
        body = envelope(fields, error=ErrorBody(
            "DEBUGGER_WORKER_FAILED", f"internal error: the answer could not be written as JSON "
                                      f"({type(exc).__name__}); see the server's log", False))
        return Answer(body, _json(body))


def _plain_text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


async def call_tool(manager: SessionManager, name: str, arguments: dict[str, Any] | None) -> dict[str, Any]:
    """Run one tool call to its envelope (the whole behaviour of the server, without MCP framing; the server
    writes it with :func:`answer_of`).

    Every exception becomes an envelope, including one raised after the handler (building the answer,
    tearing an uncertain session down); only cancellation propagates.
    """
    try:
        tool = BY_NAME.get(name)
        if tool is None:
            return envelope(SessionFields(), error=ErrorBody("INVALID_ARGUMENT", f"unknown tool {name!r}", False))
        try:
            parsed: Any = tool.model.model_validate(arguments or {})
        except ValidationError as exc:
            return envelope(SessionFields(), error=failure_of(exc).body())
        call = Call(manager, parsed)
        try:
            if tool.waits:
                result = await tool.handler(call)
            else:
                with trio.fail_after(parsed.timeoutMs / 1000):
                    result = await tool.handler(call)
        except BaseException as exc:
            if tool.uncertain_on_interrupt:
                _tear_down_uncertain(manager, call, exc)
            if not isinstance(exc, Exception):  # a cancellation, KeyboardInterrupt or SystemExit goes on up
                raise
            failure = failure_of(exc)
            if isinstance(exc, trio.TooSlowError):
                failure = ToolFailure("DEBUGGER_TIMEOUT", f"{tool.name} did not finish within {parsed.timeoutMs} ms" +
                                      ("; its outcome is unknown, so the session was detached"
                                       if tool.uncertain_on_interrupt else "; nothing was changed"),
                                      retryable=not tool.uncertain_on_interrupt)
            log.info("%s failed: %s", tool.name, failure.code)
            return envelope(session_fields(call.session, full=tool.full_envelope), error=failure.body())
        session = call.session
        if session is not None and session.engine is not None and session.engine.uncertain:
            _tear_down_uncertain(manager, call, None)
        log.info("%s ok", tool.name)
        return envelope(session_fields(session, full=tool.full_envelope), result=result)
    except Exception as exc:
        return envelope(SessionFields(), error=failure_of(exc).body())


def _tear_down_uncertain(manager: SessionManager, call: Call, exc: BaseException | None) -> None:
    """A step, resume or attach whose outcome is unknown: detach that session (never retry it)."""
    session = call.session
    if session is None or session.is_terminal:
        return
    if exc is not None and not isinstance(exc, trio.Cancelled | trio.TooSlowError):
        engine = session.engine
        if engine is None or not engine.uncertain:
            return  # a clean failure (stale ID, not paused…): nothing was changed
    log.warning("session %s: outcome of a state change is unknown; detaching", session.id)
    manager.spawn(session.close, "failed")
