"""Which processes on one data folder are alive: each holds a lock on its own file under ``run/`` while it lives.

The kernel drops a process's ``flock`` when it ends, however it ends (SIGKILL too), so a lock that can be taken
belongs to a process that is gone: its rows and executions are orphans (scholar.local.machine resumes or ends
them). POSIX only (``fcntl``); elsewhere every other owner counts as alive and nothing is taken over.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO

from scholar.store.local.database import sqlite_errors

try:
    import fcntl
except ImportError:  # Windows: no flock; nothing is ever taken over there
    fcntl = None  # type: ignore[assignment]  # the platform lacks the module

RUN_FOLDER = "run"


def _lock_file(home: Path, owner: str) -> Path:
    return home / RUN_FOLDER / f"{owner}.lock"


def hold(home: Path, owner: str) -> IO[bytes]:
    """Lock this process's file for as long as the returned handle stays open."""
    path = _lock_file(home, owner)
    with sqlite_errors(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(path, "wb")  # noqa: SIM115  # held open for the process's life
        handle.write(str(os.getpid()).encode())
        handle.flush()
        if fcntl is not None:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return handle


def release(home: Path, owner: str, handle: IO[bytes]) -> None:
    handle.close()
    _lock_file(home, owner).unlink(missing_ok=True)


def alive(home: Path, owner: str | None) -> bool:
    """Whether the process ``owner`` still holds its lock (an owner never recorded counts as gone)."""
    if not owner:
        return False
    path = _lock_file(home, owner)
    if fcntl is None:
        return True
    try:
        handle = open(path, "rb")  # noqa: SIM115  # closed below
    except FileNotFoundError:
        return False
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
    path.unlink(missing_ok=True)
    return False
