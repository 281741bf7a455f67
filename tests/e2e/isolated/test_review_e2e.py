"""A whole literature review in few calls, through the local server with the SDK's client (issue #25, item 4).

search → read_paper of the best hit's pages 1–2 (the queued conversion polled once, waiting) → BibTeX of the top
two → keep both in a collection: at most six calls and 60,000 characters of results. The script and its data are
tests.review_corpus (the best hit is a preprint only arXiv's API returns); the times are benchmarks' to print.
"""

from __future__ import annotations

import re
from typing import Any

import anyio
import pytest
from mcp import Client

from tests.fakes.upstream import FakeUpstream
from tests.fixtures.servers import StackOptions, fake_upstream_fixture, local_server_fixture
from tests.review_corpus import CALL_BAR, CHARS_BAR, COLLECTION, PASA, PASA_TITLE, install, run_review

pytestmark = pytest.mark.e2e

fake_upstream = fake_upstream_fixture(scope="module")
local_server = local_server_fixture(StackOptions(contact_email="review-e2e@example.org", retry_budget_s="1"),
                                    scope="module", backends=("aws", "local"))


def test_a_literature_review_takes_six_calls_and_under_sixty_thousand_characters(local_server: Any,
                                                                                  fake_upstream: FakeUpstream) -> None:
    install(fake_upstream)
    searched_at: list[int] = []

    async def main() -> tuple[Any, Any]:
        async with Client(local_server.url) as client:
            review = await run_review(client, after_search=lambda: searched_at.append(len(fake_upstream.requests)))
            listed = await client.call_tool("library_list", {"collection": COLLECTION})  # a check, not the agent's
        return review, listed.structured_content

    review, listed = anyio.run(main)
    # The bars
    assert len(review.calls) <= CALL_BAR, [c.tool for c in review.calls]
    assert review.chars <= CHARS_BAR
    # The best hit is the preprint only arXiv returned; its first two pages were read from its PDF.
    best = review.hits[0]
    assert best["id"] == f"arXiv:{PASA}" and best["title"] == PASA_TITLE and best["found_by"] == ["arxiv_api"]
    assert review.read["markdown"].startswith("<!-- page 1 -->") and "<!-- page 3 -->" not in review.read["markdown"]
    assert "PaSa" in review.read["markdown"]
    # BibTeX of both, the preprint by arXiv's convention
    entries = re.findall(r"^@(\w+)\{", review.bibtex, re.MULTILINE)
    assert len(entries) == 2 and entries[0] == "misc"
    assert f"eprint = {{{PASA}}}" in review.bibtex and "primaryClass = {cs.IR}" in review.bibtex
    # Both kept in the collection, each one item, each by the id the search listed
    assert sorted(i["item_id"] for i in listed["items"]) == sorted(k["item"]["item_id"] for k in review.kept)
    # Every follow-up started from the search's merged records: arXiv's API and S2's lookup were not asked again
    # (the PDF itself comes from arxiv.org, and the citation of a DOI may be completed from Crossref).
    follow_ups = [(r.source, r.path) for r in fake_upstream.requests[searched_at[0]:]
                  if r.source in ("arxiv_api", "inspire", "europepmc")
                  or (r.source == "openalex" and r.path != "/works")  # a lookup by id, not the venue filter
                  or (r.source == "s2" and r.method == "GET" and r.path.startswith("/graph/v1/paper/"))]
    assert follow_ups == []
