"""The expression grammar (docs/design.md §3.8): tokens, precedence, literals with Java's rules, syntax errors with
1-based columns, and a property: any text of at most 512 characters parses or raises
:class:`ExpressionSyntaxError`, never another exception.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jdwp.debugger.errors import InvalidArgument
from jdwp.debugger.reading.expressions import (
    Binary,
    Call,
    ExpressionSyntaxError,
    Field,
    Index,
    InstanceOf,
    Literal,
    Name,
    This,
    Unary,
    parse_expression,
    tokenize,
)
from jdwp.debugger.reading.expressions.parser import MAX_DEPTH, MAX_NESTING


def test_tokens_carry_one_based_columns() -> None:
    tokens = tokenize("a.b <= 12L")
    assert [(t.kind, t.text, t.column) for t in tokens] == [
        ("ident", "a", 1),
        ("op", ".", 2),
        ("ident", "b", 3),
        ("op", "<=", 5),
        ("long", "12L", 8),
        ("end", "", 11),
    ]


@pytest.mark.parametrize(
    ("text", "literal"),
    [
        ("12", Literal("int", 12, 1)),
        ("12L", Literal("long", 12, 1)),
        ("0x7fffffff", Literal("int", 2**31 - 1, 1)),
        ("017", Literal("int", 15, 1)),
        ("1_000", Literal("int", 1000, 1)),
        ("-2147483648", Literal("int", -(2**31), 1)),
        ("- 2147483648", Literal("int", -(2**31), 1)),
        ("-9223372036854775808L", Literal("long", -(2**63), 1)),
        ("1.5", Literal("double", 1.5, 1)),
        ("1.", Literal("double", 1.0, 1)),
        ("1.e2", Literal("double", 100.0, 1)),
        (".5", Literal("double", 0.5, 1)),
        ("1e3", Literal("double", 1000.0, 1)),
        ("2d", Literal("double", 2.0, 1)),
        ("1.5f", Literal("float", 1.5, 1)),
        ("0.1f", Literal("float", 0.10000000149011612, 1)),
        ("'c'", Literal("char", "c", 1)),
        ("'\\n'", Literal("char", "\n", 1)),
        ("'\\u0041'", Literal("char", "A", 1)),
        ("'\\''", Literal("char", "'", 1)),
        ('"a\\tb\\"\\\\"', Literal("string", 'a\tb"\\', 1)),
        ('"\\101\\0"', Literal("string", "A\0", 1)),
        ('"😀"', Literal("string", "😀", 1)),
        ("true", Literal("boolean", True, 1)),
        ("false", Literal("boolean", False, 1)),
        ("null", Literal("null", None, 1)),
    ],
)
def test_literals_follow_java(text: str, literal: Literal) -> None:
    assert parse_expression(text) == literal


def test_precedence_and_associativity() -> None:
    assert parse_expression("a || b && c == d < e + f * g") == Binary(
        "||",
        Name("a", 1),
        Binary(
            "&&",
            Name("b", 6),
            Binary(
                "==",
                Name("c", 11),
                Binary(
                    "<",
                    Name("d", 16),
                    Binary("+", Name("e", 20), Binary("*", Name("f", 24), Name("g", 28), 26), 22),
                    18,
                ),
                13,
            ),
            8,
        ),
        3,
    )
    assert parse_expression("a - b - c") == Binary("-", Binary("-", Name("a", 1), Name("b", 5), 3), Name("c", 9), 7)
    assert parse_expression("(a - b) * c") == Binary("*", Binary("-", Name("a", 2), Name("b", 6), 4), Name("c", 11), 9)


def test_unary_postfix_and_instanceof() -> None:
    assert parse_expression("!-x") == Unary("!", Unary("-", Name("x", 3), 2), 1)
    assert parse_expression("-a.b[i + 1].length") == Unary(
        "-",
        Field(Index(Field(Name("a", 2), "b", 4), Binary("+", Name("i", 6), Literal("int", 1, 10), 8), 5), "length", 13),
        1,
    )
    assert parse_expression("this.x") == Field(This(1), "x", 6)
    assert parse_expression("1.x") == Field(Literal("int", 1, 1), "x", 3)
    assert parse_expression("über.ß") == Field(Name("über", 1), "ß", 6)
    assert parse_expression('map["k"]') == Index(Name("map", 1), Literal("string", "k", 5), 4)
    assert parse_expression("o instanceof java.util.List && p instanceof int[][]") == Binary(
        "&&",
        InstanceOf(Name("o", 1), "java.util.List", 3),
        InstanceOf(Name("p", 32), "int[][]", 34),
        29,
    )
    assert parse_expression("com.x.Foo.BAR") == Field(Field(Field(Name("com", 1), "x", 5), "Foo", 7), "BAR", 11)


def test_calls_are_parsed_for_the_evaluator_to_refuse() -> None:
    assert parse_expression("s.length()") == Call(Name("s", 1), "length", (), 3)
    assert parse_expression("Foo.m(1, x)") == Call(Name("Foo", 1), "m", (Literal("int", 1, 7), Name("x", 10)), 5)
    assert parse_expression("f()") == Call(None, "f", (), 1)


@pytest.mark.parametrize(
    ("text", "column", "reason"),
    [
        ("", 1, "empty"),
        ("   ", 1, "empty"),
        ("a +", 4, "end of expression"),
        ("a b", 3, "unexpected 'b'"),
        ("a.", 3, "expected a name"),
        ("a.1", 2, "unexpected '.1'"),
        ("a[1", 4, "expected ']'"),
        ("(a", 3, "expected ')'"),
        ("a)", 2, "unexpected ')'"),
        ("a # b", 3, "unexpected character '#'"),
        ("a = b", 3, "unexpected character '='"),
        ("a & b", 3, "unexpected character '&'"),
        ("2147483648", 1, "int literal is out of range"),
        ("9223372036854775808L", 1, "long literal is out of range"),
        ("99999999999999999999L", 1, "long literal is out of range"),
        ("-(2147483648)", 3, "int literal is out of range"),
        ("1e", 3, "exponent"),
        ("1e999", 1, "too large"),
        ("1e39f", 1, "too large"),
        ("12abc", 3, "after a number"),
        ("09", 1, "octal"),
        ("0x", 1, "hexadecimal"),
        ("'ab'", 1, "exactly one"),
        ("''", 1, "exactly one"),
        ("'😀'", 1, "exactly one"),
        ('"abc', 1, "unterminated string"),
        ("'a", 1, "unterminated char"),
        ('"a\\qb"', 3, "unknown escape"),
        ('"\\u12"', 2, "four hexadecimal"),
        ("x instanceof 3", 14, "type name"),
        ("x instanceof", 13, "type name"),
    ],
)
def test_syntax_errors_point_at_the_column(text: str, column: int, reason: str | None) -> None:
    with pytest.raises(ExpressionSyntaxError) as caught:
        parse_expression(text)
    assert caught.value.column == column
    assert f"column {column}" in str(caught.value)
    if reason is not None:
        assert reason in caught.value.reason
    # The server maps the engine's InvalidArgument to INVALID_ARGUMENT.
    assert isinstance(caught.value, InvalidArgument)
    assert caught.value.code == "INVALID_ARGUMENT"


def test_length_and_depth_are_bounded() -> None:
    assert parse_expression("a" * 512) == Name("a" * 512, 1)
    with pytest.raises(ExpressionSyntaxError) as caught:
        parse_expression("a" * 513)
    assert caught.value.column == 513
    with pytest.raises(ExpressionSyntaxError, match="nesting deeper"):
        parse_expression("(" * (MAX_NESTING + 1) + "x" + ")" * (MAX_NESTING + 1))
    with pytest.raises(ExpressionSyntaxError, match="nests deeper"):
        parse_expression("!" * 300 + "x")
    with pytest.raises(ExpressionSyntaxError, match="nests deeper"):
        parse_expression("+".join(["1"] * 200))
    deep = parse_expression("!" * (MAX_DEPTH - 1) + "x")
    assert repr(deep).count("Unary") == MAX_DEPTH - 1


_ALPHABET = st.sampled_from([*"ab1 .[]()!-*/%+<>=&|'\"\\uLfxe0_,$²", "instanceof ", "this", "null", "😀", "\n"])


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.text(max_size=512), st.lists(_ALPHABET, max_size=200).map("".join).filter(lambda s: len(s) <= 512)))
def test_any_text_parses_or_raises_the_typed_error(text: str) -> None:
    try:
        expr = parse_expression(text)
    except ExpressionSyntaxError as exc:
        assert 1 <= exc.column <= len(text) + 1
    else:
        # A tree that parsed must be walkable: repr and equality recurse through it.
        assert expr == parse_expression(text)
        repr(expr)
