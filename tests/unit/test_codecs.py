"""Byte-exact codec tables for every command, and decoder robustness.

Every hex transcript here is written by hand from the JDWP specification's field layout (big-endian;
``int`` 4 bytes, ``long`` 8, ``byte``/``boolean`` 1, ``string`` = 4-byte length + UTF-8, IDs of the
VM's IDSizes width, ``location`` = type tag + class ID + method ID + 8-byte index, ``value`` = tag byte
+ untagged value). None is produced by the encoder under test. ``assert_codec`` checks both directions:
``parse(bytes) == obj`` and ``build(obj) == bytes``.
"""

from __future__ import annotations

import time
import tracemalloc
from typing import Any, NamedTuple

import construct as c
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import ART32, HOTSPOT, SIZES

from jdwp.protocol.commands import ALL_COMMANDS, BY_NAME, DDM, Command, Empty
from jdwp.protocol.commands import ArrayReference as AR
from jdwp.protocol.commands import ArrayType as AT
from jdwp.protocol.commands import ClassLoaderReference as CLR
from jdwp.protocol.commands import ClassObjectReference as COR
from jdwp.protocol.commands import ClassType as CT
from jdwp.protocol.commands import Event as EV
from jdwp.protocol.commands import EventRequest as ER
from jdwp.protocol.commands import InterfaceType as IT
from jdwp.protocol.commands import Method as MT
from jdwp.protocol.commands import ModuleReference as MR
from jdwp.protocol.commands import ObjectReference as OR
from jdwp.protocol.commands import ReferenceType as RT
from jdwp.protocol.commands import StackFrame as SF
from jdwp.protocol.commands import StringReference as STR
from jdwp.protocol.commands import ThreadGroupReference as TGR
from jdwp.protocol.commands import ThreadReference as TR
from jdwp.protocol.commands import VirtualMachine as VM
from jdwp.protocol.commands import events as ev
from jdwp.protocol.commands.events import DdmChunk
from jdwp.protocol.commands.objects import ArraySetValuesOut, ObjectSetValuesOut
from jdwp.protocol.commands.reftypes import (
    ClassSetValuesOut,
    FieldInfo,
    FieldValue,
    GenericFieldInfo,
    GenericMethodInfo,
    GenericVariableSlot,
    LineEntry,
    MethodInfo,
    TypeRef,
    VariableSlot,
)
from jdwp.protocol.commands.threads import Frame, MonitorStackDepth, SlotRequest, SlotValue
from jdwp.protocol.commands.vm import ClassDef, ClassInfo, ClassRef, GenericClassInfo, ObjectRefCount
from jdwp.protocol.constants import Tag
from jdwp.protocol.errors import ProtocolError, UsageError
from jdwp.protocol.records import spec_of
from jdwp.protocol.types import IdSizes, Location
from jdwp.protocol.values import ArrayRegion, Value


def unhex(text: str) -> bytes:
    return bytes.fromhex("".join(text.split()))


def assert_codec(spec: c.Construct, hexdata: str, obj: object, **ctx: Any) -> None:
    """construct's ``common()`` idea: parse gives ``obj`` and build gives the bytes, exactly."""
    data = unhex(hexdata)
    assert spec.parse(data, **ctx) == obj
    assert spec.build(obj, **ctx) == data


# --- IDs (hex, then value) used throughout --------------------------------------------------------
T, T_ = "0000000000000101", 0x101  # thread
G, G_ = "0000000000000201", 0x201  # thread group
OB, OB_ = "0000000000001001", 0x1001  # object
R, R_ = "0000000000002001", 0x2001  # reference type
M, M_ = "0000000000003001", 0x3001  # method
F, F_ = "0000000000004001", 0x4001  # field
FR, FR_ = "0000000000005001", 0x5001  # frame
MOD, MOD_ = "0000000000000701", 0x701  # module
NULL = "0000000000000000"
M4, F4 = "00003001", "00004001"  # 4-byte method and field IDs (ART, 32-bit process)

# location: class type tag 1, class R, method M, index 5
LOC = f"01 {R} {M} 0000000000000005"
LOC4 = f"01 {R} {M4} 0000000000000005"
LOC_ = Location(1, R_, M_, 5)


class Case(NamedTuple):
    cmd: Command[Any, Any]
    out_hex: str
    out: Any
    reply_hex: str
    reply: Any
    sizes: IdSizes = HOTSPOT
    ctx: dict[str, Any] = {}  # noqa: RUF012 - read-only default

    @property
    def id(self) -> str:
        return f"{self.cmd.name}{'-art32' if self.sizes == ART32 else ''}"


E = Empty()

