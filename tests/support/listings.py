"""Reading a thread listing as an agent does (``pause_debugger``'s and ``get_debugger_threads``' ``threads``):
an entry is one thread, or threads folded because they stopped at the same frames (``count``,
``thread_names`` — the first five — and ``thread_ids`` in the same order). docs/tools.md, "Similar threads"."""

from __future__ import annotations

from typing import Any


def listed_thread(entries: list[dict[str, Any]], name: str) -> dict[str, Any] | None:
    """The thread called ``name`` — its entry, or for a folded one its name, status, ``thread_id`` and the set's
    frames (which carry no ``frame_id``) — or ``None`` when it is not listed by name."""
    for entry in entries:
        if entry.get("name") == name:
            return entry
        names = entry.get("thread_names") or []
        if name in names:
            return {"name": name, "status": entry["status"], "thread_id": entry["thread_ids"][names.index(name)],
                    "frames": entry["frames"]}
    return None


def thread_ids(entries: list[dict[str, Any]]) -> list[str]:
    """Every listed thread's ``thread_id``, folded ones included, in the listing's order."""
    found: list[str] = []
    for entry in entries:
        found.extend(entry.get("thread_ids") or ([entry["thread_id"]] if entry.get("thread_id") else []))
    return found
