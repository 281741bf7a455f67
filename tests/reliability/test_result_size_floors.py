"""A cut to the size budget never empties an answer that a shortened record would fill (issue #31 item 12).

A collaboration's record (3,000 authors, the recorded PNAS record's real author entries repeated) is over the
80,000-character budget alone: a page of them is shortened record by record (authorCount, abstractTruncated), never
sent empty. batch_resolve leaves a record out only when it no longer fits, and its answer fits whatever the inputs.
"""

from __future__ import annotations

import json
import re
from typing import Any

from scholar.core import aio
from scholar.core.budget import RESERVE, json_chars
from scholar.core.catalogue import MAX_RESULT_CHARS
from scholar.families.arxiv.spec import GetPapersInput
from scholar.families.arxiv.spec import SearchInput as ArxivSearchInput
from scholar.families.papers import batch, recommend, search
from scholar.families.papers.chapters import split_citation
from scholar.families.papers.spec import SearchPapersInput
from scholar.families.papers.spec_export import ResolvedItem
from scholar.families.papers.spec_graph import RecommendPapersInput
from scholar.families.research.library_tools.handlers import record_of
from scholar.runtime.results import dump_result, enforce_cap
from scholar.sources import arxiv as arxiv_source
from tests.arxiv.helpers import call, feed
from tests.fixtures_dir import fixtures_dir

JSON = {"Content-Type": "application/json"}
AUTHORS = 3_000


def collaboration_row() -> dict[str, Any]:
    """The recorded PNAS row with its real author entries repeated to a collaboration's 3,000."""
    row = json.loads((fixtures_dir() / "upstream/semantic_scholar/paper_by_doi_many_fields_pnas.json").read_text())
    return row | {"authors": (row["authors"] * AUTHORS)[:AUTHORS]}


def page_of(rows: int) -> bytes:
    """SYNTHETIC search page (total + data, the shape of search_paper_turing.json) of the collaboration row."""
    return json.dumps({"total": 10_000, "offset": 0, "data": [collaboration_row()] * rows}).encode()


def test_a_full_search_page_of_collaborations_is_shortened_not_sent_empty(aws, upstream):
    upstream.get("/s2/graph/v1/paper/search").respond(200, content=page_of(100), headers=JSON)

    result = aio.run(search.search_papers(SearchPapersInput(query="higgs", limit=100, fields="full")))

    assert result.data, "one record over the budget emptied the page"
    assert {p.authorCount for p in result.data} == {AUTHORS}
    assert result.truncated is True and result.next_offset == len(result.data) < 100
    enforce_cap("search_papers", dump_result(result), MAX_RESULT_CHARS)


def test_full_recommendations_of_collaborations_are_shortened_not_sent_empty(aws, upstream):
    s2_id = collaboration_row()["paperId"]
    body = json.dumps({"recommendedPapers": [collaboration_row()] * 100}).encode()  # SYNTHETIC, as forpaper sends
    upstream.get(f"/s2/recommendations/v1/papers/forpaper/{s2_id}").respond(200, content=body, headers=JSON)

    result = aio.run(recommend.recommend(RecommendPapersInput(positive_ids=[s2_id], limit=100,
                                                                     fields="full")))

    assert result.data and {p.authorCount for p in result.data} == {AUTHORS}
    assert result.truncated is True
    enforce_cap("recommend_papers", dump_result(result), MAX_RESULT_CHARS)


def _resolved(raw: str, paper: Any) -> ResolvedItem:
    ident, chapter = split_citation(raw)
    return ResolvedItem(input=raw, status="ok", source_type="paper", paper=paper, chapter_info=chapter, source="s2")


def _collaboration_paper() -> Any:
    from scholar.core.paper_mapping import from_s2
    from scholar.families.papers.fields import FULL

    return from_s2(collaboration_row(), FULL)


def _inputs(n: int = 100) -> list[str]:
    """The longest inputs the schema takes (500 characters): the recorded DOI with a page reference."""
    doi = "10.1073/pnas.1414271111"
    return [f"{doi}, p. {n:0{500 - len(doi) - 5}d}" for n in range(n)]


def test_a_batch_record_is_left_out_only_when_it_no_longer_fits():
    items = [_resolved(raw, _collaboration_paper()) for raw in _inputs()]

    fitted, truncated = batch._fit(items)

    assert truncated is True
    left_out = [i for i, item in enumerate(fitted) if item.error == batch.LEFT_OUT]
    kept = [i for i, item in enumerate(fitted) if item.paper is not None]
    assert kept and left_out and len(kept) + len(left_out) == 100
    used = sum(json_chars(item) + 1 for item in fitted)
    assert used <= MAX_RESULT_CHARS - RESERVE
    # The inputs are alike (the same length, a page reference each): every record left out would pass the budget
    # had it stayed, in the shortened form the kept ones have.
    room = MAX_RESULT_CHARS - RESERVE - used
    assert kept == list(range(len(kept)))
    assert json_chars(fitted[kept[0]]) - json_chars(fitted[left_out[0]]) > room
    assert fitted[kept[0]].paper.authorCount == AUTHORS


def test_a_batch_of_the_longest_unresolvable_inputs_still_fits_its_budget():
    # Each input is refused with a long message and a long page reference: 100 of them pass the budget twice over.
    raws = [f"paper, p. {'1' * 240}-{'2' * 240}"[:500] for _ in range(100)]
    items = [batch._parse(raw)[1] for raw in raws]
    assert sum(json_chars(i) for i in items) > 2 * MAX_RESULT_CHARS

    fitted, truncated = batch._fit(items)

    assert truncated is True and [i.status for i in fitted] == ["invalid_id"] * 100
    assert fitted[0].error == items[0].error  # the first keep their whole message
    enforce_cap("batch_resolve", {"items": [i.model_dump(mode="json") for i in fitted]}, MAX_RESULT_CHARS)


