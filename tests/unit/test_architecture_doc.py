"""docs/architecture.md names every module under ``src``: a module added without a line there fails here.

The doc lists modules under headings that name a folder under ``src`` (``### `jdwp/debugger/events/```); an
item (``- `stops`, `holds` — …``) names the modules before its dash. A module ``src/F/m.py`` is named when
``m`` is an item under a heading whose folder is ``F`` or a folder ``F`` is inside, so the server's rooms
(``### `server/` (session)``) hold their modules wherever in ``server/`` they live.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"
DOC = ROOT / "docs" / "architecture.md"

HEADING = re.compile(r"^#{2,4} .*?`([\w/]+/)`")
ITEM = re.compile(r"^- (.*)")


def named_modules(text: str) -> set[tuple[str, str]]:
    """``(folder, module)`` for every module an item names under a folder heading."""
    named: set[tuple[str, str]] = set()
    folder: str | None = None
    items: list[str] = []
    for line in text.splitlines():
        heading = HEADING.match(line)
        if heading or line.startswith("#"):
            folder = heading.group(1) if heading else None
            continue
        if folder is None:
            continue
        item = ITEM.match(line)
        if item:
            items.append(item.group(1))
            named.update((folder, name) for name in _names(items[-1]))
        elif line.startswith("  ") and items:
            items[-1] += " " + line.strip()
            named.update((folder, name) for name in _names(items[-1]))
    return named


def _names(item: str) -> list[str]:
    head = item.split(" — ", 1)[0]
    return re.findall(r"`(\w+)`", head)


def modules() -> list[Path]:
    return sorted(p for p in SRC.rglob("*.py") if p.name != "__init__.py" and "__pycache__" not in p.parts)


def test_every_module_is_named_in_architecture_doc() -> None:
    named = named_modules(DOC.read_text(encoding="utf-8"))
    missing = []
    for path in modules():
        folder = path.parent.relative_to(SRC).as_posix() + "/"
        if not any(folder.startswith(where) and name == path.stem for where, name in named):
            missing.append(path.relative_to(ROOT).as_posix())
    assert not missing, "docs/architecture.md does not name these modules (add an item under their folder):\n" + (
        "\n".join(missing))


def test_the_reader_sees_items_and_rooms() -> None:
    text = """
### `jdwp/debugger/events/`

- `stops`, `holds` — stops
- `judge`, `capture`,
  `crashes` — hits

### `server/` (session)

- `debug_session` — one session, `not_a_module` in its text
"""
    assert named_modules(text) == {("jdwp/debugger/events/", "stops"), ("jdwp/debugger/events/", "holds"),
                                   ("jdwp/debugger/events/", "judge"), ("jdwp/debugger/events/", "capture"),
                                   ("jdwp/debugger/events/", "crashes"), ("server/", "debug_session")}
