"""Files written whole or not at all: a reader never sees half of one."""

from __future__ import annotations

import os


def write_atomic(path: str, data: bytes) -> None:
    """``data`` to ``path`` through a temporary file beside it, flushed to disk and renamed into
    place: a process killed mid-write leaves the old file (or none), never a partial one."""
    tmp = f"{path}.tmp-{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
