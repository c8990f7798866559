"""Parser of the expression language (docs/design.md §3.8): precedence climbing over :func:`tokenize`'s tokens.

Layer: ``jdwp.debugger.reading.expressions``; pure. The AST is frozen dataclasses, each node with the 1-based
column of the token that names it (an operator's column for unary and binary nodes), so evaluation
errors can point into the text too.

Precedence, loosest first (Java's, JLS §15): ``||``; ``&&``; ``== !=``; ``< <= > >= instanceof``;
``+ -``; ``* / %``; unary ``! -``; postfix ``.name``, ``[index]``, ``(args)``. Binary operators are
left-associative. Kotlin's forms (docs/design.md §3.10) fit in as Kotlin ranks them: ``=== !==`` with ``==``;
``in !in is !is`` with the relational operators; then ``?:`` and ``..`` between them and ``+ -``; ``as``
and ``as?`` above ``* / %`` (below unary); postfix ``?.name`` and ``!!``. ``as``, ``in`` and ``is`` are
operators only where an operator may stand (after an operand), so a Java local named ``in`` is still a
name. A string literal with ``$name`` or ``${expr}`` is a :class:`Template` (its parts parsed here). A
collection operation's lambda follows its name as a postfix, ``list.map { it.price }`` or ``{ x -> x.price }``
(:class:`Operation`, computed by :mod:`.collections`).

Nesting is bounded twice, so that no input can exhaust the interpreter's stack: the parser's own recursion
(parentheses, brackets, call arguments, templates) and the depth of the finished tree,
which a recursive evaluator, ``repr`` and ``==`` walk (a run of 500 ``!`` is 500 levels deep).
"""

from __future__ import annotations

import dataclasses
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
    """``target.name``; also ``a.length``, ``list.size`` and the parts of ``com.x.Foo.BAR``; ``safe``: Kotlin's
    ``target?.name`` (``null`` when the target is)."""

    target: Expr
    name: str
    column: int
    safe: bool = False


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


@dataclass(frozen=True, slots=True)
class NotNull:
    """Kotlin's ``operand!!``: the operand, or an error when it is null."""

    operand: Expr
    column: int


@dataclass(frozen=True, slots=True)
class Cast:
    """Kotlin's ``operand as T`` (``safe``: ``as? T``, null when it is not a ``T``); ``nullable``: ``T?``."""

    operand: Expr
    type_name: str
    nullable: bool
    safe: bool
    column: int


@dataclass(frozen=True, slots=True)
class Template:
    """A Kotlin string template ``"$x and ${a.b}"``: its parts (text, or an expression) in order; ``text`` is
    the literal as Java reads it (no templates there)."""

    parts: tuple[str | Expr, ...]
    text: str
    column: int


@dataclass(frozen=True, slots=True)
class Operation:
    """A collection operation with a lambda, ``target.op { param -> body }`` (``param`` is ``it`` when the
    lambda names none), computed from what the readers show (:mod:`.collections`)."""

    target: Expr
    op: str
    param: str
    body: Expr
    column: int


@dataclass(frozen=True, slots=True)
class Held:
    """A value bound while the expression is evaluated (a lambda's parameter, :mod:`.collections`): never parsed,
    so no text can make one."""

    value: object
    column: int


Expr = (Literal | Name | This | Field | Index | Call | Unary | Binary | InstanceOf | NotNull | Cast | Template
        | Operation | Held)

#: The operations that take a lambda (:mod:`.collections`); another name before ``{`` is a syntax error naming it.
LAMBDA_OPERATIONS = ("map", "filter", "sumOf", "count", "first", "any")

