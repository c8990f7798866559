"""Method calls of an expression, when invocation is allowed (``--allow-invoke``): the target and the
arguments evaluated, the overload chosen (:mod:`..invoke`), the method run on the stop's event thread.
``size()`` and ``isEmpty()`` of a container :mod:`..containers` reads are answered from its fields instead,
with invocation allowed or not.

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). docs/design.md §3.8. Mixed into
:class:`.evaluator.Evaluator`, whose reading of names, fields and supertypes it uses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ....client import JdwpClient
from ....protocol.commands.reftypes import MethodInfo
from ....protocol.constants import ACC_ABSTRACT, ACC_STATIC, Tag
from ....protocol.types import ReferenceTypeId
from ....protocol.values import Value
from ...errors import EvaluationFailed
from ...model import Locals
from ...names import binary_name_of
from ..invoke import Argument, choose, converted, parameter_types
from ..objects import Layouts, ObjectPage
from ..supertypes import supertype_names
from ..values import Values
from .context import ARRAY_SUPERTYPES, FrameContext, Result, Text, Threw, Unknown, dotted_name
from .parser import Call, Expr

#: Calls answered from a container's fields when its reader knows its size (no app code runs).
_READ_CALLS = frozenset({"size", "isEmpty"})
_PRIMITIVES = frozenset({"int", "long", "float", "double", "char", "byte", "short", "boolean"})


class Calling:
    """The method-call part of an evaluation."""

    _values: Values
    _vm: JdwpClient
    _layouts: Layouts
    _frame: FrameContext

    if TYPE_CHECKING:  # provided by the Evaluator this is mixed into
        async def evaluate(self, expr: Expr) -> Result: ...
        async def _frame_locals(self) -> Locals: ...
        async def _this(self) -> Value | None: ...
        async def _class_named(self, dotted: str) -> ReferenceTypeId | None: ...
        async def _container(self, target: Value, offset: int, limit: int) -> ObjectPage | None: ...
        async def _supertypes(self, type_id: ReferenceTypeId
                              ) -> tuple[ReferenceTypeId | None, list[ReferenceTypeId]]: ...

    async def _call(self, expr: Call) -> Value:
        invocation = self._frame.invocation
        evaluated: Result | None = None
        if expr.target is not None and not expr.args and expr.name in _READ_CALLS:
            # size() and isEmpty() of a container this version reads: answered from its fields, app code or not
            try:
                evaluated = await self.evaluate(expr.target)
            except Unknown:
                evaluated = None  # a class's name: a static call, below
            if isinstance(evaluated, Value) and evaluated.is_object and not evaluated.is_null \
                    and evaluated.tag != Tag.ARRAY:
                page = await self._container(evaluated, 0, 1)
                if page is not None and page.size is not None:
                    return Value(Tag.INT, page.size) if expr.name == "size" else Value(Tag.BOOLEAN, page.size == 0)
        if invocation is None:
            raise EvaluationFailed(f"column {expr.column}: calling {expr.name}() needs method invocation, which is "
                                   "not enabled: expressions read fields, locals and elements only (start the "
                                   "server with --allow-invoke to allow method calls, which run app code)")
        if invocation.refusal is not None:
            raise EvaluationFailed(f"column {expr.column}: cannot call {expr.name}() here: {invocation.refusal}")
        await self._frame_locals()  # read now: once the thread runs a method, its frame IDs change
        target, type_id = await self._call_target(expr, evaluated)
        arguments = [await self._argument(await self.evaluate(a)) for a in expr.args]
        candidates = await self._candidates(type_id, expr.name, len(arguments), static_only=target is None)
        if not candidates:
            owner = binary_name_of(await self._values.symbols.signatures.get(type_id))
            kind = "static method" if target is None else "method"
            raise EvaluationFailed(f"column {expr.column}: {owner} has no {kind} {expr.name} taking "
                                   f"{len(arguments)} argument(s)")
        supertypes = await self._parameter_supertypes(candidates) if len(candidates) > 1 else {}
        try:
            method = choose(candidates, arguments, expr.name, lambda name: supertypes.get(name, frozenset({name})))
        except EvaluationFailed as exc:
            raise EvaluationFailed(f"column {expr.column}: {exc}") from None
        outcome = await invocation.calls.invoke(invocation.stop_id, invocation.thread, type_id, method, target,
                                                converted([a.value for a in arguments], method))
        if outcome.exception is not None:
            raise Threw(outcome.exception)
        return outcome.value

    async def _call_target(self, expr: Call, evaluated: Result | None = None
                           ) -> tuple[Value | None, ReferenceTypeId]:
        """The object a method is called on (``None`` for a static call) and the class to look it up in;
        ``evaluated``: the target's value, when it was evaluated already."""
        if expr.target is None:
            this = await self._this()
            return this, (await self._values.type_id(self._values.handle(this)) if this is not None
                          else self._frame.declaring_type)
        dotted = dotted_name(expr.target)
        try:
            target = evaluated if evaluated is not None else await self.evaluate(expr.target)
        except Unknown:
            type_id = await self._class_named(dotted) if dotted is not None else None
            if type_id is None:
                raise
            return None, type_id
        if isinstance(target, Text):
            target = Value(Tag.STRING, await self._vm.create_string(target.text))
        if not target.is_object:
            raise EvaluationFailed(f"column {expr.column}: {expr.name}() on a primitive value: primitives have "
                                   "no methods")
        if target.is_null:
            raise EvaluationFailed(f"column {expr.column}: null dereference: {expr.name}() called on null")
        if target.tag == Tag.ARRAY:
            raise EvaluationFailed(f"column {expr.column}: methods of arrays are not called (use .length)")
        return target, await self._values.type_id(self._values.handle(target))

    async def _argument(self, value: Result) -> Argument:
        if isinstance(value, Text):
            value = Value(Tag.STRING, await self._vm.create_string(value.text))
        if not value.is_object or value.is_null:
            return Argument(value, None, frozenset())
        type_id = await self._values.type_id(self._values.handle(value))
        runtime = binary_name_of(await self._values.symbols.signatures.get(type_id))
        if value.tag == Tag.ARRAY or runtime.endswith("[]"):
            return Argument(value, runtime, frozenset({runtime}) | ARRAY_SUPERTYPES)
        return Argument(value, runtime, await self._supertype_names(type_id))

    async def _candidates(self, type_id: ReferenceTypeId, name: str, arity: int, static_only: bool
                          ) -> list[MethodInfo]:
        found: dict[str, MethodInfo] = {}  # by signature: the most derived declaration wins
        for info in await self._layouts.chain(type_id):
            for method in await self._vm.reference_type.methods(info.type_id):
                if method.name != name or method.signature in found or method.mod_bits & ACC_ABSTRACT:
                    continue
                if static_only and not method.mod_bits & ACC_STATIC:
                    continue
                if len(parameter_types(method.signature)) == arity:
                    found[method.signature] = method
        return list(found.values())

    async def _parameter_supertypes(self, candidates: list[MethodInfo]) -> dict[str, frozenset[str]]:
        out: dict[str, frozenset[str]] = {}
        for method in candidates:
            for parameter in _reference_parameters(method.signature):
                if parameter in out:
                    continue
                refs = await self._vm.classes_by_signature("L" + parameter.replace(".", "/") + ";")
                out[parameter] = (await self._supertype_names(ReferenceTypeId(refs[0].type_id)) if refs
                                  else frozenset({parameter}))
        return out

    async def _supertype_names(self, type_id: ReferenceTypeId) -> frozenset[str]:
        return await supertype_names(self._values, type_id)


def _reference_parameters(signature: str) -> list[str]:
    return [p for p in parameter_types(signature) if p not in _PRIMITIVES and not p.endswith("[]")]