CASES: list[Case] = [
    # --- VirtualMachine (1) ---
    Case(VM.Version, "", E,
         "00000004 4a445750  00000011 00000000  00000002 3137  00000002 564d",
         VM.Version.reply("JDWP", 17, 0, "17", "VM")),
    Case(VM.ClassesBySignature, "00000012 4c6a6176612f6c616e672f537472696e673b",
         VM.ClassesBySignature.out("Ljava/lang/String;"),
         f"00000001 01 {R} 00000007", VM.ClassesBySignature.reply([ClassRef(1, R_, 7)])),
    Case(VM.AllClasses, "", E,
         f"00000002  01 {R} 00000003 4c413b 00000007  03 0000000000002002 00000002 5b49 00000003",
         VM.AllClasses.reply([ClassInfo(1, R_, "LA;", 7), ClassInfo(3, 0x2002, "[I", 3)])),
    Case(VM.AllThreads, "", E, f"00000002 {T} 0000000000000102", VM.AllThreads.reply([T_, 0x102])),
    Case(VM.TopLevelThreadGroups, "", E, f"00000001 {G}", VM.TopLevelThreadGroups.reply([G_])),
    Case(VM.Dispose, "", E, "", E),
    Case(VM.IDSizes, "", E, "00000004 00000004 00000008 00000008 00000008", IdSizes(4, 4, 8, 8, 8)),
    Case(VM.Suspend, "", E, "", E),
    Case(VM.Resume, "", E, "", E),
    Case(VM.Exit, "ffffffff", VM.Exit.out(-1), "", E),
    Case(VM.CreateString, "00000002 6869", VM.CreateString.out("hi"), OB, VM.CreateString.reply(OB_)),
    Case(VM.Capabilities, "", E, "01 00 01 01 00 00 01",
         VM.Capabilities.reply(True, False, True, True, False, False, True)),
    Case(VM.ClassPaths, "", E, "00000001 2f  00000002 00000001 61 00000001 62  00000000",
         VM.ClassPaths.reply("/", ["a", "b"], [])),
    Case(VM.DisposeObjects, f"00000001 {OB} 00000002", VM.DisposeObjects.out([ObjectRefCount(OB_, 2)]), "", E),
    Case(VM.HoldEvents, "", E, "", E),
    Case(VM.ReleaseEvents, "", E, "", E),
    Case(VM.CapabilitiesNew, "", E,
         "01 01 01 01 01 01 01  01 00 00 01 01 01 01 01 01 01 01 01 01 01  00 00 00 00 00 00 00 00 00 00 00",
         VM.CapabilitiesNew.reply(*[True] * 8, False, False, *[True] * 11, [False] * 11)),
    Case(VM.RedefineClasses, f"00000001 {R} 00000004 cafebabe",
         VM.RedefineClasses.out([ClassDef(R_, b"\xca\xfe\xba\xbe")]), "", E),
    Case(VM.SetDefaultStratum, "00000004 4a617661", VM.SetDefaultStratum.out("Java"), "", E),
    Case(VM.AllClassesWithGeneric, "", E,
         f"00000002  01 {R} 00000003 4c413b 00000000 00000007"
         "  01 0000000000002002 00000003 4c423b 00000008 4c423c54543b3e3b 00000003",
         VM.AllClassesWithGeneric.reply([GenericClassInfo(1, R_, "LA;", "", 7),
                                         GenericClassInfo(1, 0x2002, "LB;", "LB<TT;>;", 3)])),
    Case(VM.InstanceCounts, f"00000002 {R} 0000000000002002", VM.InstanceCounts.out([R_, 0x2002]),
         "00000002 0000000000000005 0000000000000000", VM.InstanceCounts.reply([5, 0])),
    Case(VM.AllModules, "", E, f"00000001 {MOD}", VM.AllModules.reply([MOD_])),
    # --- ReferenceType (2) ---
    Case(RT.Signature, R, RT.Signature.out(R_), "00000003 4c413b", RT.Signature.reply("LA;")),
    Case(RT.ClassLoader, R, RT.ClassLoader.out(R_), NULL, RT.ClassLoader.reply(0)),
    Case(RT.Modifiers, R, RT.Modifiers.out(R_), "00000021", RT.Modifiers.reply(0x21)),
    Case(RT.Fields, R, RT.Fields.out(R_), f"00000001 {F} 00000001 78 00000001 49 00000002",
         RT.Fields.reply([FieldInfo(F_, "x", "I", 2)])),
    Case(RT.Fields, R, RT.Fields.out(R_), f"00000001 {F4} 00000001 78 00000001 49 00000002",
         RT.Fields.reply([FieldInfo(F_, "x", "I", 2)]), ART32),
    Case(RT.Methods, R, RT.Methods.out(R_), f"00000001 {M} 00000006 3c696e69743e 00000003 282956 00000001",
         RT.Methods.reply([MethodInfo(M_, "<init>", "()V", 1)])),
    Case(RT.Methods, R, RT.Methods.out(R_),
         f"00000002 {M4} 00000006 3c696e69743e 00000003 282956 00000001"
         " 00003002 00000001 6d 00000003 282949 f0000008",
         RT.Methods.reply([MethodInfo(M_, "<init>", "()V", 1), MethodInfo(0x3002, "m", "()I", -0x0FFFFFF8)]),
         ART32),
    Case(RT.GetValues, f"{R} 00000002 {F} 0000000000004002", RT.GetValues.out(R_, [F_, 0x4002]),
         f"00000002 49 0000002a 73 {OB}", RT.GetValues.reply([Value(Tag.INT, 42), Value(Tag.STRING, OB_)])),
    Case(RT.GetValues, f"{R} 00000002 {F4} 00004002", RT.GetValues.out(R_, [F_, 0x4002]),
         "00000001 5a 01", RT.GetValues.reply([Value(Tag.BOOLEAN, True)]), ART32),
    Case(RT.SourceFile, R, RT.SourceFile.out(R_), "00000006 412e6a617661", RT.SourceFile.reply("A.java")),
    Case(RT.NestedTypes, R, RT.NestedTypes.out(R_), "00000001 01 0000000000002002",
         RT.NestedTypes.reply([TypeRef(1, 0x2002)])),
    Case(RT.Status, R, RT.Status.out(R_), "00000007", RT.Status.reply(7)),
    Case(RT.Interfaces, R, RT.Interfaces.out(R_), "00000001 0000000000002003", RT.Interfaces.reply([0x2003])),
    Case(RT.ClassObject, R, RT.ClassObject.out(R_), "0000000000001002", RT.ClassObject.reply(0x1002)),
    Case(RT.SourceDebugExtension, R, RT.SourceDebugExtension.out(R_), "00000004 534d4150",
         RT.SourceDebugExtension.reply("SMAP")),
    Case(RT.SignatureWithGeneric, R, RT.SignatureWithGeneric.out(R_), "00000003 4c413b 00000000",
         RT.SignatureWithGeneric.reply("LA;", "")),
    Case(RT.FieldsWithGeneric, R, RT.FieldsWithGeneric.out(R_),
         f"00000001 {F} 00000001 6c 00000003 4c4c3b 00000008 4c4c3c54543b3e3b 00000010",
         RT.FieldsWithGeneric.reply([GenericFieldInfo(F_, "l", "LL;", "LL<TT;>;", 0x10)])),
    Case(RT.FieldsWithGeneric, R, RT.FieldsWithGeneric.out(R_),
         f"00000001 {F4} 00000001 6c 00000003 4c4c3b 00000000 00000010",
         RT.FieldsWithGeneric.reply([GenericFieldInfo(F_, "l", "LL;", "", 0x10)]), ART32),
    Case(RT.MethodsWithGeneric, R, RT.MethodsWithGeneric.out(R_),
         f"00000001 {M} 00000001 6d 00000003 282956 00000000 00000001",
         RT.MethodsWithGeneric.reply([GenericMethodInfo(M_, "m", "()V", "", 1)])),
    Case(RT.MethodsWithGeneric, R, RT.MethodsWithGeneric.out(R_),
         f"00000001 {M4} 00000001 6d 00000003 282956 00000000 00000001",
         RT.MethodsWithGeneric.reply([GenericMethodInfo(M_, "m", "()V", "", 1)]), ART32),
    Case(RT.Instances, f"{R} 00000000", RT.Instances.out(R_, 0), f"00000001 4c {OB}",
         RT.Instances.reply([Value(Tag.OBJECT, OB_)])),
    Case(RT.ClassFileVersion, R, RT.ClassFileVersion.out(R_), "0000003d 00000000", RT.ClassFileVersion.reply(61, 0)),
    Case(RT.ConstantPool, R, RT.ConstantPool.out(R_), "00000003 00000004 01000141",
         RT.ConstantPool.reply(3, b"\x01\x00\x01\x41")),
    Case(RT.Module, R, RT.Module.out(R_), MOD, RT.Module.reply(MOD_)),
    # --- ClassType (3), ArrayType (4), InterfaceType (5) ---
    Case(CT.Superclass, R, CT.Superclass.out(R_), "0000000000002002", CT.Superclass.reply(0x2002)),
    Case(CT.SetValues, f"{R} 00000002 {F} 00000007 0000000000004002 {OB}",
         ClassSetValuesOut(R_, [FieldValue(F_, Value(Tag.INT, 7)), FieldValue(0x4002, Value(Tag.OBJECT, OB_))]),
         "", E, ctx={"field_tags": {F_: Tag.INT, 0x4002: Tag.OBJECT}}),
    Case(CT.SetValues, f"{R} 00000001 {F4} 0000000000000009",
         ClassSetValuesOut(R_, [FieldValue(F_, Value(Tag.LONG, 9))]),
         "", E, ART32, {"field_tags": {F_: Tag.LONG}}),
    Case(CT.InvokeMethod, f"{R} {T} {M} 00000002 49 00000001 5a 01 00000001",
         CT.InvokeMethod.out(R_, T_, M_, [Value(Tag.INT, 1), Value(Tag.BOOLEAN, True)], 1),
         f"49 00000003 4c {NULL}", CT.InvokeMethod.reply(Value(Tag.INT, 3), Value(Tag.OBJECT, 0))),
    Case(CT.InvokeMethod, f"{R} {T} {M4} 00000000 00000000", CT.InvokeMethod.out(R_, T_, M_, [], 0),
         f"56 4c {NULL}", CT.InvokeMethod.reply(Value(Tag.VOID, None), Value(Tag.OBJECT, 0)), ART32),
    Case(CT.NewInstance, f"{R} {T} {M} 00000000 00000000", CT.NewInstance.out(R_, T_, M_, [], 0),
         f"4c {OB} 4c {NULL}", CT.NewInstance.reply(Value(Tag.OBJECT, OB_), Value(Tag.OBJECT, 0))),
    Case(AT.NewInstance, "0000000000002003 0000000a", AT.NewInstance.out(0x2003, 10),
         "5b 0000000000001003", AT.NewInstance.reply(Value(Tag.ARRAY, 0x1003))),
    Case(IT.InvokeMethod, f"{R} {T} {M} 00000001 4a ffffffffffffffff 00000000",
         IT.InvokeMethod.out(R_, T_, M_, [Value(Tag.LONG, -1)], 0),
         "56 4c 0000000000001005", IT.InvokeMethod.reply(Value(Tag.VOID, None), Value(Tag.OBJECT, 0x1005))),
    # --- Method (6) ---
    Case(MT.LineTable, f"{R} {M}", MT.LineTable.out(R_, M_),
         "0000000000000000 0000000000000014 00000002 0000000000000000 0000000a 0000000000000008 0000000b",
         MT.LineTable.reply(0, 20, [LineEntry(0, 10), LineEntry(8, 11)])),
    Case(MT.LineTable, f"{R} {M4}", MT.LineTable.out(R_, M_), "ffffffffffffffff ffffffffffffffff 00000000",
         MT.LineTable.reply(-1, -1, []), ART32),
    Case(MT.VariableTable, f"{R} {M}", MT.VariableTable.out(R_, M_),
         "00000001 00000001 0000000000000000 00000004 74686973 00000003 4c413b 00000014 00000000",
         MT.VariableTable.reply(1, [VariableSlot(0, "this", "LA;", 20, 0)])),
    Case(MT.Bytecodes, f"{R} {M}", MT.Bytecodes.out(R_, M_), "00000005 2ab70001b1",
         MT.Bytecodes.reply(b"\x2a\xb7\x00\x01\xb1")),
    Case(MT.IsObsolete, f"{R} {M4}", MT.IsObsolete.out(R_, M_), "00", MT.IsObsolete.reply(False), ART32),
    Case(MT.VariableTableWithGeneric, f"{R} {M}", MT.VariableTableWithGeneric.out(R_, M_),
         "00000002 00000001 0000000000000004 00000001 78 00000001 49 00000000 00000003 00000001",
         MT.VariableTableWithGeneric.reply(2, [GenericVariableSlot(4, "x", "I", "", 3, 1)])),
    # --- ObjectReference (9) ---
    Case(OR.ReferenceType, OB, OR.ReferenceType.out(OB_), f"01 {R}", OR.ReferenceType.reply(1, R_)),
    Case(OR.GetValues, f"{OB} 00000001 {F}", OR.GetValues.out(OB_, [F_]), "00000001 44 3ff8000000000000",
         OR.GetValues.reply([Value(Tag.DOUBLE, 1.5)])),
    Case(OR.SetValues, f"{OB} 00000001 {F} 01", ObjectSetValuesOut(OB_, [FieldValue(F_, Value(Tag.BOOLEAN, True))]),
         "", E, ctx={"field_tags": {F_: Tag.BOOLEAN}}),
    Case(OR.SetValues, f"{OB} 00000002 {F4} 3fc00000 00004002 0041",
         ObjectSetValuesOut(OB_, [FieldValue(F_, Value(Tag.FLOAT, 1.5)), FieldValue(0x4002, Value(Tag.CHAR, "A"))]),
         "", E, ART32, {"field_tags": {F_: Tag.FLOAT, 0x4002: Tag.CHAR}}),
    Case(OR.MonitorInfo, OB, OR.MonitorInfo.out(OB_), f"{T} 00000001 00000001 0000000000000102",
         OR.MonitorInfo.reply(T_, 1, [0x102])),
    Case(OR.InvokeMethod, f"{OB} {T} {R} {M} 00000001 43 0041 00000002",
         OR.InvokeMethod.out(OB_, T_, R_, M_, [Value(Tag.CHAR, "A")], 2),
         f"73 0000000000001006 4c {NULL}", OR.InvokeMethod.reply(Value(Tag.STRING, 0x1006), Value(Tag.OBJECT, 0))),
    Case(OR.DisableCollection, OB, OR.DisableCollection.out(OB_), "", E),
    Case(OR.EnableCollection, OB, OR.EnableCollection.out(OB_), "", E),
    Case(OR.IsCollected, OB, OR.IsCollected.out(OB_), "01", OR.IsCollected.reply(True)),
    Case(OR.ReferringObjects, f"{OB} 00000005", OR.ReferringObjects.out(OB_, 5),
         "00000002 4c 0000000000001007 5b 0000000000001008",
         OR.ReferringObjects.reply([Value(Tag.OBJECT, 0x1007), Value(Tag.ARRAY, 0x1008)])),
    # --- StringReference (10) ---
    Case(STR.Value, OB, STR.Value.out(OB_), "00000003 68c3a9", STR.Value.reply("hé")),
    # --- ThreadReference (11) ---
    Case(TR.Name, T, TR.Name.out(T_), "00000004 6d61696e", TR.Name.reply("main")),
    Case(TR.Suspend, T, TR.Suspend.out(T_), "", E),
    Case(TR.Resume, T, TR.Resume.out(T_), "", E),
    Case(TR.Status, T, TR.Status.out(T_), "00000001 00000001", TR.Status.reply(1, 1)),
    Case(TR.ThreadGroup, T, TR.ThreadGroup.out(T_), G, TR.ThreadGroup.reply(G_)),
    Case(TR.Frames, f"{T} 00000000 ffffffff", TR.Frames.out(T_, 0, -1),
         f"00000002 {FR} {LOC}  0000000000005002 01 {R} 0000000000003002 0000000000000011",
         TR.Frames.reply([Frame(FR_, LOC_), Frame(0x5002, Location(1, R_, 0x3002, 17))])),
    Case(TR.Frames, f"{T} 00000001 00000002", TR.Frames.out(T_, 1, 2), f"00000001 {FR} {LOC4}",
         TR.Frames.reply([Frame(FR_, LOC_)]), ART32),
    Case(TR.FrameCount, T, TR.FrameCount.out(T_), "00000003", TR.FrameCount.reply(3)),
    Case(TR.OwnedMonitors, T, TR.OwnedMonitors.out(T_), f"00000001 4c {OB}",
         TR.OwnedMonitors.reply([Value(Tag.OBJECT, OB_)])),
    Case(TR.CurrentContendedMonitor, T, TR.CurrentContendedMonitor.out(T_), f"4c {NULL}",
         TR.CurrentContendedMonitor.reply(Value(Tag.OBJECT, 0))),
    Case(TR.Stop, f"{T} 0000000000001009", TR.Stop.out(T_, 0x1009), "", E),
    Case(TR.Interrupt, T, TR.Interrupt.out(T_), "", E),
    Case(TR.SuspendCount, T, TR.SuspendCount.out(T_), "00000002", TR.SuspendCount.reply(2)),
    Case(TR.OwnedMonitorsStackDepthInfo, T, TR.OwnedMonitorsStackDepthInfo.out(T_),
         f"00000002 4c {OB} 00000000 4c 0000000000001002 ffffffff",
         TR.OwnedMonitorsStackDepthInfo.reply([MonitorStackDepth(Value(Tag.OBJECT, OB_), 0),
                                               MonitorStackDepth(Value(Tag.OBJECT, 0x1002), -1)])),
    Case(TR.ForceEarlyReturn, f"{T} 49 fffffffe", TR.ForceEarlyReturn.out(T_, Value(Tag.INT, -2)), "", E),
    Case(TR.IsVirtual, T, TR.IsVirtual.out(T_), "00", TR.IsVirtual.reply(False)),
    # --- ThreadGroupReference (12) ---
    Case(TGR.Name, G, TGR.Name.out(G_), "00000006 73797374656d", TGR.Name.reply("system")),
    Case(TGR.Parent, G, TGR.Parent.out(G_), NULL, TGR.Parent.reply(0)),
    Case(TGR.Children, G, TGR.Children.out(G_), f"00000001 {T} 00000001 0000000000000202",
         TGR.Children.reply([T_], [0x202])),
    # --- ArrayReference (13) ---
    Case(AR.Length, OB, AR.Length.out(OB_), "00000003", AR.Length.reply(3)),
    Case(AR.GetValues, f"{OB} 00000000 00000003", AR.GetValues.out(OB_, 0, 3),
         "49 00000003 00000001 ffffffff 00000002", AR.GetValues.reply(ArrayRegion(Tag.INT, [1, -1, 2]))),
    Case(AR.SetValues, f"{OB} 00000001 00000002 0005 ffff",
         ArraySetValuesOut(OB_, 1, [Value(Tag.SHORT, 5), Value(Tag.SHORT, -1)]), "", E,
         ctx={"component_tag": Tag.SHORT}),
    # --- ClassLoaderReference (14) ---
    Case(CLR.VisibleClasses, "0000000000001010", CLR.VisibleClasses.out(0x1010),
         f"00000002 01 {R} 02 0000000000002004", CLR.VisibleClasses.reply([TypeRef(1, R_), TypeRef(2, 0x2004)])),
    # --- EventRequest (15) ---
    Case(ER.Set, f"02 01 00000002 07 {LOC} 01 00000001",
         ER.Set.out(2, 1, [ev.LocationOnly(LOC_), ev.Count(1)]), "00000005", ER.Set.reply(5)),
    Case(ER.Set, f"02 02 00000001 07 {LOC4}", ER.Set.out(2, 2, [ev.LocationOnly(LOC_)]), "00000006",
         ER.Set.reply(6), ART32),
    Case(ER.Clear, "02 00000005", ER.Clear.out(2, 5), "", E),
    Case(ER.ClearAllBreakpoints, "", E, "", E),
    # --- StackFrame (16) ---
    Case(SF.GetValues, f"{T} {FR} 00000002 00000000 4c 00000001 49",
         SF.GetValues.out(T_, FR_, [SlotRequest(0, ord("L")), SlotRequest(1, ord("I"))]),
         f"00000002 4c {OB} 49 00000005", SF.GetValues.reply([Value(Tag.OBJECT, OB_), Value(Tag.INT, 5)])),
    Case(SF.SetValues, f"{T} {FR} 00000001 00000001 49 00000009",
         SF.SetValues.out(T_, FR_, [SlotValue(1, Value(Tag.INT, 9))]), "", E),
    Case(SF.ThisObject, f"{T} {FR}", SF.ThisObject.out(T_, FR_), f"4c {OB}",
         SF.ThisObject.reply(Value(Tag.OBJECT, OB_))),
    Case(SF.PopFrames, f"{T} {FR}", SF.PopFrames.out(T_, FR_), "", E),
    # --- ClassObjectReference (17), ModuleReference (18) ---
    Case(COR.ReflectedType, "0000000000001011", COR.ReflectedType.out(0x1011), f"01 {R}",
         COR.ReflectedType.reply(1, R_)),
    Case(MR.Name, MOD, MR.Name.out(MOD_), "00000009 6a6176612e62617365", MR.Name.reply("java.base")),
    Case(MR.ClassLoader, MOD, MR.ClassLoader.out(MOD_), NULL, MR.ClassLoader.reply(0)),
    # --- Event (64): sent by the VM; the reply is empty ---
    Case(EV.Composite, f"02 00000001 02 00000003 {T} {LOC}",
         EV.Composite.out(2, [ev.BreakpointEvent(3, T_, LOC_)]), "", E),
    Case(EV.Composite, f"01 00000001 01 00000004 {T} {LOC4}",
         EV.Composite.out(1, [ev.SingleStepEvent(4, T_, LOC_)]), "", E, ART32),
    # --- DDM (199): type u32, length u32, data ---
    Case(DDM.Chunk, "48454c4f 00000004 00000001", DdmChunk(0x48454C4F, b"\x00\x00\x00\x01"),
         "48454c4f 00000002 0001  41504e4d 00000000",
         DDM.Chunk.reply([DdmChunk(0x48454C4F, b"\x00\x01"), DdmChunk(0x41504E4D, b"")])),
]


