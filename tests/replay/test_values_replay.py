"""Locals against a scripted VM: ART's all-or-nothing ``StackFrame.GetValues`` (16,1).

ART runs OpenJDK's JDWP back end (libjdwp) over its own JVMTI: libjdwp's ``StackFrame.GetValues`` reads
the slots one by one and answers the first JVMTI error for the whole command, and ART's
``GetLocalVariable*`` (openjdkjvmti ``ti_method.cc``) fails a slot that the compiled frame no longer
holds or whose type the verifier sees otherwise (INVALID_SLOT, TYPE_MISMATCH; OPAQUE_FRAME for a frame it
cannot read at all). HotSpot, interpreting debuggee frames, rarely shows this, so the scripted VM does:
one bad slot must cost only its own variable.
"""

from __future__ import annotations

from test_debugger_faults import CLASS, class_handlers, hit, scripted

from jdwp.debugger import Stopped
from jdwp.protocol.commands.reftypes import ValuesReply, VariableSlot, VariableTableReply
from jdwp.protocol.commands.threads import ThisObjectReply
from jdwp.protocol.constants import ErrorCode, Tag
from jdwp.protocol.values import Value
from support.fakevm import Handler, ScriptedVm

SLOTS = [VariableSlot(0, "good", "I", 20, 0), VariableSlot(0, "bad", "J", 20, 1), VariableSlot(0, "also", "Z", 20, 3)]


def art_like(vm_ref: list[ScriptedVm]) -> dict[str, Handler]:
    table = class_handlers(vm_ref)
    table["Method.VariableTable"] = lambda out: VariableTableReply(0, SLOTS)
    table["StackFrame.ThisObject"] = lambda out: ThisObjectReply(Value(Tag.OBJECT, 0))

    def get_values(out: object) -> object:
        slots = out.slots  # type: ignore[attr-defined]
        if any(s.slot == 1 for s in slots):
            return ErrorCode.INVALID_SLOT  # the whole reply fails at the first bad slot, as libjdwp answers
        return ValuesReply([Value(Tag.INT, 7) if s.slot == 0 else Value(Tag.BOOLEAN, True) for s in slots])

    table["StackFrame.GetValues"] = get_values
    return table


async def test_one_unreadable_slot_costs_only_its_own_variable() -> None:
    async with scripted(art_like) as (vm, debugger):
        await debugger.set_breakpoint(CLASS, 5)
        await vm.event(hit(vm._request_ids, 0x100))
        stopped = await debugger.events.receive()
        assert isinstance(stopped, Stopped)
        page = await debugger.stack(stopped.stop.stop_id, stopped.stop.thread_id)
        result = await debugger.locals(stopped.stop.stop_id, page.frames[0].frame_id)
        assert result.availability == "available"
        by_name = {local.name: local for local in result.locals}
        assert (by_name["good"].kind, by_name["good"].value) == ("primitive", "7")
        assert (by_name["also"].kind, by_name["also"].value) == ("primitive", "true")
        bad = by_name["bad"]
        assert (bad.kind, bad.value, bad.reason, bad.type) == ("unavailable", None, "INVALID_SLOT", "long")
        assert vm.count("StackFrame.GetValues") == 4  # all at once, then each slot alone
        await debugger.resume(stopped.stop.stop_id)
