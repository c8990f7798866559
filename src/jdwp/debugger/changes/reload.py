"""Reloading classes into the running VM (hot swap, IntelliJ's "Reload changed classes").

Layer: ``jdwp.debugger.changes`` (trio, via ``jdwp.client``). ``docs/tools.md`` (``redefine_debugger_classes``).

1. The paths are read on the host (:mod:`.sources`). Each class is matched to the classes the VM has loaded by
   the name its own bytes give (``VirtualMachine.ClassesBySignature`` 1,2, one write for all; for an APK's
   thousands, one ``VirtualMachine.AllClasses`` 1,3): one not loaded is
   skipped (nothing runs its old code; the VM loads it from its own class path when first used), one loaded by
   several class loaders is redefined in each. A JVM takes class files of a version it reads (the JDWP
   version is the Java version since 9: class-file major ``44 + feature``); ART takes dex, one class per dex.
2. The VM is held (an owned ``VirtualMachine.Suspend`` 1,8, nested in any stop's suspension, always released)
   while the stacks are read: the frames of every thread in the classes reloaded (``ThreadReference.Frames``
   11,6, the top :data:`FRAMES_READ` of each), with their methods' names and lines.
3. One ``VirtualMachine.RedefineClasses`` (1,18) sends them all; the VM takes all or none. A refusal is an
   error that names the class and the change (:mod:`.refusals`).
4. What the session knew of the classes' code is dropped (methods, line and variable tables, source maps:
   :meth:`..classes.symbols.Symbols.forget_code`); the frames read before whose method is now obsolete
   (``Method.IsObsolete`` 6,4: its body changed) still run the old code until they return — a restart frame
   (:meth:`..engine.Debugger.restart_frame`) runs the new one; line breakpoints bound in the classes are bound
   anew in the new code (:mod:`.rebind`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import trio

from ...client import JdwpClient
from ...protocol.commands import Empty, Method, ThreadReference, VirtualMachine
from ...protocol.commands.reftypes import MethodOut
from ...protocol.commands.threads import FramesOut, ThreadOut
from ...protocol.commands.vm import ClassDef, ClassesBySignatureOut, RedefineClassesOut, prepared_classes
from ...protocol.errors import CommandError, JdwpError, UsageError
from ...protocol.types import Location, MethodId, ReferenceTypeId, ThreadId
from ..classes.classfile import ClassFormatError
from ..classes.symbols import Symbols
from ..errors import InvalidArgument, Unsupported
from ..model import OMIT_EMPTY, OMIT_NONE, Breakpoint, MethodBreakpoint, SourcePosition
from ..names import binary_name_of
from ..requests.manager import Requests
from .rebind import rebind_in
from .refusals import refusal
from .sources import NewClass, Skipped, read_sources

__all__ = ["OldFrame", "Reload", "reload_classes"]

#: Frames read of each thread, from the top: a frame deeper than that running old code is not listed.
FRAMES_READ = 64
#: Classes looked up one by one at most; more (an APK's) are found in one listing of every loaded class.
BY_LISTING = 200
RESTART_HINT = ("these frames run the old code until they return; Debugger.restart_frame() on such a frame (the "
                "top one of a stop) runs the new code from its first line")


@dataclasses.dataclass(frozen=True, slots=True)
class OldFrame:
    """A frame that still runs a method's old code: its thread, depth (0 = top), method and line then."""

    thread: str
    frame: int
    method: str
    line: int | None


@dataclasses.dataclass(frozen=True, slots=True)
class Reload:
    """What a reload did: classes redefined (binary names), those skipped and why, frames still running old
    code, and the line and method entry breakpoints bound anew in the new code (``verified``, or ``rejected``
    where the line has no code now)."""

    redefined: tuple[str, ...]
    skipped: tuple[Skipped, ...] = dataclasses.field(default=(), metadata=OMIT_EMPTY)
    old_frames: tuple[OldFrame, ...] = dataclasses.field(default=(), metadata=OMIT_EMPTY)
    breakpoints: tuple[Breakpoint | MethodBreakpoint, ...] = dataclasses.field(default=(), metadata=OMIT_EMPTY)
    note: str | None = dataclasses.field(default=None, metadata=OMIT_NONE)


