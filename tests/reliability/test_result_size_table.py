"""Every tool whose answer can pass 20,000 characters advertises a cap it keeps (issue #31 item 12).

One row per tool: its largest answer, built from real recorded records (Semantic Scholar, arXiv, Open Library)
repeated to the tool's input bounds, and measured as a client reads it: every content block the gateway sends
(the JSON text block plus each extra block: a graph's picture). A tool with no hint must stay within 20,000
characters; a tool with one lists it in tools/list ``_meta`` and its answer either fits it or is refused
(runtime.results.enforce_cap), never sent longer.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from mcp import types
from pydantic import BaseModel

from scholar.core.budget import RESERVE, fit, fit_paper, shorten_for_list
from scholar.core.catalogue import MAX_RESULT_CHARS, all_tools, result_size_hint
from scholar.core.errors import TooLargeError
from scholar.core.paper_mapping import from_s2
from scholar.core.records import Author
from scholar.families.arxiv.metadata import to_paper
from scholar.families.arxiv.spec import MAX_IDS as ARXIV_IDS
from scholar.families.arxiv.spec import GetPapersResult, ListCategoriesResult, SearchResult
from scholar.families.arxiv.taxonomy import CATEGORIES
from scholar.families.books.models import BookList, BookRecommendations
from scholar.families.books.records import from_search_doc
from scholar.families.papers import graph_formats
from scholar.families.papers.fields import FULL
from scholar.families.papers.spec import PaperResult, SearchPapersResult
from scholar.families.papers.spec_export import BatchResolveResult, ResolvedItem
from scholar.families.papers.spec_graph import GetAuthorResult, GetCitationGraphResult, GraphEdge, GraphNode, GraphStats
from scholar.families.research.library_tools.handlers import record_of
from scholar.families.research.library_tools.spec import (
    MAX_IDS,
    LibraryAddResult,
    LibraryGetEntry,
    LibraryGetResult,
    LibraryRemoveEntry,
    LibraryRemoveResult,
)
from scholar.families.tasks.spec import TaskList, TaskSummary
from scholar.gateway.mcp.dispatch import success_result
from scholar.gateway.mcp.tools import MAX_RESULT_META, wire_tool
from scholar.runtime.results import dump_result, enforce_cap
from scholar.sources import arxiv
from scholar.sources.openlibrary.mapping import search_doc_from_json
from scholar.store.library.bounds import MAX_AUTHORS
from scholar.store.library.models import LibraryItem
from scholar.store.tasks import new_task_id
from tests.fixtures_dir import fixtures_dir

LONG = 20_000  # past this an answer needs a hint


def _json(path: str) -> Any:
    return json.loads((fixtures_dir() / "upstream" / path).read_text())


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


def paper(authors: int = 0) -> Any:
    """The recorded PNAS record in full; with ``authors``, its real author entries repeated to that many (a
    collaboration: they sign with 3,000 to 5,200)."""
    record = from_s2(_json("semantic_scholar/paper_by_doi_many_fields_pnas.json"), FULL)
    if authors:
        real = record.authors or [Author(name="A. Author")]
        record = record.model_copy(update={"authors": (real * authors)[:authors]})
    return record


def arxiv_papers() -> list[Any]:
    feed = arxiv.parse_feed((fixtures_dir() / "upstream" / "arxiv" / "query_testing_start0_max10.xml").read_bytes())
    return [to_paper(e) for e in feed.entries]


def books() -> list[Any]:
    docs = _json("openlibrary/search_this-is-how-you-lose-the-time-war.json")["docs"]
    return [from_search_doc(search_doc_from_json(d)) for d in docs]


def many(items: list[Any], n: int) -> list[Any]:
    return (items * n)[:n]


def library_record(authors: int = MAX_AUTHORS) -> Any:
    item = LibraryItem(item_id="lib_" + "0" * 20, ids=["doi:10.1073/pnas.0000000000"],
                       paper=paper(authors).model_dump(mode="json"), notes="n" * 20_000,
                       added_at="2026-01-01T00:00:00Z", updated_at="2026-01-01T00:00:00Z")
    return record_of(item)


def citation_graph(fmt: str) -> dict[str, Any]:
    # A graph at max_nodes (500) with its edges, cut to the budget by graph._fit's rule; titles are real ones.
    titles = [p.title for p in arxiv_papers()]
    nodes = [GraphNode(id=f"{i:040x}", title=titles[i % len(titles)][:80], year=2020, citationCount=1234,
                       doi=f"10.1000/{i:08d}", depth=1 + i % 3, first_author="A. Author") for i in range(500)]
    edges = [GraphEdge(source=nodes[i].id, target=nodes[(i * 7 + k) % 500].id) for i in range(500) for k in range(1, 5)]
    budget = MAX_RESULT_CHARS - 3_000
    used = sum(len(n.model_dump_json()) + 1 for n in nodes)
    edges = edges[: max(0, (budget - used) // 95)]
    result = GetCitationGraphResult(nodes=nodes, edges=edges, failed_sources=[],
                                    stats=GraphStats(total_nodes=500, total_edges=len(edges), depth_reached=3,
                                                     truncated=True, expanded=500))
    if fmt != "json":
        result.extra_content = [graph_formats.render(graph_formats.graph_picture(result), fmt)]
    return dump_result(result)


def batch_resolve() -> BaseModel:
    from scholar.families.papers.batch import _fit  # noqa: PLC0415  # the cut batch_resolve makes

    items = [ResolvedItem(input="x" * 500, status="ok", source_type="paper", paper=paper(3_000)) for _ in range(100)]
    kept, truncated = _fit(items)
    return BatchResolveResult(items=kept, counts={"ok": 100}, failed_sources=[], truncated=truncated)


LARGEST: dict[str, Callable[[], BaseModel | dict[str, Any]]] = {
    "arxiv_search": lambda: SearchResult(papers=fit(many(arxiv_papers(), 50))[0], effectiveQuery="q" * 1000,
                                         totalFound=10**6, pageStart=0, truncated=True, shown=50, cap=50),
    "arxiv_get_papers": lambda: GetPapersResult(papers=fit(many(arxiv_papers(), ARXIV_IDS))[0],
                                                totalSucceeded=ARXIV_IDS),
    "arxiv_list_categories": lambda: ListCategoriesResult(
        categories=[{"code": c.code, "name": c.name, "group": c.group} for c in CATEGORIES],
        totalCount=len(CATEGORIES)),
    "search_papers": lambda: SearchPapersResult(data=fit(many([paper(3_000)], 100))[0], total=10**6, offset=0,
                                                sort="relevance"),
    "get_paper": lambda: PaperResult.model_validate(fit_paper(paper(5_200)).model_dump()),
    "get_author": lambda: GetAuthorResult(mode="profile", papers=fit(many([shorten_for_list(paper())], 100))[0]),
    "batch_resolve": batch_resolve,
    "get_citation_graph": lambda: citation_graph("graphml"),
    "find_bridge_papers": lambda: citation_graph("dot"),
    "search_books": lambda: BookList(books=fit(many(books(), 50))[0], strategy="title"),
    "recommend_books": lambda: BookRecommendations(subject="s" * 200, books=fit(many(books(), 50))[0]),
    "library_add": lambda: LibraryAddResult(item=library_record(), created=True),
    "library_get": lambda: LibraryGetResult(items=fit([LibraryGetEntry(id="x" * 300, status="ok",
                                                                       item=library_record())] * MAX_IDS,
                                                      reserve=RESERVE)[0] or [], truncated=True),
    "library_remove": lambda: LibraryRemoveResult(results=[LibraryRemoveEntry(
        id=f"{n:0300d}", status="not_found", message="your library has no item for this identifier")
        for n in range(MAX_IDS)], removed=0),
    "list_tasks": lambda: TaskList(tasks=[TaskSummary(task_id=new_task_id(), status="cancelled",
                                                      tool=max(all_tools(), key=len), created_at=1_767_225_600.123456,
                                                      elapsed_s=86_400.123456) for _ in range(100)], total=100),
}


def _answer(tool: str) -> dict[str, Any]:
    built = LARGEST[tool]()
    return built if isinstance(built, dict) else dump_result(built)


@pytest.mark.parametrize("tool", sorted(LARGEST))
def test_the_largest_answer_of_each_tool_fits_the_size_it_advertises(tool):
    answer = _answer(tool)
    size, hint = sent_chars(answer), result_size_hint(all_tools()[tool])
    if hint is None:
        assert size <= LONG, f"{tool} answers up to {size:,} characters and advertises no cap"
        return
    assert wire_tool(tool).meta == {MAX_RESULT_META: hint}
    try:
        kept = enforce_cap(tool, answer, all_tools()[tool].max_result_chars)
    except TooLargeError as err:  # refused, never sent longer than advertised
        assert err.reason == "result_over_advertised_size"
        return
    assert sent_chars(kept) <= hint


# Answers the data makes before any cut: each passes 20,000 characters, so its tool needs the hint it now has.
UNCUT: dict[str, Callable[[], BaseModel]] = {
    "arxiv_search": lambda: SearchResult(papers=many(arxiv_papers(), 50), effectiveQuery="q", totalFound=50,
                                         pageStart=0, truncated=False, shown=50, cap=50),
    "search_papers": lambda: SearchPapersResult(data=many([shorten_for_list(paper(50))], 100), total=100, offset=0,
                                                sort="relevance"),
    "get_paper": lambda: PaperResult.model_validate(paper(3_000).model_dump()),
    "library_get": lambda: LibraryGetResult(items=[LibraryGetEntry(id="x", status="ok", item=library_record(50))] * 10),
}


@pytest.mark.parametrize("tool", sorted(UNCUT))
def test_these_answers_pass_twenty_thousand_characters_so_need_their_hint(tool):
    assert sent_chars(dump_result(UNCUT[tool]())) > LONG
    assert result_size_hint(all_tools()[tool]) == MAX_RESULT_CHARS


@pytest.mark.parametrize("tool", ["batch_resolve", "library_add", "get_citation_graph", "find_bridge_papers"])
def test_their_largest_answers_pass_twenty_thousand_characters_too(tool):
    assert sent_chars(_answer(tool)) > LONG


def test_an_answer_past_its_advertised_size_is_refused_never_sent():
    with pytest.raises(TooLargeError) as caught:
        enforce_cap("search_papers", {"data": "x" * MAX_RESULT_CHARS}, MAX_RESULT_CHARS)
    assert caught.value.reason == "result_over_advertised_size"
    assert caught.value.details["cap_chars"] == MAX_RESULT_CHARS
