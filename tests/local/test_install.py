"""``scholar install`` / ``uninstall`` against a fake HOME for every client: the client's own format and path per
OS, other servers kept, a backup first, a second run idempotent, an invalid file refused and left untouched, and
``uninstall`` removing exactly what was written."""

from __future__ import annotations

import io
import json
import subprocess
import tomllib
from pathlib import Path

import pytest

from scholar.core.errors import InvalidArgumentError, NotFoundError
from scholar.local.clients import CLIENTS
from scholar.local.install import RECORD_FILE, install, server_command, uninstall

NO_COMMANDS = {"which": lambda name: None}  # no client command on PATH: the config files are edited
OTHER = {"command": "other-server", "args": ["--flag"]}


@pytest.fixture
def home(tmp_path: Path, env) -> Path:
    env(SCHOLAR_HOME=str(tmp_path / "data"), XDG_CONFIG_HOME=None, APPDATA=str(tmp_path / "home" / "AppData"))
    return tmp_path / "home"


def servers(client: str, path: Path) -> dict:
    text = path.read_text()
    document = tomllib.loads(text) if CLIENTS[client].file_format == "toml" else json.loads(text)
    return document.get(CLIENTS[client].servers_key, {})  # an empty TOML super-table is not written


@pytest.mark.parametrize(("client", "system", "relative"), [
    ("claude-desktop", "linux", ".config/Claude/claude_desktop_config.json"),
    ("claude-desktop", "darwin", "Library/Application Support/Claude/claude_desktop_config.json"),
    ("claude-desktop", "win32", "AppData/Claude/claude_desktop_config.json"),
    ("claude-code", "linux", ".claude.json"),
    ("cursor", "darwin", ".cursor/mcp.json"),
    ("vscode", "linux", ".config/Code/User/mcp.json"),
    ("vscode", "darwin", "Library/Application Support/Code/User/mcp.json"),
    ("codex", "linux", ".codex/config.toml"),
])
def test_install_writes_the_clients_own_file_and_uninstall_removes_exactly_that(home, client, system, relative):
    path = home / relative
    install(client, home=home, system=system, out=io.StringIO(), **NO_COMMANDS)
    entry = servers(client, path)["scholar"]

    uninstall(client, out=io.StringIO())

    assert entry["command"] == server_command()[0] and entry["args"][-1] == "mcp"
    assert not path.exists()  # install created the file: uninstall leaves no empty {"mcpServers": {}} behind
    assert list(path.parent.glob(f"{path.name}.*.bak"))  # the file as install left it, kept before uninstall


def test_other_servers_stay_a_backup_is_made_and_a_second_run_changes_nothing(home):
    path = home / ".cursor" / "mcp.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"mcpServers": {"other": OTHER}, "theme": "dark"}))

    install("cursor", home=home, system="linux", profile="all", out=io.StringIO(), **NO_COMMANDS)
    after_first = path.read_bytes()
    second = io.StringIO()
    install("cursor", home=home, system="linux", profile="all", out=second, **NO_COMMANDS)

    document = json.loads(path.read_text())
    assert document["mcpServers"]["other"] == OTHER and document["theme"] == "dark"
    assert document["mcpServers"]["scholar"]["args"][-2:] == ["--profile", "all"]
    backups = list(path.parent.glob("mcp.json.*.bak"))
    assert len(backups) == 1 and json.loads(backups[0].read_text())["mcpServers"] == {"other": OTHER}
    assert path.read_bytes() == after_first and "nothing changed" in second.getvalue()


def test_codex_toml_keeps_the_users_comments_and_tables(home):
    path = home / ".codex" / "config.toml"
    path.parent.mkdir(parents=True)
    original = '# my settings\nmodel = "o3"  # the one I like\n\n[mcp_servers.other]\ncommand = "other-server"\n'
    path.write_text(original)

    install("codex", home=home, system="linux", out=io.StringIO(), **NO_COMMANDS)
    installed = path.read_text()
    uninstall("codex", out=io.StringIO())

    assert installed.startswith(original)
    assert tomllib.loads(installed)["mcp_servers"]["scholar"]["args"][-1] == "mcp"
    assert "other" in tomllib.loads(path.read_text())["mcp_servers"]
    assert "# the one I like" in path.read_text()


@pytest.mark.parametrize(("client", "relative", "broken", "line"), [
    ("cursor", ".cursor/mcp.json", '{\n  "mcpServers": {\n    "other": ,\n  }\n}\n', 3),
    ("codex", ".codex/config.toml", 'model = "o3"\n[mcp_servers\n', 2),
])
def test_an_invalid_config_is_refused_with_its_path_and_line_and_never_overwritten(home, client, relative, broken,
                                                                                   line):
    path = home / relative
    path.parent.mkdir(parents=True)
    path.write_text(broken)

    with pytest.raises(InvalidArgumentError) as refused:
        install(client, home=home, system="linux", out=io.StringIO(), **NO_COMMANDS)

    assert f"{path}:{line}:" in str(refused.value)
    assert path.read_text() == broken
    assert not list(path.parent.glob("*.bak"))


def test_an_entry_changed_since_install_is_left_alone_by_uninstall(home):
    install("cursor", home=home, system="linux", out=io.StringIO(), **NO_COMMANDS)
    path = home / ".cursor" / "mcp.json"
    changed = {"mcpServers": {"scholar": {"command": "my-own-scholar", "args": []}}}
    path.write_text(json.dumps(changed))
    said = io.StringIO()

    uninstall("cursor", out=said)

    assert json.loads(path.read_text()) == changed
    assert "left as it is" in said.getvalue()


def test_a_client_command_on_path_does_the_change_itself(home):
    calls: list[list[str]] = []

    def runner(argv: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
        calls.append(argv)
        return subprocess.CompletedProcess(argv, 0, "", "")

    install("claude-code", home=home, which=lambda name: f"/opt/bin/{name}", runner=runner, out=io.StringIO())
    uninstall("claude-code", runner=runner, out=io.StringIO())

    assert calls[0][:6] == ["/opt/bin/claude", "mcp", "add", "--scope", "user", "scholar"]
    assert calls[0][6:] == ["--", *server_command()]
    assert calls[1] == ["/opt/bin/claude", "mcp", "remove", "--scope", "user", "scholar"]
    assert not (home / ".claude.json").exists()


def test_dry_run_writes_nothing_and_uninstall_without_a_record_says_so(home):
    said = io.StringIO()

    install("vscode", home=home, system="linux", dry_run=True, out=said, **NO_COMMANDS)

    assert "would write" in said.getvalue() and '"servers"' in said.getvalue()
    assert not (home / ".config").exists()
    assert not (home.parent / "data" / RECORD_FILE).exists()
    with pytest.raises(NotFoundError):
        uninstall("vscode", out=io.StringIO())
