"""Null IDs: the object and reference-type IDs of a command's out-data that must not be 0, and their check.

Layer: ``jdwp.protocol`` (sans-IO); imports only ``records``, ``types`` and ``errors``. Spec: "Data Types" —
"an objectID of 0 represents a null object"; a referenceTypeID of 0 is the null the spec names only where it
allows it.

The JDWP specification allows a null ID in two places of what a debugger sends: ``ExceptionOnly``'s
``exceptionOrNull`` ("Null (0) means report exceptions of all types") and ``InstanceOnly``'s ``instance``
("the null object for static methods"); a record says so in ``MAY_BE_NULL``. Everywhere else a null is a
bug of the caller, and one a VM may not survive: HotSpot's back end reads an object ID of 0 as a null
reference and some commands hand it to JNI unchecked — ``StringReference.Value`` (10,1) with 0 kills the
VM with SIGSEGV in ``libjdwp`` (OpenJDK ``StringReferenceImpl.c``; ``tests/live/test_null_ids_live.py``
records which commands do). So :meth:`Command.encode_out <.commands.Command.encode_out>` refuses them before
anything is written: a :class:`~.errors.NullIdError` naming the command and the field.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from operator import attrgetter
from typing import Any

import construct as c

from .errors import NullIdError
from .records import TaggedUnion
from .types import ObjectIdSpec, ReferenceTypeIdSpec, counted_element

__all__ = ["null_field", "refuse_null"]

_IDS = (ObjectIdSpec, ReferenceTypeIdSpec)

# How to look into one record class: (field name, what it holds). "id": an ID that must not be null; "ids":
# a list of them; "record": a nested record (its class); "records": a list of records (their class, or None
# when a tagged union picks each item's class).
_Plan = tuple[tuple[str, str, type | None], ...]
_PLANS: dict[type, _Plan] = {}


def _plan(cls: type) -> _Plan:
    plan = _PLANS.get(cls)
    if plan is not None:
        return plan
    allowed: frozenset[str] = getattr(cls, "MAY_BE_NULL", frozenset())
    steps: list[tuple[str, str, type | None]] = []
    for field in dataclasses.fields(cls):
        spec = field.metadata["wire"]
        element = counted_element(spec)
        if any(spec is ids for ids in _IDS):
            if field.name not in allowed:
                steps.append((field.name, "id", None))
        elif any(element is ids for ids in _IDS):
            steps.append((field.name, "ids", None))
        elif isinstance(element, TaggedUnion):
            steps.append((field.name, "records", None))
        elif element is not None and hasattr(element, "record_class"):
            if _plan(element.record_class):
                steps.append((field.name, "records", element.record_class))
        elif isinstance(spec, c.Adapter) and hasattr(spec, "record_class"):
            if _plan(spec.record_class):
                steps.append((field.name, "record", spec.record_class))
    _PLANS[cls] = plan = tuple(steps)
    return plan


def _get(obj: Any, name: str) -> Any:
    return obj[name] if isinstance(obj, Mapping) else getattr(obj, name, None)


def _null_in(obj: Any, cls: type) -> str | None:
    for name, holds, sub in _plan(cls):
        value = _get(obj, name)
        if holds == "id":
            if value == 0:
                return name
        elif holds == "ids":
            for index, item in enumerate(value or ()):
                if item == 0:
                    return f"{name}[{index}]"
        elif holds == "record":
            if value is not None:
                found = _null_in(value, sub)  # type: ignore[arg-type]
                if found is not None:
                    return f"{name}.{found}"
        elif isinstance(value, Iterable):
            for index, item in enumerate(value):
                kind = sub or type(item)
                if not dataclasses.is_dataclass(kind):  # a mapping in a tagged union: its spec checks it
                    continue
                found = _null_in(item, kind)
                if found is not None:
                    return f"{name}[{index}].{found}" if sub else f"{name}[{index}] {type(item).__name__}.{found}"
    return None


def null_field(command: Any, out: Any) -> str | None:
    """The first ID in ``out`` (the out-data of ``command``) that is null where the spec does not allow it,
    as a path (``"string_object"``, ``"modifiers[0] ThreadOnly.thread"``); ``None`` when there is none."""
    return _null_in(out, command.out)


# Per record class whose IDs are all plain fields (no lists, no nested records): a function telling whether
# one of them may be null. Every command a hit sends (Frames, GetValues, Resume) has such out-data, and the
# walk of :func:`_null_in` would cost more than encoding it.
_SCREENS: dict[type, Callable[[Any], bool] | None] = {}


def _screen(cls: type) -> Callable[[Any], bool] | None:
    if cls in _SCREENS:
        return _SCREENS[cls]
    plan = _plan(cls)
    screen: Callable[[Any], bool] | None = None
    if all(holds == "id" for _, holds, _ in plan):
        if not plan:
            screen = _never
        elif len(plan) == 1:
            get_one = attrgetter(plan[0][0])
            screen = lambda out: get_one(out) == 0  # noqa: E731 - one small closure per class
        else:
            get_all = attrgetter(*(name for name, _, _ in plan))
            screen = lambda out: 0 in get_all(out)  # noqa: E731 - one small closure per class
    _SCREENS[cls] = screen
    return screen


def _never(out: Any) -> bool:
    return False


def refuse_null(command: Any, out: Any) -> None:
    """Refuse out-data with a null ID where the specification does not allow one.

    Raises:
        NullIdError: naming the command and the field.
    """
    cls = command.out
    if type(out) is cls:
        screen = _screen(cls)
        if screen is not None and not screen(out):
            return
    field = _null_in(out, cls)
    if field is not None:
        raise NullIdError(command.name, field)
