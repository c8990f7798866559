"""Show the live instances of a class and their fields, with the VM paused for a consistent picture.

    python examples/inspect_heap.py 127.0.0.1:5005 com.example.debuggee.Shop

Strings are shown as text, a ``HashMap`` or ``ArrayList`` by its size, other objects by their class. Needs a
VM that can list instances (``canGetInstanceInfo``: HotSpot can). The VM runs on afterwards.
"""

from __future__ import annotations

import argparse

import trio

import jdwp
from jdwp.signatures import binary_name_of, signature_of

SIZED = {"java.util.HashMap", "java.util.ArrayList", "java.util.LinkedHashMap", "java.util.HashSet"}


async def show(vm: jdwp.JdwpClient, value: jdwp.Value) -> str:
    """A field's value: primitives as they are, strings as text, containers by their size."""
    if not value.is_object:
        return str(value.value)
    if value.is_null:
        return "null"
    if value.tag == jdwp.Tag.STRING:
        return repr(await vm.string_reference.value(value.object_id))
    ref = await vm.object_reference.reference_type(value.object_id)
    name = binary_name_of(await vm.reference_type.signature(ref.type_id))
    if name in SIZED:  # their element count is a field; java.util.HashSet's is its map's
        fields = {f.name: f for f in await vm.reference_type.fields(ref.type_id)}
        if "size" in fields:
            (size,) = await vm.object_reference.get_values(value.object_id, [fields["size"].field_id])
            return f"{name}(size={size.value})"
    return f"<{name}>"


async def instances(vm: jdwp.JdwpClient, class_name: str, limit: int = 10) -> list[dict[str, str]]:
    """The first ``limit`` instances of ``class_name``, each as ``{field: value}`` (instance fields of the
    class itself, in declaration order). The whole VM is paused while they are read."""
    classes = await vm.classes_by_signature(signature_of(class_name))
    if not classes:
        raise SystemExit(f"{class_name} is not loaded")
    found = []
    await vm.suspend()
    try:
        for loaded in classes:
            fields = [f for f in await vm.reference_type.fields(loaded.type_id)
                      if jdwp.AccessFlags.STATIC not in f.modifiers]
            for instance in await vm.reference_type.instances(loaded.type_id, limit):
                values = await vm.object_reference.get_values(instance.object_id, [f.field_id for f in fields])
                found.append({f.name: await show(vm, v) for f, v in zip(fields, values, strict=True)})
    finally:
        await vm.resume()
    return found


async def inspect(host: str, port: int, class_name: str) -> None:
    async with jdwp.open_jdwp_tcp(host, port) as vm:
        shown = await instances(vm, class_name)
        print(f"{class_name}: {len(shown)} instance(s)")
        for number, fields in enumerate(shown, 1):
            print(f"  #{number}: " + ", ".join(f"{name}={value}" for name, value in fields.items()))
        await vm.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("address", help="the VM's JDWP address, host:port")
    parser.add_argument("class_name", help="a loaded class, as Class.getName() writes it")
    args = parser.parse_args()
    host, _, port = args.address.rpartition(":")
    trio.run(inspect, host or "127.0.0.1", int(port), args.class_name)


if __name__ == "__main__":
    main()
