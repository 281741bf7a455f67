"""get_paper, search_papers and the task tools through the local server, driven by the SDK's client."""

from __future__ import annotations

import json
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client

from scholar.core.errors import INVALID_ARGUMENT, NOT_FOUND
from tests.e2e.polling import poll_task
from tests.fixtures_dir import fixtures_dir

pytestmark = pytest.mark.e2e

PNAS_DOI = "10.1073/pnas.1414271111"


def _fixture(rel: str) -> Any:
    return json.loads((fixtures_dir() / "upstream" / rel).read_text())


async def _call(url: str, tool: str, args: dict[str, Any]) -> Any:
    async with Client(url) as client:
        return await client.call_tool(tool, args)


def test_tools_list_is_sorted_and_every_tool_has_schemas_and_annotations(local_server):
    async def main():
        async with Client(local_server.url) as client:
            return (await client.list_tools()).tools

    tools = anyio.run(main)
    names = [t.name for t in tools]
    assert names == sorted(names)
    assert {"get_paper", "search_papers", "get_task_result", "list_tasks"} <= set(names)
    for tool in tools:
        assert tool.input_schema["type"] == "object"
        assert tool.output_schema and tool.output_schema["type"] == "object"
        assert tool.annotations is not None and tool.annotations.read_only_hint is not None


def test_get_paper_by_doi_returns_the_recorded_record_and_a_repeat_makes_no_upstream_request(local_server, fake):
    recorded = _fixture("semantic_scholar/paper_by_doi_many_fields_pnas.json")

    result = anyio.run(_call, local_server.url, "get_paper", {"identifier": f"https://doi.org/{PNAS_DOI}"})
    assert not result.is_error
    paper = result.structured_content
    assert paper["paperId"] == recorded["paperId"]
    assert paper["title"] == recorded["title"]
    assert paper["citationCount"] == recorded["citationCount"]
    assert paper["externalIds"]["DOI"] == PNAS_DOI
    assert paper["sources"] == ["s2"]
    asked = fake.count(source="s2")

    # Another identifier form of the same paper is served from the cache (alias), with no upstream call.
    again = anyio.run(_call, local_server.url, "get_paper", {"identifier": f"doi:{PNAS_DOI.upper()}"})
    by_id = anyio.run(_call, local_server.url, "get_paper", {"identifier": recorded["paperId"]})
    assert again.structured_content == paper
    assert by_id.structured_content == paper
    assert fake.count(source="s2") == asked


def test_get_paper_falls_back_to_openalex_when_semantic_scholar_has_no_record(local_server, fake):
    doi = "10.1023/a:1007154515475"
    fake.add_route(
        "GET",
        "s2",
        f"/graph/v1/paper/DOI:{doi}",
        status=404,
        body=fixtures_dir() / "upstream/semantic_scholar/paper_by_doi_not_found_404.json",
        content_type="application/json",
    )
    recorded = _fixture("openalex/work_by_doi_springer_1999.json")

    result = anyio.run(_call, local_server.url, "get_paper", {"identifier": doi})

    assert not result.is_error, result.structured_content
    paper = result.structured_content
    assert paper["sources"] == ["openalex"]
    assert paper["title"] == recorded["title"]
    assert paper["year"] == recorded["publication_year"]


def test_search_papers_returns_the_recorded_page(local_server):
    recorded = _fixture("semantic_scholar/search_paper_turing.json")

    result = anyio.run(_call, local_server.url, "search_papers", {"query": "turing", "limit": 100})

    assert not result.is_error, result.structured_content
    page = result.structured_content
    assert page["total"] == recorded["total"]
    assert [p["title"] for p in page["data"]] == [p["title"] for p in recorded["data"]]


def test_invalid_arguments_name_the_field_and_the_rule(local_server):
    result = anyio.run(_call, local_server.url, "search_papers", {"query": "x", "limit": 500})

    assert result.is_error
    error = result.structured_content["error"]
    assert error["code"] == INVALID_ARGUMENT
    assert error["details"]["field"] == "limit"


def test_a_rate_limited_call_is_queued_and_its_task_delivers_the_direct_result(local_server, fake):
    fake.inject("s2", "/graph/v1/paper/search", status=429, headers={"Retry-After": "5"}, times=1)
    args = {"query": "turing", "year_start": 1936, "year_end": 1936}

    async def main() -> tuple[Any, Any, Any]:
        async with Client(local_server.url) as client:
            queued = await client.call_tool("search_papers", args)
            assert not queued.is_error, queued.structured_content
            task_id = queued.structured_content["task_id"]
            polled = await poll_task(client, task_id)
            direct = await client.call_tool("search_papers", args)
            return queued, polled, direct

    queued, polled, direct = anyio.run(main)

    assert queued.structured_content["queued"] is True
    assert queued.structured_content["tool"] == "search_papers"
    assert polled.structured_content["status"] == "completed", polled.structured_content
    assert polled.structured_content["result"] == direct.structured_content


def test_tasks_are_visible_only_to_the_caller_that_started_them(local_server, fake):
    fake.inject("s2", "/graph/v1/paper/search", status=429, headers={"Retry-After": "5"}, times=1)
    headers = {
        "accept": "application/json, text/event-stream",
        "content-type": "application/json",
        "mcp-protocol-version": "2025-11-25",
    }

    def rpc(key: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
        with httpx.Client(trust_env=False, timeout=30) as http:
            response = http.post(local_server.url, json=body, headers={**headers, "x-api-key": key})
        assert response.status_code == 200
        return response.json()["result"]

    queued = rpc("alice-key", "search_papers", {"query": "turing", "year_start": 1935, "year_end": 1936})
    task_id = queued["structuredContent"]["task_id"]

    mine = rpc("alice-key", "get_task_result", {"task_id": task_id})
    theirs = rpc("bob-key", "get_task_result", {"task_id": task_id})
    listed = rpc("bob-key", "list_tasks", {})

    assert not mine.get("isError")
    assert theirs["isError"] and theirs["structuredContent"]["error"]["code"] == NOT_FOUND
    assert task_id not in [t["task_id"] for t in listed["structuredContent"]["tasks"]]

    async def finished() -> dict[str, Any]:
        # Let the background retry finish so no execution outlives the stack.
        with anyio.fail_after(30):
            while True:
                polled = await anyio.to_thread.run_sync(rpc, "alice-key", "get_task_result", {"task_id": task_id})
                if polled["structuredContent"]["status"] in ("completed", "failed"):
                    return polled
                await anyio.sleep(0.2)

    assert anyio.run(finished)["structuredContent"]["status"] == "completed"


def test_get_on_the_mcp_path_is_refused_at_once(local_server):
    with httpx.Client(trust_env=False, timeout=5) as http:
        response = http.get(local_server.url, headers={"accept": "text/event-stream"})
    assert response.status_code == 405
