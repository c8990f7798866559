"""The line of a code index, as JDI reads a method's line table (docs/design.md §3.6), on real tables.

``FIND_MAIN_CLASS`` is the line table of kotlinc 1.3.31's ``KotlinToJVMBytecodeCompiler.findMainClass``
(Debian's kotlin-compiler.jar) as HotSpot answers ``Method.LineTable``: five entries at index 16. The
rules are JDI's (``ConcreteMethodImpl.getBaseLocations`` / ``codeIndexToLineInfo``): the last entry at an
index wins, code before the first entry is the first entry's line.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from jdwp.debugger.classes.symbols import CodeLine, line_at, line_locations
from jdwp.debugger.model import SourcePosition
from jdwp.debugger.reading.inline_frames import inline_chain
from jdwp.protocol.commands.reftypes import LineEntry, LineTableReply, VariableSlot, VariableTableReply

FIND_MAIN_CLASS = [(0, 224), (16, 225), (16, 232), (16, 225), (16, 226), (16, 225), (23, 226), (39, 232), (42, 530),
                   (45, 531), (48, 532), (76, 533), (86, 232), (99, 534), (108, 535), (112, 536), (115, 532),
                   (118, 539), (127, 540)]


def table(entries: list[tuple[int, int]], start: int = 0, end: int = 132) -> LineTableReply:
    return LineTableReply(start, end, [LineEntry(index, line) for index, line in entries])


def test_the_last_entry_at_an_index_is_its_line() -> None:
    lines = table(FIND_MAIN_CLASS)
    assert line_at(lines, 16) == 225  # jdb: line=225 bci=16; not 232
    assert line_at(lines, 20) == 225
    assert line_at(lines, 23) == 226
    assert [line_at(lines, i) for i in (0, 15, 39, 41, 42)] == [224, 224, 232, 232, 530]


def test_line_locations_keep_one_entry_an_index() -> None:
    locations = line_locations(table(FIND_MAIN_CLASS))
    assert locations[:4] == [(0, 224), (16, 225), (23, 226), (39, 232)]
    assert 232 not in [line for index, line in locations if index == 16]  # a breakpoint at 232 skips index 16
    assert [index for index, line in locations if line == 232] == [39, 86]


def test_code_before_the_first_entry_is_the_first_line() -> None:
    # kotlinc's public function: the parameter checks (Intrinsics.checkParameterIsNotNull) before line 73's entry.
    checks = table([(12, 73), (20, 74), (31, 75)])
    assert [line_at(checks, i) for i in (0, 11, 12, 19, 20, 40)] == [73, 73, 73, 73, 74, 75]
    several = table([(6, 10), (6, 11), (9, 12)])
    assert line_at(several, 0) == 11  # the first location is the last entry at the first index


def test_no_line_only_without_entries_or_code() -> None:
    assert line_at(table([]), 0) is None
    assert line_at(table([(0, 5)]), -1) is None  # a native method's index


def test_an_unordered_table_reads_by_code_index() -> None:
    assert line_at(table([(10, 3), (0, 1), (5, 2)]), 7) == 2


@given(st.lists(st.tuples(st.integers(0, 60), st.integers(1, 500)), min_size=1, max_size=30), st.integers(0, 80))
def test_the_line_is_the_last_entry_of_the_greatest_start_at_or_before(entries: list[tuple[int, int]],
                                                                       index: int) -> None:
    ordered = sorted(entries, key=lambda e: e[0])  # a compiler's table order: by code index
    lines = table(ordered)
    before = [e for e in ordered if e[0] <= index] or [e for e in ordered if e[0] == ordered[0][0]]
    start = max(e[0] for e in before)
    assert line_at(lines, index) == [line for i, line in before if i == start][-1]


# --- inline frames (inline_frames.py) on findMainClass's real tables ------------------------------------------

def variables(*slots: tuple[int, str, int]) -> VariableTableReply:
    return VariableTableReply(0, [VariableSlot(start, name, "I", length, number)
                                  for number, (start, name, length) in enumerate(slots)])


FIND_MAIN_CLASS_MARKERS = variables((42, "$i$f$singleOrNull", 87),
                                    (86, "$i$a$-singleOrNull-KotlinToJVMBytecodeCompiler$findMainClass$2", 10),
                                    (16, "mainFunctionDetector", 117))
OWN, SEQUENCES = "KotlinToJVMBytecodeCompiler.kt", "_Sequences.kt"
CLASS = "org.jetbrains.kotlin.cli.jvm.compiler.KotlinToJVMBytecodeCompiler"


def mapped(line: int) -> CodeLine:
    """findMainClass's map, the part these lines use: 1..471 its own file, 530..540 _Sequences.kt 332..342."""
    if 530 <= line <= 540:
        return CodeLine(SEQUENCES, line - 198, "kotlin/sequences", "kotlin.sequences.SequencesKt___SequencesKt", True)
    return CodeLine(OWN, line, "org/jetbrains/kotlin/cli/jvm/compiler", CLASS)


