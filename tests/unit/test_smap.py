"""JSR-45 source maps: Kotlin's real maps, every part of the line syntax, many strata, and malformed text.

The property tests render random maps in the JSR-45 syntax and check the parser against a brute-force
reading of the same ranges (each output line → the first range covering it).
"""

from __future__ import annotations

import logging

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jdwp.debugger.classes.smap import KOTLIN, MAX_LINE_RANGES, SmapError, SmapFile, parse_smap, read_smap

# kotlinc 1.3.31's map for App.kt, which inlines Inline.kt's functions and the standard library's map.
KOTLIN_APP = """SMAP
App.kt
Kotlin
*S Kotlin
*F
+ 1 App.kt
com/x/AppKt
+ 2 Inline.kt
com/x/InlineKt
+ 3 _Collections.kt
kotlin/collections/CollectionsKt___CollectionsKt
*L
1#1,22:1
4#2,7:23
5#2,6:30
6#2:36
1309#3:37
1378#3,3:38
*E
*S KotlinDebug
*F
+ 1 App.kt
com/x/AppKt
*L
13#1,7:23
13#1,6:30
13#1:36
17#1:37
17#1,3:38
*E
"""


def test_a_kotlin_map_gives_files_lines_and_what_is_inlined() -> None:
    smap = parse_smap(KOTLIN_APP)
    assert (smap.output_file, smap.default_stratum) == ("App.kt", KOTLIN)
    assert set(smap.strata) == {"Kotlin", "KotlinDebug"}
    own = smap.map(13)
    assert own is not None and (own.file, own.line, own.inlined) == (SmapFile("App.kt", "com/x/AppKt"), 13, False)
    inlined = smap.map(28)  # the sixth line of "4#2,7:23": Inline.kt line 9
    assert inlined is not None and (inlined.file.name, inlined.line, inlined.inlined) == ("Inline.kt", 9, True)
    assert inlined.file.directories == "com/x"
    library = smap.map(39)
    assert library is not None and (library.file.name, library.line) == ("_Collections.kt", 1379)
    assert smap.map(44) is None  # past every range
    call = smap.call_site(28)
    assert call is not None and (call[0].name, call[1]) == ("App.kt", 13)
    assert [smap.own_line(n) for n in (13, 28, 39, 44)] == [13, 13, 17, 44]  # the call sites; the rest as it is
    assert smap.mentions("Inline.kt") and not smap.mentions("Other.kt")


def test_defaults_carry_the_file_id_and_repeat_one_line_at_a_time() -> None:
    text = "SMAP\nA.jsp\nJSP\n*S JSP\n*F\n1 a.jsp\n2 b.jsp\n*L\n10#2:5\n20,3:30,2\n*E\n"
    smap = parse_smap(text)
    stratum = smap.strata["JSP"]
    assert [(r.input_start, r.file_id, r.repeat, r.output_start, r.increment) for r in stratum.lines] == [
        (10, 2, 1, 5, 1), (20, 2, 3, 30, 2)]
    assert [smap.map(line) for line in (30, 31, 32, 35, 36)] == [
        smap.map(30), smap.map(30), smap.map(32), smap.map(34), None]
    mapped = smap.map(33)
    assert mapped is not None and (mapped.file, mapped.line, mapped.inlined) == (SmapFile("b.jsp"), 21, False)
    assert mapped.file.directories is None  # no path: no package


def test_vendor_sections_and_blank_lines_are_skipped_and_the_default_stratum_is_used() -> None:
    text = ("SMAP\r\nFoo.groovy\r\nGroovy\r\n*S Groovy\r\n*F\r\n+ 1 Foo.groovy\r\nx/Foo\r\n*L\r\n\r\n"
            "3#1:7\r\n*V\r\nvendor\r\ntext *\r\n*E\r\n")
    smap = parse_smap(text)
    mapped = smap.map(7)
    assert mapped is not None and (mapped.file.name, mapped.line) == ("Foo.groovy", 3)
    assert not mapped.inlined  # only Kotlin's stratum marks code as inlined


