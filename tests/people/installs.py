"""One install at a time across test processes: the suite runs in parallel workers (pytest-xdist).

Two workers that both find chromium or the Node packages missing would otherwise run ``apt-get`` (which fails on
its lock) or ``npm install`` into the same folder at once. The lock is a file under ``.cache`` (gitignored).
"""

from __future__ import annotations

import fcntl
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
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


@cache
def debian_binary(binary: str, package: str) -> str | None:
    """The path of ``binary``, installing Debian's ``package`` on first use where it is missing (None if it cannot)."""
    found = shutil.which(binary)
    if found or not shutil.which("apt-get"):
        return found
    with one_install_at_a_time():  # another worker may be installing it right now
        if found := shutil.which(binary):
            return found
        done = _apt_install(package)
        if done.returncode != 0:  # a fresh machine has no package lists yet: read them once, then try again
            subprocess.run(["apt-get", "update", "-q"], capture_output=True, timeout=600, check=False)
            done = _apt_install(package)
    return shutil.which(binary) if done.returncode == 0 else None


def _apt_install(package: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["apt-get", "install", "-y", "-q", package], capture_output=True, text=True, timeout=600,
                          check=False)