def test_every_command_has_a_transcript() -> None:
    covered = {case.cmd.name for case in CASES}
    assert covered == {cmd.name for cmd in ALL_COMMANDS}
    art = {case.cmd.name for case in CASES if case.sizes == ART32}
    assert {"ThreadReference.Frames", "ReferenceType.Methods", "ReferenceType.Fields", "Method.LineTable",
            "Event.Composite", "EventRequest.Set"} <= art


def test_empty_transcripts_are_empty_records() -> None:
    for case in CASES:
        assert (case.out_hex == "") == (case.cmd.out is Empty), case.cmd.name
        assert (case.reply_hex == "") == (case.cmd.reply is Empty), case.cmd.name


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_transcript(case: Case) -> None:
    params = case.sizes.params()
    assert_codec(spec_of(case.cmd.out), case.out_hex, case.out, **params, **case.ctx)
    assert_codec(spec_of(case.cmd.reply), case.reply_hex, case.reply, **params)
    # …and through the Command API (the fast decoders where a command has them).
    out, reply = unhex(case.out_hex), unhex(case.reply_hex)
    assert case.cmd.encode_out(case.out, case.sizes) == out
    assert case.cmd.decode_out(out, case.sizes, **case.ctx) == case.out
    assert case.cmd.encode_reply(case.reply, case.sizes) == reply
    assert case.cmd.decode_reply(reply, case.sizes) == case.reply


