"""Progress while a researcher waits (issue 41), where they meet it: an MCP client that sent a progressToken gets
``notifications/progress`` (the SDK's stdio client), the command line prints a plain line per step on a stderr that
is not a terminal, the Python API hands each step to its callback; work usually done in well under a second is
waited for in-line (``SCHOLAR_INLINE_WAIT_S``) and answered as a result, not as ``queued``."""

from __future__ import annotations

import subprocess

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from scholar import Scholar
from tests.fixtures_dir import fixtures_dir
from tests.local.conftest import Machine
from tests.packaging.install import ARXIV_ID, ARXIV_ROUTES, QUERY

TIMEOUT_S = 180


@pytest.fixture(scope="module")
def routes(fake_upstream) -> None:
    for source, path, fixture in ARXIV_ROUTES:
        fake_upstream.add_route("GET", source, path, body=fixtures_dir() / fixture)


def waiting(machine: Machine, seconds: str) -> dict[str, str]:
    return {**machine.child_env(), "SCHOLAR_INLINE_WAIT_S": seconds}


def test_an_mcp_client_with_a_progress_token_gets_progress_and_the_download_answered_in_line(machine, routes):
    command = machine.command("mcp", "--profile", "all")
    params = StdioServerParameters(command=command[0], args=command[1:], env=waiting(machine, "20"))
    steps: dict[str, list[tuple[float, float | None, str | None]]] = {"download_paper": [], "search": []}

    def listener(tool: str):
        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            steps[tool].append((progress, total, message))

        return on_progress

    async def session() -> tuple:
        with anyio.fail_after(TIMEOUT_S):
            async with Client(params) as client:
                kept = await client.call_tool("download_paper", {"identifier": ARXIV_ID},
                                              progress_callback=listener("download_paper"))
                found = await client.call_tool("search", {"query": QUERY, "limit": 3},
                                               progress_callback=listener("search"))
                return kept, found

    kept, found = anyio.run(session)

    assert not kept.is_error and "queued" not in kept.structured_content, kept.structured_content
    assert kept.structured_content["pdf_source"] == "arxiv"
    assert steps["download_paper"] and all(m.startswith("download_paper: ") for _, _, m in steps["download_paper"])
    assert not found.is_error
    assert any(m.startswith("search: ") and m.endswith(" answered") for _, _, m in steps["search"]), steps
    for tool, told in steps.items():
        assert [p for p, _, _ in told] == sorted({p for p, _, _ in told}), (tool, told)  # increasing, as MCP asks


def test_the_command_line_prints_one_plain_line_per_step_on_a_stderr_that_is_no_terminal(machine, routes, tmp_path):
    fresh = {**waiting(machine, "0"), "SCHOLAR_HOME": str(tmp_path)}  # a paper not kept yet: the pipeline runs
    done = subprocess.run(machine.command("download-paper", ARXIV_ID, "--json"), env=fresh,
                          capture_output=True, text=True, timeout=TIMEOUT_S, check=False)

    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert lines and all(line.startswith("download_paper: ") for line in lines), done.stderr
    assert any("queued" in line for line in lines), done.stderr
    assert "\r" not in done.stderr


def test_the_python_api_hands_each_step_to_its_callback(machine):
    steps = []
    with Scholar(on_progress=steps.append) as scholar:
        scholar.search(query=QUERY, limit=3)

    assert steps[0].message.startswith("search: asking") and steps[0].total
    assert steps[-1].done == steps[-1].total
