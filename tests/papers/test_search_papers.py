"""search_papers (scholar.families.papers.search): relevance and sorted bulk search, paging, filters, cache."""

import json

import pytest

from scholar.core import aio
from scholar.core.errors import INVALID_ARGUMENT, InvalidArgumentError
from scholar.families.papers import search
from scholar.families.papers.spec import SearchPapersInput

SEARCH = "/s2/graph/v1/paper/search"
BULK = "/s2/graph/v1/paper/search/bulk"
JSON = {"Content-Type": "application/json"}


def run_search(**arguments):
    return aio.run(search.search_papers(SearchPapersInput(**arguments)))


@pytest.fixture
def turing(upstream, fixture_file):
    body = fixture_file("upstream/semantic_scholar/search_paper_turing.json")
    return upstream.get(SEARCH).respond(200, content=body, headers=JSON), json.loads(body)


@pytest.fixture
def kubernetes_by_citations(upstream, fixture_file):
    body = fixture_file("upstream/semantic_scholar/search_paper_bulk_sorted_citationcount_desc.json")
    return upstream.get(BULK).respond(200, content=body, headers=JSON), json.loads(body)


def test_a_relevance_search_maps_the_records_and_pages(aws, turing):
    route, recorded = turing
    result = run_search(query="turing", limit=100)
    assert result.total == recorded["total"]
    assert result.offset == 0
    assert result.next_offset == 100
    assert result.sort == "relevance"
    assert [p.paperId for p in result.data] == [row["paperId"] for row in recorded["data"]]
    assert [p.title for p in result.data] == [row["title"] for row in recorded["data"]]
    assert all(p.sources == ["s2"] for p in result.data)


def test_a_relevance_search_sends_query_offset_limit_and_the_compact_fields(aws, turing):
    route, _ = turing
    run_search(query="turing", limit=100, offset=0)
    params = route.calls.last.request.url.params
    assert params["query"] == "turing"
    assert (params["offset"], params["limit"]) == ("0", "100")
    assert params["fields"].split(",") == ["paperId", "title", "year", "venue", "citationCount"]


def test_filters_become_s2_parameters(aws, turing):
    route, _ = turing
    run_search(query="turing", limit=100, year_start=1936, year_end=1950, fields_of_study=["Mathematics"],
               venue="Proc. London Math. Soc.", min_citations=5)
    params = route.calls.last.request.url.params
    assert params["year"] == "1936-1950"
    assert params["fieldsOfStudy"] == "Mathematics"
    assert params["venue"] == "Proc. London Math. Soc."
    assert params["minCitationCount"] == "5"


def test_an_open_year_range_keeps_its_open_end(aws, turing):
    route, _ = turing
    run_search(query="turing", limit=100, year_start=2020)
    assert route.calls.last.request.url.params["year"] == "2020-"


def test_sorting_by_citations_uses_bulk_search_and_slices_by_offset(aws, kubernetes_by_citations):
    route, recorded = kubernetes_by_citations
    result = run_search(query="kubernetes", sort="citations", offset=20, limit=10)
    params = route.calls.last.request.url.params
    assert params["sort"] == "citationCount:desc"
    assert "offset" not in params
    assert "tldr" not in params["fields"].split(",")
    expected = recorded["data"][20:30]
    assert [p.paperId for p in result.data] == [row["paperId"] for row in expected]
    assert [p.citationCount for p in result.data] == [row["citationCount"] for row in expected]
    assert result.total == recorded["total"]
    assert (result.offset, result.next_offset, result.sort) == (20, 30, "citations")


def test_the_full_field_set_in_bulk_search_leaves_out_tldr(aws, kubernetes_by_citations):
    route, _ = kubernetes_by_citations
    run_search(query="kubernetes", sort="citations", fields="full", limit=5)
    fields = route.calls.last.request.url.params["fields"].split(",")
    assert "tldr" not in fields
    assert "abstract" in fields


def test_sorting_by_year_asks_for_the_newest_first(aws, kubernetes_by_citations):
    route, _ = kubernetes_by_citations
    run_search(query="kubernetes", sort="year", limit=5)
    assert route.calls.last.request.url.params["sort"] == "publicationDate:desc"


def test_the_last_page_has_no_next_offset(aws, upstream, fixture_file):
    upstream.get(SEARCH).respond(
        200, content=fixture_file("upstream/semantic_scholar/search_paper_no_results.json"), headers=JSON
    )
    result = run_search(query="n0 r3sult s3arch t3rm")
    assert result.data == []
    assert result.total == 0
    assert result.next_offset is None


@pytest.mark.parametrize(("offset", "limit"), [(950, 100), (999, 2), (901, 100)])
def test_a_window_past_the_first_thousand_results_is_refused(upstream, offset, limit):
    with pytest.raises(InvalidArgumentError) as info:
        run_search(query="turing", offset=offset, limit=limit)
    assert info.value.code == INVALID_ARGUMENT
    assert info.value.field == "offset"
    assert not upstream.calls


def test_year_start_after_year_end_is_refused(aws, upstream):
    with pytest.raises(InvalidArgumentError) as info:
        run_search(query="turing", year_start=2010, year_end=2000)
    assert info.value.code == INVALID_ARGUMENT
    assert info.value.field == "year_start"
    assert not upstream.calls


def test_a_repeated_search_is_served_from_the_cache(aws, turing):
    route, _ = turing
    first = run_search(query="turing", limit=100)
    assert run_search(query="turing", limit=100) == first
    assert route.call_count == 1


def test_a_different_page_is_a_different_search(aws, turing):
    route, _ = turing
    run_search(query="turing", limit=100)
    run_search(query="turing", limit=100, offset=100)
    assert route.call_count == 2


def test_long_abstracts_are_shortened_in_compact_lists(aws, upstream):
    # Synthetic row: no recorded search carries a long abstract.
    row = {"paperId": "a" * 40, "title": "T", "abstract": "word " * 400,
           "authors": [{"authorId": str(i), "name": f"A{i}"} for i in range(9)]}
    upstream.get(SEARCH).respond(200, json={"total": 1, "offset": 0, "data": [row]})
    paper = run_search(query="t", fields="standard").data[0]
    assert paper.abstractTruncated is True
    assert len(paper.abstract) <= 501
    assert len(paper.authors) == 5
    assert paper.authorCount == 9


def test_a_relevance_page_is_cut_to_limit_when_s2_sends_more_and_the_next_offset_follows_the_cut(aws, turing):
    _, recorded = turing  # the recorded page holds 100 rows; ask for 10 of them
    result = run_search(query="turing", limit=10)
    assert [p.paperId for p in result.data] == [row["paperId"] for row in recorded["data"][:10]]
    assert result.next_offset == 10
