"""Kotlin's expression forms in the expression grammar (docs/design.md §3.8, §3.10): each new form's tokens and tree,
where it ranks among Java's operators, and the Java text that must keep parsing as before."""

from __future__ import annotations

import pytest

from jdwp.debugger.classes.synthetic import captured_name
from jdwp.debugger.reading.expressions import (
    Binary,
    Cast,
    ExpressionSyntaxError,
    Field,
    InstanceOf,
    Literal,
    Name,
    NotNull,
    Template,
    Unary,
    parse_expression,
    tokenize,
)
from jdwp.debugger.reading.expressions.kotlin import jvm_type


def test_a_labelled_receiver_is_one_name() -> None:
    assert parse_expression("this@singleOrNull") == Name("this@singleOrNull", 1)
    assert parse_expression("this@map.size") == Field(Name("this@map", 1), "size", 10)
    with pytest.raises(ExpressionSyntaxError, match="column 5"):
        parse_expression("this@")


def test_safe_access_not_null_and_elvis() -> None:
    assert parse_expression("a?.b") == Field(Name("a", 1), "b", 4, safe=True)
    assert parse_expression("a!!.b") == Field(NotNull(Name("a", 1), 2), "b", 5)
    assert parse_expression("!!f") == Unary("!", Unary("!", Name("f", 3), 2), 1)  # Java's double negation
    assert parse_expression("a ?: b + 1") == Binary(
        "?:", Name("a", 1), Binary("+", Name("b", 6), Literal("int", 1, 10), 8), 3)
    with pytest.raises(ExpressionSyntaxError, match="safe call of a method"):
        parse_expression("a?.m()")


def test_casts_bind_tighter_than_arithmetic() -> None:
    assert parse_expression("x as Long") == Cast(Name("x", 1), "Long", False, False, 3)
    assert parse_expression("x as? kotlin.Int") == Cast(Name("x", 1), "kotlin.Int", False, True, 3)
    assert parse_expression("x as String?") == Cast(Name("x", 1), "String", True, False, 3)
    assert parse_expression("a * x as Int") == Binary("*", Name("a", 1), Cast(Name("x", 5), "Int", False, False, 7), 3)
    with pytest.raises(ExpressionSyntaxError, match="type name after as"):
        parse_expression("x as 1")


def test_ranges_and_named_checks() -> None:
    in_range = Binary("in", Name("total", 1), Binary("..", Literal("int", 1, 10), Literal("int", 20, 13), 11), 7)
    assert parse_expression("total in 1..20") == in_range
    assert parse_expression("x !in 0 .. n") == Unary("!", Binary(
        "in", Name("x", 1), Binary("..", Literal("int", 0, 7), Name("n", 12), 9), 4), 3)
    assert parse_expression("x in a..b && y") == Binary("&&", Binary(
        "in", Name("x", 1), Binary("..", Name("a", 6), Name("b", 9), 7), 3), Name("y", 14), 11)
    assert parse_expression("x is Int") == InstanceOf(Name("x", 1), "Int", 3)
    assert parse_expression("x !is String?") == Unary("!", InstanceOf(Name("x", 1), "String?", 4), 3)
    assert [t.text for t in tokenize("1..5")] == ["1", "..", "5", ""]
    assert tokenize("1.5")[0].value == 1.5


def test_in_as_and_is_stay_names_where_an_operand_stands() -> None:
    assert parse_expression("in") == Name("in", 1)
    assert parse_expression("in.available + as") == Binary(
        "+", Field(Name("in", 1), "available", 4), Name("as", 16), 14)


def test_identity_operators() -> None:
    assert parse_expression("a === b") == Binary("===", Name("a", 1), Name("b", 7), 3)
    assert parse_expression("a !== b") == Binary("!==", Name("a", 1), Name("b", 7), 3)


def test_string_templates() -> None:
    assert parse_expression('"$total"') == Template((Name("total", 3),), "$total", 1)
    assert parse_expression('"a $x and ${o.b} z"') == Template(
        ("a ", Name("x", 5), " and ", Field(Name("o", 13), "b", 15), " z"), "a $x and ${o.b} z", 1)
    assert parse_expression('"${"}"}"') == Template((Literal("string", "}", 4),), '${"}"}', 1)
    assert parse_expression('"\\$x costs $"') == Literal("string", "$x costs $", 1)  # escaped, or no name
    with pytest.raises(ExpressionSyntaxError, match="unterminated \\$\\{"):
        parse_expression('"${x')
    with pytest.raises(ExpressionSyntaxError, match="empty"):
        parse_expression('"${ }"')
    with pytest.raises(ExpressionSyntaxError, match="column 7"):
        parse_expression('"${a +}"')


def test_kotlin_type_names_on_the_jvm() -> None:
    assert jvm_type("Int") == jvm_type("kotlin.Int") == "java.lang.Integer"
    assert jvm_type("List") == jvm_type("kotlin.collections.List") == "java.util.List"
    assert jvm_type("com.x.Order") == "com.x.Order"


def test_a_capture_copied_with_an_inline_function() -> None:
    assert captured_name("$prices$inlined") == "prices"
