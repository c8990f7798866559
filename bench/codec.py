"""Decode and encode speed of the hot paths, each as a ratio to hand-written ``struct`` code timed in the same run.

    python bench/codec.py            # prints two tables; asserts nothing (machines here are noisy)
    python bench/codec.py --scale 0.1   # a tenth of the calls per row, for a quick look

Goal (issue 2): every hot path within 5x of the hand-written struct loop. The "construct" column shows
what the declarative spec alone would cost, for comparison. The composite decoder remembers the events of
single-event composites it saw lately, so the "each new" row shows a composite of bytes never seen.
The encode rows time the out-data of commands a breakpoint hit sends (issue 13: a conditional breakpoint
or logpoint pays them on every hit).
"""

from __future__ import annotations

import argparse
import struct
import sys
import timeit
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from jdwp.protocol.commands import Event, StackFrame, ThreadReference, VirtualMachine
from jdwp.protocol.commands.events import BreakpointEvent, Composite
from jdwp.protocol.commands.threads import Frame, FrameGetValuesOut, FramesOut, FramesReply, SlotRequest
from jdwp.protocol.commands.vm import AllClassesWithGenericReply, GenericClassInfo
from jdwp.protocol.constants import Tag
from jdwp.protocol.records import spec_of
from jdwp.protocol.types import HOTSPOT_64, Location
from jdwp.protocol.values import Value
from jdwp.protocol.wire import HEADER, CommandPacket, encode_packet, split_packets

SIZES = HOTSPOT_64
PARAMS = SIZES.params()


def best(fn: Callable[[], object], number: int) -> float:
    """Seconds per call: the best of five runs of ``number`` calls."""
    return min(timeit.repeat(fn, number=number, repeat=5)) / number


# --- inputs ----------------------------------------------------------------------------------------

LOCATION = Location(1, 0x7F00_1234, 0x7F00_5678, 42)
PACKETS = b"".join(encode_packet(CommandPacket(i, 64, 100, b"x" * 40)) for i in range(1, 101))
COMPOSITE = Event.Composite.encode_out(Composite(2, [BreakpointEvent(7, 0x1001, LOCATION)]), SIZES)
#: More distinct composites than the decoder remembers, so each decode is of bytes not seen lately.
FRESH_COMPOSITES = [Event.Composite.encode_out(Composite(2, [BreakpointEvent(7, 0x1001 + i, LOCATION)]), SIZES)
                    for i in range(2048)]
FRAMES = ThreadReference.Frames.encode_reply(
    FramesReply([Frame(0x10000 + i, Location(1, 0x100 + i, 0x200 + i, i)) for i in range(20)]), SIZES)
_VALUES = [Value(Tag.INT, i) if i % 3 == 0 else Value(Tag.STRING, 0x5000 + i) if i % 3 == 1
           else Value(Tag.DOUBLE, i / 7) for i in range(50)]
VALUES = StackFrame.GetValues.encode_reply({"values": _VALUES}, SIZES)
CLASSES = VirtualMachine.AllClassesWithGeneric.encode_reply(AllClassesWithGenericReply([
    GenericClassInfo(1, 0x10000 + i, f"Lcom/example/app/feature{i % 50}/Class{i};", "", 7)
    for i in range(30_000)]), SIZES)
FRAMES_OUT = FramesOut(0x7F00_1001, 0, -1)
GET_VALUES_OUT = FrameGetValuesOut(0x7F00_1001, 0x10000, [SlotRequest(i, Tag.INT) for i in range(5)])


# --- hand-written struct loops (the baseline) -------------------------------------------------------

def struct_headers() -> int:
    buf, pos, n, unpack = PACKETS, 0, 0, HEADER.unpack_from
    while pos < len(buf):
        length, _, _, _ = unpack(buf, pos)
        _ = buf[pos + 11 : pos + length]
        pos += length
        n += 1
    return n


_BP = struct.Struct(">BiBiQBQQQ")


def struct_composite() -> tuple[int, ...]:
    return _BP.unpack_from(COMPOSITE, 0)


def struct_fresh_composites() -> list[tuple[int, ...]]:
    unpack = _BP.unpack_from
    return [unpack(body, 0) for body in FRESH_COMPOSITES]


def ours_fresh_composites() -> list[Composite]:
    decode = Event.Composite.decode_out
    return [decode(body, SIZES) for body in FRESH_COMPOSITES]


_FRAME = struct.Struct(">QBQQQ")


def struct_frames() -> list[tuple[int, ...]]:
    (count,) = struct.unpack_from(">i", FRAMES, 0)
    return list(_FRAME.iter_unpack(FRAMES[4 : 4 + count * _FRAME.size]))


def struct_values() -> list[tuple[int, object]]:
    buf, pos, out = VALUES, 4, []
    (count,) = struct.unpack_from(">i", buf, 0)
    for _ in range(count):
        tag = buf[pos]
        if tag == 73:
            out.append((tag, struct.unpack_from(">i", buf, pos + 1)[0]))
            pos += 5
        elif tag == 68:
            out.append((tag, struct.unpack_from(">d", buf, pos + 1)[0]))
            pos += 9
        else:
            out.append((tag, struct.unpack_from(">Q", buf, pos + 1)[0]))
            pos += 9
    return out


