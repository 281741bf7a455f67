"""The keys callers of ``scholar serve`` present (``x-api-key``), made by the machine's owner.

``scholar keys add NAME`` prints a new key once; only its SHA-256 is kept, in ``<SCHOLAR_HOME>/keys.json``
(readable by the user only). A key names its caller: requests with it run as principal ``key:<NAME>``, so each
person of a lab has their own library and tasks. Served on loopback without keys, any caller is ``local`` (one
person on their own machine); bound to anything else, an unknown or missing key is refused (``scholar.local.serving``).
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from scholar.core.errors import InvalidArgumentError, NotFoundError
from scholar.local.home import replace_file, scholar_home

__all__ = ["KEYS_FILE", "KEY_PREFIX", "add_key", "key_names", "principal_of", "remove_key", "run"]

KEYS_FILE = "keys.json"
KEY_PREFIX = "sk-scholar-"
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def _path() -> Path:
    return scholar_home() / KEYS_FILE


def _load() -> dict[str, dict[str, Any]]:
    path = _path()
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def _save(keys: dict[str, dict[str, Any]]) -> None:
    replace_file(_path(), (json.dumps(keys, indent=2) + "\n").encode("utf-8"), private=True)


def add_key(name: str) -> str:
    """Make a key named ``name`` and return it (the only time it is seen whole).

    Raises:
        InvalidArgumentError: the name breaks the pattern or is taken.
    """
    if not NAME_PATTERN.match(name or ""):
        raise InvalidArgumentError(f"key name {name!r} must match {NAME_PATTERN.pattern}", field="name")
    keys = _load()
    if name in keys:
        raise InvalidArgumentError(f"a key named {name!r} exists; remove it first or pick another name", field="name")
    key = KEY_PREFIX + secrets.token_urlsafe(32)
    keys[name] = {"sha256": _digest(key), "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    _save(keys)
    return key


def remove_key(name: str) -> None:
    """Forget the key named ``name``: its caller is refused from the next request on.

    Raises:
        NotFoundError: no key has that name.
    """
    keys = _load()
    if keys.pop(name, None) is None:
        raise NotFoundError(f"no key named {name!r} ({_path()})", hint="`scholar keys list` names the keys.")
    _save(keys)


def key_names() -> dict[str, str]:
    """Each key's name with its creation time."""
    return {name: entry["created"] for name, entry in sorted(_load().items())}


def principal_of(key: str, keys: dict[str, dict[str, Any]] | None = None) -> str | None:
    """``key:<NAME>`` for a known key, else None (read from the file on each call unless ``keys`` is given)."""
    digest = _digest(key)
    for name, entry in (keys if keys is not None else _load()).items():
        if secrets.compare_digest(entry["sha256"], digest):
            return f"key:{name}"
    return None


def run(action: str, name: str | None, out: TextIO | None = None) -> int:
    """``scholar keys add NAME | list | remove NAME``; returns the exit status."""
    out = out or sys.stdout
    if action == "list":
        for key_name, created in key_names().items():
            out.write(f"{key_name}\t{created}\n")
        return 0
    if not name:
        raise InvalidArgumentError(f"scholar keys {action} needs a NAME", field="name")
    if action == "add":
        out.write(f"{add_key(name)}\n")
        sys.stderr.write(f"key {name!r} made: it is shown only now (only its hash is kept in {_path()})\n")
        return 0
    remove_key(name)
    sys.stderr.write(f"key {name!r} removed\n")
    return 0
