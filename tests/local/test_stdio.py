"""``scholar mcp`` over stdio, through the MCP SDK's own stdio client and the MCP Inspector CLI (two real clients):
every kind of capability is served, the caller is ``local``, and stdout carries nothing but MCP."""

from __future__ import annotations

import json
import subprocess

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.e2e.test_inspector_cli import INSPECTOR, NPX
from tests.local.conftest import Machine

DOI = "10.1073/pnas.1414271111"
START_TIMEOUT_S = 180  # the embedded AWS stand-in deploys its template before the first answer


def server(machine: Machine, *args: str) -> StdioServerParameters:
    command = machine.command("mcp", *args)
    return StdioServerParameters(command=command[0], args=command[1:], env=machine.child_env())


def test_the_sdk_stdio_client_lists_and_calls_tools_prompts_and_resources(machine):
    async def session() -> tuple:
        with anyio.fail_after(START_TIMEOUT_S):
            async with Client(server(machine, "--profile", "all")) as client:
                tools = await client.list_tools()
                paper = await client.call_tool("get_paper", {"identifier": DOI})
                refused = await client.call_tool("search_papers", {"query": "x", "limit": 1000})
                prompts = await client.list_prompts()
                templates = await client.list_resource_templates()
                info = await client.call_tool("get_server_info", {})
                return tools, paper, refused, prompts, templates, info

    tools, paper, refused, prompts, templates, info = anyio.run(session)

    assert {"get_paper", "search", "library_export", "get_task_result"} <= {t.name for t in tools.tools}
    assert paper.structured_content["externalIds"]["DOI"] == DOI
    assert refused.is_error and refused.structured_content["error"]["details"]["field"] == "limit"
    assert prompts.prompts and templates.resource_templates
    assert info.is_error is False


def test_toolsets_narrow_the_stdio_listing_as_they_do_on_http(machine):
    async def listing() -> set[str]:
        with anyio.fail_after(START_TIMEOUT_S):
            async with Client(server(machine, "--toolsets", "arxiv")) as client:  # SCHOLAR_PROFILE=all: replaced
                return {t.name for t in (await client.list_tools()).tools}

    names = anyio.run(listing)

    assert names and all(name.startswith("arxiv_") for name in names - {"get_task_result"})


@pytest.mark.skipif(NPX is None, reason="npx (Node.js) is not installed: the Inspector CLI cannot run")
def test_the_inspector_cli_speaks_to_scholar_mcp_over_stdio(machine):
    settings = [arg for name, value in machine.child_env().items()
                if name.startswith("SCHOLAR_") for arg in ("-e", f"{name}={value}")]
    command = machine.command("mcp", "--profile", "all")

    def inspector(*args: str) -> dict:
        out = subprocess.run([NPX, "-y", INSPECTOR, "--cli", *settings, "--transport", "stdio", *command, *args],
                             capture_output=True, text=True, timeout=START_TIMEOUT_S + 60, check=False)
        assert out.returncode == 0, out.stderr[-2000:] or out.stdout[-2000:]
        return json.loads(out.stdout)

    listed = inspector("--method", "tools/list")
    called = inspector("--method", "tools/call", "--tool-name", "get_paper", "--tool-arg", f"identifier={DOI}")

    assert "get_paper" in [tool["name"] for tool in listed["tools"]]
    assert called["structuredContent"]["externalIds"]["DOI"] == DOI
