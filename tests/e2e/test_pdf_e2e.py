"""The PDF tools through the local server (gateway → pdf function → Step Functions → pipeline), with mcp.Client.

The polling path: a tool answers ``{queued: true, task_id}``, get_task_result reports progress and then the
result; the same call afterwards answers at once from the stored artifacts. PDF locations on hosts that are
not our sources reach the fake upstream through tests.fakes.web.WebToFake (same process).
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp import Client

from tests.fixtures_dir import fixtures_dir

pytestmark = pytest.mark.e2e

DEADLINE_S = 30.0
PDF_TOOLS = {"fetch_paper_pdf", "fetch_and_convert", "fetch_pdf_by_url", "convert_pdf_to_markdown"}


async def _call(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, args)
    assert not result.is_error, result.structured_content
    return result.structured_content


async def _until_done(client: Client, task_id: str) -> dict[str, Any]:
    with anyio.fail_after(DEADLINE_S):
        while True:
            status = await _call(client, "get_task_result", {"task_id": task_id})
            if status["status"] not in ("pending", "running"):
                return status
            assert status["hint"]
            await anyio.sleep(0.1)  # polling interval of the client, not a wait for a condition


def test_pdf_tools_are_listed_as_write_tools_that_may_run_as_tasks(local_server) -> None:
    async def main() -> list[Any]:
        async with Client(local_server.url) as client:
            return (await client.list_tools()).tools

    tools = {t.name: t for t in anyio.run(main) if t.name in PDF_TOOLS}
    assert set(tools) == PDF_TOOLS
    for tool in tools.values():
        assert tool.annotations.read_only_hint is False
        assert tool.annotations.destructive_hint is False


def test_fetch_and_convert_is_queued_then_polled_then_answered_from_storage(local_server, web) -> None:
    web.add_route("GET", "s2", "/graph/v1/paper/ARXIV:2312.07559",
                  body=fixtures_dir() / "upstream/semantic_scholar/paper_by_arxiv_doi.json")
    web.add_route("GET", "arxiv", "/pdf/2312.07559",
                  body=fixtures_dir() / "pdfs/arxiv_2304.02623v1_beyond_summarization.pdf")

    async def main() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        async with Client(local_server.url) as client:
            queued = await _call(client, "fetch_and_convert", {"identifier": "arXiv:2312.07559", "max_chars": 3000})
            done = await _until_done(client, queued["task_id"])
            again = await _call(client, "fetch_and_convert",
                                {"identifier": "https://arxiv.org/abs/2312.07559", "offset": 3000, "max_chars": 3000})
            return queued, done, again

    queued, done, again = anyio.run(main)
    assert queued["queued"] is True and queued["tool"] == "fetch_and_convert"
    assert done["status"] == "completed", done
    result = done["result"]
    assert result["pdf_source"] == "arxiv"
    assert result["metadata"]["title"].startswith("PaperQA")
    assert result["markdown"].startswith("<!-- page 1 -->")
    assert result["next_offset"] == 3000
    assert again["cached"] is True
    assert again["offset"] == 3000 and again["markdown"]
    assert web.count("arxiv", "/pdf/2312.07559") == 1


def test_a_url_that_answers_html_fails_the_task_with_the_reason(local_server, web) -> None:
    web.add_route("GET", "web", "/publisher.example.org/paper.pdf", body=b"<html><body>Log in</body></html>",
                  content_type="text/html")

    async def main() -> dict[str, Any]:
        async with Client(local_server.url) as client:
            queued = await _call(client, "fetch_pdf_by_url", {"url": "https://publisher.example.org/paper.pdf"})
            return await _until_done(client, queued["task_id"])

    done = anyio.run(main)
    assert done["status"] == "failed"
    assert done["error"]["reason"] == "html_page"


def test_a_pdf_by_url_is_stored_converted_and_then_converted_again_from_its_reference(local_server, web) -> None:
    web.add_route("GET", "web", "/files.example.org/other.pdf",
                  body=fixtures_dir() / "pdfs/arxiv_2305.03393v1_page9_only.pdf")

    async def main() -> tuple[dict[str, Any], dict[str, Any]]:
        async with Client(local_server.url) as client:
            queued = await _call(client, "fetch_pdf_by_url",
                                 {"url": "https://files.example.org/other.pdf", "filename": "paper_9"})
            done = await _until_done(client, queued["task_id"])
            converted = await _call(client, "convert_pdf_to_markdown", {"file_path": done["result"]["pdf_path"]})
            return done, converted

    done, converted = anyio.run(main)
    assert done["status"] == "completed"
    assert done["result"]["pdf_source"] == "url"
    assert done["result"]["filename"] == "paper_9"
    assert "error" not in done["result"]
    assert converted["cached"] is True
    assert converted["markdown"] == done["result"]["markdown"]
    assert converted["md_path"] == done["result"]["md_path"]
