"""Library items for the connector tests, built from real recorded records (never invented papers)."""

from __future__ import annotations

import json
from functools import cache

from scholar.core.paper_mapping import from_europepmc, from_s2
from scholar.core.records import Paper
from scholar.store.library.models import LibraryItem, PdfVersion, item_id_for
from tests.fixtures_dir import fixtures_dir

# 25 real Europe PMC "core" records (journal articles with DOI, PMID, authors, abstracts): PROVENANCE there.
EPMC_CANCER = "upstream/europepmc/search_cancer_core.json"
# A real S2 record of an arXiv paper (externalIds ArXiv + DataCite DOI), and 100 + 100 real S2 titles.
S2_ARXIV = "upstream/semantic_scholar/paper_by_arxiv_doi.json"
S2_LISTS = ("upstream/semantic_scholar/search_paper_turing.json",
            "upstream/semantic_scholar/recommendations_forpaper.json")
NOW = "2026-12-01T12:00:00Z"


@cache
def _epmc() -> tuple[dict, ...]:
    return tuple(json.loads((fixtures_dir() / EPMC_CANCER).read_text())["resultList"]["result"])


def _item(paper: Paper, identity: str, collection: str, **extra: object) -> LibraryItem:
    return LibraryItem(item_id=item_id_for(identity), collection=collection, ids=[identity], added_at=NOW,
                       updated_at=NOW, paper=paper.model_dump(mode="json"), **extra)  # type: ignore[arg-type]  # fields by name


def epmc_items(n: int, collection: str = "reading") -> list[LibraryItem]:
    """The first ``n`` recorded Europe PMC records as items of ``collection``."""
    items = []
    for record in _epmc()[:n]:
        paper = from_europepmc(record)
        items.append(_item(paper, f"pmid:{record.get('pmid') or record['id']}", collection))
    return items


def arxiv_item(collection: str = "reading") -> LibraryItem:
    record = json.loads((fixtures_dir() / S2_ARXIV).read_text())
    paper = from_s2(record, tuple(record))
    return _item(paper, f"s2:{record['paperId']}", collection)


def many_items(n: int, collection: str = "bench") -> list[LibraryItem]:
    """``n`` items (at most 200) from the recorded S2 lists (titles and ids)."""
    records = [r for name in S2_LISTS for r in json.loads((fixtures_dir() / name).read_text()).get("data")
               or json.loads((fixtures_dir() / name).read_text())["recommendedPapers"]]
    return [_item(from_s2(r, ("paperId", "title")), f"s2:{r['paperId']}", collection) for r in records[:n]]


def with_pdf(item: LibraryItem, data: bytes, sha256: str) -> LibraryItem:
    pdf = PdfVersion(pdf_path=f"pdfs/{sha256}.pdf", sha256=sha256, size_bytes=len(data), version="published",
                     pdf_source="url", source_url="https://example.org/paper.pdf", kept_at=NOW)
    return item.model_copy(update={"pdfs": [pdf]})