def shown(position: SourcePosition) -> tuple[str, str, str | None, int | None, bool]:
    return position.class_name, position.method, position.source, position.line, position.inlined


def at(index: int) -> SourcePosition:
    code = mapped(line_at(table(FIND_MAIN_CLASS), index) or 0)
    return SourcePosition(CLASS, "findMainClass", code.source, code.line, index, code.inlined)


def test_an_inlined_call_is_a_frame_above_the_real_one_at_its_call() -> None:
    chain = inline_chain(at(42), table(FIND_MAIN_CLASS), FIND_MAIN_CLASS_MARKERS, mapped)
    assert chain is not None
    assert [shown(p) for p in chain.inlined] == [
        ("kotlin.sequences.SequencesKt___SequencesKt", "singleOrNull", SEQUENCES, 332, True)]
    assert shown(chain.real) == (CLASS, "findMainClass", OWN, 232, False)


def test_an_inlined_lambda_is_a_frame_above_the_function_that_called_it() -> None:
    chain = inline_chain(at(88), table(FIND_MAIN_CLASS), FIND_MAIN_CLASS_MARKERS, mapped)
    assert chain is not None
    assert [shown(p) for p in chain.inlined] == [
        (f"{CLASS}$findMainClass$2", "invoke", OWN, 232, True),
        ("kotlin.sequences.SequencesKt___SequencesKt", "singleOrNull", SEQUENCES, 335, True)]  # 533: its call
    assert shown(chain.real) == (CLASS, "findMainClass", OWN, 232, False)


def test_code_outside_every_marker_has_no_inline_frames() -> None:
    assert inline_chain(at(39), table(FIND_MAIN_CLASS), FIND_MAIN_CLASS_MARKERS, mapped) is None
    assert inline_chain(at(129), table(FIND_MAIN_CLASS), FIND_MAIN_CLASS_MARKERS, mapped) is None


# --- a call whose inlined code starts before its marker (withLock's owner argument), on Pipeline.kt's tables -----

# Pipeline.process as kotlinc 1.3.31 wrote it: line 22 `mutex.withLock {`; 74..80 Mutex.kt 107..113 inlined
# (KotlinDebug: called from line 22); the lambda's own lines 23..25; line 26 after the call.
PROCESS = [(60, 20), (93, 21), (97, 22), (103, 74), (109, 75), (157, 20), (201, 76), (203, 77), (206, 23),
           (216, 24), (251, 25), (256, 79), (268, 80), (270, 79), (282, 26), (290, 27)]
PROCESS_MARKERS = variables((206, "$i$a$-withLock-Pipeline$process$2", 45), (109, "$i$f$withLock", 173))
PIPELINE = "com.example.ktpipeline.Pipeline"


def pipeline_line(line: int) -> CodeLine:
    if 74 <= line <= 80:
        return CodeLine("Mutex.kt", line + 33, "kotlinx/coroutines/sync", "kotlinx.coroutines.sync.MutexKt", True)
    return CodeLine("Pipeline.kt", line, "com/example/ktpipeline", PIPELINE)


def pipeline_call_site(line: int) -> CodeLine | None:
    return CodeLine("Pipeline.kt", 22, "com/example/ktpipeline", PIPELINE) if 74 <= line <= 80 else None


def test_the_real_frame_under_a_call_whose_inlined_code_starts_before_its_marker_is_at_the_call_site() -> None:
    lines = table(PROCESS, end=305)
    position = SourcePosition(PIPELINE, "process", "Pipeline.kt", 23, 206)
    chain = inline_chain(position, lines, PROCESS_MARKERS, pipeline_line, pipeline_call_site)
    assert chain is not None
    assert [shown(p) for p in chain.inlined] == [
        (f"{PIPELINE[:-len('Pipeline')]}Pipeline$process$2", "invoke", "Pipeline.kt", 23, True),
        ("kotlinx.coroutines.sync.MutexKt", "withLock", "Mutex.kt", 110, True)]
    assert shown(chain.real) == (PIPELINE, "process", "Pipeline.kt", 22, False)
    # Without the KotlinDebug stratum: the code before the marker, the inline function's own line (issue 38).
    chain = inline_chain(position, lines, PROCESS_MARKERS, pipeline_line)
    assert chain is not None and shown(chain.real) == (PIPELINE, "process", "Mutex.kt", 107, False)
