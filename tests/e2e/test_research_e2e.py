"""search (research family) through the local server on the recorded responses: merged, ranked, paged."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from mcp import Client

from scholar.core.errors import INVALID_ARGUMENT
from tests.fixtures_dir import fixtures_dir

pytestmark = pytest.mark.e2e


async def _call(url: str, tool: str, args: dict[str, Any]) -> Any:
    async with Client(url) as client:
        return await client.call_tool(tool, args)


def call(server: Any, tool: str, args: dict[str, Any]) -> Any:
    return anyio.run(_call, server.url, tool, args)


def serve_missing_recordings(fake: Any) -> None:
    """What no recording holds: an S2 search row and the INSPIRE search envelope (synthetic, recorded shapes)."""
    up = fixtures_dir() / "upstream"
    item = json.loads((up / "crossref/works_query_title_rows1.json").read_text())["message"]["items"][0]
    row = {"paperId": "5e1a2c3b4d5e6f708192a3b4c5d6e7f809102132", "title": item["title"][0], "year": 2015,
           "externalIds": {"DOI": item["DOI"]}, "authors": [{"name": "Michael D. Skarlinski"}]}
    fake.add_route("GET", "s2", "/graph/v1/paper/search", content_type="application/json",
                   body=json.dumps({"total": 1, "offset": 0, "data": [row]}).encode())
    record = json.loads((up / "inspire/literature_record_1842768.json").read_text())
    fake.add_route("GET", "inspire", "/api/literature", content_type="application/json",
                   body=json.dumps({"hits": {"hits": [record], "total": 1}}).encode())
    # Recorded answers of other queries, chosen so that three sources hold the same paper.
    fake.add_route("GET", "openalex", "/works", body=up / "openalex/works_filter_title_search.json",
                   content_type="application/json")
    fake.add_route("GET", "crossref", "/works", body=up / "crossref/works_query_title_rows1.json",
                   content_type="application/json")


def test_search_merges_ranks_and_pages_results_from_several_sources(local_server, fake):
    serve_missing_recordings(fake)
    first = call(local_server, "search", {"query": "copper thin film oxide tensile", "limit": 5, "expand": False})
    assert not first.is_error, first.content
    page = first.structured_content
    assert set(page["sources_answered"]) == {"s2", "openalex", "crossref", "arxiv_api", "europepmc", "inspire"}
    assert page["partial"] is False and page["ranker"] == "bm25"
    top = page["results"][0]
    assert top["title"].startswith("Effect of native oxide layers")
    assert top["found_by"] == ["crossref", "openalex", "s2"]
    asked = len(fake.requests)
    second = call(local_server, "search", {"cursor": page["next_cursor"], "limit": 5})
    assert not second.is_error, second.content
    assert second.structured_content["offset"] == 5
    assert {r["id"] for r in second.structured_content["results"]}.isdisjoint({r["id"] for r in page["results"]})
    assert len(fake.requests) == asked  # page 2 of the stored ranking, not a new search


def test_an_empty_question_is_an_invalid_argument_naming_query(local_server, fake):
    result = call(local_server, "search", {"query": ""})
    assert result.is_error and result.structured_content["error"]["code"] == INVALID_ARGUMENT
    assert "query" in result.structured_content["error"]["message"]