@dataclasses.dataclass(frozen=True, slots=True)
class _Frame:
    thread: ThreadId
    depth: int
    location: Location


async def reload_classes(vm: JdwpClient, symbols: Symbols, breakpoints: Requests, paths: Sequence[str]
                         ) -> Reload:
    """Redefine the classes of ``paths`` that the VM has loaded (steps above).

    Raises:
        InvalidArgument: a bad path, or bytes the VM refused (the message names the class and why).
        Unsupported: the VM cannot redefine classes, or refused a change of shape (which it names).
    """
    capabilities = await symbols.capabilities.get()
    if not capabilities.can_redefine_classes:
        raise Unsupported("this VM cannot redefine classes (CapabilitiesNew: canRedefineClasses is false; ART "
                          "offers it only in a debuggable app): restart the app to run new code")
    read = await trio.to_thread.run_sync(read_sources, list(paths))
    skipped = list(read.skipped)
    fit = [new for new in read.classes if _fits(vm, new, skipped)]
    found = await _loaded(vm, [new.signature for new in fit])
    sent: list[tuple[ReferenceTypeId, NewClass]] = []
    for new in fit:
        loaded = found.get(new.signature, [])
        if not loaded:
            skipped.append(Skipped(binary_name_of(new.signature), "not loaded by the VM: no code of it runs yet, "
                                   "and it loads from the app's class path when first used"))
        for ref in loaded:
            symbols.signatures.note(ref, new.signature)
            sent.append((ReferenceTypeId(ref), new))
    if not sent:
        return Reload((), tuple(skipped), note="no class was redefined")
    await vm.suspend()
    try:
        refs = {ref for ref, _ in sent}
        before = await _frames_in(vm, refs)
        await symbols.describe([frame.location for frame in before])
        described = {frame: symbols.position(frame.location) for frame in before}
        try:
            payloads = {new.name: new.payload() for _, new in sent}
        except ClassFormatError as exc:
            raise InvalidArgument(f"a dex could not be cut into one class per dex: {exc}; nothing was redefined"
                                  ) from exc
        try:
            await vm.request(VirtualMachine.RedefineClasses,
                             RedefineClassesOut([ClassDef(ref, payloads[new.name]) for ref, new in sent]))
        except CommandError as failure:
            raise await refusal(vm, failure, [(ref, binary_name_of(new.signature), new.declared())
                                              for ref, new in sent]) from None
        for ref in refs:
            symbols.forget_code(ref)
        old = await _still_old(vm, before)
        names = await _thread_names(vm, {frame.thread for frame in old})
        old_frames = tuple(OldFrame(names.get(frame.thread, f"thread {frame.thread:#x}"), frame.depth,
                                    _method_of(described[frame]), described[frame].line) for frame in old)
        rebound = await rebind_in(breakpoints, refs)
    finally:
        with trio.CancelScope(shield=True):  # released even when the caller's deadline ends the reload
            await vm.resume()
    redefined = tuple(dict.fromkeys(binary_name_of(new.signature) for _, new in sent))
    return Reload(redefined, tuple(skipped), old_frames, tuple(rebound), RESTART_HINT if old_frames else None)


def _method_of(position: SourcePosition) -> str:
    if position.method.startswith("<method "):  # a frame already in old code before this reload: its name is gone
        return f"{position.class_name} (a method's code from before an earlier reload)"
    return f"{position.class_name}.{position.method}"


