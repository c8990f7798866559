"""Collection operations in the expression language: how they parse, the forms refused with a syntax error
naming them, and the binding of a lambda's parameter (``reading.expressions.collections.bind``)."""

from __future__ import annotations

import pytest

from jdwp.debugger.errors import EvaluationFailed
from jdwp.debugger.reading.expressions import (
    Binary,
    ExpressionSyntaxError,
    Field,
    Held,
    Literal,
    Name,
    Operation,
    parse_expression,
)
from jdwp.debugger.reading.expressions.collections import Pair, bind, makes_list
from jdwp.protocol.constants import Tag
from jdwp.protocol.values import Value


def test_an_operation_is_a_postfix_with_its_lambda() -> None:
    assert parse_expression("xs.map { it.price }") == Operation(
        Name("xs", 1), "map", "it", Field(Name("it", 10), "price", 13), 4)
    named = parse_expression("orders.sumOf { o -> o.total } + 1")
    assert isinstance(named, Binary) and isinstance(named.left, Operation)
    assert (named.left.op, named.left.param) == ("sumOf", "o")
    chained = parse_expression("m.filter { it.value > 3 }.keys")
    assert isinstance(chained, Field) and chained.name == "keys" and isinstance(chained.target, Operation)
    nested = parse_expression("os.sumOf { it.lines.count { l -> l.done } }")
    assert isinstance(nested, Operation) and isinstance(nested.body, Operation)
    assert makes_list(chained) and makes_list(parse_expression("xs.filter { it }"))
    assert not makes_list(nested) and not makes_list(parse_expression("m?.keys"))


@pytest.mark.parametrize(("text", "column", "says"), [
    ("xs.sortedBy { it }", 4, "sortedBy { } is not computed here"),
    ("xs.map { a, b -> a }", 10, "two parameters and destructuring"),
    ("xs.map { (k, v) -> k }", 10, "two parameters and destructuring"),
    ("xs?.map { it }", 3, "safe call of a collection operation"),
    ("xs.map { it", 12, "expected '}'"),
    ("a -> b", 3, "unexpected '->'"),
])
def test_forms_not_computed_are_syntax_errors_naming_them(text: str, column: int, says: str) -> None:
    with pytest.raises(ExpressionSyntaxError) as caught:
        parse_expression(text)
    assert caught.value.column == column and says in caught.value.reason


def test_bind_replaces_the_parameter_and_a_map_entry_s_parts() -> None:
    five = Value(Tag.INT, 5)
    bound = bind(parse_expression("it + it"), "it", five)
    assert bound == Binary("+", Held(five, 1), Held(five, 6), 4)
    entry = Pair(Value(Tag.INT, 1), Value(Tag.INT, 2))
    assert bind(parse_expression("e.value > e.key"), "e", entry) == Binary(
        ">", Held(entry.value, 3), Held(entry.key, 13), 9)
    # A nested lambda naming its parameter the same shadows it; its source is still bound.
    inner = bind(parse_expression("it.map { it }"), "it", five)
    assert isinstance(inner, Operation) and inner.target == Held(five, 1) and inner.body == Name("it", 10)
    assert bind(Literal("int", 1, 1), "it", five) == Literal("int", 1, 1)
    with pytest.raises(EvaluationFailed, match="map entry"):
        bind(parse_expression("it"), "it", entry)
    with pytest.raises(EvaluationFailed, match=r"has \.key and \.value"):
        bind(parse_expression("it.size"), "it", entry)
