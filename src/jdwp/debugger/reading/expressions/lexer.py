"""Tokens of the expression language (docs/design.md §3.8), each with its 1-based column.

Layer: ``jdwp.debugger.reading.expressions``; imports nothing from the wire or trio. Literal values are decoded
here with Java's rules (JLS §3.10): an ``int`` literal above 2**31 - 1 is an error unless it is the
operand of unary minus (the parser decides that), ``f`` literals are rounded to binary32, and a
floating literal that rounds to infinity is an error.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from typing import Literal as TypingLiteral

from ...errors import InvalidArgument

MAX_EXPRESSION_CHARS = 512
"""docs/design.md §6: longer expressions are refused before any token is read."""

TokenKind = TypingLiteral["ident", "keyword", "int", "long", "float", "double", "char", "string", "op", "end"]

KEYWORDS = frozenset({"this", "true", "false", "null", "instanceof"})

# Longest first, so "<=" wins over "<" and "&&" is never read as two "&". Kotlin's: "?." and "?:", "?" (of
# "as?" and "T?"), ".." (a range), "===" and "!==" (identity); "!!" is two "!" (the parser tells a postfix
# not-null assertion from a double negation by where it stands). "{", "}" and "->": a collection operation's
# lambda (``list.map { x -> x.price }``).
OPERATORS = ("===", "!==", "&&", "||", "==", "!=", "<=", ">=", "?.", "?:", "..", "->", "!", "-", "*", "/", "%", "+",
             "<", ">", ".", "[", "]", "(", ")", ",", "?", "{", "}")

_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", "s": " ", '"': '"', "'": "'", "\\": "\\",
            "$": "$"}
_TEMPLATE_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
#: A part of a string literal that is a Kotlin template: its expression's text and the column it starts at.
TemplatePart = tuple[str, int]

INT_LIMIT = 2**31
LONG_LIMIT = 2**63


class ExpressionSyntaxError(InvalidArgument):
    """The expression does not parse; ``column`` is 1-based and points at the offending character."""

    def __init__(self, message: str, column: int) -> None:
        super().__init__(f"expression syntax error at column {column}: {message}")
        self.reason = message
        self.column = column


@dataclass(frozen=True, slots=True)
class Token:
    kind: TokenKind
    text: str
    column: int
    value: int | float | str | bool | None = None
    #: A string literal with Kotlin templates (``"$x and ${a.b}"``): its text and expression parts in order.
    parts: tuple[str | TemplatePart, ...] | None = None


def tokenize(text: str) -> list[Token]:
    """Split ``text`` into tokens, ending with one ``end`` token.

    Raises:
        ExpressionSyntaxError: an unknown character, an unterminated or bad literal, or text longer than
            :data:`MAX_EXPRESSION_CHARS`.
    """
    if len(text) > MAX_EXPRESSION_CHARS:
        raise ExpressionSyntaxError(
            f"the expression has {len(text)} characters; at most {MAX_EXPRESSION_CHARS} are accepted",
            MAX_EXPRESSION_CHARS + 1,
        )
    tokens: list[Token] = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c in " \t\r\n":
            i += 1
        elif c.isalpha() or c in "_$":
            j = i + 1
            while j < n and (text[j].isalnum() or text[j] in "_$"):
                j += 1
            word = text[i:j]
            if word == "this" and text.startswith("@", j) and _label_starts(text, j + 1):
                # Kotlin's labelled receiver, this@label: one name (the locals list it so).
                j += 2
                while j < n and (text[j].isalnum() or text[j] == "_"):
                    j += 1
                tokens.append(Token("ident", text[i:j], i + 1))
                i = j
                continue
            if word in KEYWORDS:
                value: bool | None = {"true": True, "false": False}.get(word)
                tokens.append(Token("keyword", word, i + 1, value))
            else:
                tokens.append(Token("ident", word, i + 1))
            i = j
        elif _digit(text, i) or (c == "." and _digit(text, i + 1)):
            token, i = _number(text, i)
            tokens.append(token)
        elif c == "'":
            j, chars = _quoted(text, i, "'")
            if len(chars) != 1 or ord(chars) > 0xFFFF:
                raise ExpressionSyntaxError("a char literal holds exactly one UTF-16 unit", i + 1)
            tokens.append(Token("char", text[i:j], i + 1, chars))
            i = j
        elif c == '"':
            parts: list[str | TemplatePart] = []
            j, chars = _quoted(text, i, '"', parts)
            has_template = any(isinstance(part, tuple) for part in parts)
            tokens.append(Token("string", text[i:j], i + 1, chars, tuple(parts) if has_template else None))
            i = j
        else:
            for op in OPERATORS:
                if text.startswith(op, i):
                    tokens.append(Token("op", op, i + 1))
                    i += len(op)
                    break
            else:
                raise ExpressionSyntaxError(f"unexpected character {c!r}", i + 1)
    tokens.append(Token("end", "", n + 1))
    return tokens


def _label_starts(text: str, j: int) -> bool:
    return j < len(text) and (text[j].isalpha() or text[j] == "_")


def _number(text: str, start: int) -> tuple[Token, int]:
    n = len(text)
    j = start
    if text.startswith(("0x", "0X"), start):
        j = start + 2
        while j < n and text[j] in "0123456789abcdefABCDEF_":
            j += 1
        digits = text[start + 2 : j].replace("_", "")
        if not digits:
            raise ExpressionSyntaxError("a hexadecimal literal needs digits", start + 1)
        return _integer(text, start, j, int(digits, 16))
    while _digit(text, j) or (j < n and text[j] == "_"):
        j += 1
    floating = False
    # "1.x" is the int 1 then ".x"; "1..5" is a range; "1.", "1.5", "1.e3" and "1.f" are floating literals.
    if j < n and text[j] == "." and not (j + 1 < n and ((text[j + 1].isalpha() and text[j + 1] not in "eEfFdD")
                                                         or text[j + 1] == ".")):
        floating = True
        j += 1
        while _digit(text, j):
            j += 1
    if j < n and text[j] in "eE":
        floating = True
        j += 1
        if j < n and text[j] in "+-":
            j += 1
        if not _digit(text, j):
            raise ExpressionSyntaxError("an exponent needs digits", j + 1)
        while _digit(text, j):
            j += 1
    if j < n and text[j] in "fFdD":
        floating = True
    if floating:
        single = j < n and text[j] in "fF"
        literal = text[start:j].replace("_", "")
        if j < n and text[j] in "fFdD":
            j += 1
        _no_trailing_word(text, j)
        value = float(literal)
        if single:
            value = _to_float32(value, start)
        if math.isinf(value):
            raise ExpressionSyntaxError("the floating-point literal is too large", start + 1)
        return Token("float" if single else "double", text[start:j], start + 1, value), j
    digits = text[start:j].replace("_", "")
    if len(digits) > 1 and digits.startswith("0"):
        if any(d not in "01234567" for d in digits):
            raise ExpressionSyntaxError("an octal literal has only digits 0-7", start + 1)
        return _integer(text, start, j, int(digits, 8))
    return _integer(text, start, j, int(digits))


def _digit(text: str, j: int) -> bool:
    # ASCII only: str.isdigit() accepts "²", which int() refuses.
    return j < len(text) and "0" <= text[j] <= "9"


def _integer(text: str, start: int, j: int, value: int) -> tuple[Token, int]:
    long = j < len(text) and text[j] in "lL"
    if long:
        j += 1
    _no_trailing_word(text, j)
    limit = LONG_LIMIT if long else INT_LIMIT
    # One past the maximum is kept: it is valid only as the operand of unary minus (JLS §3.10.1).
    if value > limit:
        raise ExpressionSyntaxError(f"the {'long' if long else 'int'} literal is out of range", start + 1)
    return Token("long" if long else "int", text[start:j], start + 1, value), j


def _no_trailing_word(text: str, j: int) -> None:
    if j < len(text) and (text[j].isalnum() or text[j] in "_$"):
        raise ExpressionSyntaxError(f"unexpected character {text[j]!r} after a number", j + 1)


def _to_float32(value: float, start: int) -> float:
    try:
        return float(struct.unpack(">f", struct.pack(">f", value))[0])
    except OverflowError:
        raise ExpressionSyntaxError("the float literal is too large", start + 1) from None


def _quoted(text: str, start: int, quote: str, parts: list[str | TemplatePart] | None = None) -> tuple[int, str]:
    """Read a char or string literal starting at the quote; return the index after it and its text.

    ``parts``: for a string, filled with its pieces of text and its Kotlin templates (``$name``, ``${expr}``)
    in order; the text returned is the literal as Java reads it (``$`` is no special character there).
    """
    out: list[str] = []
    piece: list[str] = []
    i = start + 1
    n = len(text)
    while i < n:
        c = text[i]
        if c == quote:
            if parts is not None and piece:
                parts.append("".join(piece))
            return i + 1, "".join(out)
        if c in "\r\n":
            break
        if c == "$" and parts is not None and i + 1 < n and (text[i + 1] in _TEMPLATE_START or text[i + 1] == "{"):
            j = _template_end(text, i)
            if piece:
                parts.append("".join(piece))
                piece = []
            if text[i + 1] == "{":
                parts.append((text[i + 2 : j - 1], i + 3))
            else:
                parts.append((text[i + 1 : j], i + 2))
            out.append(text[i:j])
            i = j
            continue
        before = len(out)
        if c != "\\":
            # Java counts UTF-16 units: a supplementary character is two.
            out.append(c)
            piece.append(c)
            i += 1
            continue
        if i + 1 >= n:
            break
        e = text[i + 1]
        if e in _ESCAPES:
            out.append(_ESCAPES[e])
            i += 2
        elif e == "u":
            j = i + 1
            while j < n and text[j] == "u":
                j += 1
            hex_digits = text[j : j + 4]
            if len(hex_digits) != 4 or any(h not in "0123456789abcdefABCDEF" for h in hex_digits):
                raise ExpressionSyntaxError("\\u needs four hexadecimal digits", i + 1)
            out.append(chr(int(hex_digits, 16)))
            i = j + 4
        elif e in "01234567":
            j = i + 1
            # Up to three octal digits, and three only when the first is 0-3 (so the value fits in \377).
            width = 3 if e in "0123" else 2
            while j < n and j < i + 1 + width and text[j] in "01234567":
                j += 1
            out.append(chr(int(text[i + 1 : j], 8)))
            i = j
        else:
            raise ExpressionSyntaxError(f"unknown escape \\{e}", i + 1)
        piece.extend(out[before:])
    kind = "char" if quote == "'" else "string"
    raise ExpressionSyntaxError(f"unterminated {kind} literal", start + 1)


def _template_end(text: str, start: int) -> int:
    """The index after the Kotlin template at ``start`` (its ``$``): ``$name``, or ``${…}`` to its matching brace
    (a brace inside a string literal of the expression does not count)."""
    n = len(text)
    if text[start + 1] != "{":
        j = start + 2
        while j < n and (text[j].isalnum() or text[j] == "_"):
            j += 1
        return j
    depth = 0
    j = start + 1
    while j < n:
        c = text[j]
        if c == '"':
            j = _quoted(text, j, '"')[0]
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    raise ExpressionSyntaxError("unterminated ${ in a string template", start + 1)
