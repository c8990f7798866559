"""The library's helpers for tool-writers: signatures, decoded text and diffs, enums on replies, clean
``help()``, the namespaces documented, and the pytest plugin's entry point."""

from __future__ import annotations

import inspect
import pydoc
import tomllib
from pathlib import Path

import pytest

import jdwp
from jdwp import signatures
from jdwp.decoded import IdRenumbering, describe, diff
from jdwp.mirrors import Mirrors
from jdwp.protocol.commands import ThreadReference
from jdwp.protocol.commands.events import Composite, MethodExitWithReturnValueEvent
from jdwp.protocol.constants import Tag

REPO = Path(__file__).resolve().parents[2]


def test_method_signatures_parse_and_read_as_java() -> None:
    parsed = signatures.parse_method_signature("(I[Ljava/lang/String;J[[D)Z")
    assert parsed.parameters == ["I", "[Ljava/lang/String;", "J", "[[D"] and parsed.return_type == "Z"
    assert signatures.method_text("put", "(ILjava/lang/Object;)V") == "void put(int, java.lang.Object)"
    assert signatures.type_name("[Lcom/x/Foo$$Lambda$11.0x08;") == "com.x.Foo$$Lambda$11/0x08[]"
    assert signatures.signature_of("com.x.Foo$$Lambda$11/0x08") == "Lcom/x/Foo$$Lambda$11.0x08;"
    for bad in ("I)V", "(Q)V", "(Lcom/x/Foo)V", "([)V"):
        with pytest.raises(ValueError):
            signatures.parse_method_signature(bad)


def test_argument_slots_follow_the_jvm_frame_layout() -> None:
    assert signatures.argument_slots("(IJLjava/lang/Object;D)V", static=False) == [1, 2, 4, 5]
    assert signatures.argument_slots("(IJLjava/lang/Object;D)V", static=True) == [0, 1, 3, 4]
    assert signatures.tag_of_signature("[I") == Tag.ARRAY and signatures.tag_of_signature("J") == Tag.LONG
    assert signatures.tag_of_signature("Ljava/lang/String;") == Tag.OBJECT


def test_decoded_text_and_field_diff() -> None:
    frames = ThreadReference.Frames.out(3, 0, -1)
    assert describe(frames) == "FramesOut(thread=3, start_frame=0, length=-1)"
    assert describe(jdwp.Value(Tag.STRING, 7)) == "STRING #7" and describe(jdwp.Value(Tag.INT, 1)) == "INT 1"
    assert diff(frames, ThreadReference.Frames.out(3, 0, 5)) == ["length: recorded -1, sent 5"]


def test_renumbering_maps_every_id_of_an_event_one_to_one() -> None:
    location = jdwp.Location(1, 0x7F00_0000_0010, 0x7F00_0000_0020, 5)
    event = Composite(2, [MethodExitWithReturnValueEvent(9, 0x7F00_0000_0030, location,
                                                         jdwp.Value(Tag.OBJECT, 0x7F00_0000_0010))])
    renumbered = IdRenumbering().record(event)
    (exit_event,) = renumbered.events
    assert (exit_event.thread, exit_event.location.class_id, exit_event.location.method_id) == (1, 2, 3)
    assert exit_event.value == jdwp.Value(Tag.OBJECT, 2)  # the same ID as the class's, the same number
    assert exit_event.request_id == 9 and exit_event.location.index == 5  # not IDs: kept


def test_replies_give_their_codes_as_enums() -> None:
    status = jdwp.ThreadStatusReply(2, 1)
    assert status.status is jdwp.ThreadStatus.SLEEPING and status.suspended
    info = jdwp.ClassInfo(1, 5, "Lx;", 7)
    assert info.tag is jdwp.TypeTag.CLASS and jdwp.ClassStatus.PREPARED in info.class_status
    method = jdwp.MethodInfo(1, "run", "()V", jdwp.ACC_PUBLIC | jdwp.ACC_STATIC)
    assert method.modifiers == jdwp.AccessFlags.PUBLIC | jdwp.AccessFlags.STATIC
    assert jdwp.AccessFlags.SYNTHETIC in jdwp.MethodInfo(1, "x", "()V", jdwp.ACC_SYNTHETIC).modifiers


def test_help_shows_records_without_generated_noise() -> None:
    assert str(inspect.signature(jdwp.Location)) == (
        "(type_tag: 'int', class_id: 'ReferenceTypeId', method_id: 'MethodId', index: 'int')")
    text = pydoc.render_doc(jdwp, renderer=pydoc.plaintext)
    assert "method-wrapper" not in text and "=_set_" not in text


def test_every_namespace_of_the_client_is_in_its_help() -> None:
    source = inspect.getsource(Mirrors.__init__)
    attributes = [line.split("self.", 1)[1].split(" ", 1)[0] for line in source.splitlines() if "self." in line]
    assert len(attributes) == 15
    doc = jdwp.JdwpClient.__doc__ or ""
    assert [a for a in attributes if f"``{a}``" not in doc] == []


def test_the_pytest_plugin_is_an_entry_point_named_as_its_module() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["entry-points"]["pytest11"] == {"jdwp.pytest_plugin": "jdwp.pytest_plugin"}
