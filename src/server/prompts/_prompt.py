"""What every prompt module defines (a :class:`Prompt`), and how its text is made.

Layer: ``server``; plain text, no engine or ``android`` import: ``prompts/list`` and ``prompts/get`` are
answered before any tool call, like ``tools/list``.
"""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Argument:
    name: str
    description: str
    #: Written into the text when the client leaves the argument out (every argument is optional).
    default: str


@dataclasses.dataclass(frozen=True)
class Prompt:
    name: str
    description: str
    arguments: tuple[Argument, ...]
    #: The text, with ``{argument}`` for each argument; its numbered steps each start with the tool they call.
    template: str
    #: Where ``prompts/list`` puts it (sorted by order, then name): crash, wrong value, freeze.
    order: int

    def text(self, given: dict[str, str]) -> str:
        """The template with each argument written in, a missing or empty one by its default's words."""
        return self.template.format(**{a.name: given.get(a.name) or a.default for a in self.arguments})


TARGET = Argument("target", "How to reach the app: host:port of a JVM, or an Android app id.",
                  "the JVM's host:port, or the Android app id")
