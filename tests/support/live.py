"""The live-tier policy: a test that needs a real peer skips with a reason, or fails in CI.

``PYJDWP_REQUIRE_LIVE=1`` (set by ``.ci/run``) turns every such skip into a failure, so CI never passes
by silently skipping the tests that talk to a real JVM, adb or adbd.
"""

from __future__ import annotations

import os
import shutil

import pytest


def live_required() -> bool:
    return os.environ.get("PYJDWP_REQUIRE_LIVE", "") not in ("", "0")


def unavailable(reason: str) -> None:
    """Skip (on a developer's machine) or fail (in CI) because a real peer is missing."""
    if live_required():
        pytest.fail(f"live tier required (PYJDWP_REQUIRE_LIVE=1) but {reason}", pytrace=False)
    pytest.skip(f"{reason}; install it or run scripts/test, which sets the live tiers up")


def require_tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        unavailable(f"`{name}` is not on PATH")
    assert path is not None
    return path
