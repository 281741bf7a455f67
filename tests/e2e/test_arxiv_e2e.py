"""The arXiv tools through the local server and the fake upstream (recorded feeds, render and PDFs).

STAGED, NOT COLLECTED: move to tests/e2e/test_arxiv_e2e.py once ArxivFunction is in template.yaml;
it needs tests/e2e/conftest.py's ``local_server`` and ``fake``
(a second LocalStack in the same process is refused, so the file cannot bring its own).
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp import Client

from scholar.core.errors import INVALID_ARGUMENT, NOT_FOUND
from tests.e2e.polling import poll_task
from tests.fixtures_dir import fixtures_dir

pytestmark = pytest.mark.e2e

ARXIV_TOOLS = {"arxiv_search", "arxiv_get_papers", "arxiv_read_paper", "arxiv_list_categories"}
HTML_ID = "2501.11120v1"
TITLE = "Tell me about yourself: LLMs are aware of their learned behaviors"


def _synthetic_feed(versioned_id: str, title: str) -> bytes:
    """SYNTHETIC: the recorded feed of 1605.08386v1 with id and title swapped (no feed is recorded for it)."""
    body = (fixtures_dir() / "upstream/arxiv/id_list_1605.08386.xml").read_text()
    body = body.replace("1605.08386v1", versioned_id).replace("1605.08386", versioned_id.rsplit("v", 1)[0])
    return body.replace("Heat-bath random walks with Markov bases", title).encode()


async def _call(url: str, tool: str, args: dict[str, Any]) -> Any:
    async with Client(url) as client:
        return await client.call_tool(tool, args)


def _ok(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.structured_content
    return result.structured_content


def test_the_four_arxiv_tools_are_listed_with_schemas(local_server):
    async def main():
        async with Client(local_server.url) as client:
            return (await client.list_tools()).tools

    tools = {t.name: t for t in anyio.run(main) if t.name in ARXIV_TOOLS}
    assert set(tools) == ARXIV_TOOLS
    assert tools["arxiv_list_categories"].annotations.open_world_hint is False
    assert "effectiveQuery" in str(tools["arxiv_search"].output_schema)


def test_a_search_returns_the_recorded_page_and_a_repeat_is_served_from_the_cache(local_server, fake):
    page = _ok(anyio.run(_call, local_server.url, "arxiv_search", {"query": "testing"}))
    assert (page["effectiveQuery"], page["totalFound"], page["shown"]) == ("all:testing", 214881, 10)
    assert page["papers"][0]["id"] == "2202.12139v1"
    asked = fake.count(source="arxiv_api")
    assert _ok(anyio.run(_call, local_server.url, "arxiv_search", {"query": "testing"})) == page
    assert fake.count(source="arxiv_api") == asked


def test_a_batch_returns_the_paper_found_and_names_the_missing_id(local_server):
    result = _ok(anyio.run(_call, local_server.url, "arxiv_get_papers", {"paper_ids": ["0808.05394", "1707.08567"]}))
    assert [p["id"] for p in result["papers"]] == ["1707.08567v1"]
    assert result["not_found"] == [
        {"id": "0808.05394", "reason": "not_in_arxiv", "detail": "arXiv has no paper 0808.05394"}
    ]


def test_a_legacy_id_is_resolved(local_server):
    result = _ok(anyio.run(_call, local_server.url, "arxiv_get_papers", {"paper_ids": "astro-ph/0601001"}))
    assert result["papers"][0]["journal_ref"] == "ActaAstron.56:1-50,2006"


def test_reading_a_paper_serves_the_html_render_and_later_slices_from_s3(local_server, fake):
    fake.add_route("GET", "arxiv_api", "/api/query", query={"id_list": HTML_ID, "start": "0", "max_results": "1"},
                   body=_synthetic_feed(HTML_ID, TITLE), content_type="application/atom+xml")
    first = _ok(anyio.run(_call, local_server.url, "arxiv_read_paper", {"paper_id": HTML_ID, "max_characters": 40000}))
    assert (first["source"], first["title"], first["truncated"]) == ("arxiv_html", TITLE, True)
    assert first["content"].startswith(f"# {TITLE}")
    html_requests = fake.count(source="arxiv", path_prefix="/html/")
    second = _ok(anyio.run(_call, local_server.url, "arxiv_read_paper",
                           {"paper_id": HTML_ID, "start": first["next_start"], "max_characters": 40000}))
    assert second["start"] == 40000 and second["body_characters"] == first["body_characters"]
    assert fake.count(source="arxiv", path_prefix="/html/") == html_requests


def test_a_paper_without_a_render_is_read_from_its_pdf(local_server, fake):
    paper = "2304.02623v1"
    fake.add_route("GET", "arxiv_api", "/api/query", query={"id_list": paper, "start": "0", "max_results": "1"},
                   body=_synthetic_feed(paper, "Beyond Summarization"), content_type="application/atom+xml")
    fake.add_route("GET", "arxiv", f"/html/{paper}", status=404, body=b"No HTML", content_type="text/plain")
    fake.add_route("GET", "ar5iv", "/html/2304.02623", status=404, body=b"", content_type="text/plain")
    fake.add_route("GET", "arxiv", f"/pdf/{paper}",
                   body=fixtures_dir() / "pdfs/arxiv_2304.02623v1_beyond_summarization.pdf")
    result = _ok(anyio.run(_call, local_server.url, "arxiv_read_paper", {"paper_id": paper}))
    assert result["source"] == "pdf_text"
    assert "# Beyond Summarization" in result["content"]


def test_an_unknown_category_is_an_error_with_its_reason_and_hint(local_server):
    result = anyio.run(_call, local_server.url, "arxiv_search", {"query": "x", "category": "cs.XY"})
    assert result.is_error
    error = result.structured_content["error"]
    assert (error["code"], error["reason"]) == (INVALID_ARGUMENT, "unknown_category")
    assert "arxiv_list_categories" in error["recovery"]["hint"]


def test_an_unknown_paper_is_not_found_with_no_match(local_server, fake):
    fake.add_route("GET", "arxiv_api", "/api/query", query={"id_list": "0000.0000", "start": "0", "max_results": "1"},
                   body=fixtures_dir() / "upstream/arxiv/id_list_0000.0000_no_results.xml")
    result = anyio.run(_call, local_server.url, "arxiv_read_paper", {"paper_id": "0000.0000"})
    assert result.is_error
    assert result.structured_content["error"]["code"] == NOT_FOUND
    assert result.structured_content["error"]["reason"] == "no_match"


def test_a_rate_exceeded_body_queues_the_call_and_its_task_delivers_the_page(local_server, fake):
    # Every attempt of the first call (three within the retry budget) is throttled, the retry is not;
    # start=10: a page no other test has cached.
    fake.inject("arxiv_api", "/api/query", status=200, body=b"Rate exceeded.", content_type="text/plain", times=3)

    async def main() -> tuple[Any, Any]:
        async with Client(local_server.url) as client:
            queued = await client.call_tool("arxiv_search", {"query": "testing", "start": 10})
            task_id = _ok(queued)["task_id"]
            polled = await poll_task(client, task_id)
            return queued, polled

    queued, polled = anyio.run(main)
    assert queued.structured_content["queued"] is True
    assert queued.structured_content["reason"] == "rate_limited"
    assert polled.structured_content["status"] == "completed", polled.structured_content
    assert polled.structured_content["result"]["totalFound"] == 214881
