"""Replacing a file in one rename, for every file this machine keeps (the local artifacts, a BibTeX file).

What is written goes to a temporary file in the same folder, is flushed to disk and then renamed over the name,
so a process killed mid-write leaves the old file (or none), never half of one.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO


def replace_file(target: Path, fill: Callable[[IO[bytes]], object], *, prefix: str, mode: int | None = None) -> None:
    """Write ``target`` anew through ``fill`` (given the open temporary file), its folders made as needed.

    Args:
        prefix: the temporary file's name prefix (a dot first keeps it out of listings).
        mode: the new file's permissions, set before it takes the name (0o600: the user's only); by default
            the old file's, else the temporary file's (0o600, mkstemp's).
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=prefix)
    try:
        with os.fdopen(handle, "wb") as out:
            fill(out)
            out.flush()
            os.fsync(out.fileno())
        if mode is not None:
            os.chmod(temporary, mode)
        elif target.exists():
            os.chmod(temporary, target.stat().st_mode & 0o777)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
