"""The MCP clients ``scholar install`` knows: where each keeps its servers, in what format, and its own command.

| client         | config file                                  | servers under | its own command |
|----------------|----------------------------------------------|---------------|-----------------|
| claude-desktop | <config>/Claude/claude_desktop_config.json   | mcpServers    | -               |
| claude-code    | ~/.claude.json (user scope)                  | mcpServers    | claude mcp add  |
| cursor         | ~/.cursor/mcp.json                           | mcpServers    | -               |
| vscode         | <config>/Code/User/mcp.json                  | servers       | -               |
| codex          | ~/.codex/config.toml (TOML)                  | mcp_servers   | codex mcp add   |

``<config>`` is ``~/.config`` on Linux, ``~/Library/Application Support`` on macOS, ``%APPDATA%`` on Windows
(``scholar.local.home.user_config_dir``). A client whose own command is on PATH is asked to do the change itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from scholar.local.home import user_config_dir

__all__ = ["CLIENTS", "SERVER_NAME", "Client"]

SERVER_NAME = "scholar"


def _stdio(command: list[str]) -> dict[str, Any]:
    return {"command": command[0], "args": command[1:]}


def _typed_stdio(command: list[str]) -> dict[str, Any]:
    return {"type": "stdio", **_stdio(command)}


@dataclass(frozen=True)
class Client:
    """One MCP client: its config file, the table its servers live in, the entry it reads, its own command."""

    name: str
    path: Callable[[str, Path], Path]  # (platform, home) → the config file
    servers_key: str
    entry: Callable[[list[str]], dict[str, Any]]  # the server's command line → what the client reads
    file_format: Literal["json", "toml"] = "json"
    # The client's own command and how it adds / removes a user-wide stdio server, when it has one.
    binary: str | None = None

    def add_command(self, binary: str, command: list[str]) -> list[str]:
        scope = ["--scope", "user"] if self.name == "claude-code" else []
        return [binary, "mcp", "add", *scope, SERVER_NAME, "--", *command]

    def remove_command(self, binary: str) -> list[str]:
        scope = ["--scope", "user"] if self.name == "claude-code" else []
        return [binary, "mcp", "remove", *scope, SERVER_NAME]


CLIENTS: dict[str, Client] = {client.name: client for client in (
    Client("claude-desktop", lambda system, home: user_config_dir(system, home) / "Claude" /
           "claude_desktop_config.json", "mcpServers", _stdio),
    Client("claude-code", lambda system, home: home / ".claude.json", "mcpServers", _typed_stdio, binary="claude"),
    Client("cursor", lambda system, home: home / ".cursor" / "mcp.json", "mcpServers", _stdio),
    Client("vscode", lambda system, home: user_config_dir(system, home) / "Code" / "User" / "mcp.json", "servers",
           _typed_stdio),
    Client("codex", lambda system, home: home / ".codex" / "config.toml", "mcp_servers", _stdio, "toml",
           binary="codex"),
)}
