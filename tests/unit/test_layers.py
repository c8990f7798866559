"""The layers of docs/design.md §1.2, checked on every module under ``src`` with ``ast``.

Packages are named by their import names: a folder under ``src`` that ``pyproject.toml``'s ``package-dir`` maps
(``src/server`` as ``pyjdwp_server``) has that name; "android" and "server" below mean those packages.

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
- ``jdwp.debugger`` is built in floors (docs/design.md §1.2, docs/architecture.md): the ground (its root modules
  ``errors``, ``ids``, ``model``, ``names``, ``_gather``, ``_held``) < ``classes`` < ``reading`` < ``requests``
  < ``changes`` < ``events`` < the top (``engine``, ``inspection``, the package itself). A floor never imports a
  higher one.
- No import circle anywhere under ``src``: module-level imports (``TYPE_CHECKING`` ones too) form no cycle.
"""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"


def import_names() -> dict[str, str]:
    """Folder under ``src`` -> its import name, as ``pyproject.toml``'s ``package-dir`` maps it."""
    project = tomllib.loads((SRC.parent / "pyproject.toml").read_text(encoding="utf-8"))
    mapped = project["tool"].get("setuptools", {}).get("package-dir", {})
    return {Path(folder).name: name for name, folder in mapped.items() if name}


IMPORT_NAMES = import_names()
ANDROID = IMPORT_NAMES.get("android", "android")
SERVER = IMPORT_NAMES.get("server", "server")
FIRST_PARTY = ("jdwp", ANDROID, SERVER)
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

    def where_in(self, modules: Mapping[str, Path]) -> str:
        shown = self.target + (f" import {self.name}" if self.name else "")
        return f"{self.path.name}:{self.line}: {self.importer} -> {shown}"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    parts[0] = IMPORT_NAMES.get(parts[0], parts[0])
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(SRC.rglob("*.py"))}


def _package_of(module: str, modules: Mapping[str, Path] = MODULES) -> str:
    return module if modules[module].name == "__init__.py" else module.rpartition(".")[0]


def _resolve(importer: str, module: str | None, level: int, modules: Mapping[str, Path] = MODULES) -> str:
    if level == 0:
        return module or ""
    base = _package_of(importer, modules).split(".")
    base = base[: len(base) - (level - 1)]
    return ".".join([*base, module] if module else base)


def _module_level(tree: ast.AST) -> Iterator[ast.AST]:
    """The nodes of ``tree`` outside function bodies: what runs when the module is imported."""
    for child in ast.iter_child_nodes(tree):
        if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            yield child
            yield from _module_level(child)


def imports_in(importer: str, source: str, path: Path, modules: Mapping[str, Path] = MODULES,
               module_level: bool = False) -> list[Import]:
    """Every import of ``source``, and every ``jdwp.X``/``android.X`` attribute read after ``import jdwp``
    (only those outside function bodies with ``module_level``)."""
    found: list[Import] = []
    bound: dict[str, str] = {}  # local name -> first-party package imported whole
    tree = ast.parse(source)
    nodes = list(_module_level(tree) if module_level else ast.walk(tree))
    for node in nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.append(Import(importer, path, node.lineno, alias.name, None))
                if alias.asname and alias.name in modules:
                    bound[alias.asname] = alias.name
                elif not alias.asname and alias.name.split(".")[0] in modules:
                    bound[alias.name.split(".")[0]] = alias.name.split(".")[0]  # ``import a.b`` binds ``a``
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(importer, node.module, node.level, modules)
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                if submodule in modules:
                    found.append(Import(importer, path, node.lineno, submodule, None))
                else:
                    found.append(Import(importer, path, node.lineno, base, alias.name))
    for node in nodes:
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in bound:
            package = bound[node.value.id]
            submodule = f"{package}.{node.attr}"
            if submodule in modules:
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
    if _under(importer, "jdwp") and top in (ANDROID, SERVER, *MCP):
        return "jdwp never imports android, server or MCP"
    if _under(importer, ANDROID) and top in ("jdwp", SERVER, *MCP):
        return "android never imports jdwp, server or MCP"
    if _under(importer, SERVER):
        if top == "jdwp":
            if target not in SERVER_SEES:
                return "server uses only the jdwp and jdwp.debugger package APIs"
            if imp.name is not None and imp.name not in _exported(target):
                return f"{imp.name} is not in {target}.__all__"
        if top == ANDROID and any(_private(p) for p in target.split(".")):
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
    assert {"jdwp.protocol.wire", "jdwp.client", "jdwp.debugger.engine",
            "pyjdwp_android.client", "pyjdwp_server.app"} <= set(MODULES)


