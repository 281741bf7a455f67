"""arxiv_search against recorded feeds served under the proxy base (respx)."""

from __future__ import annotations

import httpx
import pytest

from scholar.core.errors import INVALID_ARGUMENT, RATE_LIMITED, UPSTREAM_ERROR, ScholarError
from scholar.families.arxiv import reasons
from scholar.families.arxiv.spec import SearchInput
from tests.arxiv.helpers import call, feed, html_render

API = "/arxiv_api/api/query"


def _search(**kwargs) -> object:
    return call("arxiv_search", SearchInput(**kwargs))


def _failure(**kwargs) -> ScholarError:
    with pytest.raises(ScholarError) as caught:
        _search(**kwargs)
    return caught.value


def test_a_first_page_reports_totals_and_the_effective_query(upstream):
    route = upstream.get(API).respond(200, content=feed("query_testing_start0_max10.xml"))
    result = _search(query="testing")
    assert result.effectiveQuery == "all:testing"
    assert (result.totalFound, result.pageStart, result.shown, result.cap) == (214881, 0, 10, 10)
    assert result.truncated is True and result.notice is None
    assert result.papers[0].id == "2202.12139v1"
    assert result.papers[0].doi == "10.1109/ICSTW55395.2022.00035"
    sent = route.calls.last.request.url.params
    assert dict(sent) == {
        "search_query": "all:testing",
        "start": "0",
        "max_results": "10",
        "sortBy": "relevance",
        "sortOrder": "descending",
    }


def test_the_second_page_starts_where_the_first_ended(upstream):
    upstream.get(API, params={"start": "10"}).respond(200, content=feed("query_testing_start10_max10.xml"))
    result = _search(query="testing", start=10)
    assert (result.pageStart, result.shown) == (10, 10)
    assert {p.id for p in result.papers}.isdisjoint({"2202.12139v1"})


def test_sort_options_map_to_arxivs_names(upstream):
    route = upstream.get(API).respond(200, content=feed("query_testing_start0_max10.xml"))
    _search(query="testing", sort_by="submitted", sort_order="ascending")
    params = route.calls.last.request.url.params
    assert (params["sortBy"], params["sortOrder"]) == ("submittedDate", "ascending")


def test_filters_are_folded_into_the_query_sent_to_arxiv(upstream):
    route = upstream.get(API).respond(200, content=feed("query_testing_start0_max10.xml"))
    result = _search(query="testing", category="cs.SE", submitted_from="2022-01-01", submitted_to="2022-12-31")
    expected = "all:testing AND cat:cs.SE AND submittedDate:[202201010000 TO 202301010000]"
    assert result.effectiveQuery == expected
    assert route.calls.last.request.url.params["search_query"] == expected


def test_no_matches_is_an_empty_page_with_recovery_advice(upstream):
    upstream.get(API).respond(200, content=feed("id_list_0000.0000_no_results.xml"))
    result = _search(query="ti:qwertyuiopasdfgh")
    assert (result.totalFound, result.shown, result.truncated) == (0, 0, False)
    assert "arxiv_list_categories" in result.notice


def test_paging_past_the_last_match_says_where_the_matches_end(upstream):
    upstream.get(API).respond(200, content=feed("id_list_0000.0000_no_results.xml").replace(
        b"<opensearch:totalResults>0<", b"<opensearch:totalResults>5<"))
    result = _search(query="testing", start=20)
    assert result.papers == [] and "past the last match" in result.notice


def test_a_page_that_cannot_be_followed_past_the_ceiling_says_how_to_reach_the_rest(upstream):
    upstream.get(API).respond(200, content=feed("query_testing_start10_max10.xml"))
    result = _search(query="testing", start=9995, max_results=10)
    assert result.truncated is True
    assert "submitted_from" in result.notice and "10,000" in result.notice


def test_an_empty_page_while_arxiv_reports_matches_is_an_upstream_fault_not_no_results(upstream):
    upstream.get(API).respond(200, content=feed("id_list_0000.0000_no_results.xml").replace(
        b"<opensearch:totalResults>0<", b"<opensearch:totalResults>50<"))
    err = _failure(query="testing")
    assert (err.code, err.reason, err.retryable) == (UPSTREAM_ERROR, reasons.EMPTY_PAGE, True)


def test_http_429_is_rate_limited(upstream, env):
    env(SCHOLAR_RETRY_BUDGET_S="0")
    upstream.get(API).respond(429, text="Too Many Requests")
    err = _failure(query="testing")
    assert (err.code, err.reason, err.retryable) == (RATE_LIMITED, reasons.RATE_LIMITED, True)


def test_a_rate_exceeded_body_on_http_200_is_rate_limited(upstream, env):
    env(SCHOLAR_RETRY_BUDGET_S="0")
    upstream.get(API).respond(200, text="Rate exceeded.")
    err = _failure(query="testing")
    assert (err.code, err.reason) == (RATE_LIMITED, reasons.RATE_LIMITED)


def test_a_rate_exceeded_body_is_retried_while_the_budget_lasts(upstream, env):
    env(SCHOLAR_RETRY_BUDGET_S="5")
    route = upstream.get(API)
    route.side_effect = [
        httpx.Response(200, text="Rate exceeded."),
        httpx.Response(200, content=feed("query_testing_start0_max10.xml")),
    ]
    assert _search(query="testing").shown == 10
    assert route.call_count == 2


def test_an_arxiv_400_is_an_invalid_request(upstream):
    upstream.get(API).respond(400, content=feed("id_list_malformed_abc_400.xml"))
    err = _failure(query="testing")
    assert (err.code, err.reason, err.status) == (INVALID_ARGUMENT, reasons.INVALID_REQUEST, 400)


def test_an_unknown_category_fails_before_any_request(upstream):
    route = upstream.get(API).respond(200, content=feed("query_testing_start0_max10.xml"))
    err = _failure(query="testing", category="astro-ph.XX")
    assert err.reason == reasons.UNKNOWN_CATEGORY
    assert route.call_count == 0


def test_a_repeated_search_is_answered_from_the_cache(upstream, aws):
    route = upstream.get(API).respond(200, content=feed("query_testing_start0_max10.xml"))
    first = _search(query="testing")
    second = _search(query="testing")
    assert route.call_count == 1
    assert second == first


def test_a_failed_search_is_not_cached(upstream, aws, env):
    env(SCHOLAR_RETRY_BUDGET_S="0")
    route = upstream.get(API)
    route.side_effect = [httpx.Response(429), httpx.Response(200, content=feed("query_testing_start0_max10.xml"))]
    _failure(query="testing")
    assert _search(query="testing").shown == 10
    assert route.call_count == 2


def test_an_html_page_on_http_200_is_an_upstream_error_and_not_cached(upstream, aws):
    route = upstream.get(API)
    route.side_effect = [
        httpx.Response(200, content=html_render(), headers={"Content-Type": "text/html"}),
        httpx.Response(200, content=feed("query_testing_start0_max10.xml")),
    ]
    err = _failure(query="testing")
    assert (err.code, err.retryable) == (UPSTREAM_ERROR, True)
    assert _search(query="testing").shown == 10
    assert route.call_count == 2
