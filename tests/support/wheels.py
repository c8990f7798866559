"""Building pyjdwp's wheel from a copy of the checkout, and the import packages pyproject.toml says it installs.

The wheel is built from a copy (``pip wheel --no-deps``; building in the checkout would leave ``build/`` and an
``egg-info`` in it). pip builds it in an isolated environment with the setuptools ``pyproject.toml`` asks for,
from its cache or its index, as a user's pip would.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

from support.jvm import REPO

#: What the wheel is built from: the rest of the checkout (tests, docs, fixtures) is not in it.
BUILT_FROM = ("pyproject.toml", "README.md", "src")


def run(command: list[str | Path], *, cwd: Path, env: dict[str, str] | None, timeout: float) -> str:
    result = subprocess.run([str(part) for part in command], cwd=cwd, env=env, capture_output=True, text=True,
                            timeout=timeout)
    assert result.returncode == 0, f"{command} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result.stdout


def build_wheel(root: Path, env: dict[str, str] | None = None) -> Path:
    """Copy the sources under ``root``, build the wheel into ``root/dist``; its path."""
    source = root / "source"
    source.mkdir()
    for name in BUILT_FROM:
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, source / name, symlinks=True,
                            ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            shutil.copy2(REPO / name, source / name)
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", root / "dist", source], cwd=root,
        env=env, timeout=300)
    (wheel,) = (root / "dist").glob("pyjdwp-*.whl")
    return wheel


def import_packages() -> list[str]:
    """The top-level packages the wheel installs: pyproject.toml's ``package-dir`` names, or, where it maps none,
    the package folders under ``src``."""
    setuptools = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"].get("setuptools", {})
    mapped = setuptools.get("package-dir", {})
    if mapped:
        return sorted(name for name in mapped if name)
    return sorted(p.name for p in (REPO / "src").iterdir() if (p / "__init__.py").is_file() and not p.is_symlink())
