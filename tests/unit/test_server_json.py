"""``server.json``, the server's entry for the MCP registry, holds what the registry's schema requires
(``$schema`` 2025-12-11: name, description, version; a PyPI package with its transport), and agrees with the
code: its versions are pyproject.toml's and the server's own, its package is this project on PyPI, run on
stdio by a console script named like the package, and the README carries the ``mcp-name`` marker by which
the registry checks that the PyPI package is the server's.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

from pyjdwp_server.session.config import VERSION

REPO = Path(__file__).resolve().parents[2]
SCHEMA = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"


def _server_json() -> dict[str, Any]:
    value = json.loads((REPO / "server.json").read_text(encoding="utf-8"))
    assert isinstance(value, dict)
    return value


def _project() -> dict[str, Any]:
    project: dict[str, Any] = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return project


def test_server_json_has_the_fields_the_registry_requires() -> None:
    server = _server_json()
    assert server["$schema"] == SCHEMA
    assert re.fullmatch(r"[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+", server["name"])  # reverse DNS, exactly one slash
    assert 1 <= len(server["description"]) <= 100  # the registry's limit
    assert server["version"] and server["repository"]["url"] and server["repository"]["source"]
    (package,) = server["packages"]
    assert set(package) <= {"registryType", "registryBaseUrl", "identifier", "version", "fileSha256",
                            "runtimeHint", "transport", "runtimeArguments", "packageArguments",
                            "environmentVariables"}  # the schema allows nothing else in a package
    assert package["registryType"] == "pypi" and package["transport"] == {"type": "stdio"}


def test_server_json_agrees_with_the_project() -> None:
    server, project = _server_json(), _project()
    (package,) = server["packages"]
    assert server["version"] == package["version"] == project["version"] == VERSION
    assert package["identifier"] == project["name"]
    # A runner started as `uvx <package>` runs the script named like the package: the MCP server.
    assert project["scripts"][package["identifier"]] == project["scripts"]["pyjdwp-mcp"] == "pyjdwp_server.cli:main"


def test_the_readme_names_the_server_for_the_registry() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")  # the PyPI description (pyproject's readme)
    assert _project()["readme"] == "README.md"
    assert re.search(rf"mcp-name: {re.escape(_server_json()['name'])}(\s|-->)", readme)