# --- Event.Composite: every event kind --------------------------------------------------------------

EVENTS: list[tuple[str, str, Any]] = [
    # (kind byte + fields, with 8-byte IDs; the same with 4-byte method/field IDs; the record)
    (f"5a 00000000 {T}", f"5a 00000000 {T}", ev.VMStartEvent(0, T_)),
    (f"01 00000004 {T} {LOC}", f"01 00000004 {T} {LOC4}", ev.SingleStepEvent(4, T_, LOC_)),
    (f"02 00000005 {T} {LOC}", f"02 00000005 {T} {LOC4}", ev.BreakpointEvent(5, T_, LOC_)),
    (f"28 00000006 {T} {LOC}", f"28 00000006 {T} {LOC4}", ev.MethodEntryEvent(6, T_, LOC_)),
    (f"29 00000007 {T} {LOC}", f"29 00000007 {T} {LOC4}", ev.MethodExitEvent(7, T_, LOC_)),
    (f"2a 00000008 {T} {LOC} 49 00000001", f"2a 00000008 {T} {LOC4} 49 00000001",
     ev.MethodExitWithReturnValueEvent(8, T_, LOC_, Value(Tag.INT, 1))),
    (f"2b 00000009 {T} 4c {OB} {LOC}", f"2b 00000009 {T} 4c {OB} {LOC4}",
     ev.MonitorContendedEnterEvent(9, T_, Value(Tag.OBJECT, OB_), LOC_)),
    (f"2c 0000000a {T} 4c {OB} {LOC}", f"2c 0000000a {T} 4c {OB} {LOC4}",
     ev.MonitorContendedEnteredEvent(10, T_, Value(Tag.OBJECT, OB_), LOC_)),
    (f"2d 0000000b {T} 4c {OB} {LOC} 00000000000003e8", f"2d 0000000b {T} 4c {OB} {LOC4} 00000000000003e8",
     ev.MonitorWaitEvent(11, T_, Value(Tag.OBJECT, OB_), LOC_, 1000)),
    (f"2e 0000000c {T} 4c {OB} {LOC} 01", f"2e 0000000c {T} 4c {OB} {LOC4} 01",
     ev.MonitorWaitedEvent(12, T_, Value(Tag.OBJECT, OB_), LOC_, True)),
    (f"04 0000000d {T} {LOC} 4c {OB} 00 {NULL} {NULL} 0000000000000000",
     f"04 0000000d {T} {LOC4} 4c {OB} 00 {NULL} 00000000 0000000000000000",
     ev.ExceptionEvent(13, T_, LOC_, Value(Tag.OBJECT, OB_), Location(0, 0, 0, 0))),
    (f"06 0000000e {T}", f"06 0000000e {T}", ev.ThreadStartEvent(14, T_)),
    (f"07 0000000f {T}", f"07 0000000f {T}", ev.ThreadDeathEvent(15, T_)),
    (f"08 00000010 {T} 01 {R} 00000003 4c413b 00000003", f"08 00000010 {T} 01 {R} 00000003 4c413b 00000003",
     ev.ClassPrepareEvent(16, T_, 1, R_, "LA;", 3)),
    ("09 00000011 00000003 4c413b", "09 00000011 00000003 4c413b", ev.ClassUnloadEvent(17, "LA;")),
    (f"14 00000012 {T} {LOC} 01 {R} {F} 4c {OB}", f"14 00000012 {T} {LOC4} 01 {R} {F4} 4c {OB}",
     ev.FieldAccessEvent(18, T_, LOC_, 1, R_, F_, Value(Tag.OBJECT, OB_))),
    (f"15 00000013 {T} {LOC} 01 {R} {F} 4c {NULL} 4a 0000000000000001",
     f"15 00000013 {T} {LOC4} 01 {R} {F4} 4c {NULL} 4a 0000000000000001",
     ev.FieldModificationEvent(19, T_, LOC_, 1, R_, F_, Value(Tag.OBJECT, 0), Value(Tag.LONG, 1))),
    ("63 00000000", "63 00000000", ev.VMDeathEvent(0)),
]


