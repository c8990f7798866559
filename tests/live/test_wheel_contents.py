"""What the built wheel installs: exactly the import packages ``jdwp``, ``pyjdwp_server`` and ``pyjdwp_android``
(and its dist-info), every module of the folders they come from, and console scripts that name them.

The wheel is built as ``tests/live/test_wheel_install.py`` builds it (``support.wheels``); this test reads the
archive and installs nothing.
"""

from __future__ import annotations

import tomllib
import zipfile
from pathlib import Path

import pytest

from support.jvm import REPO
from support.wheels import build_wheel

pytestmark = pytest.mark.live  # pip reaching its index (or its cache) for the build backend

#: Import name -> the folder it is installed from.
FOLDERS = {"jdwp": "src/jdwp", "pyjdwp_server": "src/server", "pyjdwp_android": "src/android"}


def test_the_wheel_installs_only_the_projects_own_import_names(tmp_path: Path) -> None:
    wheel = build_wheel(tmp_path)
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        entry_points = next(archive.read(n).decode() for n in names if n.endswith(".dist-info/entry_points.txt"))
    tops = {name.split("/")[0] for name in names}
    (dist_info,) = {top for top in tops if top.endswith(".dist-info")}
    assert tops - {dist_info} == set(FOLDERS)
    for name, folder in FOLDERS.items():  # every module and data file of the folder, under its import name
        root = REPO / folder
        shipped = [p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                   and (p.suffix in (".py", ".json") or p.name == "py.typed")]
        expected = {f"{name}/{p.relative_to(root).as_posix()}" for p in shipped}
        assert expected <= set(names), sorted(expected - set(names))
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    assert {"pyjdwp-mcp", "pyjdwp-doctor", "pyjdwp-record"} <= set(scripts)
    for script, target in scripts.items():  # each console script names a module the wheel has, by import name
        assert f"{script} = {target}" in entry_points
        module = target.partition(":")[0]
        assert module.split(".")[0] in FOLDERS, target
        path = module.replace(".", "/")
        assert f"{path}.py" in names or f"{path}/__init__.py" in names, target
