"""Library items built from real recorded paper records, and an in-memory library store for index tests.

Records (shared/fixtures/upstream): S2 paper objects (PNAS and the PaperQA arXiv paper with every field, the
titled lists of citations, references, author papers, searches and recommendations, the 1,000-id bulk
search), arXiv query feeds, Europe PMC core results, Crossref and OpenAlex works; each mapped through
scholar.core.paper_mapping as the tools do. Richest records come first, so small corpora have abstracts.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache

from scholar.core import paper_mapping
from scholar.core.records import Paper
from scholar.sources import arxiv
from scholar.store.library.models import LibraryItem, item_id_for
from scholar.store.library.table import ItemExistsError
from tests.fixtures_dir import read_fixture

S2_FIELDS = ("paperId", "title", "year", "venue", "authors", "externalIds", "abstract", "publicationTypes",
             "publicationDate", "journal", "url", "citationCount", "openAccessPdf", "isOpenAccess")
_S2 = "upstream/semantic_scholar/"
_S2_LISTS = [("paper_citations_offset0.json", "citingPaper"), ("paper_references_offset0.json", "citedPaper"),
             ("paper_references_offset50_last_page.json", "citedPaper"), ("author_papers_offset0.json", None),
             ("search_paper_turing.json", None), ("search_paper_year_1936.json", None),
             ("search_paper_open_access_pdf.json", None)]
STAMP = "2026-11-30T10:00:00Z"


def _json(path: str):
    return json.loads(read_fixture(path))


def _identity(paper: Paper) -> str:
    ext = paper.externalIds or {}
    if ext.get("DOI"):
        return f"doi:{ext['DOI'].lower()}"
    if ext.get("ArXiv"):
        return f"arxiv:{ext['ArXiv']}"
    if paper.paperId:
        return f"s2:{paper.paperId}"
    return f"title:{paper.title}"


@cache
def papers() -> tuple[Paper, ...]:
    """Every distinct recorded paper, richest first."""
    found: list[Paper] = [paper_mapping.from_s2(_json(_S2 + name), S2_FIELDS)
                          for name in ("paper_by_doi_many_fields_pnas.json", "paper_by_arxiv_doi.json")]
    for name in ("query_testing_start0_max10.xml", "query_testing_start10_max10.xml"):
        feed = arxiv.parse_feed(read_fixture(f"upstream/arxiv/{name}"))
        found += [paper_mapping.from_arxiv_entry(e) for e in feed.entries]
    epmc = _json("upstream/europepmc/search_cancer_core.json")["resultList"]["result"]
    found += [paper_mapping.from_europepmc(r) for r in epmc]
    for name in ("works_by_doi_plos.json", "works_by_doi_proceedings_article.json",
                 "works_by_doi_nature_machine_intelligence.json"):
        found.append(paper_mapping.from_crossref(_json(f"upstream/crossref/{name}")["message"]))
    works = _json("upstream/crossref/works_query_ecology_rows2.json")["message"]["items"]
    found += [paper_mapping.from_crossref(m) for m in works]
    found.append(paper_mapping.from_openalex(_json("upstream/openalex/work_by_doi_pnas.json")))
    for name, key in _S2_LISTS:
        for row in _json(_S2 + name)["data"]:
            found.append(paper_mapping.from_s2(row[key] if key else row, S2_FIELDS))
    for name in ("recommendations_forpaper.json", "recommendations_from_lists.json"):
        found += [paper_mapping.from_s2(row, S2_FIELDS) for row in _json(_S2 + name)["recommendedPapers"]]
    found += [paper_mapping.from_s2(row, S2_FIELDS)
              for row in _json(_S2 + "search_paper_bulk_sorted_citationcount_desc.json")["data"]]
    seen: dict[str, Paper] = {}
    for paper in found:
        seen.setdefault(_identity(paper), paper)
    return tuple(seen.values())


def item(paper: Paper, **changes) -> LibraryItem:
    values = {
        "item_id": item_id_for(_identity(paper)),
        "ids": [_identity(paper)],
        "paper": paper.model_dump(mode="json"),
        "added_at": STAMP,
        "updated_at": STAMP,
        **changes,
    }
    return LibraryItem(**values)


def items(count: int | None = None) -> list[LibraryItem]:
    """``count`` items (all when None), one per recorded paper."""
    every = papers()
    if count is not None and count > len(every):
        raise ValueError(f"only {len(every)} recorded papers")
    return [item(p) for p in every[:count]]


class MemoryLibrary:
    """The read side of scholar.store.library.table.LibraryStore, in memory: a revision per write, a change feed."""

    def __init__(self, initial: list[LibraryItem] = ()) -> None:
        self.items: dict[str, LibraryItem] = {}
        self.log: list[tuple[int, str]] = []
        self.rev = 0
        for value in initial:
            self.put(value)

    def put(self, value: LibraryItem, create_only: bool = False) -> LibraryItem:
        if create_only and value.item_id in self.items:
            raise ItemExistsError(self.items[value.item_id])
        self.rev += 1
        stored = value.model_copy(update={"rev": self.rev})
        self.items[value.item_id] = stored
        self.log.append((self.rev, value.item_id))
        return stored

    def put_many(self, values: list[LibraryItem], *, create_only: bool = False,
                 keep_times: bool = True) -> list[LibraryItem]:
        return [self.put(v, create_only) for v in values]

    def delete(self, item_id: str) -> None:
        self.rev += 1
        self.items.pop(item_id, None)
        self.log.append((self.rev, item_id))

    def revision(self) -> int:
        return self.rev

    def get_many(self, ids: list[str]) -> dict[str, LibraryItem]:
        return {i: self.items[i] for i in ids if i in self.items}

    def changes_since(self, rev: int, until: int | None = None) -> tuple[list[str], int]:
        if self.rev <= rev:
            return [], self.rev
        reached = self.rev if until is None else min(self.rev, until)
        return list(dict.fromkeys(i for r, i in self.log if rev < r <= reached)), reached

    def iter_items(self, after: str | None = None) -> Iterator[LibraryItem]:
        return iter([v for k, v in sorted(self.items.items()) if after is None or k > after])