def test_events_cover_every_event_class() -> None:
    assert {type(event) for _, _, event in EVENTS} == set(ev.EVENT_CLASSES)


@pytest.mark.parametrize(("hot", "art", "event"), EVENTS,
                         ids=lambda x: type(x).__name__ if not isinstance(x, str) else "")
def test_composite_event(hot: str, art: str, event: Any) -> None:
    for sizes, fields in ((HOTSPOT, hot), (ART32, art)):
        body = f"00 00000001 {fields}"  # suspend policy NONE, one event
        obj = ev.Composite(0, [event])
        assert_codec(spec_of(ev.Composite), body, obj, **sizes.params())
        assert EV.Composite.decode_out(unhex(body), sizes) == obj  # the hand-framed decoder
        assert EV.Composite.encode_out(obj, sizes) == unhex(body)


@pytest.mark.parametrize("sizes", [HOTSPOT, ART32], ids=["hotspot", "art32"])
def test_composite_with_every_event_kind_at_once(sizes: IdSizes) -> None:
    column = 0 if sizes == HOTSPOT else 1
    body = f"02 {len(EVENTS):08x} " + " ".join(row[column] for row in EVENTS)
    obj = ev.Composite(2, [row[2] for row in EVENTS])
    assert_codec(spec_of(ev.Composite), body, obj, **sizes.params())
    assert EV.Composite.decode_out(unhex(body), sizes) == obj


