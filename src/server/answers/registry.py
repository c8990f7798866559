"""The modules of a package collected as its table: each module named as what it defines (a tool, a prompt).

Layer: ``server`` (imports nothing of the engine). Used by :mod:`pyjdwp_server.tools` and :mod:`pyjdwp_server.prompts`,
so adding one is one module: nothing else lists it.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable
from typing import Protocol, TypeVar


class Entry(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def order(self) -> int: ...


E = TypeVar("E", bound=Entry)


def collect(package: str, path: Iterable[str], attribute: str, kind: type[E]) -> tuple[E, ...]:
    """Every public module's ``attribute`` (a ``kind``), in (order, name) order; a module's name must be its
    entry's name."""
    found: list[E] = []
    for info in pkgutil.iter_modules(path):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{package}.{info.name}")
        entry = getattr(module, attribute, None)
        if not isinstance(entry, kind) or entry.name != info.name:
            raise ImportError(f"{module.__name__} must define {attribute} = {kind.__name__}({info.name!r}, ...)")
        found.append(entry)
    return tuple(sorted(found, key=lambda e: (e.order, e.name)))
