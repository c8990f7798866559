"""OS pipes for tests that run the server's stdio streams (``pyjdwp_server.transport.stdio``) over real file
descriptors."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["pipe"]


@contextmanager
def pipe() -> Iterator[tuple[int, int]]:
    """A non-blocking pipe ``(read end, write end)``, both closed at the end unless a trio stream did."""
    read_fd, write_fd = os.pipe()
    os.set_blocking(read_fd, False)
    os.set_blocking(write_fd, False)
    try:
        yield read_fd, write_fd
    finally:
        for fd in (read_fd, write_fd):
            try:
                os.close(fd)
            except OSError:
                pass  # already closed by its trio stream
