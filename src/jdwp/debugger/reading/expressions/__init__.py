"""The read-only expression language of docs/design.md §3.8: tokenizer and parser.

Layer: ``jdwp.debugger``; pure (no trio, no wire): text in, an AST of frozen dataclasses out, or
:class:`ExpressionSyntaxError` with the 1-based column. Evaluation over JDWP builds on this AST.
"""

from __future__ import annotations

from .lexer import MAX_EXPRESSION_CHARS, ExpressionSyntaxError, Token, tokenize
from .parser import (
    Binary,
    Call,
    Cast,
    Expr,
    Field,
    Held,
    Index,
    InstanceOf,
    Literal,
    Name,
    NotNull,
    Operation,
    Template,
    This,
    Unary,
    first_call,
    frame_names,
    parse_expression,
)

__all__ = [
    "MAX_EXPRESSION_CHARS",
    "Binary",
    "Call",
    "Cast",
    "Expr",
    "ExpressionSyntaxError",
    "Field",
    "Held",
    "Index",
    "InstanceOf",
    "Literal",
    "Name",
    "NotNull",
    "Operation",
    "Template",
    "This",
    "Token",
    "Unary",
    "first_call",
    "frame_names",
    "parse_expression",
    "tokenize",
]