def test_a_batch_that_fits_is_left_whole():
    items = [_resolved(raw, _collaboration_paper().model_copy(update={"authors": []})) for raw in _inputs(10)]
    assert batch._fit(items) == (items, False)


def test_a_library_record_at_every_bound_is_shortened_step_by_step_and_says_so():
    from tests.reliability.test_result_size_table import library_item  # the item at its bounds

    item = library_item()
    record = record_of(item)

    assert record.shortened is True and json_chars(record) <= MAX_RESULT_CHARS - RESERVE
    assert (record.ids, record.tags) == (item.ids, item.tags)  # what names the item is never cut
    assert record.paper.authorCount == len(item.paper["authors"]) and record.paper.tldr is None
    assert record_of(item.model_copy(update={"notes": "short", "pdfs": []})).notes == "short"


# ------------------------------------------------------------------------------------------------------------- arXiv

ARXIV_API = "/arxiv_api/api/query"
ARXIV_AUTHORS = 5_200  # 1503.07589 (ATLAS and CMS) has 5,154
# Fields of an arXiv record as sent before a record could be shortened.
ARXIV_FIELDS = {"id", "title", "authors", "abstract", "primary_category", "categories", "published", "updated",
                "comment", "journal_ref", "doi", "pdf_url", "abstract_url"}


def collaboration_feed(name: str, entries: int = 1) -> bytes:
    """SYNTHETIC: the recorded arXiv feed ``name`` with the real <author> elements of its first ``entries`` entries
    repeated to 5,200 each; everything else is the recorded feed's."""
    grown = 0

    def grow(entry: re.Match[str]) -> str:
        nonlocal grown
        body = entry.group(0)
        if grown == entries:
            return body
        grown += 1
        blocks = re.findall(r"\s*<author>.*?</author>", body, re.S)
        start, end = body.index(blocks[0]), body.rindex(blocks[-1]) + len(blocks[-1])
        return body[:start] + "".join((blocks * ARXIV_AUTHORS)[:ARXIV_AUTHORS]) + body[end:]

    return re.sub(r"<entry>.*?</entry>", grow, feed(name).decode(), flags=re.S).encode()


def test_an_arxiv_search_page_led_by_a_collaboration_is_shortened_not_sent_empty(aws, upstream):
    # The first record alone (5,200 authors) is over the budget: it was cut, the page sent empty, and the notice
    # said "continue with start=20", the page's own start.
    upstream.get(ARXIV_API).respond(200, content=collaboration_feed("query_testing_start0_max10.xml", entries=1))

    result = call("arxiv_search", ArxivSearchInput(query="testing", start=20))

    assert result.shown == len(result.papers) == 10, "one record over the budget emptied the page"
    first = result.papers[0]
    assert (first.authorCount, len(first.authors), first.abstractTruncated) == (ARXIV_AUTHORS, 5, True)
    assert {p.authorCount for p in result.papers[1:]} == {None}  # the others were within the budget: whole
    assert result.notice is None
    enforce_cap("arxiv_search", dump_result(result), MAX_RESULT_CHARS)


def test_an_arxiv_page_cut_after_a_collaboration_continues_past_it(aws, upstream):
    # The first record (5,200 authors) is shortened; the rest of the page (thousands of authors each) fits only in
    # part: the notice's start is past what was shown, never the page's own start.
    body = collaboration_feed("query_testing_start0_max10.xml", entries=1).decode()
    many = re.sub(r"(\s*<author>.*?</author>)", lambda m: m.group(1) * 1_000, body.split("</entry>", 1)[1], flags=re.S)
    upstream.get(ARXIV_API).respond(200, content=(body.split("</entry>", 1)[0] + "</entry>" + many).encode())

    result = call("arxiv_search", ArxivSearchInput(query="testing", start=20))

    assert result.papers and result.papers[0].authorCount == ARXIV_AUTHORS
    assert 0 < result.shown < 10 and result.truncated is True
    assert f"continue with start={20 + result.shown}." in result.notice
    enforce_cap("arxiv_search", dump_result(result), MAX_RESULT_CHARS)


def test_arxiv_get_papers_shortens_a_collaboration_rather_than_omit_it(aws, upstream):
    upstream.get(ARXIV_API).respond(200, content=collaboration_feed("id_list_1605.08386.xml"))

    result = call("arxiv_get_papers", GetPapersInput(paper_ids="1605.08386"))

    assert [p.id for p in result.papers] == ["1605.08386v1"] and result.omitted is None
    assert result.papers[0].authorCount == ARXIV_AUTHORS and result.papers[0].authors[:2] == [
        "Caprice Stanley", "Tobias Windisch"]
    assert result.papers[0].abstractTruncated is None  # the abstract (about 450 characters) was left whole
    enforce_cap("arxiv_get_papers", dump_result(result), MAX_RESULT_CHARS)


def test_an_arxiv_page_within_the_budget_is_sent_as_recorded(aws, upstream):
    upstream.get(ARXIV_API).respond(200, content=feed("query_testing_start0_max10.xml"))
    entries = arxiv_source.parse_feed(feed("query_testing_start0_max10.xml")).entries

    sent = dump_result(call("arxiv_search", ArxivSearchInput(query="testing")))

    assert all(set(p) <= ARXIV_FIELDS for p in sent["papers"]), "a field was added to a record that was not cut"
    assert [(p["authors"], p["abstract"]) for p in sent["papers"]] == [(e.authors, e.summary) for e in entries]
