"""One install at a time across test processes: the suite runs in parallel workers (pytest-xdist).

Two workers that both find chromium or the Node packages missing would otherwise run ``apt-get`` (which fails on
its lock) or ``npm install`` into the same folder at once. The lock is a file under ``.cache`` (gitignored).
"""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LOCK = Path(__file__).resolve().parents[2] / ".cache" / "installs.lock"


@contextmanager
def one_install_at_a_time() -> Iterator[None]:
    """Hold the install lock; a second process waits here until the first has finished installing."""
    LOCK.parent.mkdir(parents=True, exist_ok=True)
    with LOCK.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