def _fits(vm: JdwpClient, new: NewClass, skipped: list[Skipped]) -> bool:
    """Whether this VM reads ``new``'s format and version; else it is listed as skipped."""
    try:
        version = vm.version_info
    except UsageError:
        return True  # not known: the VM says
    art = "Dalvik" in version.vm_name
    name = binary_name_of(new.signature)
    if art and new.format == "class":
        skipped.append(Skipped(name, "ART takes dex, not class files: give the app's dex (a Gradle dex output "
                                     "directory, a .dex or the APK)"))
        return False
    if not art and new.format == "dex":
        skipped.append(Skipped(name, "a JVM takes class files, not dex: give .class files, a directory or a jar"))
        return False
    if new.shape is not None and not art:
        feature = version.jdwp_major if version.jdwp_major > 1 else version.jdwp_minor
        if new.shape.major > 44 + feature:
            skipped.append(Skipped(name, f"class file version {new.shape.major} (Java {new.shape.major - 44}) is "
                                         f"newer than this VM (Java {feature}) reads: compile with --release "
                                         f"{feature}"))
            return False
    return True


async def _loaded(vm: JdwpClient, signatures: list[str]) -> dict[str, list[ReferenceTypeId]]:
    """The loaded classes of each signature: ``ClassesBySignature`` (1,2) each, in one write; for more than
    :data:`BY_LISTING` (an APK's dex), one ``VirtualMachine.AllClasses`` (1,3) instead."""
    found: dict[str, list[ReferenceTypeId]] = {}
    if len(signatures) > BY_LISTING:
        wanted = set(signatures)
        (listing,) = await vm.request_all([(VirtualMachine.AllClasses, Empty())], raw=(0,))
        if isinstance(listing, CommandError):
            raise listing
        for ref, signature in prepared_classes(listing, vm.id_sizes):
            if signature in wanted:
                found.setdefault(signature, []).append(ref)
        return found
    answers = await vm.request_all([(VirtualMachine.ClassesBySignature, ClassesBySignatureOut(signature))
                                    for signature in signatures])
    for signature, answer in zip(signatures, answers, strict=True):
        if not isinstance(answer, CommandError):
            found[signature] = [c.type_id for c in answer.classes]
    return found


async def _stacks(vm: JdwpClient, threads: Sequence[ThreadId]) -> dict[ThreadId, list[Location]]:
    """The top :data:`FRAMES_READ` frames' locations of each thread (suspended), in two writes; a thread that
    ended meanwhile has none."""
    counts = await vm.request_all([(ThreadReference.FrameCount, ThreadOut(thread)) for thread in threads])
    asked = [(thread, min(count.frame_count, FRAMES_READ)) for thread, count in zip(threads, counts, strict=True)
             if not isinstance(count, JdwpError) and count.frame_count > 0]
    answers = await vm.request_all([(ThreadReference.Frames, FramesOut(thread, 0, length))
                                    for thread, length in asked])
    return {thread: [frame.location for frame in answer.frames]
            for (thread, _), answer in zip(asked, answers, strict=True) if not isinstance(answer, JdwpError)}


async def _frames_in(vm: JdwpClient, refs: set[ReferenceTypeId]) -> list[_Frame]:
    """The top frames of every thread that are in one of ``refs`` (the VM is suspended)."""
    stacks = await _stacks(vm, await vm.all_threads())
    return [_Frame(thread, depth, location) for thread, locations in stacks.items()
            for depth, location in enumerate(locations) if location.class_id in refs]


async def _still_old(vm: JdwpClient, before: list[_Frame]) -> list[_Frame]:
    """Of the frames read before the reload, those whose method is now obsolete: they run the old code."""
    if not before:
        return []
    stacks = await _stacks(vm, list(dict.fromkeys(frame.thread for frame in before)))
    kept = [(frame, stacks[frame.thread][frame.depth]) for frame in before
            if frame.depth < len(stacks.get(frame.thread, ()))]
    answers = await vm.request_all([(Method.IsObsolete, MethodOut(location.class_id, MethodId(location.method_id)))
                                    for _, location in kept])
    return [frame for (frame, _), answer in zip(kept, answers, strict=True)
            if not isinstance(answer, JdwpError) and answer.is_obsolete]


async def _thread_names(vm: JdwpClient, threads: set[ThreadId]) -> dict[ThreadId, str]:
    ordered = list(threads)
    answers = await vm.request_all([(ThreadReference.Name, ThreadOut(thread)) for thread in ordered])
    return {thread: answer.thread_name for thread, answer in zip(ordered, answers, strict=True)
            if not isinstance(answer, JdwpError)}