def _verdicts(importer: str, source: str) -> list[str | None]:
    return [violation(imp) for imp in imports_in(importer, source, MODULES[importer])]


def test_the_rules_catch_what_they_forbid() -> None:
    assert _verdicts("jdwp.protocol.wire", "import trio\nimport socket") == ["jdwp.protocol is sans-IO"] * 2
    assert _verdicts("jdwp.protocol.commands.events", "from ...client import JdwpClient") == [
        "jdwp.protocol imports only jdwp.protocol"]
    assert _verdicts("jdwp.protocol.commands.events", "from .. import fast\nfrom ..types import Location") == [
        None, None]
    assert _verdicts("jdwp.debugger.engine", "from pyjdwp_android import AdbClient") == [
        "jdwp never imports android, server or MCP"]
    assert _verdicts("pyjdwp_android.client", "import jdwp") == ["android never imports jdwp, server or MCP"]
    assert _verdicts("pyjdwp_server.answers.envelope", "from jdwp.protocol.errors import JdwpError") == [
        "server uses only the jdwp and jdwp.debugger package APIs"]
    assert _verdicts("pyjdwp_server.answers.envelope", "from jdwp.debugger.errors import DebuggerError") == [
        "server uses only the jdwp and jdwp.debugger package APIs"]
    assert _verdicts("pyjdwp_server.answers.envelope", "from jdwp import JdwpError, ErrorCode\n"
                                        "from jdwp.debugger import Debugger") == [None, None, None]
    assert _verdicts("pyjdwp_server.answers.envelope", "from jdwp import client") == [
        "server uses only the jdwp and jdwp.debugger package APIs"]
    assert _verdicts("pyjdwp_server.session.targets", "import jdwp\njdwp.JdwpError\njdwp.protocol.errors") == [
        None, None, "server uses only the jdwp and jdwp.debugger package APIs"]
    assert _verdicts("pyjdwp_server.answers.envelope", "from pyjdwp_android.errors import AdbError") == [None]
    assert _verdicts("jdwp.client", "from .protocol._frozen import maker") == [
        "a private module imported from outside its package"]
    assert _verdicts("jdwp.client", "from .protocol.types import _PlainList") == [
        "a private name imported from outside its package"]
    assert _verdicts("jdwp.protocol.records", "from ._frozen import fast_init") == [None]


# --- jdwp.debugger's floors and import circles ---------------------------------------------------------------

DEBUGGER = "jdwp.debugger"
#: The floors of jdwp.debugger, lowest first: a root module of the ground, or a subpackage.
FLOORS = (
    ("errors", "ids", "model", "names", "_gather", "_held"),
    ("classes",),
    ("reading",),
    ("requests",),
    ("changes",),
    ("events",),
    ("engine", "inspection"),
)
TOP = len(FLOORS) - 1


def floor_of(module: str) -> int | None:
    """The floor of a module of ``jdwp.debugger`` (the package itself is the top), ``None`` outside it."""
    if module == DEBUGGER:
        return TOP
    if not module.startswith(DEBUGGER + "."):
        return None
    first = module[len(DEBUGGER) + 1:].split(".")[0]
    for floor, names in enumerate(FLOORS):
        if first in names:
            return floor
    raise AssertionError(f"{module} is on no floor of {DEBUGGER}: add it to FLOORS (docs/architecture.md)")


