"""One search adapter per scholarly source, each answering the shared ``Paper`` record.

A federated search (scholar.families.research) asks every source whose registry entry can ``search``. Semantic
sources get the question as written (``SearchQuery.text``); keyword sources get compact terms
(``SearchQuery.terms``), each adapter writing them in its own query syntax. Adapters raise the typed
errors of scholar.sources.http: a failing source is never an empty list.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from scholar.core.paper_mapping import (
    from_arxiv_entry,
    from_crossref,
    from_europepmc,
    from_inspire,
    from_openalex,
    from_s2,
)
from scholar.core.records import Paper
from scholar.sources import arxiv, crossref, europepmc, inspire, openalex, s2


@dataclass(frozen=True)
class SearchQuery:
    """The question as written and its compact keyword form (quoted phrases and ``field:value`` kept whole)."""

    text: str
    terms: tuple[str, ...]

    def keywords(self) -> str:
        return " ".join(self.terms) or self.text


SearchAdapter = Callable[[SearchQuery, int], Awaitable[list[Paper]]]

S2_FIELDS = (
    "paperId", "title", "year", "venue", "citationCount", "authors", "externalIds", "abstract", "openAccessPdf",
    "fieldsOfStudy", "isOpenAccess", "publicationDate", "publicationTypes", "journal", "url",
)
_ARXIV_PREFIX = re.compile(r"^(ti|au|abs|co|jr|cat|rn|id|all):", re.IGNORECASE)
_JATS_TAG = re.compile(r"<[^>]+>")


async def search_s2(query: SearchQuery, limit: int) -> list[Paper]:
    params = {"query": query.text, "fields": ",".join(S2_FIELDS), "offset": "0", "limit": str(limit)}
    data = await s2.search_papers(params, bulk=False)
    return [from_s2(row, S2_FIELDS) for row in data.get("data") or [] if isinstance(row, dict)]


async def search_openalex(query: SearchQuery, limit: int) -> list[Paper]:
    return [from_openalex(work) for work in await openalex.search_works(query.keywords(), limit=limit)]


async def search_crossref(query: SearchQuery, limit: int) -> list[Paper]:
    papers = []
    for item in await crossref.search_works(query.keywords(), rows=limit):
        paper = from_crossref(item)
        if abstract := item.get("abstract"):  # JATS XML: keep the words
            paper = paper.model_copy(update={"abstract": " ".join(_JATS_TAG.sub(" ", abstract).split()) or None})
        papers.append(paper)
    return papers


def arxiv_query(terms: tuple[str, ...]) -> str:
    """arXiv's query syntax: every term required, in any field unless the user named one (``ti:``, ``au:`` …)."""
    return " AND ".join(term if _ARXIV_PREFIX.match(term) else f"all:{term}" for term in terms)


async def search_arxiv(query: SearchQuery, limit: int) -> list[Paper]:
    params = {"search_query": arxiv_query(query.terms or (query.text,)), "start": "0", "max_results": str(limit),
              "sortBy": "relevance", "sortOrder": "descending"}
    feed = await arxiv.query(params)
    return [from_arxiv_entry(entry) for entry in feed.entries]


async def search_europepmc(query: SearchQuery, limit: int) -> list[Paper]:
    return [from_europepmc(result) for result in await europepmc.search_core(query.keywords(), page_size=limit)]


async def search_inspire(query: SearchQuery, limit: int) -> list[Paper]:
    return [from_inspire(hit) for hit in await inspire.search_literature(query.keywords(), size=limit)]


# Registry name → adapter (scholar.sources.registry states what each source can do).
ADAPTERS: dict[str, SearchAdapter] = {
    "s2": search_s2,
    "openalex": search_openalex,
    "crossref": search_crossref,
    "arxiv_api": search_arxiv,
    "europepmc": search_europepmc,
    "inspire": search_inspire,
}