# --- EventRequest.Set: every modifier kind ----------------------------------------------------------

MODIFIERS: list[tuple[str, Any]] = [
    ("01 00000005", ev.Count(5)),
    ("02 00000000", ev.Conditional(0)),
    (f"03 {T}", ev.ThreadOnly(T_)),
    (f"04 {R}", ev.ClassOnly(R_)),
    ("05 00000006 6a6176612e2a", ev.ClassMatch("java.*")),
    ("06 00000005 73756e2e2a", ev.ClassExclude("sun.*")),
    (f"07 {LOC}", ev.LocationOnly(LOC_)),
    (f"08 {NULL} 01 00", ev.ExceptionOnly(0, True, False)),
    (f"09 {R} {F}", ev.FieldOnly(R_, F_)),
    (f"0a {T} 00000001 00000001", ev.Step(T_, 1, 1)),
    (f"0b {OB}", ev.InstanceOnly(OB_)),
    ("0c 00000004 2a2e6b74", ev.SourceNameMatch("*.kt")),
    ("0d", ev.PlatformThreadsOnly()),
]


def test_modifiers_cover_every_kind() -> None:
    assert {type(m) for _, m in MODIFIERS} == set(ev.ModifierSpec._variants.values())


@pytest.mark.parametrize(("fields", "modifier"), MODIFIERS,
                         ids=lambda x: type(x).__name__ if not isinstance(x, str) else "")
def test_event_request_modifier(fields: str, modifier: Any) -> None:
    # eventKind SINGLE_STEP (1), suspendPolicy ALL (2), one modifier
    assert_codec(spec_of(ev.SetOut), f"01 02 00000001 {fields}", ev.SetOut(1, 2, [modifier]), **HOTSPOT.params())


def test_event_request_with_every_modifier_and_4_byte_ids() -> None:
    body = (f"08 01 0000000d 01 00000005 02 00000000 03 {T} 04 {R} 05 00000006 6a6176612e2a"
            f" 06 00000005 73756e2e2a 07 {LOC4} 08 {R} 00 01 09 {R} {F4} 0a {T} 00000000 00000002 0b {OB}"
            " 0c 00000004 2a2e6b74 0d")
    mods = [ev.Count(5), ev.Conditional(0), ev.ThreadOnly(T_), ev.ClassOnly(R_), ev.ClassMatch("java.*"),
            ev.ClassExclude("sun.*"), ev.LocationOnly(LOC_), ev.ExceptionOnly(R_, False, True),
            ev.FieldOnly(R_, F_), ev.Step(T_, 0, 2), ev.InstanceOnly(OB_), ev.SourceNameMatch("*.kt"),
            ev.PlatformThreadsOnly()]
    assert_codec(spec_of(ev.SetOut), body, ev.SetOut(8, 1, mods), **ART32.params())


def test_unknown_modifier_and_event_kinds_are_protocol_errors() -> None:
    with pytest.raises(ProtocolError, match=r"unknown modifier kind 14"):
        ER.Set.decode_out(unhex("02 01 00000001 0e"), HOTSPOT)
    with pytest.raises(ProtocolError):
        EV.Composite.decode_out(unhex("00 00000001 03 00000001"), HOTSPOT)  # FRAME_POP is never sent
    with pytest.raises(UsageError):
        ER.Set.encode_out(ev.SetOut(2, 1, [LOC_]), HOTSPOT)  # a Location is not a modifier


# --- untagged values: the type comes from the context ------------------------------------------------

UNTAGGED: list[tuple[Tag, str, Any]] = [
    (Tag.BYTE, "80", -128),
    (Tag.CHAR, "d83d", "\ud83d"),
    (Tag.FLOAT, "bf800000", -1.0),
    (Tag.DOUBLE, "7ff0000000000000", float("inf")),
    (Tag.INT, "7fffffff", 2**31 - 1),
    (Tag.LONG, "8000000000000000", -(2**63)),
    (Tag.SHORT, "8000", -32768),
    (Tag.BOOLEAN, "00", False),
    (Tag.OBJECT, OB, OB_),
    (Tag.ARRAY, "0000000000001003", 0x1003),
    (Tag.STRING, NULL, 0),
    (Tag.THREAD, T, T_),
    (Tag.THREAD_GROUP, G, G_),
    (Tag.CLASS_LOADER, "0000000000001010", 0x1010),
    (Tag.CLASS_OBJECT, "0000000000001011", 0x1011),
]


