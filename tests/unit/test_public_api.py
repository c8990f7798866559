"""The library's public API is complete: every type a typed client method takes or returns is in ``jdwp``.

Walks the annotations of every public method of :class:`jdwp.JdwpClient` and of its command-set
namespaces (``vm.thread_reference``, ``vm.stack_frame``…), and the fields of every record those name,
and checks that each type defined in the library can be imported from ``jdwp`` as the same object.
"""

from __future__ import annotations

import dataclasses
import inspect
import typing
from collections.abc import Iterator
from typing import Any

import jdwp
from jdwp.mirrors import Mirrors
from jdwp.mirrors._base import Namespace


def _namespaces() -> list[type]:
    mirrors = Mirrors()
    return [type(value) for value in vars(mirrors).values() if isinstance(value, Namespace)]


def _public_methods(cls: type) -> Iterator[tuple[str, Any]]:
    for name, function in inspect.getmembers(cls, inspect.isfunction):
        if not name.startswith("_"):
            yield f"{cls.__name__}.{name}", function


def _library_types(hint: Any, seen: set[Any]) -> Iterator[Any]:
    """The types defined under ``jdwp`` that ``hint`` mentions, then those their record fields mention."""
    if isinstance(hint, typing.NewType):
        if hint.__module__.startswith("jdwp"):
            yield hint
        return
    origin = typing.get_origin(hint)
    if origin is not None:
        if origin is typing.ClassVar:
            return
        if isinstance(origin, type) and origin.__module__.startswith("jdwp"):
            yield from _library_types(origin, seen)
        for arg in typing.get_args(hint):
            yield from _library_types(arg, seen)
        return
    if not isinstance(hint, type) or not hint.__module__.startswith("jdwp") or hint in seen:
        return
    seen.add(hint)
    yield hint
    if dataclasses.is_dataclass(hint):
        for field_hint in typing.get_type_hints(hint).values():
            yield from _library_types(field_hint, seen)


def _referenced() -> dict[Any, set[str]]:
    """Each library type, with the methods whose signatures lead to it."""
    found: dict[Any, set[str]] = {}
    for cls in (jdwp.JdwpClient, *_namespaces()):
        for where, function in _public_methods(cls):
            seen: set[Any] = set()
            for hint in typing.get_type_hints(function).values():
                for library_type in _library_types(hint, seen):
                    found.setdefault(library_type, set()).add(where)
    return found


def test_every_type_of_a_typed_method_is_importable_from_jdwp() -> None:
    missing = [
        f"{t.__module__}.{t.__name__} (used by {', '.join(sorted(users)[:3])})"
        for t, users in _referenced().items()
        if getattr(jdwp, t.__name__, None) is not t
    ]
    assert not missing, "not exported from jdwp:\n  " + "\n  ".join(sorted(missing))


def test_the_walk_sees_what_a_user_needs() -> None:
    """The walk reaches into parameters, replies and nested records (a guard against a walk that finds nothing)."""
    names = {t.__name__ for t in _referenced()}
    assert {"SlotRequest", "Frame", "Location", "ThreadId", "FrameId", "VariableSlot", "BreakpointEvent",
            "LocationOnly", "DdmChunk", "Command"} <= names


def test_all_lists_exactly_the_exports() -> None:
    public = {name for name in vars(jdwp) if not name.startswith("_")}
    modules = {name for name in public if inspect.ismodule(getattr(jdwp, name))}
    assert set(jdwp.__all__) == public - (modules - {"commands"})
    assert len(jdwp.__all__) == len(set(jdwp.__all__))
