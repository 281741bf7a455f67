"""The two ways uv runs Scholar for a user (issue 36): ``uvx --from <wheel> scholar mcp`` (the README's install
without installing) and the MCP Bundle's own command (manifest.json ``server.mcp_config``, ``uv run --directory
${__dirname} --extra local scholar mcp``), each spoken to once over the MCP SDK's stdio client.

Passing means both serve get_paper from what they installed, with only JSON-RPC on stdout and no EMF, Powertools JSON
log line, traceback or warning on stderr. uv resolves from the registry pip is configured with (its cache and tools
in a temporary folder); where it cannot reach it, the tests skip and say so. The bundle's test comes first: it needs
no wheel, so it runs while another worker builds it.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.stdio import StdioServerParameters

from tests.fakes.upstream import FakeUpstream
from tests.packaging.install import (
    DOI,
    REPO,
        environ,
    interpreter,
    machine_settings,
    noise,
    registry_env,
    source_tree,
    stdio_session,
)

pytestmark = pytest.mark.packaging

SESSION_TIMEOUT_S = 240  # uv resolves and installs before the server answers
# Where uv cannot reach the registry (its words for a network failure): a skip, not a failure.
UNREACHABLE = ("error sending request for url", "dns error", "failed to lookup address", "tcp connect error",
               "Network is unreachable", "Failed to fetch: `http")


def uv_tool(name: str) -> str:
    """``uv`` or ``uvx`` from the dev extra (beside the suite's interpreter), else from PATH."""
    beside = Path(sys.executable).parent / name
    found = str(beside) if beside.is_file() else shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed (the dev extra pins uv: pip install -e '.[dev]')")
    return found


@pytest.fixture(scope="module")
def uv_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """uv's settings: cache and tools in a temporary folder, the chosen interpreter, pip's registry."""
    folder = tmp_path_factory.mktemp("uv")
    return {"UV_CACHE_DIR": str(folder / "cache"), "UV_TOOL_DIR": str(folder / "tools"), "UV_PYTHON": interpreter(),
            "UV_PYTHON_DOWNLOADS": "never", "UV_NO_PROGRESS": "1", **registry_env()}


def served(params: StdioServerParameters, errlog: Path) -> tuple[set[str], Any, list[Exception]]:
    """tools/list and get_paper in one session; a skip when uv (installing before the server starts) cannot reach the
    registry."""

    async def session() -> tuple[set[str], Any, list[Exception]]:
        with anyio.fail_after(SESSION_TIMEOUT_S):
            async with stdio_session(params, errlog) as server:
                tools = {tool.name for tool in (await server.client.list_tools()).tools}
                paper = await server.client.call_tool("get_paper", {"identifier": DOI})
                return tools, paper, server.unparsed

    try:
        return anyio.run(session)
    except Exception:
        said = errlog.read_text(encoding="utf-8") if errlog.is_file() else ""
        if any(words.lower() in said.lower() for words in UNREACHABLE):
            pytest.skip(f"uv cannot reach the package registry from this sandbox: {said[-600:]}")
        raise


def check(tools: set[str], paper: Any, unparsed: list[Exception], errlog: Path) -> None:
    stderr = errlog.read_text(encoding="utf-8")
    assert not noise(stderr), noise(stderr)
    assert not unparsed, f"stdout lines that are not JSON-RPC: {unparsed}"
    assert {"get_paper", "search", "download_paper"} <= tools
    assert not paper.is_error, paper.structured_content
    assert paper.structured_content["externalIds"]["DOI"] == DOI


def test_the_bundle_manifest_command_serves_tools_list_and_get_paper_over_stdio(uv_env, fake_upstream: FakeUpstream,
                                                                               elsewhere, tmp_path):
    uv = uv_tool("uv")
    # The bundle: manifest.json has no .mcpbignore beside it, so `mcpb pack` packs the source tree itself; its
    # unpacked copy here is the tree a fresh clone holds (the checkout's files less what git ignores).
    bundle = source_tree(tmp_path / "bundle")
    config = json.loads((REPO / "manifest.json").read_text())["server"]["mcp_config"]
    values = {"${__dirname}": str(bundle), "${user_config.contact_email}": "packaging@example.org"}

    def filled(text: str) -> str:
        for name, value in values.items():
            text = text.replace(name, value)
        return text

    assert config["command"] == "uv"
    args = [filled(arg) for arg in config["args"]]
    home = tmp_path / "home"
    home.mkdir()
    env = environ({**uv_env, **{k: filled(v) for k, v in config.get("env", {}).items()},
                   **machine_settings(fake_upstream, home)})
    params = StdioServerParameters(command=uv, args=args, env=env, cwd=elsewhere)

    tools, paper, unparsed = served(params, tmp_path / "stderr.txt")

    check(tools, paper, unparsed, tmp_path / "stderr.txt")


def test_uvx_from_the_wheel_serves_tools_list_and_get_paper_over_stdio(wheel, uv_env, fake_upstream: FakeUpstream,
                                                                       elsewhere, tmp_path):
    uvx = uv_tool("uvx")
    home = tmp_path / "home"
    home.mkdir()
    env = environ({**uv_env, **machine_settings(fake_upstream, home)})
    params = StdioServerParameters(command=uvx, args=["--from", str(wheel), "scholar", "mcp"], env=env, cwd=elsewhere)

    tools, paper, unparsed = served(params, tmp_path / "stderr.txt")

    check(tools, paper, unparsed, tmp_path / "stderr.txt")
