"""``scholar install CLIENT`` / ``scholar uninstall CLIENT``: register Scholar's stdio server with an MCP client.

A client whose own command is on PATH (``claude``, ``codex``) is asked to add or remove the server itself. Otherwise
its config file is edited: read and parsed first (a file that does not parse is refused with its path and line and
never touched), Scholar's one entry set under the client's servers table (every other server and, in TOML, the
user's formatting kept), a timestamped backup of the old file, then an atomic replace (``scholar.local.home``).
What was written is recorded in ``<SCHOLAR_HOME>/clients.json`` (before the config is touched: a data folder that
cannot be written stops the install with nothing changed); ``uninstall`` removes exactly that entry, and leaves it
in place (saying so) when someone changed it since; a file ``install`` created and that holds nothing else is removed
whole. A second ``install`` with nothing to change writes nothing. A different ``scholar`` entry already there is
replaced only with ``--force``. A file that is not UTF-8, not a table at the top, or whose servers are not a table is
refused with its path, and never touched.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

import tomlkit
from tomlkit.exceptions import ParseError

from scholar.core.errors import InvalidArgumentError, NotFoundError, UnavailableError
from scholar.local.clients import CLIENTS, SERVER_NAME, Client
from scholar.local.home import backup, replace_file, scholar_home

__all__ = ["RECORD_FILE", "install", "server_command", "uninstall"]

RECORD_FILE = "clients.json"
Which = Callable[[str], str | None]
Runner = Callable[..., subprocess.CompletedProcess[str]]


def server_command(profile: str | None = None, toolsets: str | None = None) -> list[str]:
    """How a client starts Scholar: the ``scholar`` script beside this Python, else ``python -m scholar.local``."""
    script = Path(sys.executable).with_name("scholar.exe" if sys.platform == "win32" else "scholar")
    base = [str(script)] if script.is_file() else [sys.executable, "-m", "scholar.local"]
    return [*base, "mcp", *(["--profile", profile] if profile else []), *(["--toolsets", toolsets] if toolsets else [])]


def _refuse(path: Path, problem: str) -> InvalidArgumentError:
    return InvalidArgumentError(f"{path}: {problem}; Scholar changed nothing", field="config",
                                hint=f"Fix {path} (or move it away) and run the command again.")


def _parse(client: Client, path: Path) -> Any:
    """The config as a mutable document ({} for a missing or empty file).

    Raises:
        InvalidArgumentError: the file does not parse (its path and line named; it is left as it is).
    """
    try:
        text = path.read_text(encoding="utf-8") if path.is_file() else ""
    except UnicodeDecodeError as exc:
        raise _refuse(path, "not UTF-8 text (a UTF-16 file?)") from exc
    try:
        document = tomlkit.parse(text) if client.file_format == "toml" else json.loads(text) if text.strip() else {}
    except (json.JSONDecodeError, ParseError) as exc:
        line = getattr(exc, "lineno", None) or getattr(exc, "line", "?")
        raise InvalidArgumentError(
            f"{path}:{line}: not valid {client.file_format.upper()} ({exc}); Scholar changed nothing",
            field="config", hint=f"Fix {path} (or move it away) and run the command again.") from exc
    if not isinstance(document, dict):
        raise _refuse(path, f"the top level is a {type(_plain(document)).__name__}, not a table of settings")
    if not isinstance(document.get(client.servers_key, {}), dict):
        raise _refuse(path, f"{client.servers_key!r} is a {type(_plain(document[client.servers_key])).__name__}, "
                            "not a table of servers")
    return document


def _dump(client: Client, document: Any) -> bytes:
    text = tomlkit.dumps(document) if client.file_format == "toml" else json.dumps(document, indent=2) + "\n"
    return text.encode("utf-8")


def _plain(value: Any) -> Any:
    return value.unwrap() if hasattr(value, "unwrap") else value


def _records() -> tuple[Path, dict[str, Any]]:
    path = scholar_home() / RECORD_FILE
    return path, json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def _remember(name: str, record: dict[str, Any] | None) -> None:
    path, records = _records()
    if record is None:
        records.pop(name, None)
    else:
        records[name] = record
    replace_file(path, (json.dumps(records, indent=2) + "\n").encode("utf-8"), private=True)


def _client(name: str) -> Client:
    if name not in CLIENTS:
        raise InvalidArgumentError(f"unknown client {name!r}; one of {', '.join(CLIENTS)}", field="client")
    return CLIENTS[name]


def _run(runner: Runner, argv: list[str]) -> None:
    done = runner(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise UnavailableError(f"`{' '.join(argv[:4])} …` failed ({done.returncode}): {done.stderr.strip()[:300]}",
                               hint="Run it yourself to see why, or remove the client's command from PATH to have "
                                    "Scholar edit its config file instead.")


def install(name: str, *, profile: str | None = None, toolsets: str | None = None, dry_run: bool = False,
            force: bool = False, home: Path | None = None, system: str = sys.platform, which: Which = shutil.which,
            runner: Runner = subprocess.run, out: TextIO | None = None) -> int:
    """Register ``scholar mcp`` with client ``name``; returns the exit status (0).

    Raises:
        InvalidArgumentError: an unknown client, a config file that does not parse or is not shaped as the client
            reads it, or a different ``scholar`` entry there already (without ``force``).
        UnavailableError: the client's own command refused.
    """
    client, out = _client(name), out or sys.stdout
    command = server_command(profile, toolsets)
    binary = which(client.binary) if client.binary else None
    if binary:
        argv = client.add_command(binary, command)
        out.write(f"{'would run' if dry_run else 'running'}: {' '.join(argv)}\n")
        if not dry_run:
            _run(runner, argv)
            _remember(name, {"method": "command", "binary": binary, "command": command})
        return 0
    path = client.path(system, home or Path.home())
    document = _parse(client, path)
    entry = client.entry(command)
    earlier = _records()[1].get(name) or {}
    created = not path.is_file() or (earlier.get("path") == str(path) and bool(earlier.get("created")))
    servers = document.setdefault(client.servers_key, tomlkit.table(is_super_table=True)
                                  if client.file_format == "toml" else {})
    before = _plain(servers.get(SERVER_NAME))
    if before == entry:
        out.write(f"{name}: already registered in {path}; nothing changed\n")
        if not dry_run:
            _remember(name, {**(_records()[1].get(name) or {}), "method": "file", "path": str(path), "entry": entry})
        return 0
    if before is not None and not force and not _ours(name, path, before):
        raise InvalidArgumentError(
            f"{path} already has a different {SERVER_NAME!r} server ({json.dumps(before)[:200]}); Scholar changed "
            "nothing (--force replaces it)", field="force",
            hint=f"`scholar install {name} --force` replaces it (the old file is backed up).")
    servers[SERVER_NAME] = entry
    if dry_run:
        out.write(f"would write {path}:\n{_dump(client, document).decode()}")
        return 0
    kept = backup(path)
    # Recorded first: a data folder that cannot be written stops here, before the client's file is touched.
    _remember(name, {"method": "file", "path": str(path), "entry": entry, "backup": str(kept) if kept else None,
                     "created": created})
    try:
        replace_file(path, _dump(client, document))
    except OSError:
        _remember(name, None)
        raise
    out.write(f"{name}: registered `{' '.join(command)}` as {SERVER_NAME!r} in {path}"
              + (f" (replacing a different {SERVER_NAME!r} entry)" if before is not None else "")
              + (f" (backup: {kept})" if kept else "") + "\n")
    return 0


def _ours(name: str, path: Path, entry: Any) -> bool:
    """The entry is one an earlier ``install`` wrote there (an update of Scholar's own command replaces it)."""
    record = _records()[1].get(name) or {}
    return record.get("path") == str(path) and record.get("entry") == entry


def uninstall(name: str, *, dry_run: bool = False, runner: Runner = subprocess.run, out: TextIO | None = None) -> int:
    """Remove what ``install`` recorded for client ``name``; returns the exit status (0).

    Raises:
        NotFoundError: nothing was recorded for that client.
        InvalidArgumentError: its config file no longer parses (left as it is).
    """
    client, out = _client(name), out or sys.stdout
    record = _records()[1].get(name)
    if record is None:
        raise NotFoundError(f"scholar install {name} recorded nothing here ({scholar_home() / RECORD_FILE})",
                            hint=f"Nothing to undo; `scholar install {name}` registers Scholar.")
    if record["method"] == "command":
        argv = client.remove_command(record["binary"])
        out.write(f"{'would run' if dry_run else 'running'}: {' '.join(argv)}\n")
        if not dry_run:
            _run(runner, argv)
            _remember(name, None)
        return 0
    path = Path(record["path"])
    document = _parse(client, path)
    servers = document.get(client.servers_key, {})
    if _plain(servers.get(SERVER_NAME)) != record["entry"]:
        out.write(f"{name}: the {SERVER_NAME!r} entry in {path} is not what Scholar wrote (changed or removed); "
                  "left as it is\n")
    elif dry_run:
        out.write(f"would remove {SERVER_NAME!r} from {path}\n")
        return 0
    else:
        del servers[SERVER_NAME]
        kept = backup(path)
        if record.get("created") and not servers and set(document) == {client.servers_key}:
            path.unlink()  # install created the file and nothing else is in it
            out.write(f"{name}: removed {path}, which `scholar install` created (backup: {kept})\n")
        else:
            replace_file(path, _dump(client, document))
            out.write(f"{name}: removed {SERVER_NAME!r} from {path} (backup: {kept})\n")
    if not dry_run:
        _remember(name, None)
    return 0
