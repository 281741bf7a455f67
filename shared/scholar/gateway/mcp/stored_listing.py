"""tools/list answers kept in files across processes, so that ``scholar mcp`` answers its first tools/list without
importing every family's spec and building their schemas (~0.3 s of a ~1 s start; issue 32).

An answer is made from four things only: the code (every file of the ``scholar`` package), the libraries it runs on
(pydantic writes the schemas, the SDK shapes the result), the settings (``scholar.core.config`` is the only reader of
the environment) and the connection's selection. Its file is named by a SHA-256 of all four, read afresh by every
process: the code byte for byte, the interpreter's version and the name and version of every distribution on
``sys.path`` (their ``.dist-info`` folders), every setting (secrets as present or not, never their values), the
profile and toolsets. A change to any of them names another file, so a stale answer is never read; a missing or
unreadable file is made anew and written atomically. The folder keeps the newest ``KEPT`` answers.

The code is hashed on a thread from the moment the store is made (``scholar mcp`` makes it before importing the
MCP SDK, so the two overlap); a file that cannot be read leaves the answers made as before, never stored.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scholar.core.config import Settings, get_settings
from scholar.store.atomic_file import replace_file

if TYPE_CHECKING:
    from scholar.core.catalogue import Selection

__all__ = ["KEPT", "StoredListings", "code_fingerprint"]

KEPT = 16  # answers kept in the folder (a profile's, a toolset's, another checkout's), newest first
PACKAGE = Path(__file__).resolve().parents[2]  # shared/scholar, or the installed package
_SUFFIX = ".json"
_DISTRIBUTIONS = (".dist-info", ".egg-info")

Listing = dict[str, Any]


def code_fingerprint(package: Path = PACKAGE) -> str:
    """A SHA-256 of every file of ``package`` (name and bytes; not ``__pycache__``), the interpreter's version and
    the distributions installed on ``sys.path``."""
    digest = hashlib.sha256(sys.version.encode())
    for folder, subfolders, names in os.walk(package):
        subfolders[:] = sorted(name for name in subfolders if name != "__pycache__")
        for name in sorted(names):
            path = os.path.join(folder, name)
            with open(path, "rb") as file:
                content = file.read()
            digest.update(f"\0{os.path.relpath(path, package)}\0{len(content)}\0".encode())
            digest.update(content)
    for entry in sys.path:
        try:
            installed = sorted(name for name in os.listdir(entry or ".") if name.endswith(_DISTRIBUTIONS))
        except OSError:  # a zip, or a folder that is gone
            continue
        if installed:  # a folder of code alone (the working folder of ``python -m``) changes nothing
            digest.update(f"\0{entry}\0{'/'.join(installed)}".encode())
    return digest.hexdigest()


def _plain(value: Any) -> Any:
    """A setting as JSON: a set sorted (its order is the process's hash seed's), a secret as its mask."""
    return sorted(value) if isinstance(value, (set, frozenset)) else str(value)


def _settings_text(settings: Settings) -> str:
    return json.dumps(settings.model_dump(), sort_keys=True, default=_plain)


class StoredListings:
    """The tools/list answers of one folder (``SCHOLAR_HOME/cache/tools-list``), by what they are made from."""

    def __init__(self, folder: Path, *, fingerprint: Callable[[], str] = code_fingerprint) -> None:
        self.folder = folder
        self._code: list[str | None] = []
        self._hashing = threading.Thread(target=self._hash, args=(fingerprint,), name="code-fingerprint", daemon=True)
        self._hashing.start()
        self._answers: dict[str, Listing] = {}

    def _hash(self, fingerprint: Callable[[], str]) -> None:
        try:
            self._code.append(fingerprint())
        except OSError:
            self._code.append(None)

    def key(self, selection: Selection, settings: Settings | None = None) -> str | None:
        """The name of ``selection``'s answer under ``settings`` (default: this process's) and this code; None when
        the code could not be read."""
        self._hashing.join()
        if self._code[0] is None:
            return None
        toolsets = None if selection.toolsets is None else sorted(selection.toolsets)
        made_of = [self._code[0], _settings_text(settings or get_settings()), selection.profile, toolsets]
        return hashlib.sha256(json.dumps(made_of).encode()).hexdigest()

    def listing(self, selection: Selection, make: Callable[[], Listing]) -> Listing:
        """``selection``'s tools/list result: kept in this process, else read from its file, else ``make()`` (and
        stored). Whatever ``make`` raises (a refused selection) is raised and nothing is stored."""
        key = self.key(selection)
        if key is None:
            return make()
        answer = self._answers.get(key)
        if answer is None:
            answer = self._read(key)
            if answer is None:
                answer = make()
                self._write(key, answer)
            self._answers[key] = answer
        return answer

    def _path(self, key: str) -> Path:
        return self.folder / f"{key}{_SUFFIX}"

    def _read(self, key: str) -> Listing | None:
        try:
            answer = json.loads(self._path(key).read_bytes())
        except (OSError, ValueError):
            return None
        return answer if isinstance(answer, dict) else None

    def _write(self, key: str, answer: Listing) -> None:
        text = json.dumps(answer, ensure_ascii=False, separators=(",", ":")).encode()
        try:
            replace_file(self._path(key), lambda out: out.write(text), prefix=".tools-list-")
            kept = sorted(self.folder.glob(f"*{_SUFFIX}"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
            for stale in kept[KEPT:]:
                stale.unlink(missing_ok=True)
        except OSError:
            return  # a folder that cannot be written: the next start makes the answer again
