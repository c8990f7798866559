"""Parser of the §7.3 expression language: precedence climbing over :func:`tokenize`'s tokens.

Layer: ``jdwp.debugger.expressions``; pure. The AST is frozen dataclasses, each node with the 1-based
column of the token that names it (an operator's column for unary and binary nodes), so evaluation
errors can point into the text too.

Precedence, loosest first (Java's, JLS §15): ``||``; ``&&``; ``== !=``; ``< <= > >= instanceof``;
``+ -``; ``* / %``; unary ``! -``; postfix ``.name``, ``[index]``, ``(args)``. Binary operators are
left-associative. Nesting is bounded twice, so that no input can exhaust the interpreter's stack:
the parser's own recursion (parentheses, brackets, call arguments) and the depth of the finished tree,
which a recursive evaluator, ``repr`` and ``==`` walk (a run of 500 ``!`` is 500 levels deep).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal as TypingLiteral

from .lexer import INT_LIMIT, LONG_LIMIT, ExpressionSyntaxError, Token, tokenize

MAX_NESTING = 64
"""Deepest nesting of parentheses, brackets and call arguments; deeper input is a syntax error."""

MAX_DEPTH = 100
"""Deepest tree accepted; deeper input is a syntax error at the column of the node that crosses it."""

LiteralType = TypingLiteral["int", "long", "float", "double", "char", "string", "boolean", "null"]


@dataclass(frozen=True, slots=True)
class Literal:
    type: LiteralType
    value: int | float | str | bool | None
    column: int


@dataclass(frozen=True, slots=True)
class Name:
    """A bare identifier: a local, a field of ``this``, or the first part of a class name."""

    name: str
    column: int


@dataclass(frozen=True, slots=True)
class This:
    column: int


@dataclass(frozen=True, slots=True)
class Field:
    """``target.name``; also ``a.length``, ``list.size`` and the parts of ``com.x.Foo.BAR``."""

    target: Expr
    name: str
    column: int


@dataclass(frozen=True, slots=True)
class Index:
    target: Expr
    index: Expr
    column: int


@dataclass(frozen=True, slots=True)
class Call:
    """``target.name(args)`` or ``name(args)`` (``target`` None): a method invocation."""

    target: Expr | None
    name: str
    args: tuple[Expr, ...]
    column: int


@dataclass(frozen=True, slots=True)
class Unary:
    op: TypingLiteral["!", "-"]
    operand: Expr
    column: int


@dataclass(frozen=True, slots=True)
class Binary:
    op: str
    left: Expr
    right: Expr
    column: int


@dataclass(frozen=True, slots=True)
class InstanceOf:
    """``operand instanceof T``; ``type_name`` is dotted as written, with ``[]`` per array dimension."""

    operand: Expr
    type_name: str
    column: int


Expr = Literal | Name | This | Field | Index | Call | Unary | Binary | InstanceOf

# Binding power of each binary operator; instanceof shares the relational level.
_BINARY: dict[str, int] = {
    "||": 1,
    "&&": 2,
    "==": 3,
    "!=": 3,
    "<": 4,
    "<=": 4,
    ">": 4,
    ">=": 4,
    "+": 5,
    "-": 5,
    "*": 6,
    "/": 6,
    "%": 6,
}
_RELATIONAL = 4


def parse_expression(text: str) -> Expr:
    """Parse one expression.

    Raises:
        ExpressionSyntaxError: with the 1-based column of the first token that does not fit.
    """
    expr = _Parser(tokenize(text)).parse()
    _check_depth(expr)
    return expr


def first_call(root: Expr) -> Call | None:
    """The leftmost method call in ``root``, if any (iterative, as :func:`_check_depth`)."""
    pending = [root]
    calls: list[Call] = []
    while pending:
        expr = pending.pop()
        if isinstance(expr, Call):
            calls.append(expr)
        pending.extend(_children(expr))
    return min(calls, key=lambda call: call.column, default=None)


def frame_names(root: Expr) -> frozenset[str] | None:
    """The names ``root`` looks up in its frame, or ``None`` when it also needs the frame's ``this``.

    A name resolves to a local first (then a field of ``this``, then a static): when every name is a local
    of the frame, evaluating ``root`` never reads ``this``, and a judged hit can skip asking for it.
    ``this`` itself, or a call (whose receiver may be ``this``), needs it.
    """
    pending = [root]
    names: set[str] = set()
    while pending:
        expr = pending.pop()
        if isinstance(expr, This | Call):
            return None
        if isinstance(expr, Name):
            names.add(expr.name)
        pending.extend(_children(expr))
    return frozenset(names)


def _children(expr: Expr) -> tuple[Expr, ...]:
    if isinstance(expr, Field | InstanceOf):
        return (expr.target,) if isinstance(expr, Field) else (expr.operand,)
    if isinstance(expr, Index):
        return (expr.target, expr.index)
    if isinstance(expr, Unary):
        return (expr.operand,)
    if isinstance(expr, Binary):
        return (expr.left, expr.right)
    if isinstance(expr, Call):
        return expr.args if expr.target is None else (expr.target, *expr.args)
    return ()


def _check_depth(root: Expr) -> None:
    # Iterative on purpose: this walk must not be the thing that recurses too deep.
    pending: list[tuple[Expr, int]] = [(root, 1)]
    while pending:
        expr, depth = pending.pop()
        if depth > MAX_DEPTH:
            raise ExpressionSyntaxError(f"the expression nests deeper than {MAX_DEPTH} levels", expr.column)
        pending.extend((child, depth + 1) for child in _children(expr))


class _Parser:
    def __init__(self, tokens: list[Token]) -> None:
        self._tokens = tokens
        self._at = 0
        self._depth = 0

    def parse(self) -> Expr:
        if self._peek().kind == "end":
            raise ExpressionSyntaxError("the expression is empty", 1)
        expr = self._binary(1)
        token = self._peek()
        if token.kind != "end":
            raise ExpressionSyntaxError(f"unexpected {_describe(token)}", token.column)
        return expr

    def _peek(self) -> Token:
        return self._tokens[self._at]

    def _next(self) -> Token:
        token = self._tokens[self._at]
        if token.kind != "end":
            self._at += 1
        return token

    def _is_op(self, text: str) -> bool:
        token = self._peek()
        return token.kind == "op" and token.text == text

    def _expect_op(self, text: str) -> Token:
        token = self._peek()
        if not (token.kind == "op" and token.text == text):
            raise ExpressionSyntaxError(f"expected {text!r}, found {_describe(token)}", token.column)
        return self._next()

    def _enter(self, token: Token) -> None:
        self._depth += 1
        if self._depth > MAX_NESTING:
            raise ExpressionSyntaxError(f"nesting deeper than {MAX_NESTING} levels", token.column)

    def _binary(self, min_power: int) -> Expr:
        left = self._unary()
        while True:
            token = self._peek()
            if token.kind == "keyword" and token.text == "instanceof" and _RELATIONAL >= min_power:
                self._next()
                left = InstanceOf(left, self._type_name(), token.column)
                continue
            power = _BINARY.get(token.text) if token.kind == "op" else None
            if power is None or power < min_power:
                return left
            self._next()
            right = self._binary(power + 1)
            left = Binary(token.text, left, right, token.column)

    def _type_name(self) -> str:
        token = self._next()
        if token.kind != "ident":
            found = _describe(token)
            raise ExpressionSyntaxError(f"expected a type name after instanceof, found {found}", token.column)
        parts = [token.text]
        while self._is_op(".") and self._tokens[self._at + 1].kind == "ident":
            self._next()
            parts.append(self._next().text)
        name = ".".join(parts)
        while self._is_op("["):
            self._next()
            self._expect_op("]")
            name += "[]"
        return name

    def _unary(self) -> Expr:
        # Iterative, so a long run of "!" or "-" cannot exhaust the stack.
        ops: list[Token] = []
        while self._peek().kind == "op" and self._peek().text in ("!", "-"):
            ops.append(self._next())
        token = self._peek()
        if ops and ops[-1].text == "-" and token.kind in ("int", "long"):
            # Fold "-2147483648" and "-9223372036854775808L": only negated may they reach the limit.
            self._next()
            assert isinstance(token.value, int)
            operand: Expr = self._postfix(Literal(token.kind, -token.value, ops[-1].column))
            ops.pop()
        else:
            operand = self._postfix(self._primary())
        for op in reversed(ops):
            operand = Unary("!" if op.text == "!" else "-", operand, op.column)
        return operand

    def _primary(self) -> Expr:
        token = self._next()
        kind = token.kind
        if kind in ("int", "long"):
            assert isinstance(token.value, int)
            if token.value >= (INT_LIMIT if kind == "int" else LONG_LIMIT):
                raise ExpressionSyntaxError(f"the {kind} literal is out of range", token.column)
            return Literal(kind, token.value, token.column)
        if kind in ("float", "double", "char", "string"):
            return Literal(kind, token.value, token.column)
        if kind == "keyword":
            if token.text == "this":
                return This(token.column)
            if token.text == "null":
                return Literal("null", None, token.column)
            if token.text in ("true", "false"):
                return Literal("boolean", token.value, token.column)
        if kind == "ident":
            if self._is_op("("):
                return Call(None, token.text, self._arguments(), token.column)
            return Name(token.text, token.column)
        if kind == "op" and token.text == "(":
            self._enter(token)
            inner = self._binary(1)
            self._expect_op(")")
            self._depth -= 1
            return inner
        raise ExpressionSyntaxError(f"unexpected {_describe(token)}", token.column)

    def _postfix(self, expr: Expr) -> Expr:
        while True:
            token = self._peek()
            if token.kind != "op":
                return expr
            if token.text == ".":
                self._next()
                name = self._next()
                if name.kind != "ident":
                    raise ExpressionSyntaxError(f"expected a name after '.', found {_describe(name)}", name.column)
                if self._is_op("("):
                    expr = Call(expr, name.text, self._arguments(), name.column)
                else:
                    expr = Field(expr, name.text, name.column)
            elif token.text == "[":
                self._next()
                self._enter(token)
                index = self._binary(1)
                self._expect_op("]")
                self._depth -= 1
                expr = Index(expr, index, token.column)
            else:
                return expr

    def _arguments(self) -> tuple[Expr, ...]:
        opening = self._expect_op("(")
        self._enter(opening)
        args: list[Expr] = []
        if not self._is_op(")"):
            args.append(self._binary(1))
            while self._is_op(","):
                self._next()
                args.append(self._binary(1))
        self._expect_op(")")
        self._depth -= 1
        return tuple(args)


def _describe(token: Token) -> str:
    if token.kind == "end":
        return "end of expression"
    return repr(token.text)
