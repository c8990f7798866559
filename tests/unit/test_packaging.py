"""The import names the project installs: ``jdwp``, ``pyjdwp_server`` and ``pyjdwp_android``, never a generic
``server`` or ``android`` (docs/design.md §1.1).

The folders keep their names (``src/server``, ``src/android``); ``pyproject.toml`` maps them (``package-dir``)
and lists every package under its import name, which this test checks against the folders, so a new
subpackage that is not listed fails here rather than going missing from the wheel. In a checkout, the links
``src/pyjdwp_server`` and ``src/pyjdwp_android`` give the same names to ``PYTHONPATH=src`` and to mypy; they
also let the folder names import, so a test here fails where any code of the checkout still uses them. The
built wheel itself is checked by ``tests/live/test_wheel_contents.py``.
"""

from __future__ import annotations

import ast
import subprocess
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"
#: Import name -> the folder it is installed from.
EXPECTED = {"jdwp": "src/jdwp", "pyjdwp_server": "src/server", "pyjdwp_android": "src/android"}
#: A folder's own name, where it differs from its import name -> the import name.
RENAMED = {Path(folder).name: name for name, folder in EXPECTED.items() if Path(folder).name != name}


def setuptools() -> dict[str, object]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]


def folder_packages() -> list[str]:
    """Every package folder under the mapped folders, named as it is imported."""
    found = []
    for name, folder in EXPECTED.items():
        root = ROOT / folder
        for init in root.rglob("__init__.py"):
            found.append(".".join((name, *init.parent.relative_to(root).parts)))
    return sorted(found)


def test_the_folders_are_mapped_to_the_projects_own_import_names() -> None:
    assert setuptools()["package-dir"] == EXPECTED


def test_every_package_folder_is_listed_under_its_import_name() -> None:
    listed = setuptools()["packages"]
    assert listed == folder_packages(), "pyproject.toml's [tool.setuptools] packages must list every package folder"


def test_no_generic_top_level_name_is_installed() -> None:
    tops = {name.split(".")[0] for name in setuptools()["packages"]}  # type: ignore[attr-defined]
    assert tops == set(EXPECTED)
    data = setuptools()["package-data"]
    assert set(data) <= set(EXPECTED)  # type: ignore[arg-type]


def test_a_checkout_imports_the_same_names_through_links() -> None:
    for folder, name in RENAMED.items():
        link = SRC / name
        assert link.is_symlink() and link.readlink() == Path(folder), link


def _folder_name_imports(path: Path) -> list[str]:
    """Where ``path`` imports a renamed folder by its folder name (absolute imports; a relative one cannot)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules = [node.module]
        else:
            continue
        found += [f"{path.relative_to(ROOT)}:{node.lineno}: {module} (imported as {RENAMED[top]})"
                  for module in modules if (top := module.split(".")[0]) in RENAMED]
    return found


def test_no_code_imports_a_folder_by_its_folder_name() -> None:
    """The links make a folder name importable in a checkout (not from an install): code that used it would pass
    here and fail installed, and a module imported under both names would be loaded twice."""
    tracked = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "*.py"], capture_output=True, text=True,
                             check=True).stdout.split("\0")
    found = [hit for name in tracked if name and not name.startswith("fixtures/")
             and (path := ROOT / name).is_file() and not path.is_symlink() for hit in _folder_name_imports(path)]
    assert not found, "imports by folder name:\n  " + "\n  ".join(found)
