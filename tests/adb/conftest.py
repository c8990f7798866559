"""tests/adb: the testbed's fixtures (``testbed``, ``apps``) come from tests/conftest.py, which registers
them once for the whole run; the helpers live in :mod:`adb.testbed`."""

from .testbed import AppProcess, Apps, Testbed, free_port

__all__ = ["AppProcess", "Apps", "Testbed", "free_port"]