@pytest.mark.parametrize(("tag", "hexvalue", "raw"), UNTAGGED, ids=lambda x: x.name if isinstance(x, Tag) else "")
def test_untagged_field_values_both_directions(tag: Tag, hexvalue: str, raw: Any) -> None:
    value = Value(tag, raw)
    obj = ClassSetValuesOut(R_, [FieldValue(F_, value)])
    assert_codec(spec_of(ClassSetValuesOut), f"{R} 00000001 {F} {hexvalue}", obj,
                 **HOTSPOT.params(), field_tags={F_: tag})
    obj2 = ObjectSetValuesOut(OB_, [FieldValue(F_, value)])
    assert_codec(spec_of(ObjectSetValuesOut), f"{OB} 00000001 {F4} {hexvalue}", obj2,
                 **ART32.params(), field_tags={F_: tag})
    assert OR.SetValues.decode_out(unhex(f"{OB} 00000001 {F4} {hexvalue}"), ART32, field_tags={F_: tag}) == obj2


@pytest.mark.parametrize(("tag", "hexvalue", "raw"), UNTAGGED, ids=lambda x: x.name if isinstance(x, Tag) else "")
def test_untagged_array_values_both_directions(tag: Tag, hexvalue: str, raw: Any) -> None:
    obj = ArraySetValuesOut(OB_, 7, [Value(tag, raw), Value(tag, raw)])
    body = f"{OB} 00000007 00000002 {hexvalue} {hexvalue}"
    assert_codec(spec_of(ArraySetValuesOut), body, obj, **HOTSPOT.params(), component_tag=tag)
    assert AR.SetValues.decode_out(unhex(body), HOTSPOT, component_tag=tag) == obj


def test_untagged_values_need_their_context() -> None:
    body = unhex(f"{R} 00000001 {F} 00000007")
    with pytest.raises(ProtocolError, match=r"not in the context"):
        CT.SetValues.decode_out(body, HOTSPOT)
    with pytest.raises(ProtocolError, match=r"not in the context"):
        CT.SetValues.decode_out(body, HOTSPOT, field_tags={0x4002: Tag.INT})  # another field's type
    with pytest.raises(ProtocolError, match=r"not in the context"):
        AR.SetValues.decode_out(unhex(f"{OB} 00000000 00000001 00000007"), HOTSPOT)
    # Two fields of different types in one packet: each value is read with its own field's width.
    two = unhex(f"{R} 00000002 {F} 01 0000000000004002 0000000000000003")
    assert CT.SetValues.decode_out(two, HOTSPOT, field_tags={F_: Tag.BYTE, 0x4002: Tag.LONG}) == ClassSetValuesOut(
        R_, [FieldValue(F_, Value(Tag.BYTE, 1)), FieldValue(0x4002, Value(Tag.LONG, 3))])


def test_void_is_not_an_untagged_value() -> None:
    # No field or array component is void: a forged count of 2**31 must not spin on zero-width elements.
    started = time.perf_counter()
    with pytest.raises(ProtocolError, match=r"void"):
        AR.SetValues.decode_out(unhex(f"{OB} 00000000 7fffffff"), HOTSPOT, component_tag=Tag.VOID)
    assert time.perf_counter() - started < 1.0
    with pytest.raises(UsageError):
        AR.SetValues.encode_out(ArraySetValuesOut(OB_, 0, [Value(Tag.VOID, None)]), HOTSPOT)


# --- array regions --------------------------------------------------------------------------------

REGIONS: list[tuple[str, ArrayRegion]] = [
    ("42 00000003 00 7f 80", ArrayRegion(Tag.BYTE, [0, 127, -128])),
    ("5a 00000002 01 00", ArrayRegion(Tag.BOOLEAN, [True, False])),
    ("43 00000003 0041 00e9 dc00", ArrayRegion(Tag.CHAR, ["A", "é", "\udc00"])),
    ("53 00000001 fffe", ArrayRegion(Tag.SHORT, [-2])),
    ("49 00000000", ArrayRegion(Tag.INT, [])),
    ("4a 00000001 0000000100000000", ArrayRegion(Tag.LONG, [2**32])),
    ("46 00000002 3f800000 c0000000", ArrayRegion(Tag.FLOAT, [1.0, -2.0])),
    ("44 00000001 bff0000000000000", ArrayRegion(Tag.DOUBLE, [-1.0])),
    # object components: each element is a tagged value carrying the object's own tag
    (f"4c 00000003 4c {OB} 73 0000000000001006 4c {NULL}",
     ArrayRegion(Tag.OBJECT, [Value(Tag.OBJECT, OB_), Value(Tag.STRING, 0x1006), Value(Tag.OBJECT, 0)])),
    ("5b 00000001 5b 0000000000001003", ArrayRegion(Tag.ARRAY, [Value(Tag.ARRAY, 0x1003)])),
    (f"74 00000001 74 {T}", ArrayRegion(Tag.THREAD, [Value(Tag.THREAD, T_)])),
]


@pytest.mark.parametrize(("hexdata", "region"), REGIONS, ids=lambda x: x.tag.name if isinstance(x, ArrayRegion) else "")
def test_array_region(hexdata: str, region: ArrayRegion) -> None:
    reply = AR.GetValues.reply(region)
    assert_codec(spec_of(AR.GetValues.reply), hexdata, reply, **HOTSPOT.params())
    assert AR.GetValues.decode_reply(unhex(hexdata), HOTSPOT) == reply


def test_object_array_region_with_4_byte_object_ids() -> None:
    sizes = IdSizes(4, 4, 4, 4, 4)
    reply = AR.GetValues.reply(ArrayRegion(Tag.OBJECT, [Value(Tag.CLASS_OBJECT, 0x1011)]))
    assert_codec(spec_of(AR.GetValues.reply), "4c 00000001 63 00001011", reply, **sizes.params())


def test_bad_array_regions_are_protocol_errors() -> None:
    for body in ("56 00000000", "49 ffffffff", "49 00000002 00000001", "49 7fffffff 00000001", "58 00000000", "49"):
        with pytest.raises(ProtocolError):
            AR.GetValues.decode_reply(unhex(body), HOTSPOT)


# --- strings on the wire ------------------------------------------------------------------------------

STRINGS: list[tuple[str, str]] = [
    ("00000000", ""),
    ("00000003 610062", "a\x00b"),  # an embedded NUL, standard UTF-8
    ("00000004 f09f9880", "😀"),  # non-BMP, standard UTF-8 (what HotSpot sends)
    ("00000003 eda080", "\ud800"),  # a lone surrogate: only a 3-byte sequence can say it
]