# Binding power of each binary operator; instanceof shares the relational level.
_BINARY: dict[str, int] = {
    "||": 1,
    "&&": 2,
    "==": 3,
    "!=": 3,
    "===": 3,
    "!==": 3,
    "<": 4,
    "<=": 4,
    ">": 4,
    ">=": 4,
    "?:": 5,
    "..": 6,
    "+": 7,
    "-": 7,
    "*": 8,
    "/": 8,
    "%": 8,
}
_RELATIONAL = 4
_CAST = 9


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
    if isinstance(expr, NotNull | Cast):
        return (expr.operand,)
    if isinstance(expr, Template):
        return tuple(part for part in expr.parts if not isinstance(part, str))
    if isinstance(expr, Index):
        return (expr.target, expr.index)
    if isinstance(expr, Unary):
        return (expr.operand,)
    if isinstance(expr, Binary):
        return (expr.left, expr.right)
    if isinstance(expr, Call):
        return expr.args if expr.target is None else (expr.target, *expr.args)
    if isinstance(expr, Operation):
        return (expr.target, expr.body)
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
                left = InstanceOf(left, self._type_name("instanceof"), token.column)
                continue
            if token.kind == "ident" and token.text == "as" and _CAST >= min_power:
                self._next()
                safe = self._is_op("?")
                if safe:
                    self._next()
                name = self._type_name("as?" if safe else "as")
                nullable = self._is_op("?")
                if nullable:
                    self._next()
                left = Cast(left, name, nullable, safe, token.column)
                continue
            negated = token.kind == "op" and token.text == "!" and self._tokens[self._at + 1].kind == "ident" and (
                self._tokens[self._at + 1].text in ("in", "is"))
            check = self._tokens[self._at + 1] if negated else token
            if check.kind == "ident" and check.text in ("in", "is") and _RELATIONAL >= min_power:
                self._next()
                if negated:
                    self._next()
                if check.text == "is":
                    name = self._type_name("!is" if negated else "is")
                    if self._is_op("?"):
                        self._next()
                        name += "?"
                    test: Expr = InstanceOf(left, name, check.column)
                else:
                    test = Binary("in", left, self._binary(_RELATIONAL + 1), check.column)
                left = Unary("!", test, token.column) if negated else test
                continue
            power = _BINARY.get(token.text) if token.kind == "op" else None
            if power is None or power < min_power:
                return left
            self._next()
            right = self._binary(power + 1)
            left = Binary(token.text, left, right, token.column)

    def _type_name(self, after: str) -> str:
        token = self._next()
        if token.kind != "ident":
            found = _describe(token)
            raise ExpressionSyntaxError(f"expected a type name after {after}, found {found}", token.column)
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
        if kind == "string" and token.parts is not None:
            return self._template(token)
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

    def _template(self, token: Token) -> Template:
        assert token.parts is not None and isinstance(token.value, str)
        self._enter(token)
        parts: list[str | Expr] = []
        for part in token.parts:
            if isinstance(part, str):
                parts.append(part)
                continue
            source, column = part
            if not source.strip():
                raise ExpressionSyntaxError("an empty ${} in a string template", column - 1)
            inner = [dataclasses.replace(t, column=t.column + column - 1) for t in tokenize(source)]
            parser = _Parser(inner)
            parser._depth = self._depth
            parts.append(parser.parse())
        self._depth -= 1
        return Template(tuple(parts), token.value, token.column)

    def _postfix(self, expr: Expr) -> Expr:
        while True:
            token = self._peek()
            if token.kind != "op":
                return expr
            if token.text == "!" and self._tokens[self._at + 1].text == "!" and (
                    self._tokens[self._at + 1].kind == "op" and self._tokens[self._at + 1].column == token.column + 1):
                self._next()
                self._next()
                expr = NotNull(expr, token.column)
            elif token.text in (".", "?."):
                self._next()
                name = self._next()
                if name.kind != "ident":
                    raise ExpressionSyntaxError(f"expected a name after {token.text!r}, found {_describe(name)}",
                                                name.column)
                if self._is_op("{"):
                    if token.text == "?.":
                        raise ExpressionSyntaxError(f"a safe call of a collection operation (?.{name.text} {{ }}) "
                                                    "is not supported: test for null first", token.column)
                    expr = self._operation(expr, name)
                elif self._is_op("("):
                    if token.text == "?.":
                        raise ExpressionSyntaxError(f"a safe call of a method (?.{name.text}()) is not supported: "
                                                    "test for null first", token.column)
                    expr = Call(expr, name.text, self._arguments(), name.column)
                else:
                    expr = Field(expr, name.text, name.column, token.text == "?.")
            elif token.text == "[":
                self._next()
                self._enter(token)
                index = self._binary(1)
                self._expect_op("]")
                self._depth -= 1
                expr = Index(expr, index, token.column)
            else:
                return expr

    def _operation(self, target: Expr, name: Token) -> Operation:
        if name.text not in LAMBDA_OPERATIONS:
            raise ExpressionSyntaxError(f"{name.text} {{ }} is not computed here: the collection operations with a "
                                        f"lambda are {', '.join(LAMBDA_OPERATIONS)} (and .keys, .values of a map)",
                                        name.column)
        opening = self._expect_op("{")
        self._enter(opening)
        param = "it"
        arrow = self._arrow()
        if arrow is not None:
            first = self._peek()
            if arrow != self._at + 1 or first.kind != "ident":
                raise ExpressionSyntaxError("a lambda here takes one parameter, it or { x -> … }: two parameters "
                                            "and destructuring are not supported", first.column)
            param = self._next().text
            self._next()
        body = self._binary(1)
        self._expect_op("}")
        self._depth -= 1
        return Operation(target, name.text, param, body, name.column)

    def _arrow(self) -> int | None:
        """Where the lambda that starts here has its ``->`` (``None``: it names no parameter, which is ``it``)."""
        depth = 0
        for at in range(self._at, len(self._tokens)):
            token = self._tokens[at]
            if token.kind == "end":
                return None
            if token.kind != "op":
                continue
            if token.text in ("(", "[", "{"):
                depth += 1
            elif token.text in (")", "]", "}"):
                if depth == 0:
                    return None
                depth -= 1
            elif token.text == "->" and depth == 0:
                return at
        return None

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
