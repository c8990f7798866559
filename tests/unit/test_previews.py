"""How a preview is written (docs/design.md §3.7): short class names, values inside a preview, the 120-character
bound. What is read for it is tested live (tests/live/test_previews_live.py)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from jdwp.debugger.reading.objects import ClassInfo
from jdwp.debugger.reading.previews import MAX_FIELDS, MAX_PREVIEW, _inner, _joined, plan_of, short_name
from jdwp.debugger.reading.values import Summary
from jdwp.protocol.commands.reftypes import FieldInfo
from jdwp.protocol.types import ReferenceTypeId


def test_short_names() -> None:
    assert short_name("com.example.Carts$Item") == "Item"
    assert short_name("java.util.ArrayList") == "ArrayList"
    assert short_name("com.example.Main$1") == "Main$1"  # anonymous: its own name is a number
    assert short_name("com.example.Main$$Lambda$14/0x0000000800c03000") == "Main$$Lambda$14"
    assert short_name("java.lang.String[][]") == "String[][]"
    assert short_name("Top") == "Top"


def test_values_inside_a_preview() -> None:
    assert _inner(Summary("null", None)) == "null"
    assert _inner(Summary("primitive", "-500")) == "-500"
    assert _inner(Summary("string", 'say "hi"\n', object_id="obj-1")) == '"say \\"hi\\"\\n"'
    assert _inner(Summary("string", "x" * 50, object_id="obj-1")) == '"' + "x" * 40 + '…"'
    assert _inner(Summary("string", "cut", True, 900, "obj-1")) == '"cut…"'  # the summary was cut already
    assert _inner(Summary("array", None, False, 4, "obj-2", "int[]")) == "int[4]"
    assert _inner(Summary("array", None, False, 2, "obj-2", "java.lang.String[][]")) == "String[2][]"
    assert _inner(Summary("object", "OK", object_id="obj-3", runtime_type="a.Status")) == "OK"  # an enum
    assert _inner(Summary("object", None, object_id="obj-4", runtime_type="a.B$Account")) == "Account(…)"
    assert _inner(Summary("object", None, object_id="obj-4", runtime_type="a.Account", preview="Account(x=1)")
                  ) == "Account(x=1)"
    assert _inner(Summary("unavailable", None, reason="INVALID_SLOT")) == "?"


def test_a_preview_ends_with_an_ellipsis_when_there_is_more() -> None:
    assert _joined("Item(", ["a=1", "b=2"], False, ")") == "Item(a=1, b=2)"
    assert _joined("Item(", ["a=1", "b=2"], True, ")") == "Item(a=1, b=2, …)"
    assert _joined("Item(", [], True, ")") == "Item(…)"
    assert _joined("Item(", [], False, ")") == "Item()"
    long = _joined("Item(", ["a=" + "1" * 200, "b=2"], False, ")")
    assert long == "Item(…)"


@given(st.lists(st.text(max_size=80), max_size=20), st.booleans(), st.text(max_size=150))
def test_every_preview_is_at_most_120_characters(parts: list[str], more: bool, name: str) -> None:
    text = _joined(name + "(", parts, more, ")")
    assert len(text) <= MAX_PREVIEW


def test_a_plan_skips_statics_and_synthetic_fields_and_takes_the_first_five() -> None:
    fields = (FieldInfo(1, "this$0", "LOuter;", 0x1010), FieldInfo(2, "COUNT", "I", 0x0008),
              *(FieldInfo(10 + i, f"f{i}", "I", 0) for i in range(4)))
    base = (FieldInfo(20, "inherited", "I", 0), FieldInfo(21, "more", "I", 0))
    chain = (ClassInfo(ReferenceTypeId(1), "a.Outer$Inner", fields), ClassInfo(ReferenceTypeId(2), "a.Base", base))
    plan = plan_of(chain)
    assert plan.name == "Inner" and not plan.container
    assert [name for name, _, _ in plan.fields] == ["f0", "f1", "f2", "f3", "inherited"]
    assert len(plan.fields) == MAX_FIELDS and plan.more
    listed = plan_of((ClassInfo(ReferenceTypeId(3), "java.util.ArrayList", ()),
                      ClassInfo(ReferenceTypeId(4), "java.util.AbstractList", ())))
    assert listed.container and listed.name == "ArrayList"
    assert plan_of((ClassInfo(ReferenceTypeId(5), "a.Mine", ()), ClassInfo(ReferenceTypeId(3), "java.util.HashMap", ()))
                   ).container  # a subclass of a container is sized as one