def upward(imp: Import) -> str | None:
    """Why ``imp`` runs up the floors of jdwp.debugger, or ``None``."""
    low, high = floor_of(imp.importer), floor_of(imp.target)
    if low is not None and high is not None and high > low:
        return f"floor {low} imports floor {high}"
    return None


def modules_under(root: Path) -> dict[str, Path]:
    return {".".join(_dotted(p, root)): p for p in sorted(root.rglob("*.py"))}


def _dotted(path: Path, root: Path) -> list[str]:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return parts[:-1] if parts[-1] == "__init__" else parts


def floor_offences(modules: Mapping[str, Path]) -> list[str]:
    return [f"{imp.where_in(modules)}  ({reason})" for module, path in modules.items()
            for imp in imports_in(module, path.read_text(), path, modules) if (reason := upward(imp)) is not None]


def circles(modules: Mapping[str, Path]) -> list[list[str]]:
    """The import circles among ``modules`` (module-level imports): each strongly connected set of two or more
    modules, or a module importing itself, sorted."""
    edges: dict[str, set[str]] = {m: set() for m in modules}
    for module, path in modules.items():
        for imp in imports_in(module, path.read_text(), path, modules, module_level=True):
            if imp.target in modules:
                edges[module].add(imp.target)
    # Tarjan's strongly connected components, iterative (a deep package would overflow the recursion).
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in modules:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in edges[node]:
                    found.append(sorted(component))
    return sorted(found)


def test_the_debugger_floors_only_look_down() -> None:
    assert {floor_of(m) for m in MODULES if m.startswith(DEBUGGER)} == set(range(len(FLOORS)))
    offending = floor_offences(MODULES)
    assert not offending, "imports up the floors of jdwp.debugger:\n  " + "\n  ".join(offending)


def test_no_import_circle() -> None:
    found = circles(MODULES)
    assert not found, "import circles:\n  " + "\n  ".join(" <-> ".join(c) for c in found)


def _plant(root: Path, files: dict[str, str]) -> dict[str, Path]:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return modules_under(root)


_GROUND = {"jdwp/__init__.py": "", "jdwp/debugger/__init__.py": "from .engine import run\n",
           "jdwp/debugger/engine.py": "from .reading.values import read\n",
           "jdwp/debugger/model.py": "", "jdwp/debugger/reading/__init__.py": "",
           "jdwp/debugger/requests/__init__.py": "", "jdwp/debugger/requests/hits.py": "from ..model import X\n"}


def test_the_checks_fail_on_a_planted_circle_and_upward_import(tmp_path: Path) -> None:
    clean = _plant(tmp_path / "clean", {**_GROUND, "jdwp/debugger/reading/values.py": "from ..model import X\n"})
    assert floor_offences(clean) == [] and circles(clean) == []
    planted = _plant(tmp_path / "planted", {
        **_GROUND,
        # upward, and only inside a function: still counts for the floors, not for circles
        "jdwp/debugger/reading/values.py": "def read():\n    from ..requests.hits import X\n",
        # a circle through a TYPE_CHECKING import, as containers <-> arraymaps once was
        "jdwp/debugger/reading/containers/__init__.py": "from . import arraymaps\n",
        "jdwp/debugger/reading/containers/arraymaps.py":
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import Answer\n",
        # the model importing a request module: upward from the ground, and a circle (hits imports the model)
        "jdwp/debugger/model.py": "from .requests import hits\n",
    })
    assert [o.split("  ")[-1] for o in floor_offences(planted)] == ["(floor 0 imports floor 3)",
                                                                    "(floor 2 imports floor 3)"]
    assert circles(planted) == [["jdwp.debugger.model", "jdwp.debugger.requests.hits"],
                                ["jdwp.debugger.reading.containers", "jdwp.debugger.reading.containers.arraymaps"]]
    with pytest.raises(AssertionError, match="on no floor"):
        floor_of("jdwp.debugger.attic.old")
