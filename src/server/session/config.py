"""The server's version and the flags that shape its sessions: what ``pyjdwp-mcp`` needs before its first
tool call.

Layer: ``server``. Imports nothing of ``jdwp`` or ``android``: ``initialize`` and ``tools/list`` are answered
without the engine (``tests/unit/test_startup_imports.py``), so what they read lives here.
"""

from __future__ import annotations

import dataclasses

#: The server's version (``serverInfo``, ``--version``, the capabilities' profile); pyproject.toml's and
#: server.json's must match it (``tests/unit/test_server_json.py``).
VERSION = "0.1.0"


@dataclasses.dataclass(frozen=True)
class Config:
    """The server's flags that shape sessions."""

    pause_limit_s: float = 60.0
    idle_limit_s: float = 300.0
    session_limit_s: float = 1800.0
    adb_transport: str = "direct"
    allow_remote_jvm: bool = False
    allow_invoke: bool = False
    #: ``--class-path``: the app's jars, class directories, APKs or dex files, read on the host for the
    #: ``@DebugMetadata`` of its coroutines (docs/design.md §3.11); never sent anywhere, never run.
    class_path: tuple[str, ...] = ()
    #: ``--allow-mutation``: set_debugger_value may change locals, fields and elements (off by default).
    allow_mutation: bool = False
