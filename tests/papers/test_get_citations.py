"""get_citations (scholar.families.papers.citations): paging, our filters with a bounded scan, errors, caching.

Upstream answers are the recorded S2 fixtures; where a filter needs year / citationCount, which the recorded
list (fields=title) lacks, the recorded rows get those fields added and the route says synthetic.
"""

import json

import httpx
import pytest

from scholar.core import aio
from scholar.core.errors import INVALID_ARGUMENT, NOT_FOUND, RATE_LIMITED, UPSTREAM_ERROR, ScholarError
from scholar.families.papers import citations
from scholar.families.papers.spec_graph import GetCitationsInput

CITATIONS = "/s2/graph/v1/paper/CorpusId:14514057/citations"
FIXTURE = "upstream/semantic_scholar/paper_citations_offset0.json"
JSON = {"Content-Type": "application/json"}


def run(**kwargs):
    return aio.run(citations.list_papers("citations", GetCitationsInput(**kwargs)))


def synthetic_page(fixture_file):
    """The recorded page with year and citationCount added per row (synthetic, derived from real rows)."""
    page = json.loads(fixture_file(FIXTURE))
    for i, row in enumerate(page["data"]):
        row["citingPaper"].update(year=2000 + i % 25, citationCount=i * 3, fieldsOfStudy=["Economics"])
    return page


def test_a_page_of_citing_papers_comes_from_the_recorded_list(aws, upstream, fixture_file):
    route = upstream.get(CITATIONS).respond(200, content=fixture_file(FIXTURE), headers=JSON)
    recorded = json.loads(fixture_file(FIXTURE))["data"]

    result = run(identifier="CorpusId:14514057", limit=20)

    assert [i.citingPaper.paperId for i in result.data] == [r["citingPaper"]["paperId"] for r in recorded[:20]]
    assert result.next_offset == 20
    assert result.truncated is False and result.partial is False
    params = route.calls.last.request.url.params
    assert (params["offset"], params["limit"]) == ("0", "20")
    assert set(params["fields"].split(",")) == {"paperId", "title", "year", "venue", "citationCount"}


def test_a_repeat_call_is_answered_from_the_cache(aws, upstream, fixture_file):
    route = upstream.get(CITATIONS).respond(200, content=fixture_file(FIXTURE), headers=JSON)
    first = run(identifier="CorpusId:14514057", limit=5)
    assert run(identifier="corpusid:14514057", limit=5) == first
    assert route.call_count == 1


def test_filters_read_one_bounded_window_and_say_so(aws, upstream, fixture_file):
    page = synthetic_page(fixture_file)
    route = upstream.get(CITATIONS).respond(200, json=page, headers=JSON)

    result = run(identifier="CorpusId:14514057", limit=5, min_citations=150, year_start=2010)

    assert route.call_count == 1
    assert route.calls.last.request.url.params["limit"] == str(citations.MAX_SCAN)
    expected = [r["citingPaper"] for r in page["data"] if r["citingPaper"]["citationCount"] >= 150
                and r["citingPaper"]["year"] >= 2010][:5]
    assert [i.citingPaper.paperId for i in result.data] == [r["paperId"] for r in expected]
    last_index = next(i for i, r in enumerate(page["data"]) if r["citingPaper"]["paperId"] == expected[-1]["paperId"])
    assert result.next_offset == last_index + 1
    assert result.scanned == last_index + 1
    assert result.filtered_out == result.scanned - 5


def test_a_filter_that_leaves_a_short_page_points_to_where_the_scan_stopped(aws, upstream, fixture_file):
    page = synthetic_page(fixture_file)
    upstream.get(CITATIONS).respond(200, json=page, headers=JSON)

    result = run(identifier="CorpusId:14514057", limit=50, min_citations=280)

    assert len(result.data) == sum(1 for r in page["data"] if r["citingPaper"]["citationCount"] >= 280)
    assert result.next_offset == page["next"]
    assert result.truncated is True
    assert str(citations.MAX_SCAN) in result.note


def test_fields_of_study_filter_matches_case_insensitively(aws, upstream, fixture_file):
    upstream.get(CITATIONS).respond(200, json=synthetic_page(fixture_file), headers=JSON)
    assert run(identifier="CorpusId:14514057", limit=3, fields_of_study=["economics"]).data
    assert not run(identifier="CorpusId:14514057", limit=3, fields_of_study=["Physics"]).data


def test_year_range_upside_down_is_an_invalid_argument(aws, upstream):
    with pytest.raises(ScholarError) as info:
        run(identifier="CorpusId:14514057", year_start=2020, year_end=2010)
    assert info.value.code == INVALID_ARGUMENT
    assert info.value.details["field"] == "year_start"


def test_an_unknown_paper_is_not_found_from_the_recorded_404(aws, upstream, fixture_file):
    upstream.get("/s2/graph/v1/paper/0000000000000000000000000000000000000000/citations").respond(
        404, content=fixture_file("upstream/semantic_scholar/paper_not_found_404.json"), headers=JSON
    )
    with pytest.raises(ScholarError) as info:
        run(identifier="0" * 40)
    assert info.value.code == NOT_FOUND


def test_a_recorded_400_is_an_upstream_error_naming_the_status(aws, upstream, fixture_file):
    upstream.get(CITATIONS).respond(
        400, content=fixture_file("upstream/semantic_scholar/paper_invalid_fields_400.json"), headers=JSON
    )
    with pytest.raises(ScholarError) as info:
        run(identifier="CorpusId:14514057")
    assert (info.value.code, info.value.status) == (UPSTREAM_ERROR, 400)


def test_a_throttled_list_is_rate_limited_and_not_cached(aws, upstream, env, fixture_file):
    env(SCHOLAR_RETRY_BUDGET_S="0")
    route = upstream.get(CITATIONS)
    route.side_effect = [
        httpx.Response(429, headers={"Retry-After": "30"}, json={"message": "Too Many Requests"}),
        httpx.Response(200, content=fixture_file(FIXTURE), headers=JSON),
    ]
    with pytest.raises(ScholarError) as info:
        run(identifier="CorpusId:14514057", limit=5)
    assert info.value.code == RATE_LIMITED
    assert len(run(identifier="CorpusId:14514057", limit=5).data) == 5
    assert route.call_count == 2


def test_an_isbn_identifier_is_refused_with_the_tool_to_use(aws, upstream):
    with pytest.raises(ScholarError) as info:
        run(identifier="ISBN:9780262035613")
    assert info.value.code == INVALID_ARGUMENT
    assert "get_book" in info.value.message
