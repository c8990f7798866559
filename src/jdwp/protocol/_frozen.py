"""A faster ``__init__`` for frozen, slotted dataclasses.

Layer: ``jdwp.protocol`` (sans-IO); standard library only.

A frozen dataclass's generated ``__init__`` assigns through ``object.__setattr__``, which costs more than
the rest of decoding a location or an event. Decoded records are created by the thousand (frames, class
lists, events), so this replaces ``__init__`` with one that stores through the slot descriptors directly.
The class stays frozen: assigning to a field afterwards still raises ``FrozenInstanceError``.
"""

from __future__ import annotations

import dataclasses
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
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    setattr(cls, "__init__", init)  # noqa: B010 - replacing a dataclass's generated method
    return cls