def struct_classes() -> list[tuple[int, int, str, str, int]]:
    buf, pos, out = CLASSES, 4, []
    (count,) = struct.unpack_from(">i", buf, 0)
    unpack_tag_id, unpack_int = struct.Struct(">BQ").unpack_from, struct.Struct(">i").unpack_from
    for _ in range(count):
        tag, type_id = unpack_tag_id(buf, pos)
        pos += 9
        (n,) = unpack_int(buf, pos)
        signature = buf[pos + 4 : pos + 4 + n].decode()
        pos += 4 + n
        (n,) = unpack_int(buf, pos)
        generic = buf[pos + 4 : pos + 4 + n].decode()
        pos += 4 + n
        (status,) = unpack_int(buf, pos)
        pos += 4
        out.append((tag, type_id, signature, generic, status))
    return out


_FRAMES_OUT = struct.Struct(">Qii")


def struct_frames_out() -> bytes:
    out = FRAMES_OUT
    return _FRAMES_OUT.pack(out.thread, out.start_frame, out.length)


def struct_get_values_out() -> bytes:
    out = GET_VALUES_OUT
    slots = out.slots
    return struct.pack(">QQi" + "iB" * len(slots), out.thread, out.frame, len(slots),
                       *[field for slot in slots for field in (slot.slot, slot.sigbyte)])


# --- pyjdwp ------------------------------------------------------------------------------------------

def ours_headers() -> int:
    return sum(1 for _ in split_packets(bytearray(PACKETS)))


CASES = [
    ("header: 100 packets", struct_headers, ours_headers, None, 200),
    ("Event.Composite (breakpoint)", struct_composite,
     lambda: Event.Composite.decode_out(COMPOSITE, SIZES),
     lambda: spec_of(Composite).parse(COMPOSITE, **PARAMS), 5000),
    ("Event.Composite, each new", struct_fresh_composites, ours_fresh_composites, None, 1),
    ("ThreadReference.Frames (20)", struct_frames,
     lambda: ThreadReference.Frames.decode_reply(FRAMES, SIZES),
     lambda: spec_of(FramesReply).parse(FRAMES, **PARAMS), 2000),
    ("StackFrame.GetValues (50)", struct_values,
     lambda: StackFrame.GetValues.decode_reply(VALUES, SIZES),
     lambda: spec_of(StackFrame.GetValues.reply).parse(VALUES, **PARAMS), 1000),
    ("AllClassesWithGeneric (30,000)", struct_classes,
     lambda: VirtualMachine.AllClassesWithGeneric.decode_reply(CLASSES, SIZES),
     lambda: spec_of(AllClassesWithGenericReply).parse(CLASSES, **PARAMS), 1),
]

ENCODE_CASES = [
    ("ThreadReference.Frames", struct_frames_out,
     lambda: ThreadReference.Frames.encode_out(FRAMES_OUT, SIZES),
     lambda: spec_of(FramesOut).build(FRAMES_OUT, **PARAMS), 20000),
    ("StackFrame.GetValues (5 slots)", struct_get_values_out,
     lambda: StackFrame.GetValues.encode_out(GET_VALUES_OUT, SIZES),
     lambda: spec_of(FrameGetValuesOut).build(GET_VALUES_OUT, **PARAMS), 10000),
]


def main(scale: float = 1.0) -> None:
    """Print both tables; ``scale`` multiplies every row's number of calls (below 1 for a quick look)."""
    print(f"{'hot path':34} {'struct':>10} {'pyjdwp':>10} {'ratio':>7} {'construct':>11} {'ratio':>7}")
    for name, baseline, ours, declarative, number in CASES:
        per = len(FRESH_COMPOSITES) if baseline is struct_fresh_composites else 1  # that row decodes each body once
        print(_row(name, baseline, ours, declarative, max(1, int(number * scale)), per))
    print("goal: every pyjdwp ratio <= 5x (times are per decode; best of 5 runs)")
    print(f"\n{'encode out-data':34} {'struct':>10} {'pyjdwp':>10} {'ratio':>7} {'construct':>11} {'ratio':>7}")
    for name, baseline, ours, declarative, number in ENCODE_CASES:
        print(_row(name, baseline, ours, declarative, max(1, int(number * scale))))
    print("times are per encode, pyjdwp's including Command.encode_out's checks; best of 5 runs")


def _row(name: str, baseline: Callable[[], object], ours: Callable[[], object],
         declarative: Callable[[], object] | None, number: int, per: int = 1) -> str:
    base = best(baseline, number) / per
    fast = best(ours, number) / per
    row = f"{name:34} {base * 1e6:9.1f}µ {fast * 1e6:9.1f}µ {fast / base:6.2f}x"
    if declarative is not None:
        slow = best(declarative, max(1, number // 10))
        row += f" {slow * 1e6:10.1f}µ {slow / base:6.2f}x"
    return row


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0,
                        help="multiply every row's number of calls by this (default 1)")
    main(parser.parse_args().scale)
