"""The layers of DESIGN.md §1 and STYLE.md "Layers", checked on every module under ``src`` with ``ast``.

Rules (relative imports are resolved to absolute names first; imports inside functions and under
``TYPE_CHECKING`` count too):

- ``jdwp.protocol`` is sans-IO: it imports no I/O or concurrency library and nothing of ``jdwp`` outside
  ``jdwp.protocol``.
- ``jdwp`` (any module) never imports ``android``, ``server`` or MCP.
- ``android`` never imports ``jdwp``, ``server`` or MCP.
- ``server`` uses the public package APIs: ``from jdwp import X`` and ``from jdwp.debugger import X`` with
  ``X`` in that package's ``__all__`` (and ``jdwp.X`` after ``import jdwp`` likewise); nothing from the
  other modules of ``jdwp`` (``jdwp.protocol``, ``jdwp.client``…); from ``android`` its public modules.
- A private module (``_x``) or a private name is imported only from inside its own package.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"
FIRST_PARTY = ("jdwp", "android", "server")
MCP = ("mcp", "mcp_types")
#: What "sans-IO" rules out for jdwp.protocol.
IO = ("trio", "anyio", "asyncio", "socket", "ssl", "selectors", "subprocess", *MCP)
#: The packages whose curated ``__all__`` is the server's window into ``jdwp``.
SERVER_SEES = ("jdwp", "jdwp.debugger")


@dataclass(frozen=True)
class Import:
    importer: str
    path: Path
    line: int
    target: str  # the absolute module imported from, or the module imported
    name: str | None  # the name taken from ``target`` (``from target import name``), if any

    def where(self) -> str:
        shown = self.target + (f" import {self.name}" if self.name else "")
        return f"{self.path.relative_to(SRC.parent)}:{self.line}: {self.importer} -> {shown}"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(SRC.rglob("*.py"))}


def _package_of(module: str) -> str:
    return module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]


def _resolve(importer: str, module: str | None, level: int) -> str:
    if level == 0:
        return module or ""
    base = _package_of(importer).split(".")
    base = base[: len(base) - (level - 1)]
    return ".".join([*base, module] if module else base)


def imports_in(importer: str, source: str, path: Path) -> list[Import]:
    """Every import of ``source``, and every ``jdwp.X``/``android.X`` attribute read after ``import jdwp``."""
    found: list[Import] = []
    bound: dict[str, str] = {}  # local name -> first-party package imported whole
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.append(Import(importer, path, node.lineno, alias.name, None))
                if alias.asname and alias.name in MODULES:
                    bound[alias.asname] = alias.name
                elif not alias.asname and alias.name.split(".")[0] in MODULES:
                    bound[alias.name.split(".")[0]] = alias.name.split(".")[0]  # ``import a.b`` binds ``a``
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(importer, node.module, node.level)
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                if submodule in MODULES:
                    found.append(Import(importer, path, node.lineno, submodule, None))
                else:
                    found.append(Import(importer, path, node.lineno, base, alias.name))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in bound:
            package = bound[node.value.id]
            submodule = f"{package}.{node.attr}"
            if submodule in MODULES:
                found.append(Import(importer, path, node.lineno, submodule, None))
            else:
                found.append(Import(importer, path, node.lineno, package, node.attr))
    return found


def _under(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _private(part: str) -> bool:
    return part.startswith("_") and not part.startswith("__")


def _exported(package: str) -> set[str]:
    """The literal ``__all__`` of a package, read without importing it."""
    tree = ast.parse(MODULES[package].read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return {element.value for element in node.value.elts}  # type: ignore[attr-defined]
    raise AssertionError(f"{package} has no literal __all__")


def violation(imp: Import) -> str | None:
    """Why ``imp`` crosses a layer, or ``None``."""
    importer, target, top = imp.importer, imp.target, imp.target.split(".")[0]
    if _under(importer, "jdwp.protocol"):
        if top in IO:
            return "jdwp.protocol is sans-IO"
        if top in FIRST_PARTY and not _under(target, "jdwp.protocol"):
            return "jdwp.protocol imports only jdwp.protocol"
    if _under(importer, "jdwp") and top in ("android", "server", *MCP):
        return "jdwp never imports android, server or MCP"
    if _under(importer, "android") and top in ("jdwp", "server", *MCP):
        return "android never imports jdwp, server or MCP"
    if _under(importer, "server"):
        if top == "jdwp":
            if target not in SERVER_SEES:
                return "server uses only the jdwp and jdwp.debugger package APIs"
            if imp.name is not None and imp.name not in _exported(target):
                return f"{imp.name} is not in {target}.__all__"
        if top == "android" and any(_private(p) for p in target.split(".")):
            return "server uses android's public modules"
    # Private modules and names stay inside their package.
    parts = target.split(".")
    for i, part in enumerate(parts):
        if _private(part) and not _under(importer, ".".join(parts[:i])):
            return "a private module imported from outside its package"
    if imp.name is not None and _private(imp.name) and top in FIRST_PARTY \
            and not _under(importer, _package_of(target) if target in MODULES else target):
        return "a private name imported from outside its package"
    return None


def test_no_import_crosses_a_layer() -> None:
    offending = []
    for module, path in MODULES.items():
        for imp in imports_in(module, path.read_text(), path):
            reason = violation(imp)
            if reason is not None:
                offending.append(f"{imp.where()}  ({reason})")
    assert not offending, "imports across the layers:\n  " + "\n  ".join(offending)


def test_every_package_is_seen() -> None:
    assert {m.split(".")[0] for m in MODULES} == set(FIRST_PARTY)
    assert {"jdwp.protocol.wire", "jdwp.client", "jdwp.debugger.engine", "android.client", "server.app"} <= set(MODULES)


def _verdicts(importer: str, source: str) -> list[str | None]:
    return [violation(imp) for imp in imports_in(importer, source, MODULES[importer])]


def test_the_rules_catch_what_they_forbid() -> None:
    assert _verdicts("jdwp.protocol.wire", "import trio\nimport socket") == ["jdwp.protocol is sans-IO"] * 2
    assert _verdicts("jdwp.protocol.commands.events", "from ...client import JdwpClient") == [
        "jdwp.protocol imports only jdwp.protocol"]
    assert _verdicts("jdwp.protocol.commands.events", "from .. import fast\nfrom ..types import Location") == [
        None, None]
    assert _verdicts("jdwp.debugger.engine", "from android import AdbClient") == [
        "jdwp never imports android, server or MCP"]
    assert _verdicts("android.client", "import jdwp") == ["android never imports jdwp, server or MCP"]
    assert _verdicts("server.envelope", "from jdwp.protocol.errors import JdwpError") == [
        "server uses only the jdwp and jdwp.debugger package APIs"]
    assert _verdicts("server.envelope", "from jdwp.debugger.errors import DebuggerError") == [
        "server uses only the jdwp and jdwp.debugger package APIs"]
    assert _verdicts("server.envelope", "from jdwp import JdwpError, ErrorCode\nfrom jdwp.debugger import Debugger"
                     ) == [None, None, None]
    assert _verdicts("server.envelope", "from jdwp import client") == [
        "server uses only the jdwp and jdwp.debugger package APIs"]
    assert _verdicts("server.targets", "import jdwp\njdwp.JdwpError\njdwp.protocol.errors") == [
        None, None, "server uses only the jdwp and jdwp.debugger package APIs"]
    assert _verdicts("server.envelope", "from android.errors import AdbError") == [None]
    assert _verdicts("jdwp.client", "from .protocol._frozen import maker") == [
        "a private module imported from outside its package"]
    assert _verdicts("jdwp.client", "from .protocol.types import _PlainList") == [
        "a private name imported from outside its package"]
    assert _verdicts("jdwp.protocol.records", "from ._frozen import fast_init") == [None]
