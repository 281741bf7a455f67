"""Where a file target may write: every path a connector writes is resolved and must stay inside its folder.

A collection name becomes one file or folder name (``/`` and ``\\`` become ``_``, as the .bib target always did),
and the path is then resolved (``..``, symbolic links) and checked against the resolved folder. The non-obvious
constraint: the check is on the resolved path, so a name that looks harmless but reaches out through a symbolic
link inside the folder is refused too, and nothing is written before the check.
"""

from __future__ import annotations

from pathlib import Path

from scholar.core.errors import InvalidArgumentError

__all__ = ["inside", "segment"]


def segment(name: str) -> str:
    """``name`` as one path segment: separators and NUL become ``_``."""
    return name.replace("/", "_").replace("\\", "_").replace("\x00", "_")


def inside(folder: Path, name: str, *, field: str = "collection") -> Path:
    """``folder / name`` resolved, refused unless it stays strictly inside the resolved ``folder``.

    Raises:
        InvalidArgumentError: the path would leave the folder (``field`` names the argument it came from).
    """
    base = folder.resolve()
    path = (base / name).resolve()
    if path == base or not path.is_relative_to(base):
        raise InvalidArgumentError(
            f"{field} {name!r} would write outside {base}: a name used as a file name must stay inside its folder",
            field=field,
            reason="path_outside_folder",
            hint=f"Use a {field} name that is not '.' or '..' and does not reach out through a link.",
        )
    return path
