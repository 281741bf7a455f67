"""The patent tools through the local server (gateway → patents function → EPO OPS fake), with mcp.Client.

The fake upstream serves the recorded OPS answers (PROVENANCE rows, token request included); the page PDFs
of fetch_patent_pdf are synthetic one-page PDFs (tests.patents.helpers.synthetic_pages) because OPS page
images were not recorded. Patent tools are hidden without EPO credentials: each test that uses them sets
fake ones for its duration (the gateway and the family read settings in this process).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from mcp import Client

from tests.e2e.polling import poll_task
from tests.fakes.upstream import FakeUpstream
from tests.fixtures.env import Env
from tests.patents.helpers import synthetic_pages

pytestmark = pytest.mark.e2e

PATENT_TOOLS = {"search_patents", "get_patent", "get_citing_patents", "fetch_patent_pdf"}
PAGES = "/3.2/rest-services/published-data/images/EP/3491801/B1/fullimage.pdf"


@pytest.fixture
def epo(env: Env, fake: FakeUpstream) -> Iterator[FakeUpstream]:
    env.set(SCHOLAR_EPO_CONSUMER_KEY="e2e-key", SCHOLAR_EPO_CONSUMER_SECRET="e2e-secret")
    yield fake


async def _tools(url: str) -> set[str]:
    async with Client(url) as client:
        return {t.name for t in (await client.list_tools()).tools}


async def _call(url: str, tool: str, args: dict[str, Any]) -> Any:
    async with Client(url) as client:
        return await client.call_tool(tool, args)


def call(server: Any, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = anyio.run(_call, server.url, tool, args)
    assert not result.is_error, result.structured_content
    return result.structured_content


def test_without_credentials_patent_tools_are_hidden_and_ops_is_never_called(local_server, fake):
    assert not anyio.run(_tools, local_server.url) & PATENT_TOOLS
    result = anyio.run(_call, local_server.url, "batch_resolve", {"identifiers": ["EP2400812A1"]})
    assert result.structured_content["items"][0]["status"] == "unavailable"
    assert fake.count("epo_ops") == 0


def test_with_credentials_the_four_tools_are_listed(local_server, epo):
    assert anyio.run(_tools, local_server.url) >= PATENT_TOOLS


def test_search_patents_answers_hits_with_biblio_and_the_cql(local_server, epo):
    result = call(local_server, "search_patents", {"applicant": "Siemens", "limit": 3})
    assert result["effective_query"] == 'pa="Siemens"' and result["total_count"] == 10000
    assert [r["patent_id"] for r in result["references"]] == ["AU2024270787A1", "AU2024265697A1", "DK3740998T3"]
    asked = [r for r in epo.requests if r.source == "epo_ops" and r.path.endswith("/search/biblio")]
    assert ("Range", "1-3") in asked[-1].query


def test_get_patent_answers_every_section_and_a_repeat_costs_no_request(local_server, epo):
    sections = ["biblio", "abstract", "claims", "description", "family", "legal", "citations"]
    result = call(local_server, "get_patent", {"patent_number": "EP 2400812 A1", "sections": sections})
    assert result["biblio"]["title"] == "BLUETOOTH NETWORKING" and result["biblio"]["applicants"] == ["9Solutions Oy"]
    assert result["claims"].startswith("1. ") and len(result["family"]) == 5 and len(result["legal"]) == 69
    assert result["citations"]["patent_refs"]
    before = epo.count("epo_ops")
    call(local_server, "get_patent", {"patent_number": "EP.2400812.A1", "sections": sections})
    assert epo.count("epo_ops") == before


def test_batch_resolve_resolves_patent_numbers_in_one_bulk_request(local_server, epo):
    result = call(local_server, "batch_resolve", {"identifiers": ["EP2400812A1", "EP2533477A1", "EP2533477B1"]})
    assert [i["status"] for i in result["items"]] == ["ok", "ok", "ok"]
    assert result["items"][1]["patent"]["title"] == "Bluetooth network configuration"
    assert epo.count("epo_ops", "/3.2/rest-services/published-data/publication/docdb/biblio") == 1


def test_fetch_patent_pdf_runs_as_a_task_fetching_every_page_once(local_server, epo):
    pages = synthetic_pages(12)
    for number in range(1, 22):
        epo.add_route("GET", "epo_ops", PAGES, query={"Range": str(number)}, body=pages[(number - 1) % 12],
                      content_type="application/pdf")

    async def main() -> tuple[Any, Any, Any]:
        async with Client(local_server.url) as client:
            queued = await client.call_tool("fetch_patent_pdf", {"patent_number": "EP3491801B1", "max_chars": 2000})
            done = await poll_task(client, queued.structured_content["task_id"], within_s=60)
            again = await client.call_tool("fetch_patent_pdf", {"patent_number": "EP 3491801 B1", "max_chars": 2000})
            return queued, done, again

    queued, done, again = anyio.run(main)
    assert queued.structured_content["queued"] is True
    assert done.structured_content["status"] == "completed", done.structured_content
    result = done.structured_content["result"]
    assert result["pages"] == 21 and result["pdf_path"].startswith("pdfs/") and result["markdown"]
    assert epo.count("epo_ops", PAGES) == 21
    assert epo.count("epo_ops", "/3.2/rest-services/published-data/publication/docdb/EP.3491801.B1/images") == 1
    assert again.structured_content["cached"] is True
    assert again.structured_content["pdf_path"] == result["pdf_path"]


def test_a_document_without_full_images_fails_its_task_with_pdf_not_available(local_server, epo):
    async def main() -> Any:
        async with Client(local_server.url) as client:
            queued = await client.call_tool("fetch_patent_pdf", {"patent_number": "EP2400812A1"})
            return await poll_task(client, queued.structured_content["task_id"], within_s=60)

    done = anyio.run(main)
    assert done.structured_content["status"] == "failed"
    assert done.structured_content["error"]["reason"] == "pdf_not_available"


def test_get_citing_patents_searches_ops_citations_for_the_papers_doi(local_server, epo):
    result = call(local_server, "get_citing_patents", {"paper_id": "10.1073/pnas.1414271111", "limit": 3})
    assert result["doi"] == "10.1073/pnas.1414271111"
    assert result["patents"] and {p["matched_on"] for p in result["patents"]} == {"doi"}
    asked = [r for r in epo.requests if r.source == "epo_ops" and r.path.endswith("/search/biblio")]
    assert ("q", 'ct="10.1073/pnas.1414271111"') in asked[-1].query
    assert "incomplete" in result["note"].lower()


def test_a_throttled_page_is_retried_by_the_state_machine_and_the_task_still_completes(local_server, epo):
    wo_pages = "/3.2/rest-services/published-data/images/WO/2019016210/A1/fullimage.pdf"
    pages = synthetic_pages(12)
    for number in range(1, 30):
        epo.add_route("GET", "epo_ops", wo_pages, query={"Range": str(number)}, body=pages[(number - 1) % 12],
                      content_type="application/pdf")
    # The first page request is refused under fair use: the fetch step raises, the machine's Retry runs it again.
    epo.inject("epo_ops", wo_pages, status=403, headers={"X-Rejection-Reason": "IndividualQuotaPerHour"},
               body=b"<error><code>403</code><message>Fair Use</message></error>", content_type="text/xml")

    async def main() -> Any:
        async with Client(local_server.url) as client:
            queued = await client.call_tool("fetch_patent_pdf", {"patent_number": "WO2019016210A1"})
            return await poll_task(client, queued.structured_content["task_id"], within_s=90)

    done = anyio.run(main)
    assert done.structured_content["status"] == "completed", done.structured_content
    assert done.structured_content["result"]["pages"] == 29
    assert epo.count("epo_ops", wo_pages) == 1 + 29  # the refused request, then every page once
