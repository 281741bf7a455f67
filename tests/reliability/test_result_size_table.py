"""Every tool's largest answer fits the size it advertises, never refused for its length (issue #31 item 12).

One row per tool of the catalogue (a new tool fails ``test_the_table_covers_every_tool_of_the_catalogue`` until it
has one): either its largest answer, built here from real recorded records (Semantic Scholar, arXiv, OpenAlex, Open
Library, EPO OPS, the standards catalogues) repeated to the tool's input and storage bounds and passed through the
tool's own cut, or the test elsewhere that builds it. An answer is measured twice: as a client reads it (every
content block the gateway sends, a graph's picture included) and as the runtime measures it
(``runtime.results.enforce_cap``, the JSON with its escaping). A tool with no hint answers at most 20,000 characters;
a tool with one answers within it, so the runtime's refusal (``result_over_advertised_size``) never fires.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from lxml import etree
from mcp import types
from pydantic import BaseModel

from scholar.core.budget import RESERVE, fit, fit_field, fit_paper, fit_papers, shorten_for_list
from scholar.core.catalogue import MAX_RESULT_CHARS
from scholar.core.errors import TooLargeError
from scholar.core.matching import Candidate, MatchedBy
from scholar.core.paper_mapping import from_s2
from scholar.core.records import Author
from scholar.families import all_tools, result_size_hint
from scholar.families.arxiv.metadata import to_paper
from scholar.families.arxiv.spec import MAX_IDS as ARXIV_IDS
from scholar.families.arxiv.spec import GetPapersResult, ListCategoriesResult, SearchResult
from scholar.families.arxiv.taxonomy import CATEGORIES
from scholar.families.books.lookup import fit_book
from scholar.families.books.models import BookList, BookRecommendations, BookResult
from scholar.families.books.records import from_edition, from_search_doc
from scholar.families.papers import enrich, graph_formats
from scholar.families.papers.batch import _fit as batch_fit
from scholar.families.papers.bridge import fit_path
from scholar.families.papers.check import _fit as check_fit
from scholar.families.papers.fields import FULL
from scholar.families.papers.graph import _fit as graph_fit
from scholar.families.papers.spec import PaperResult, SearchPapersResult
from scholar.families.papers.spec_check import CheckedReference, CheckReferencesResult
from scholar.families.papers.spec_export import (
    BatchResolveResult,
    Concept,
    EnrichPaperResult,
    Funder,
    ResolvedItem,
    Topic,
)
from scholar.families.papers.spec_graph import (
    BridgeStats,
    FindBridgePapersResult,
    GetAuthorResult,
    GetCitationGraphResult,
    GraphEdge,
    GraphNode,
    GraphStats,
    RecommendPapersResult,
)
from scholar.families.patents.models import CitingPatent, CitingPatentsResult, PatentPdfResult
from scholar.families.patents.search import parse_search
from scholar.families.patents.spec import FetchPatentPdfInput
from scholar.families.pdf.spec import UploadPdfResult
from scholar.families.research.connectors.handlers import _answer as sync_answer
from scholar.families.research.connectors.spec import LibraryConnectionsResult
from scholar.families.research.library_tools.handlers import entry_of, get_result, record_of
from scholar.families.research.library_tools.index_spec import LibraryHit, LibraryImportResult, LibrarySearchResult
from scholar.families.research.library_tools.spec import (
    LIST_LIMIT,
    MAX_IDS,
    CollectionEntry,
    LibraryAddResult,
    LibraryCollectionsResult,
    LibraryListResult,
    LibraryRemoveEntry,
    LibraryRemoveResult,
    LibraryUpdateResult,
)
from scholar.families.research.operations.server_info import server_info
from scholar.families.research.operations.spec import SourceHealthResult
from scholar.families.research.search.hits import fit as hits_fit
from scholar.families.standards.handlers import _compact
from scholar.families.standards.records import BODIES
from scholar.families.standards.runs import MAX_ERROR_CHARS, MAX_ERROR_SAMPLES, SyncRun
from scholar.families.standards.spec import ResolveResult, SyncStatusResult, VersionRef
from scholar.families.standards.spec import SearchResult as StandardsSearchResult
from scholar.families.tasks.spec import TaskList, TaskSummary
from scholar.gateway.mcp.dispatch import success_result
from scholar.gateway.mcp.tools import MAX_RESULT_META, wire_tool
from scholar.runtime.results import dump_result, enforce_cap
from scholar.services.connectors.outcome import ItemOutcome, SyncReport
from scholar.services.fulltext.keep_result import DownloadPaperResult, FoundPdf
from scholar.services.fulltext.locate import MAX_AUTHORS as SUMMARY_AUTHORS
from scholar.services.fulltext.models import Attempt, PaperSummary
from scholar.services.fulltext.pdf_results import FetchPaperPdfResult, fit_outcome
from scholar.services.health.doctor import Finding
from scholar.services.health.report import Figures, SourceHealth, known_sources
from scholar.services.library.find import Found
from scholar.sources import arxiv
from scholar.sources.openlibrary.mapping import edition_from_json, search_doc_from_json, work_from_json
from scholar.sources.openlibrary.models import EditionsPage
from scholar.store.connections import Connection
from scholar.store.library.bounds import (
    MAX_ABSTRACT_CHARS,
    MAX_AUTHORS,
    MAX_ID_CHARS,
    MAX_PDFS,
    MAX_TITLE_CHARS,
    MAX_URL_CHARS,
    MAX_VENUE_CHARS,
)
from scholar.store.library.bounds import MAX_IDS as ITEM_IDS
from scholar.store.library.models import MAX_NOTES_CHARS, MAX_TAGS, LibraryItem, PdfVersion
from scholar.store.tasks import new_task_id
from tests.fixtures_dir import fixtures_dir
from tests.standards.records_from_fixtures import all_records

LONG = 20_000  # past this an answer needs a hint
KEEP = "2026-01-01T00:00:00Z"


def _upstream(path: str) -> Path:
    return fixtures_dir() / "upstream" / path


def _json(path: str) -> Any:
    return json.loads(_upstream(path).read_text())


def sent_chars(answer: dict[str, Any]) -> int:
    """Characters of every content block tools/call sends for ``answer``."""
    size = 0
    for block in success_result(answer).content:
        if isinstance(block, types.TextContent):
            size += len(block.text)
        elif isinstance(block, types.ImageContent):
            size += len(block.data)
        else:
            size += len(block.model_dump_json())
    return size


def measured_chars(answer: dict[str, Any]) -> int:
    """Characters as the runtime measures an answer against its hint: the whole result as JSON, escaping included."""
    return len(json.dumps(answer, ensure_ascii=False, separators=(",", ":")))


def stretched(text: str, n: int) -> str:
    """A real text repeated to ``n`` characters (a field at its bound)."""
    return (text * (n // max(1, len(text)) + 1))[:n]


def many(items: list[Any], n: int) -> list[Any]:
    return (items * n)[:n]


# ------------------------------------------------------------------------------------------------ recorded records

def arxiv_papers() -> list[Any]:
    feed = arxiv.parse_feed(_upstream("arxiv/query_testing_start0_max10.xml").read_bytes())
    return [to_paper(e) for e in feed.entries]


def abstract() -> str:
    """A real abstract (arXiv's first recorded summary)."""
    return arxiv_papers()[0].abstract


def paper(authors: int = 0) -> Any:
    """The recorded PNAS record in full; with ``authors``, its real author entries repeated to that many (a
    collaboration: they sign with 3,000 to 5,200)."""
    record = from_s2(_json("semantic_scholar/paper_by_doi_many_fields_pnas.json"), FULL)
    if authors:
        real = record.authors or [Author(name="A. Author")]
        record = record.model_copy(update={"authors": many(real, authors)})
    return record


def books() -> list[Any]:
    docs = _json("openlibrary/search_this-is-how-you-lose-the-time-war.json")["docs"]
    return [from_search_doc(search_doc_from_json(d)) for d in docs]


def standards() -> list[Any]:
    """The recorded catalogue records, largest first."""
    return sorted(all_records(fixtures_dir() / "upstream"), key=lambda r: -len(r.model_dump_json()))


# ------------------------------------------------------------------------------------------------ the library

def pdf_version(n: int) -> PdfVersion:
    url = paper().openAccessPdf.url if paper().openAccessPdf else "https://www.pnas.org/doi/pdf/10.1073/pnas"
    return PdfVersion(pdf_path=f"pdfs/{n:064x}.pdf", sha256=f"{n:064x}", size_bytes=50_000_000, version="published",
                      pdf_source="publisher", source_url=stretched(url, MAX_URL_CHARS), kept_at=KEEP)


def library_item() -> LibraryItem:
    """A stored item with every field at its bound (scholar.store.library.bounds), from the recorded PNAS record."""
    record = paper(MAX_AUTHORS)
    full = record.model_copy(update={
        "title": stretched(record.title or "", MAX_TITLE_CHARS), "abstract": stretched(abstract(), MAX_ABSTRACT_CHARS),
        "tldr": stretched(abstract(), MAX_ABSTRACT_CHARS), "venue": stretched(record.venue or "", MAX_VENUE_CHARS),
        "externalIds": {f"{k}{n}": stretched(v, MAX_ID_CHARS) for n, (k, v) in
                        enumerate(many(list((record.externalIds or {}).items()), ITEM_IDS))},
    })
    doi = (record.externalIds or {}).get("DOI", "10.1073/pnas")
    return LibraryItem(item_id="lib_" + "0" * 20, collection=stretched("thesis ", 79) + "x",
                       ids=[stretched(f"doi:{doi}/{n}", MAX_ID_CHARS) for n in range(ITEM_IDS)],
                       paper=full.model_dump(mode="json"), tags=[stretched(f"t{n}-", 50) for n in range(MAX_TAGS)],
                       notes=stretched(abstract(), MAX_NOTES_CHARS), pdfs=[pdf_version(n) for n in range(MAX_PDFS)],
                       md_path=f"md/{0:064x}.md", added_at=KEEP, updated_at=KEEP)


def library_get() -> BaseModel:
    ids = [stretched(f"doi:10.1073/pnas.{n}/", 300) for n in range(MAX_IDS)]
    return get_result([Found(identifier=i, item=library_item()) for i in ids], ids)


# ------------------------------------------------------------------------------------------------ papers

def batch_resolve() -> BaseModel:
    items = [ResolvedItem(input=stretched(f"10.1073/pnas.{n}, p. ", 500), status="ok", source_type="paper",
                          paper=paper(3_000)) for n in range(100)]
    kept, truncated = batch_fit(items)
    return BatchResolveResult(items=kept, counts={"ok": 100}, failed_sources=[], truncated=truncated)


def check_references() -> BaseModel:
    """100 matched references at their longest: the input cut to its 300 shown characters, the recorded PNAS
    record's title stretched to 2,000 characters, every disagreement and five candidates each, and the BibTeX."""
    record = paper(3_000)
    title = stretched(record.title or "", 2_000)
    candidate = Candidate(title=title, year=2014, first_author="a" * 300, venue="v" * 300,
                          identifiers=["10.1073/pnas." + "1" * 280] * 7, source="crossref", confidence=0.81)
    item = CheckedReference(input="r" * 300, status="matched", identifiers=["10.1073/pnas." + "1" * 280] * 7,
                            title=title, year=2014, authors=["a" * 300] * 3, venue="v" * 300,
                            matched_by=MatchedBy(source="crossref", check="title"), confidence=0.95,
                            disagreements={k: "d" * 600 for k in ("year", "authors", "venue", "title")},
                            candidates=[candidate] * 5)
    return check_fit(CheckReferencesResult(items=[item] * 100, summary={"matched": 100}, bibtex="b" * 200_000,
                                           failed_sources=[]))


def enrich_paper() -> BaseModel:
    """Every list at MAX_ITEMS from the recorded OpenAlex work, funders in OpenAlex's current shape (as
    tests/papers/test_enrich_paper.py fills them) with MAX_ITEMS award ids each."""
    work = _json("openalex/work_by_doi_pnas.json")
    names = enrich.affiliations(work) or ["Stanford University"]
    n = enrich.MAX_ITEMS
    return enrich.fit(EnrichPaperResult(
        doi="10.1073/pnas.1414271111", openalex_id=work["id"].rsplit("/", 1)[-1], sources=["openalex"],
        affiliations=[f"{name} ({i})" for i, name in enumerate(many(names, n))],
        funders=[Funder(name=f"National Institutes of Health ({i})", award_ids=[f"R01AR0{j:05d}" for j in range(n)])
                 for i in range(n)],
        oa_status=enrich.open_access(work), topics=many(enrich.topics(work), n) or [Topic(name="t")],
        concepts=many(enrich.concepts(work), n) or [Concept(name="c")], failed_sources=[],
    ))


def citing_patents() -> BaseModel:
    page = parse_search(_upstream("epo_ops/search_ti-battery_range1-5.xml").read_bytes(), 0, 5, "ti=battery")
    patents = [CitingPatent(patent_id=r.patent_id, publication_number=r.publication_number, title=r.title,
                            publication_date=r.publication_date, applicants=r.applicants, family_id=r.family_id,
                            matched_on="title") for r in many(page.references, 25)]
    result = CitingPatentsResult(paper_id=stretched("10.1073/", 300), doi=stretched("10.1073/", 300),
                                 title=stretched(paper().title or "", 2_000), patents=patents, total_count=10_000,
                                 effective_query=stretched('ct="', 2_000), note="n" * 200)
    return fit_field(result, "patents", flag="truncated")[0]


def patent_pdf() -> BaseModel:
    """The largest Markdown page fetch_patent_pdf gives (max_chars at its bound) of the recorded description."""
    text = " ".join(etree.fromstring(_upstream("epo_ops/description_EP2400812A1.xml").read_bytes()).itertext())
    cap = FetchPatentPdfInput.model_fields["max_chars"].metadata[-1].le
    return PatentPdfResult(patent_number="EP2400812A1", patent_id="EP.2400812.A1", pdf_path=f"pdfs/{0:064x}.pdf",
                           pdf_sha256=f"{0:064x}", pages=120, pdf_download_url="https://x.test/" + "u" * 1_500,
                           md_path=f"md/{0:064x}.md", markdown=stretched(text, cap), markdown_source="ops_fulltext",
                           markdown_next_offset=cap)


def graph(fmt: str, title_chars: int = 0, nodes: int = 500) -> dict[str, Any]:
    """A graph at max_nodes with four times as many edges, cut by graph._fit as the tool cuts it; real arXiv titles
    (or their text stretched to ``title_chars``), with the picture ``fmt`` asks for."""
    titles = [p.title for p in arxiv_papers()]
    if title_chars:
        titles = [stretched(t + " ", title_chars) for t in titles]
    made = [GraphNode(id=f"{i:040x}", title=titles[i % len(titles)], year=2020, citationCount=123_456,
                      doi=f"10.1103/physrevlett.{i:09d}", depth=1 + i % 3, first_author=a.name)
            for i, a in zip(range(nodes), many(paper().authors or [], nodes), strict=True)]
    edges = [GraphEdge(source=made[i].id, target=made[(i * 7 + k) % nodes].id)
             for i in range(nodes) for k in (1, 2, 3, 4)]

    class Reader:
        merged = True  # the larger edges: each names the sources that list it

    class Walk:
        truncated_by: list[str] = []
        reader = Reader()

        def stop(self, why: str) -> None:
            self.truncated_by.append(why)

    kept, kept_edges, omitted = graph_fit(made, edges, Walk())
    result = GetCitationGraphResult(nodes=kept, edges=kept_edges, failed_sources=[], stats=GraphStats(
        total_nodes=len(kept), total_edges=len(kept_edges), depth_reached=3, truncated=True, expanded=nodes,
        edges_omitted=omitted))
    if fmt != "json":
        result.extra_content = [graph_formats.render(graph_formats.graph_picture(result), fmt)]
    return dump_result(result)


def bridge(fmt: str, authors: int = 190) -> dict[str, Any]:
    """A path at max_depth (6 hops, 7 papers) of papers with ``authors`` each (190: each just under its share of the
    budget, the longest path kept whole), as find_bridge shortens it."""
    path = fit_path([paper(authors).model_copy(update={"paperId": f"{i:040x}"}) for i in range(7)])
    hops = [GraphEdge(source=path[i].paperId or "", target=path[i + 1].paperId or "") for i in range(6)]
    result = FindBridgePapersResult(found=True, length=6, path=path, hops=hops, failed_sources=[],
                                    stats=BridgeStats(expanded=10_000, visited=10**6, exhaustive=False,
                                                      elapsed_s=25.0))
    if fmt != "json":
        result.extra_content = [graph_formats.render(graph_formats.bridge_picture(result), fmt)]
    return dump_result(result)


# ------------------------------------------------------------------------------------------------ the rest

def get_book() -> BaseModel:
    """The recorded edition and work, the work's description as long as a whole book, a page of 100 editions."""
    edition = edition_from_json(_json("openlibrary/books_OL22951843M.json"))
    work = work_from_json(_json("openlibrary/works_OL15832982W.json"))
    work = work.model_copy(update={"description": stretched(work.description or abstract(), 1_000_000)})
    book = BookResult.model_validate(from_edition(edition, work, ["Ursula K. Le Guin"], edition_count=10_000,
                                                  about_work=True).model_dump())
    entries = _json("openlibrary/works_OL27258W_editions_limit10_offset0.json")["entries"]
    listing = EditionsPage(work_id=work.id, entries=[edition_from_json(e) for e in many(entries, 100)], offset=0,
                           limit=100, total=10_000)
    return fit_book(book, listing)


def attempts(n: int = 100) -> list[Attempt]:
    """Attempts at every location OpenAlex and Unpaywall list (their real URLs), each refused with a message."""
    url = paper().openAccessPdf.url if paper().openAccessPdf else "https://www.pnas.org/doi/pdf/10.1073/pnas"
    return [Attempt(source="openalex", url=stretched(f"{url}?v={i}&", 500), ok=False, code="upstream_error",
                    reason="not_a_pdf", status=200, retryable=False,
                    message="the page at this location is an HTML landing page, not a PDF") for i in range(n)]


def summary() -> PaperSummary:
    record = paper()
    return PaperSummary(paper_id=record.paperId, title=record.title, year=record.year, venue=record.venue,
                        authors=[a.name or "" for a in many(record.authors or [], SUMMARY_AUTHORS)],
                        doi=(record.externalIds or {}).get("DOI"), url=record.url)


def download_paper() -> BaseModel:
    found = [FoundPdf(version="accepted", pdf_source="openalex", source_url=a.url, sha256=f"{i:064x}",
                      size_bytes=10**7) for i, a in enumerate(attempts())]
    best = pdf_version(0)
    return fit_outcome(DownloadPaperResult(
        pdf_path=best.pdf_path, pdf_url="https://x.test/" + "u" * 1_500, pdf_url_expires_s=900,
        pdf_source="publisher", source_url=best.source_url, sha256=best.sha256, size_bytes=best.size_bytes,
        attempts=attempts(), item_id="lib_" + "0" * 20, collection="c" * 80, version="published",
        prefer="published", newly_kept=True, also_found=found, versions=[pdf_version(n) for n in range(MAX_PDFS)],
        md_path=f"md/{0:064x}.md", metadata=summary()))


def fetch_paper_pdf() -> BaseModel:
    best = pdf_version(0)
    return fit_outcome(FetchPaperPdfResult(
        pdf_path=best.pdf_path, pdf_url="https://x.test/" + "u" * 1_500, pdf_url_expires_s=900,
        pdf_source="publisher", source_url=best.source_url, sha256=best.sha256, size_bytes=best.size_bytes,
        attempts=attempts(), metadata=summary()))


def source_health() -> BaseModel:
    """Every known source, each window with every error and outcome kind, and every finding."""
    figures = Figures(calls=10**6, success_rate=0.123456, requests=10**6, failure_share=0.123456, p50_ms=10_000,
                      p95_ms=60_000, error_mix={str(s): 10**5 for s in (*range(400, 432), *range(500, 512))}
                      | {"timeout": 10**5, "connect": 10**5},
                      outcomes={c: 10**5 for c in ("ok", "queued", "invalid_argument", "not_found", "rate_limited",
                                                    "upstream_error", "timeout", "unavailable", "too_large",
                                                    "forbidden", "internal", "cancelled")},
                      missing_abstract_share=0.123456, empty_answers=10**5)
    kinds = ("started_failing", "went_quiet", "lost_abstracts", "slowed", "throttled", "not_enough_history")
    healths = [SourceHealth(source=s, status="degraded", last_hour=figures, last_24h=figures, last_7d=figures,
                            findings=[Finding(source=s, kind=k, message="m" * 200,  # type: ignore[arg-type]
                                              evidence={f"e{i}": 0.123456 for i in range(6)}) for k in kinds])
               for s in known_sources()]
    result = SourceHealthResult(generated_at=1.0, recent_window_s=3600, history_window_s=604_800, sources=healths)
    return fit_field(result, "sources", flag="truncated")[0]


def library_sync() -> BaseModel:
    report = SyncReport(target="zotero", direction="pull", library="users/" + "9" * 20, collection="c" * 80,
                        results=[ItemOutcome(item_id="lib_" + "0" * 20, key="ABCD1234",
                                             title=stretched(paper().title or "", MAX_TITLE_CHARS), status="failed",
                                             code=412, message="m" * 300) for _ in range(1_000)])
    return sync_answer(report)


def sync_of(n: int) -> BaseModel:
    """``n`` pulled items with the recorded PNAS title."""
    return sync_answer(SyncReport(target="zotero", direction="pull", library="users/1", results=[
        ItemOutcome(item_id="lib_" + "0" * 20, key="ABCD1234", title=paper().title, status="created")] * n))


LARGEST: dict[str, Callable[[], BaseModel | dict[str, Any]]] = {
    "arxiv_search": lambda: SearchResult(papers=fit(many(arxiv_papers(), 50))[0], effectiveQuery="q" * 1000,
                                         totalFound=10**6, pageStart=0, truncated=True, shown=50, cap=50),
    "arxiv_get_papers": lambda: GetPapersResult(papers=fit(many(arxiv_papers(), ARXIV_IDS))[0],
                                                totalSucceeded=ARXIV_IDS),
    "arxiv_list_categories": lambda: ListCategoriesResult(
        categories=[{"code": c.code, "name": c.name, "group": c.group} for c in CATEGORIES],
        totalCount=len(CATEGORIES)),
    "search_papers": lambda: SearchPapersResult(data=fit_papers(many([paper(3_000)], 100))[0], total=10**6,
                                                offset=0, sort="relevance", truncated=True),
    "get_paper": lambda: PaperResult.model_validate(fit_paper(paper(5_200)).model_dump()),
    "recommend_papers": lambda: RecommendPapersResult(data=fit_papers(many([paper(3_000)], 100))[0],
                                                      unresolved=[stretched("10.1073/", 300)] * 10, truncated=True),
    "get_author": lambda: GetAuthorResult(mode="profile", papers=fit(many([shorten_for_list(paper())], 100))[0]),
    "batch_resolve": batch_resolve,
    "check_references": check_references,
    "enrich_paper": enrich_paper,
    "get_citation_graph": lambda: graph("graphml"),
    "find_bridge_papers": lambda: bridge("graphml"),
    "get_citing_patents": citing_patents,
    "fetch_patent_pdf": patent_pdf,
    "search_books": lambda: BookList(books=fit(many(books(), 50))[0], strategy="title"),
    "recommend_books": lambda: BookRecommendations(subject="s" * 200, books=fit(many(books(), 50))[0]),
    "get_book": get_book,
    "library_add": lambda: LibraryAddResult(item=record_of(library_item()), created=True),
    "library_update": lambda: LibraryUpdateResult(item=record_of(library_item()), changed=True),
    "library_get": library_get,
    "library_list": lambda: LibraryListResult(items=hits_fit([entry_of(library_item())] * LIST_LIMIT)[0],
                                              next_cursor="c" * 500, library_items=10**6, truncated=True),
    "library_search": lambda: LibrarySearchResult(
        query="q" * 500, hits=fit([LibraryHit(item_id="lib_" + "0" * 20, title=stretched(paper().title or "", 300),
                                              year=2014, collection="c" * 80, score=123.456789,
                                              snippet=stretched(abstract(), 600),
                                              matched_fields=["title", "authors", "abstract", "notes", "tags", "body"])
                                    for _ in range(50)], reserve=RESERVE + 500)[0],
        total=10**6, offset=10**6, next_cursor="c" * 500, match="as_written", index_revision=10**6),
    "library_remove": lambda: LibraryRemoveResult(results=[LibraryRemoveEntry(
        id=f"{n:0300d}", status="not_found", message="your library has no item for this identifier")
        for n in range(MAX_IDS)], removed=0),
    "library_collections": lambda: fit_field(LibraryCollectionsResult(
        action="rename", moved=10**6, library_items=10**6,
        collections=[CollectionEntry(name=f"{n:080d}", items=10**6, created_at=KEEP) for n in range(5_000)]),
        "collections", flag="truncated")[0],
    "library_connections": lambda: LibraryConnectionsResult(
        connections=[Connection(target=t, library="users/" + "9" * 300, created_at=1_767_225_600, has_key=True)
                     for t in ("zotero", "zotero_local", "bibtex", "obsidian")],
        machine="keyring " + "k" * 300, removed=True, connect_url="https://x.test/connect?" + "t" * 2_000),
    "library_import": lambda: LibraryImportResult(items=10**6, added=10**6, updated=10**6, skipped=10**6,
                                                  exported_at=KEEP, collection="c" * 80),
    "library_sync": library_sync,
    "download_paper": download_paper,
    "fetch_paper_pdf": fetch_paper_pdf,
    "search_standards": lambda: fit_field(StandardsSearchResult(
        results=[_compact(r) for r in many(standards()[:5], 50)], partial=True,
        failed_bodies=list(BODIES), warning="w" * 2_000, catalogue_version="v" * 100), "results", flag="truncated")[0],
    # The larger of its two answers: the candidates of an ambiguous citation (a resolved one is a record and at
    # most 25 other versions).
    "resolve_standard_identifier": lambda: fit_field(ResolveResult(
        ambiguous=True, candidates=[_compact(r) for r in many(standards()[:5], 500)], matched_by="identifier",
        other_versions=[VersionRef(id=r.id, identifier=r.identifier, status=r.status, published=r.published)
                        for r in standards()[:25]]), "candidates", flag="truncated")[0],
    "get_sync_status": lambda: SyncStatusResult(runs=[SyncRun(
        body=b, upstream_ref="sha256:" + "0" * 64, added=10**6, updated=10**6, unchanged=10**6, withdrawn=10**6,
        errors=[stretched(f"{b}: {abstract()}", MAX_ERROR_CHARS) for _ in range(MAX_ERROR_SAMPLES)],
        error_count=10**6, started_at=1_767_225_600.123456, finished_at=1_767_225_600.123456, outcome="partial")
        for b in BODIES]),
    "source_health": source_health,
    "get_server_info": lambda: server_info("p" * 300),
    # A presigned POST's policy and signature fields at their longest: a 2,000-character key and policy each.
    "upload_pdf": lambda: UploadPdfResult(
        ref="upload/" + "t" * 64, upload_url="https://" + "b" * 63 + ".s3.amazonaws.com/", method="POST",
        fields={k: "v" * 2_000 for k in ("key", "policy", "x-amz-signature", "x-amz-credential", "x-amz-date",
                                          "x-amz-algorithm", "x-amz-security-token", "Content-Type")},
        max_bytes=10**9, expires_at=KEEP, example="curl " + "e" * 2_000, then="t" * 300),
    "list_tasks": lambda: TaskList(tasks=[TaskSummary(task_id=new_task_id(), status="cancelled",
                                                      tool=max(all_tools(), key=len), created_at=1_767_225_600.123456,
                                                      elapsed_s=86_400.123456) for _ in range(100)], total=100),
}

# Tools whose largest answer another test builds, measured against the same hint.
PDF_PAGE = "tests/pdf/test_tools.py::test_the_longest_page_as_sent_stays_under_the_tools_advertised_result_size"
CAPS = "tests/unit/test_listing_weight.py::test_each_advertised_result_size_is_the_cap_its_code_enforces"
CITATION_PAGE = "tests/papers/test_get_references.py::test_a_page_over_the_size_budget_is_cut_with_a_continuation"
ELSEWHERE: dict[str, str] = {
    "arxiv_read_paper": "tests/arxiv/test_arxiv_read_paper.py::"
                        "test_the_longest_slice_as_sent_stays_under_the_tools_advertised_result_size",
    "read_paper": "tests/research/test_read_paper_tool.py::"
                  "test_the_longest_read_as_sent_stays_under_the_tools_advertised_result_size",
    "fetch_and_convert": PDF_PAGE,
    "convert_pdf_to_markdown": PDF_PAGE,
    # fetch_pdf_by_url pages the same Markdown with the same fields (pdf_results.MarkdownFields).
    "fetch_pdf_by_url": PDF_PAGE,
    # fetch's text is read_paper's whole pages, at most FETCH_MAX_CHARS.
    "fetch": CAPS,
    "get_standard": "tests/reliability/test_result_size_hints.py::"
                    "test_the_whole_text_of_a_standard_stops_at_its_cap_and_says_where_to_go_on",
    "get_book_excerpt": "tests/reliability/test_result_size_hints.py::"
                        "test_a_book_excerpt_with_a_million_character_description_stays_within_its_advertised_size",
    # A task's result is the answer of the tool that queued it: the largest of their hints.
    "get_task_result": CAPS,
    "get_job_result": CAPS,
    "library_export": "tests/library/test_export_tools.py::"
                      "test_an_export_over_the_size_budget_answers_a_reference_and_a_link_instead_of_the_text",
    "search": "tests/research/test_research_hits.py::test_a_page_is_cut_to_the_size_budget_and_says_so",
    "search_patents": "tests/patents/test_search_patents.py::"
                      "test_a_page_over_the_size_budget_has_its_abstracts_shortened_and_says_so",
    "get_patent": "tests/patents/test_get_patent.py::"
                  "test_an_answer_over_the_size_budget_shortens_the_description_then_keeps_the_latest_legal_events",
    "generate_citations": "tests/papers/test_generate_citations.py::"
                          "test_entries_over_the_size_budget_are_listed_as_too_large",
    # get_citations and get_references page one citation listing through the same cut (papers.citations._fit).
    "get_references": CITATION_PAGE,
    "get_citations": CITATION_PAGE,
}


def _answer(tool: str) -> dict[str, Any]:
    built = LARGEST[tool]()
    return built if isinstance(built, dict) else dump_result(built)


def test_the_table_covers_every_tool_of_the_catalogue():
    assert not set(LARGEST) & set(ELSEWHERE)
    assert set(LARGEST) | set(ELSEWHERE) == set(all_tools())
    root = Path(__file__).resolve().parents[2]
    for tool, where in ELSEWHERE.items():
        path, name = where.split("::")
        assert f"def {name}(" in (root / path).read_text(), (tool, where)
        assert wire_tool(tool).meta == {MAX_RESULT_META: result_size_hint(all_tools()[tool])}, tool


@pytest.mark.parametrize("tool", sorted(LARGEST))
def test_the_largest_answer_of_each_tool_fits_the_size_it_advertises(tool):
    answer = _answer(tool)
    sent, measured, hint = sent_chars(answer), measured_chars(answer), result_size_hint(all_tools()[tool])
    if hint is None:
        assert wire_tool(tool).meta is None
        assert max(sent, measured) <= LONG, f"{tool} answers up to {max(sent, measured):,} characters with no hint"
        return
    assert wire_tool(tool).meta == {MAX_RESULT_META: hint}
    assert sent <= hint and measured <= hint, (tool, sent, measured, hint)
    enforce_cap(tool, answer, all_tools()[tool].max_result_chars)  # never refused for its length


# Answers the data makes before any cut: each passes 20,000 characters, so its tool needs the hint it has.
UNCUT: dict[str, Callable[[], BaseModel]] = {
    "arxiv_search": lambda: SearchResult(papers=many(arxiv_papers(), 50), effectiveQuery="q", totalFound=50,
                                         pageStart=0, truncated=False, shown=50, cap=50),
    "search_papers": lambda: SearchPapersResult(data=many([shorten_for_list(paper(50))], 100), total=100, offset=0,
                                                sort="relevance"),
    "get_paper": lambda: PaperResult.model_validate(paper(3_000).model_dump()),
    "library_add": lambda: LibraryAddResult(item=record_of(library_item().model_copy(update={"pdfs": []})),
                                            created=True),
    "library_sync": lambda: sync_of(200),
    "download_paper": lambda: DownloadPaperResult(item_id="lib_" + "0" * 20, collection="inbox", version="published",
                                                  prefer="published", newly_kept=True,
                                                  versions=[pdf_version(n) for n in range(MAX_PDFS)]),
    "source_health": lambda: SourceHealthResult.model_validate(
        source_health().model_dump() | {"sources": many(source_health().sources[:1], len(known_sources()))}),
    "resolve_standard_identifier": lambda: ResolveResult(ambiguous=True,
                                                         candidates=[_compact(r) for r in standards()[:20]]),
}


@pytest.mark.parametrize("tool", sorted(UNCUT))
def test_these_answers_pass_twenty_thousand_characters_so_need_their_hint(tool):
    assert sent_chars(dump_result(UNCUT[tool]())) > LONG
    assert result_size_hint(all_tools()[tool]) == MAX_RESULT_CHARS


@pytest.mark.parametrize("tool", ["batch_resolve", "check_references", "library_add", "get_citation_graph",
                                  "find_bridge_papers", "library_collections", "enrich_paper", "get_book"])
def test_their_largest_answers_pass_twenty_thousand_characters_too(tool):
    assert sent_chars(_answer(tool)) > LONG


# The graph tools' 320,000 is shown, not derived: the JSON is cut to the size budget (graph._fit) and the picture
# repeats its nodes and edges with more markup; the largest graph the tool can make (max_nodes, four edges a node,
# real titles at their real length and stretched to 300 and 2,000 characters) is measured in every format.
@pytest.mark.parametrize("fmt", ["json", "graphml", "dot", "mermaid"])
@pytest.mark.parametrize("title_chars", [0, 300, 2_000])
def test_the_largest_graph_in_any_format_fits_what_the_graph_tools_advertise(fmt, title_chars):
    answer = graph(fmt, title_chars)
    hint = result_size_hint(all_tools()["get_citation_graph"])
    assert max(sent_chars(answer), measured_chars(answer)) <= hint
    enforce_cap("get_citation_graph", answer, hint)


@pytest.mark.parametrize("fmt", ["graphml", "dot", "mermaid"])
def test_a_bridge_of_collaborations_is_shortened_to_fit_in_any_format(fmt):
    answer = bridge(fmt, authors=5_200)
    hint = result_size_hint(all_tools()["find_bridge_papers"])
    assert {p.get("authorCount") for p in answer["path"]} == {5_200}
    assert max(sent_chars(answer), measured_chars(answer)) <= hint


def test_an_answer_past_its_advertised_size_is_refused_never_sent():
    with pytest.raises(TooLargeError) as caught:
        enforce_cap("search_papers", {"data": "x" * MAX_RESULT_CHARS}, MAX_RESULT_CHARS)
    assert caught.value.reason == "result_over_advertised_size"
    assert caught.value.details["cap_chars"] == MAX_RESULT_CHARS

