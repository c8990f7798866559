"""tests/adb: the android package against a real adb server and a real adbd (see conftest.py)."""
