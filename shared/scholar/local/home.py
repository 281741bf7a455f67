"""This machine's data folder (``SCHOLAR_HOME``, else the platform's user data folder) and safe file replacement.

A file Scholar changes that someone else also keeps (a client's config) is replaced whole or not at all: a
timestamped backup of the old one beside it, the new content written to a temporary file in the same folder, flushed
to disk, then moved over the old one in one rename (``os.replace``); a crash leaves the old file or the new one,
never half of either.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from scholar.core.config import default_home, get_environ, get_settings
from scholar.store import atomic_file

__all__ = ["backup", "replace_file", "scholar_home", "user_config_dir"]


def user_config_dir(system: str = sys.platform, home: Path | None = None) -> Path:
    """Where applications keep per-user settings: ``~/Library/Application Support`` (macOS), ``%APPDATA%``
    (Windows), ``$XDG_CONFIG_HOME`` or ``~/.config`` (Linux and the rest)."""
    home = home or Path.home()
    if system == "darwin":
        return home / "Library" / "Application Support"
    if system == "win32":
        return Path(get_environ("APPDATA") or home / "AppData" / "Roaming")
    return Path(get_environ("XDG_CONFIG_HOME") or home / ".config")


def scholar_home() -> Path:
    """The data folder: ``SCHOLAR_HOME``, else the platform's user data folder (``config.default_home``:
    ``~/.local/share/scholar`` on Linux, ``~/Library/Application Support/scholar`` on macOS,
    ``%LOCALAPPDATA%\\scholar`` on Windows)."""
    return Path(get_settings().home or default_home()).expanduser()


def backup(path: Path) -> Path | None:
    """Copy ``path`` to ``<name>.<UTC time>.bak`` beside it, with its permissions (a 0600 config may hold tokens; None
    when there is no file to keep)."""
    if not path.is_file():
        return None
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    target = path.with_name(f"{path.name}.{stamp}.bak")
    n = 1
    while target.exists():  # two runs in one second keep both backups
        target = path.with_name(f"{path.name}.{stamp}-{n}.bak")
        n += 1
    content, mode = path.read_bytes(), path.stat().st_mode & 0o777
    atomic_file.replace_file(target, lambda out: out.write(content), prefix=f".{target.name}.", mode=mode)
    return target


def replace_file(path: Path, content: bytes, *, private: bool = False) -> None:
    """Write ``content`` to ``path`` in one rename (``store.atomic_file``), keeping the old file's permissions.

    Args:
        private: readable by the user only (0600), as keys are.
    """
    atomic_file.replace_file(path, lambda out: out.write(content), prefix=f".{path.name}.",
                             mode=0o600 if private else (None if path.exists() else 0o644))