@pytest.mark.parametrize(("hexdata", "text"), STRINGS, ids=["empty", "nul", "emoji", "lone-surrogate"])
def test_string_reply(hexdata: str, text: str) -> None:
    assert_codec(spec_of(STR.Value.reply), hexdata, STR.Value.reply(text))
    assert TR.Name.decode_reply(unhex(hexdata), HOTSPOT) == TR.Name.reply(text)


@pytest.mark.parametrize(("hexdata", "text"), [
    ("00000002 c080", "\x00"),  # modified UTF-8 NUL
    ("00000006 eda0bdedb880", "😀"),  # modified UTF-8 / CESU-8 surrogate pair
    ("00000009 61c080eda0bdedb880", "a\x00😀"),
], ids=["c080", "cesu8-pair", "mixed"])
def test_modified_utf8_string_decodes_and_re_encodes_byte_identically(hexdata: str, text: str) -> None:
    data = unhex(hexdata)
    reply = TR.Name.decode_reply(data, HOTSPOT)
    assert reply.thread_name == text
    assert TR.Name.encode_reply(reply, HOTSPOT) == data  # the recorded bytes, not standard UTF-8
    event = EV.Composite.decode_out(unhex(f"00 00000001 09 00000001 {hexdata}"), HOTSPOT)
    assert event.events[0].signature == text
    assert EV.Composite.encode_out(event, HOTSPOT) == unhex(f"00 00000001 09 00000001 {hexdata}")


# --- decoder robustness ----------------------------------------------------------------------------

DIRECTIONS = [(cmd, which) for cmd in ALL_COMMANDS for which in ("out", "reply")]


def _decode(cmd: Command[Any, Any], which: str, body: bytes, sizes: IdSizes, **extra: Any) -> Any:
    if which == "out":
        return cmd.decode_out(body, sizes, **extra)
    return cmd.decode_reply(body, sizes)


def _context(cmd: Command[Any, Any], which: str, tag: Tag) -> dict[str, Any]:
    if which == "out" and cmd.name in ("ClassType.SetValues", "ObjectReference.SetValues"):
        return {"field_tags": {i: tag for i in range(256)}}  # 1-byte field IDs in the fuzz bodies below
    if which == "out" and cmd.name == "ArrayReference.SetValues":
        return {"component_tag": tag}
    return {}


@pytest.mark.parametrize(("cmd", "which"), DIRECTIONS, ids=lambda x: getattr(x, "name", x))
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_bytes_raise_only_protocol_error(cmd: Command[Any, Any], which: str, data: st.DataObject) -> None:
    sizes = data.draw(st.sampled_from([*SIZES, IdSizes(1, 1, 1, 1, 1)]))
    tag = data.draw(st.sampled_from(list(Tag)))
    body = data.draw(st.binary(max_size=48))
    try:
        _decode(cmd, which, body, sizes, **_context(cmd, which, tag))
    except ProtocolError:
        pass


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_forged_counts_fail_fast(case: Case) -> None:
    """Overwrite every 4-byte window of a valid body with 0x7fffffff: never a hang, never a huge allocation."""
    tracemalloc.start()
    started = time.perf_counter()
    try:
        for which, hexdata in (("out", case.out_hex), ("reply", case.reply_hex)):
            body = unhex(hexdata)
            forged = [body[:i] + b"\x7f\xff\xff\xff" + body[i + 4:] for i in range(len(body))]
            forged += [b"\x7f\xff\xff\xff" + body, b"\x7f\xff\xff\xff"]
            for bad in forged:
                try:
                    _decode(case.cmd, which, bad, case.sizes, **case.ctx)
                except ProtocolError:
                    pass
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert time.perf_counter() - started < 5.0
    assert peak < 16 * 2**20


@pytest.mark.parametrize("case", [case for case in CASES if case.out_hex or case.reply_hex], ids=lambda case: case.id)
def test_truncated_and_padded_transcripts_are_protocol_errors(case: Case) -> None:
    for which, hexdata in (("out", case.out_hex), ("reply", case.reply_hex)):
        body = unhex(hexdata)
        for cut in range(len(body)):
            if case.cmd is DDM.Chunk and which == "reply" and cut in (0, 10):
                continue  # a DDM reply is any number of whole chunks: a cut between chunks is valid
            with pytest.raises(ProtocolError):
                _decode(case.cmd, which, body[:cut], case.sizes, **case.ctx)
        with pytest.raises(ProtocolError, match=r"trailing|cannot decode"):
            _decode(case.cmd, which, body + b"\x00", case.sizes, **case.ctx)


def test_protocol_error_names_the_command_and_shows_the_bytes() -> None:
    with pytest.raises(ProtocolError) as info:
        TR.Frames.decode_reply(unhex("00000001 0000"), HOTSPOT)
    assert "ThreadReference.Frames reply" in str(info.value)
    assert "00 00 00 01 00 00" in str(info.value)
    with pytest.raises(ProtocolError, match=r"VirtualMachine\.Version reply: 1 unexpected trailing bytes"):
        VM.Version.decode_reply(unhex("00000000 00000001 00000000 00000000 00000000 ff"), HOTSPOT)


def test_encode_errors_are_usage_errors() -> None:
    with pytest.raises(UsageError, match=r"ThreadReference\.Name"):
        TR.Name.encode_out(TR.Name.out(-1), HOTSPOT)  # an ID is unsigned
    with pytest.raises(UsageError):
        TR.Name.encode_out(TR.Name.out(2**64), HOTSPOT)
    with pytest.raises(UsageError):
        TR.Name.encode_out(TR.Status.reply(1, 1), HOTSPOT)  # the wrong record
    with pytest.raises(UsageError):
        SF.SetValues.encode_out(SF.SetValues.out(T_, FR_, [SlotValue(1, Value(Tag.BYTE, 300))]), HOTSPOT)
    with pytest.raises(UsageError):
        VM.Exit.encode_out(VM.Exit.out(2**31), HOTSPOT)


def test_a_record_also_builds_from_a_mapping() -> None:
    assert TR.Frames.encode_out({"thread": T_, "start_frame": 0, "length": -1}, HOTSPOT) == unhex(
        f"{T} 00000000 ffffffff")


def test_by_name_lookup_decodes_like_the_namespace() -> None:
    assert BY_NAME["ThreadReference.Frames"] is TR.Frames
