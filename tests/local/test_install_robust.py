"""``scholar install`` on the files users really have (issues 40.4, 41): a private config's backup stays private, a
data folder that cannot be written leaves the client's file untouched, files of the wrong shape or encoding are
refused with their path (never a traceback, never touched), a different ``scholar`` entry is replaced only with
``--force``, and ``--toolsets`` reaches the written command."""

from __future__ import annotations

import io
import json
import stat
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from scholar.core.errors import InvalidArgumentError
from scholar.local.install import install, uninstall

NO_COMMANDS = {"which": lambda name: None}


@pytest.fixture
def home(tmp_path: Path, env) -> Path:
    env(SCHOLAR_HOME=str(tmp_path / "data"), XDG_CONFIG_HOME=None)
    return tmp_path / "home"


def cursor_file(home: Path, content: bytes) -> Path:
    path = home / ".cursor" / "mcp.json"
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    return path


def test_the_backup_of_a_private_config_is_private_too(home):
    path = cursor_file(home, b'{"mcpServers": {}, "token": "secret"}')
    path.chmod(0o600)

    install("cursor", home=home, system="linux", out=io.StringIO(), **NO_COMMANDS)

    (backup,) = path.parent.glob("mcp.json.*.bak")
    assert stat.S_IMODE(backup.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_an_unusable_data_folder_stops_the_install_before_the_config_is_written(home, tmp_path, env):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the data folder should be")
    env(SCHOLAR_HOME=str(blocker / "data"))
    path = cursor_file(home, b'{"mcpServers": {}}')

    with pytest.raises(OSError):
        install("cursor", home=home, system="linux", out=io.StringIO(), **NO_COMMANDS)

    assert json.loads(path.read_text()) == {"mcpServers": {}}


@pytest.mark.parametrize(("content", "said"), [
    ('{"mcpServers": {}}'.encode("utf-16"), "not UTF-8"),
    (b"[]", "top level is a list"),
    (b'{"mcpServers": "oops"}', "'mcpServers' is a str"),
])
def test_a_config_of_the_wrong_shape_is_refused_with_its_path_and_left_untouched(home, content, said):
    path = cursor_file(home, content)

    with pytest.raises(InvalidArgumentError) as refused:
        install("cursor", home=home, system="linux", out=io.StringIO(), **NO_COMMANDS)

    assert str(path) in str(refused.value) and said in str(refused.value)
    assert path.read_bytes() == content and not list(path.parent.glob("*.bak"))


def test_a_codex_config_whose_servers_are_not_a_table_is_refused(home):
    path = home / ".codex" / "config.toml"
    path.parent.mkdir(parents=True)
    path.write_text("mcp_servers = 5\n")

    with pytest.raises(InvalidArgumentError, match="'mcp_servers' is a int"):
        install("codex", home=home, system="linux", out=io.StringIO(), **NO_COMMANDS)

    assert path.read_text() == "mcp_servers = 5\n"


def test_a_different_scholar_entry_is_replaced_only_with_force(home):
    theirs = {"mcpServers": {"scholar": {"command": "someone-elses-scholar", "args": []}}}
    path = cursor_file(home, json.dumps(theirs).encode())

    with pytest.raises(InvalidArgumentError, match="--force"):
        install("cursor", home=home, system="linux", out=io.StringIO(), **NO_COMMANDS)
    assert json.loads(path.read_text()) == theirs
    said = io.StringIO()
    install("cursor", home=home, system="linux", force=True, out=said, **NO_COMMANDS)

    assert json.loads(path.read_text())["mcpServers"]["scholar"]["command"] != "someone-elses-scholar"
    assert "replacing a different 'scholar' entry" in said.getvalue()


def test_toolsets_reach_the_written_command_and_a_reinstall_with_other_options_needs_no_force(home):
    install("cursor", home=home, system="linux", toolsets="papers,arxiv", out=io.StringIO(), **NO_COMMANDS)
    path = home / ".cursor" / "mcp.json"
    assert json.loads(path.read_text())["mcpServers"]["scholar"]["args"][-2:] == ["--toolsets", "papers,arxiv"]

    install("cursor", home=home, system="linux", profile="all", out=io.StringIO(), **NO_COMMANDS)
    uninstall("cursor", out=io.StringIO())

    assert not path.exists()


def test_uninstall_keeps_a_file_install_did_not_create(home):
    path = cursor_file(home, b'{"mcpServers": {}}')
    install("cursor", home=home, system="linux", out=io.StringIO(), **NO_COMMANDS)
    uninstall("cursor", out=io.StringIO())

    assert json.loads(path.read_text()) == {"mcpServers": {}}


def test_the_command_install_writes_starts_a_working_server(home, machine):
    install("cursor", home=home, system="linux", toolsets="papers", out=io.StringIO(), **NO_COMMANDS)
    entry = json.loads((home / ".cursor" / "mcp.json").read_text())["mcpServers"]["scholar"]
    params = StdioServerParameters(command=entry["command"], args=entry["args"], env=machine.child_env(),
                                   cwd=str(home.parent))

    async def session() -> tuple[set[str], dict]:
        with anyio.fail_after(120):
            async with Client(params) as client:
                tools = {tool.name for tool in (await client.list_tools()).tools}
                paper = await client.call_tool("get_paper", {"identifier": "10.1073/pnas.1414271111"})
                return tools, paper.structured_content

    tools, paper = anyio.run(session)

    assert "get_paper" in tools and not any(name.startswith("arxiv_") for name in tools)  # --toolsets papers
    assert paper["externalIds"]["DOI"] == "10.1073/pnas.1414271111", paper
