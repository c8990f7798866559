"""A file's sweep of the listing (issue 23): what it asks the VM, what it keeps, and what it reads from the answers.

The VM here is a stand-in for ``JdwpClient`` that answers ``ReferenceType.SourceFile`` (2,7) and
``ReferenceType.SourceDebugExtension`` (2,12) as HotSpot's back end does: a JDWP string, or
``ABSENT_INFORMATION`` (101) for a class without the attribute. Live tests run the same code against real VMs.
"""

from __future__ import annotations

from collections.abc import Sequence

import trio

from jdwp.debugger.classes.symbols import Capabilities, Symbols
from jdwp.protocol.commands import Command, ReferenceType
from jdwp.protocol.constants import ErrorCode
from jdwp.protocol.types import IdSizes

SIZES = IdSizes(8, 8, 8, 8, 8)


def jdwp_string(text: str) -> bytes:
    data = text.encode()
    return len(data).to_bytes(4, "big") + data


def kotlin_map(own: str, path: str, *inlined: str) -> str:
    files = [f"+ 1 {own}\n{path}\n"] + [f"+ {n} {name}\nx/{name[:-3]}Kt\n" for n, name in enumerate(inlined, 2)]
    lines = ["1#1,10:1\n"] + [f"1#{n},2:{9 + 2 * n}\n" for n in range(2, len(inlined) + 2)]
    return f"SMAP\n{own}\nKotlin\n*S Kotlin\n*F\n{''.join(files)}*L\n{''.join(lines)}*E\n"


class SweptVm:
    """Answers by class ID from ``sources`` and ``maps`` (a class missing from one has no such attribute)."""

    request_timeout = 10.0
    id_sizes = SIZES

    def __init__(self, sources: dict[int, str], maps: dict[int, str]) -> None:
        self.sources, self.maps = sources, maps
        self.asked: list[tuple[str, list[int]]] = []

    async def request_each(self, command: Command[object, object], bodies: Sequence[bytes], /, *,
                           timeout: float | None = None) -> list[tuple[int, bytes]]:
        refs = [int.from_bytes(body, "big") for body in bodies]
        self.asked.append((command.name, refs))
        table = self.sources if command is ReferenceType.SourceFile else self.maps
        return [(0, jdwp_string(table[ref])) if ref in table else (int(ErrorCode.ABSENT_INFORMATION), b"")
                for ref in refs]


def symbols_of(vm: SweptVm) -> Symbols:
    symbols = Symbols(vm)  # type: ignore[arg-type]
    symbols.capabilities._known = Capabilities(source_debug_extension=True, source_name_filters=True)
    return symbols


def test_a_sweep_asks_each_class_once_and_parses_only_maps_that_name_the_file() -> None:
    maps = {1: kotlin_map("App.kt", "com/x/AppKt", "util.kt"), 2: kotlin_map("Other.kt", "com/x/OtherKt", "_Arrays.kt")}
    vm = SweptVm({1: "App.kt", 2: "Other.kt", 3: "Plain.kt", 4: "Main.java"}, maps)
    symbols = symbols_of(vm)

    async def sweep() -> None:
        await symbols.files.fetch_maps([1, 2, 3, 4])
        await symbols.files.fetch_names([ref for ref in (1, 2, 3, 4) if not symbols.files.has_map(ref)])
        await symbols.files.fetch_maps([1, 2, 3, 4, 5])  # a second file: only the class loaded since is asked
        await symbols.files.fetch_names([3, 4])

    trio.run(sweep)
    assert vm.asked == [("ReferenceType.SourceDebugExtension", [1, 2, 3, 4]), ("ReferenceType.SourceFile", [3, 4]),
                        ("ReferenceType.SourceDebugExtension", [5])]
    assert [symbols.files.has_map(ref) for ref in (1, 2, 3, 4, 5)] == [True, True, False, False, False]
    assert symbols.files.output_file(1) == "App.kt" and symbols.files.known_name(3) == "Plain.kt"
    assert symbols.files.map_mentions(1, "util.kt") and not symbols.files.map_mentions(2, "util.kt")
    assert 2 in symbols.files.texts and 1 not in symbols.files.texts  # only the map that names it was parsed
    assert symbols.files.known_map(1) is not None and symbols.files.known_map(3) is None


def test_the_names_alike_come_from_loaded_code_own_or_inlined() -> None:
    maps = {1: kotlin_map("App.kt", "com/x/AppKt", "util.kt")}
    vm = SweptVm({1: "App.kt", 2: "UTIL.kt", 3: "Main.java"}, maps)
    symbols = symbols_of(vm)

    async def sweep() -> None:
        await symbols.files.fetch_maps([1, 2, 3])
        await symbols.files.fetch_names([2, 3])

    trio.run(sweep)
    assert symbols.files.named_alike([1, 2, 3], "Util.kt") == {"util.kt", "UTIL.kt"}
    assert symbols.files.named_alike([1, 2, 3], "main.java") == {"Main.java"}
    assert symbols.files.named_alike([1, 2, 3], "Nothing.kt") == set()
