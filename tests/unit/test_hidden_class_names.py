"""Hidden classes' names as JDI and jdb print them (issue 23 item 12): ``Foo$$Lambda$11/0x…``, never the
signature's ``Foo$$Lambda$11.0x…``; the printed form typed back names the same class."""

from __future__ import annotations

import pytest

from jdwp.debugger.names import binary_name_of, is_binary_name, signature_of, type_name
from jdwp.debugger.requests.targets import class_target

HIDDEN_SIGNATURE = "Lcom/example/Foo$$Lambda$11.0x0000000800c03000;"
HIDDEN = "com.example.Foo$$Lambda$11/0x0000000800c03000"


def test_a_hidden_class_prints_with_a_slash_before_its_suffix() -> None:
    assert binary_name_of(HIDDEN_SIGNATURE) == HIDDEN
    assert type_name(HIDDEN_SIGNATURE) == HIDDEN
    assert type_name("[[" + HIDDEN_SIGNATURE) == HIDDEN + "[][]"
    assert binary_name_of("LFoo$$Lambda$3.0x1;") == "Foo$$Lambda$3/0x1"  # the default package


def test_the_printed_name_typed_back_is_the_same_class() -> None:
    assert is_binary_name(HIDDEN)
    assert signature_of(HIDDEN) == HIDDEN_SIGNATURE
    assert class_target(HIDDEN).class_name == HIDDEN  # a breakpoint's className takes it


@pytest.mark.parametrize("signature, name", [("Lcom/example/Outer$Inner;", "com.example.Outer$Inner"),
                                             ("Ljava/lang/String;", "java.lang.String"), ("I", "int"),
                                             ("[Ljava/lang/Object;", "java.lang.Object[]")])
def test_other_names_are_as_before(signature: str, name: str) -> None:
    assert binary_name_of(signature) == name
    if signature.startswith("L"):
        assert signature_of(name) == signature


@pytest.mark.parametrize("name", ["com/example/Foo", "Foo/", "/0x1", "Foo/0x1/0x2", "Foo/0x.1", "com.example.",
                                  "Foo/0x 1", "com/example", "Foo/0xg"])
def test_slashes_elsewhere_are_no_class_name(name: str) -> None:
    assert not is_binary_name(name)