@pytest.mark.parametrize("text, why", [
    ("", "header"),
    ("SMAP\nA.kt\n", "header"),
    ("NOPE\nA.kt\nKotlin\n*E\n", "header"),
    ("SMAP\nA.kt\nKotlin\n*S Kotlin\n*F\n+ 1 A.kt\n", "path"),
    ("SMAP\nA.kt\nKotlin\n*S Kotlin\n*F\n1 A.kt\n*L\n1#2:1\n*E\n", "undeclared"),
    ("SMAP\nA.kt\nKotlin\n*S Kotlin\n*F\n1 A.kt\n*L\n1#1,x:1\n*E\n", "bad line"),
    ("SMAP\nA.kt\nKotlin\n*S Kotlin\n*F\nx A.kt\n*L\n*E\n", "bad file"),
    ("SMAP\nA.kt\nKotlin\n*F\n1 A.kt\n*E\n", "outside a stratum"),
    ("SMAP\nA.kt\nKotlin\n*S Kotlin\n*F\n1 A.kt\n*L\n1:1\n", r"no \*E"),
    ("SMAP\nA.kt\nKotlin\n*O A\n*C A\n*E\n", "unresolved"),
    ("SMAP\nA.kt\nKotlin\n*Q\n*E\n", "unknown section"),
    ("SMAP\nA.kt\nKotlin\n*S\n*E\n", "without a name"),
])
def test_malformed_maps_raise_smap_error(text: str, why: str) -> None:
    with pytest.raises(SmapError, match=why):
        parse_smap(text)


def test_read_smap_logs_and_ignores_a_malformed_map(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="jdwp.debugger"):
        assert read_smap("SMAP\nA.kt\n", "com.x.A") is None
    assert "com.x.A" in caplog.text and "ignoring" in caplog.text
    assert read_smap(None, "x") is None and read_smap("", "x") is None
    assert read_smap(KOTLIN_APP, "x") is not None


def test_too_many_ranges_is_malformed_not_a_slow_lookup() -> None:
    body = "\n".join(f"{n}#1:{n}" for n in range(1, MAX_LINE_RANGES + 2))
    with pytest.raises(SmapError, match="more than"):
        parse_smap(f"SMAP\nA.kt\nKotlin\n*S Kotlin\n*F\n1 A.kt\n*L\n{body}\n*E\n")


# --- properties ---------------------------------------------------------------------------------------

ranges = st.lists(st.tuples(st.integers(1, 500), st.integers(1, 3), st.integers(0, 6), st.integers(1, 300),
                            st.integers(0, 3), st.booleans(), st.booleans()), min_size=1, max_size=12)


def render(entries: list[tuple[int, int, int, int, int, bool, bool]]) -> str:
    lines = []
    for start, file_id, repeat, output, increment, with_repeat, with_increment in entries:
        text = f"{start}#{file_id}"
        if with_repeat or repeat != 1:
            text += f",{repeat}"
        text += f":{output}"
        if with_increment or increment != 1:
            text += f",{increment}"
        lines.append(text)
    files = "\n".join(f"+ {n} F{n}.kt\npkg/F{n}Kt" for n in (1, 2, 3))
    return f"SMAP\nF1.kt\nKotlin\n*S Kotlin\n*F\n{files}\n*L\n" + "\n".join(lines) + "\n*E\n"


def brute_force(entries: list[tuple[int, int, int, int, int, bool, bool]], output_line: int) -> tuple[int, int] | None:
    for start, file_id, repeat, output, increment, _, _ in entries:
        for index in range(repeat):
            for step in range(increment):
                if output + index * increment + step == output_line:
                    return file_id, start + index
    return None


@given(ranges, st.integers(1, 400))
def test_mapping_agrees_with_expanding_every_range(entries: list[tuple[int, int, int, int, int, bool, bool]],
                                                   output_line: int) -> None:
    smap = parse_smap(render(entries))
    expected = brute_force(entries, output_line)
    mapped = smap.map(output_line)
    if expected is None:
        assert mapped is None
    else:
        assert mapped is not None and (mapped.file.name, mapped.line) == (f"F{expected[0]}.kt", expected[1])
        first_file = entries[0][1]
        assert mapped.inlined == (expected[0] != first_file or expected[1] != output_line)


@given(st.text(alphabet="SMAP*#,:+ \n0123456789EFLVKotlin.kt/", max_size=200))
def test_any_text_parses_or_raises_smap_error(text: str) -> None:
    try:
        smap = parse_smap(text)
    except SmapError:
        return
    for line in range(0, 50):
        smap.map(line)
