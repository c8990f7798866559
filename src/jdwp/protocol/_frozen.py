"""Cheaper construction of frozen, slotted dataclasses: a faster ``__init__`` and a maker for decoders.

Layer: ``jdwp.protocol`` (sans-IO); standard library only.

A frozen dataclass's generated ``__init__`` assigns through ``object.__setattr__``, which costs more than
the rest of decoding a location or an event. Decoded records are created by the thousand (frames, class
lists, events), so :func:`fast_init` replaces ``__init__`` with one that stores through the slot
descriptors directly. The class stays frozen: assigning to a field afterwards still raises
``FrozenInstanceError``.

Even that ``__init__`` pays a descriptor call per field. :func:`maker` goes further for the hand-framed
decoders: it fills the slots of an instance of a plain twin class (same slots, so the same memory layout,
and ordinary attribute stores) and then gives the instance the record's class (``__class__``
assignment, which the interpreter allows between classes of the same layout). The result is an
instance of the record in every respect, made about three times faster.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


def fast_init(cls: type[T]) -> type[T]:
    """Give a frozen, slotted dataclass without defaults or ``__post_init__`` a descriptor-based init."""
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]  # a dataclass, by contract
    if any(f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
           for f in fields) or hasattr(cls, "__post_init__"):
        return cls
    names = [f.name for f in fields]
    setters: dict[str, Any] = {f"_set_{name}": getattr(cls, name).__set__ for name in names}
    params = "".join(f", {name}" for name in names)
    defaults = "".join(f", _set_{name}=_set_{name}" for name in names)
    body = "".join(f"\n    _set_{name}(self, {name})" for name in names) or "\n    pass"
    namespace = dict(setters)
    exec(f"def __init__(self{params}{defaults}):{body}", namespace)
    init = namespace["__init__"]
    # The setters are default arguments (the fastest lookup); the signature ``help()`` and ``inspect`` show
    # is the record's own, without ``_set_x=<method-wrapper …>`` noise.
    init.__signature__ = inspect.Signature(
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD),
         *(inspect.Parameter(f.name, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=f.type) for f in fields)])
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    setattr(cls, "__init__", init)  # noqa: B010 - replacing a dataclass's generated method
    return cls


def maker(cls: type[T], **nested: type) -> Callable[..., T]:
    """A positional constructor of ``cls`` for decoders: ``maker(Location)(tag, class_id, method_id, index)``.

    It makes the same object as ``cls(...)`` without running ``__init__``, so it is only for classes whose
    ``__init__`` does nothing but store its arguments (frozen, slotted dataclasses made by ``fast_init``).
    ``nested`` names fields made inline from their own fields, which are passed flat in the field's
    place: ``maker(Frame, location=Location)(frame_id, tag, class_id, method_id, index)``, which saves
    a call per nested record.

    Raises:
        TypeError: a class whose memory layout no twin can share (not a slotted dataclass on ``object``),
            or a nested name that is not a field.
    """
    lines: list[str] = []
    namespace: dict[str, Any] = {}
    params: list[str] = []

    def build(record: type, inner: dict[str, type], var: str) -> None:
        """Append the statements that leave a ``record`` in ``var``; its plain fields become parameters.

        Field ``i`` of ``var`` is ``{var}_{i}``: a parameter, or the variable of a nested record (whose own
        fields are then ``{var}_{i}_{j}``), so no name can clash with another.
        """
        names = _field_names(record)
        unknown = set(inner) - set(names)
        if unknown:
            raise TypeError(f"{record.__name__} has no fields {sorted(unknown)}")
        for i, name in enumerate(names):
            if name in inner:
                build(inner[name], {}, f"{var}_{i}")
            else:
                params.append(f"{var}_{i}")
        namespace[f"{var}_twin"], namespace[f"{var}_cls"] = _twin_of(record), record
        lines.append(f"{var} = {var}_twin()")
        lines.extend(f"{var}.{name} = {var}_{i}" for i, name in enumerate(names))
        lines.append(f"{var}.__class__ = {var}_cls")

    build(cls, nested, "r")
    source = f"def make({', '.join(params)}):\n    " + "\n    ".join(lines) + "\n    return r"
    exec(source, namespace)
    make: Callable[..., T] = namespace["make"]
    make.__qualname__ = f"maker({cls.__qualname__})"
    return make


def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


@functools.cache
def _twin_of(cls: type) -> type:
    """A plain class with the slots of ``cls``: its instances take ordinary stores, then become ``cls``."""
    names = _field_names(cls)
    if tuple(getattr(cls, "__slots__", ())) != names or cls.__bases__ != (object,):
        raise TypeError(f"{cls.__name__} is not a slotted dataclass on object")
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__} checks its fields in __post_init__, which a maker would skip")
    twin = type(f"_{cls.__name__}Slots", (), {"__slots__": names})
    probe = twin()
    probe.__class__ = cls  # raises TypeError now, not in a decoder, if the interpreter finds the layouts differ
    return twin
