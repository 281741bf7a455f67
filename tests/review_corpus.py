"""A whole literature review as an agent runs it (issue #25): search → read the best hit's first pages → BibTeX of
the top two → keep both in a collection, in six tool calls. Shared by tests/e2e/isolated/test_review_e2e.py (the
bars) and benchmarks/review_bench.py (the figures).

The best hit is PaSa (arXiv 2501.10120), a preprint only arXiv's API returns here, with its recorded PDF
(pdfs/arxiv_2501.10120v1_pasa.pdf). No arXiv API answer was recorded for it: its feed is SYNTHETIC, in the shape
of the recorded feed upstream/arxiv/id_list_1605.08386.xml, with the title, authors and abstract of the recorded
PDF's first page (the category, cs.IR, and the dates are ours, as arXiv lists the paper). S2's search row is the
recorded PNAS record in the recorded search envelope's shape (SYNTHETIC, as in the research workflow test); the
other sources answer their recordings.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.fakes.upstream import FakeUpstream
from tests.fixtures_dir import fixtures_dir

PASA = "2501.10120"
PASA_TITLE = "PaSa: An LLM Agent for Comprehensive Academic Paper Search"
QUESTION = "LLM agent for comprehensive academic paper search"
COLLECTION = "paper-search-review"
CALL_BAR = 6
CHARS_BAR = 60_000
WAIT_S = 20
_AUTHORS = ("Yichen He", "Guanhua Huang", "Peiyuan Feng", "Yuan Lin", "Yuchen Zhang", "Hang Li", "Weinan E")
_ABSTRACT = (
    "We introduce PaSa, an advanced Paper Search agent powered by large language models. PaSa can autonomously make "
    "a series of decisions, including invoking search tools, reading papers, and selecting relevant references, to "
    "ultimately obtain comprehensive and accurate results for complex scholarly queries. We optimize PaSa using "
    "reinforcement learning with a synthetic dataset, AutoScholarQuery, which includes 35k fine-grained academic "
    "queries and corresponding papers sourced from top-tier AI conference publications."
)


def synthetic_pasa_feed() -> bytes:
    """An arXiv Atom feed holding PaSa's entry (SYNTHETIC, in the recorded feed's shape; module docstring)."""
    authors = "".join(f"<author><name>{name}</name></author>" for name in _AUTHORS)
    return f"""<?xml version='1.0' encoding='UTF-8'?>
<feed xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" xmlns:arxiv="http://arxiv.org/schemas/atom"
      xmlns="http://www.w3.org/2005/Atom">
  <id>https://arxiv.org/api/synthetic-pasa</id>
  <title>arXiv Query: synthetic</title>
  <updated>2025-01-20T00:00:00Z</updated>
  <opensearch:itemsPerPage>10</opensearch:itemsPerPage>
  <opensearch:totalResults>1</opensearch:totalResults>
  <opensearch:startIndex>0</opensearch:startIndex>
  <entry>
    <id>http://arxiv.org/abs/{PASA}v1</id>
    <title>{PASA_TITLE}</title>
    <updated>2025-01-17T09:00:00Z</updated>
    <link href="https://arxiv.org/abs/{PASA}v1" rel="alternate" type="text/html"/>
    <link href="https://arxiv.org/pdf/{PASA}v1" rel="related" type="application/pdf" title="pdf"/>
    <summary>{_ABSTRACT}</summary>
    <category term="cs.IR" scheme="http://arxiv.org/schemas/atom"/>
    <category term="cs.LG" scheme="http://arxiv.org/schemas/atom"/>
    <published>2025-01-17T09:00:00Z</published>
    <arxiv:primary_category term="cs.IR"/>
    {authors}
  </entry>
</feed>
""".encode()


def install(fake: FakeUpstream) -> None:
    """The routes of the review (module docstring)."""
    up = fixtures_dir() / "upstream"
    record = json.loads((up / "semantic_scholar/paper_by_doi_many_fields_pnas.json").read_text())
    fake.add_route("GET", "s2", "/graph/v1/paper/search", content_type="application/json",
                   body=json.dumps({"total": 1, "offset": 0, "data": [record]}).encode())
    fake.add_route("GET", "s2", f"/graph/v1/paper/{record['paperId']}", content_type="application/json",
                   body=json.dumps(record).encode())
    fake.add_route("GET", "arxiv_api", "/api/query", body=synthetic_pasa_feed(), content_type="application/atom+xml")
    pdf = fixtures_dir() / "pdfs/arxiv_2501.10120v1_pasa.pdf"
    for path in (f"/pdf/{PASA}v1", f"/pdf/{PASA}"):
        fake.add_route("GET", "arxiv", path, body=pdf, content_type="application/pdf")


@dataclass
class Call:
    tool: str
    seconds: float
    chars: int


@dataclass
class Review:
    """What the agent did: each call (tool, time, characters of its result) and what it got."""

    calls: list[Call] = field(default_factory=list)
    hits: list[dict[str, Any]] = field(default_factory=list)
    read: dict[str, Any] = field(default_factory=dict)
    bibtex: str = ""
    kept: list[dict[str, Any]] = field(default_factory=list)

    @property
    def chars(self) -> int:
        return sum(c.chars for c in self.calls)


async def run_review(client: Any, *, after_search: Callable[[], None] | None = None) -> Review:
    """The agent's script: six calls (search, read_paper, one waiting poll, generate_citations, library_add × 2).

    Args:
        client: a connected ``mcp.Client``.
        after_search: called once the search answered (a test marks the fake upstream's request log there).
    """
    review = Review()

    async def call(tool: str, args: dict[str, Any]) -> dict[str, Any]:
        began = time.perf_counter()
        result = await client.call_tool(tool, args)
        body = result.structured_content
        review.calls.append(Call(tool, time.perf_counter() - began, len(json.dumps(body, ensure_ascii=False))))
        assert not result.is_error, (tool, body)
        return body

    found = await call("search", {"query": QUESTION, "limit": 5})
    review.hits = found["results"]
    if after_search is not None:
        after_search()
    best, second = review.hits[0], review.hits[1]
    read = await call("read_paper", {"identifier": best["id"], "pages": "1-2"})
    if read.get("queued"):
        polled = await call("get_task_result", {"task_id": read["task_id"], "wait_s": WAIT_S})
        read = polled.get("result") or polled
    review.read = read
    cited = await call("generate_citations", {"paper_ids": [best["id"], second["id"]], "citation_format": "bibtex"})
    review.bibtex = cited.get("content", "")
    for hit in (best, second):
        review.kept.append(await call("library_add", {"identifier": hit["id"], "collection": COLLECTION}))
    return review
