"""The MCP Inspector CLI (a real third-party client) against the local server: list tools, call get_paper."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

pytestmark = pytest.mark.e2e

NPX = shutil.which("npx")
INSPECTOR = "@modelcontextprotocol/inspector@0.15.0"


def inspector(url: str, *args: str) -> dict:
    out = subprocess.run(
        [NPX, "-y", INSPECTOR, "--cli", url, "--transport", "http", *args],
        capture_output=True, text=True, timeout=240, check=False,
    )
    assert out.returncode == 0, out.stderr[-2000:] or out.stdout[-2000:]
    return json.loads(out.stdout)


@pytest.mark.skipif(NPX is None, reason="npx (Node.js) is not installed: the Inspector CLI cannot run")
def test_the_inspector_cli_lists_tools_and_calls_get_paper(local_server):
    listed = inspector(local_server.url, "--method", "tools/list")
    called = inspector(
        local_server.url, "--method", "tools/call", "--tool-name", "get_paper",
        "--tool-arg", "identifier=10.1073/pnas.1414271111",
    )
    refused = inspector(
        local_server.url, "--method", "tools/call", "--tool-name", "search_papers",
        "--tool-arg", "query=x", "--tool-arg", "limit=1000",
    )

    assert "get_paper" in [tool["name"] for tool in listed["tools"]]
    assert called["structuredContent"]["externalIds"]["DOI"] == "10.1073/pnas.1414271111"
    assert refused["isError"] is True
    assert refused["structuredContent"]["error"]["details"]["field"] == "limit"
