"""arxiv_get_papers: one id_list request per batch, per-id reasons, partial batches, cache."""

from __future__ import annotations

import httpx
import pytest
from pydantic import ValidationError

from scholar.core.errors import INVALID_ARGUMENT, NOT_FOUND, RATE_LIMITED, UPSTREAM_ERROR, ScholarError
from scholar.families.arxiv import reasons
from scholar.families.arxiv.spec import GetPapersInput
from tests.arxiv.helpers import call, feed, html_render

API = "/arxiv_api/api/query"


def _get(ids) -> object:
    return call("arxiv_get_papers", GetPapersInput(paper_ids=ids))


def _failure(ids) -> ScholarError:
    with pytest.raises(ScholarError) as caught:
        _get(ids)
    return caught.value


def test_one_id_returns_its_paper_with_full_metadata(upstream):
    route = upstream.get(API, params={"id_list": "1605.08386"}).respond(200, content=feed("id_list_1605.08386.xml"))
    result = _get("1605.08386")
    assert result.totalSucceeded == 1 and result.not_found is None
    paper = result.papers[0]
    assert (paper.id, paper.title) == ("1605.08386v1", "Heat-bath random walks with Markov bases")
    assert paper.abstract.startswith("Graphs on lattice points")
    assert route.calls.last.request.url.params["max_results"] == "1"


def test_a_legacy_id_is_accepted_with_or_without_its_subject_class(upstream):
    upstream.get(API, params={"id_list": "astro-ph/0601001"}).respond(
        200, content=feed("id_list_legacy_astro-ph_0601001.xml")
    )
    assert _get("astro-ph/0601001").papers[0].id == "astro-ph/0601001v1"
    assert _get(["arXiv:astro-ph/0601001"]).papers[0].primary_category == "astro-ph"


def test_a_versioned_legacy_id_returns_that_version(upstream):
    upstream.get(API, params={"id_list": "quant-ph/0201082v1"}).respond(
        200, content=feed("id_list_legacy_versioned_quant-ph_0201082v1.xml")
    )
    assert _get("quant-ph/0201082v1").papers[0].categories == ["quant-ph", "cs.PL"]


def test_a_batch_is_one_request_and_the_missing_id_is_reported(upstream):
    route = upstream.get(API).respond(200, content=feed("id_list_two_ids_one_missing.xml"))
    result = _get(["0808.05394", "1707.08567"])
    assert route.call_count == 1
    assert route.calls.last.request.url.params["id_list"] == "0808.05394,1707.08567"
    assert [p.id for p in result.papers] == ["1707.08567v1"]
    assert result.totalSucceeded == 1
    assert [(n.id, n.reason) for n in result.not_found] == [("0808.05394", "not_in_arxiv")]


def test_an_id_that_is_not_an_arxiv_id_is_reported_and_the_rest_still_fetched(upstream):
    route = upstream.get(API).respond(200, content=feed("id_list_1605.08386.xml"))
    result = _get(["abc", "1605.08386"])
    assert route.calls.last.request.url.params["id_list"] == "1605.08386"
    assert [p.id for p in result.papers] == ["1605.08386v1"]
    assert [(n.id, n.reason) for n in result.not_found] == [("abc", "invalid_id")]


def test_a_batch_where_nothing_is_found_is_no_match(upstream):
    upstream.get(API).respond(200, content=feed("id_list_0000.0000_no_results.xml"))
    err = _failure(["0000.0000"])
    assert (err.code, err.reason) == (NOT_FOUND, reasons.NO_MATCH)
    assert err.details["not_found"][0]["reason"] == "not_in_arxiv"


def test_a_batch_of_only_invalid_ids_is_an_invalid_request_without_a_request(upstream):
    route = upstream.get(API).respond(200, content=feed("id_list_1605.08386.xml"))
    err = _failure(["abc", "not an id"])
    assert (err.code, err.reason) == (INVALID_ARGUMENT, reasons.INVALID_REQUEST)
    assert route.call_count == 0


def test_an_id_arxiv_refuses_is_dropped_and_the_rest_asked_again(upstream):
    # arXiv names the id it refuses in its error feed; the recorded one names "abc" (reused here for 9912.0001).
    refused = feed("id_list_malformed_abc_400.xml").replace(b"for abc", b"for 9912.0001")
    route = upstream.get(API)
    route.side_effect = [
        httpx.Response(400, content=refused),
        httpx.Response(200, content=feed("id_list_1605.08386.xml")),
    ]
    result = _get(["9912.0001", "1605.08386"])
    assert route.call_count == 2
    assert [p.id for p in result.papers] == ["1605.08386v1"]
    assert [n.id for n in result.not_found] == ["9912.0001"]


def test_an_id_arxiv_refuses_is_reported_as_refused_and_not_remembered_as_missing(upstream, aws):
    refused = feed("id_list_malformed_abc_400.xml").replace(b"for abc", b"for 9912.0001")
    route = upstream.get(API)
    route.side_effect = [
        httpx.Response(400, content=refused),
        httpx.Response(200, content=feed("id_list_1605.08386.xml")),
        httpx.Response(400, content=refused),
    ]
    result = _get(["9912.0001", "1605.08386"])
    assert [(n.id, n.reason) for n in result.not_found] == [("9912.0001", "invalid_id")]
    assert "incorrect id format for 9912.0001" in result.not_found[0].detail
    # Asked alone, the id goes to arXiv again (no negative cache entry) and arXiv's refusal is the answer.
    assert _failure(["9912.0001"]).code == INVALID_ARGUMENT
    assert route.call_count == 3


def test_throttling_fails_the_batch_as_rate_limited(upstream, env):
    env(SCHOLAR_RETRY_BUDGET_S="0")
    upstream.get(API).respond(200, text="Rate exceeded.")
    assert _failure(["1605.08386"]).code == RATE_LIMITED


def test_papers_are_served_from_the_cache_on_the_second_call(upstream, aws):
    route = upstream.get(API).respond(200, content=feed("id_list_versioned_2104.12255v1_title_0.xml"))
    first = _get("2104.12255v1")
    second = _get(["2104.12255v1"])
    assert route.call_count == 1
    assert second.papers == first.papers and second.papers[0].title == "0"


def test_duplicate_ids_are_asked_for_once(upstream):
    route = upstream.get(API).respond(200, content=feed("id_list_1605.08386.xml"))
    result = _get(["1605.08386", " 1605.08386", "1605.08386"])
    assert route.calls.last.request.url.params["id_list"] == "1605.08386"
    assert result.totalSucceeded == 1


def test_more_than_ten_ids_or_none_are_refused_by_the_schema():
    with pytest.raises(ValidationError):
        GetPapersInput(paper_ids=[f"2401.{i:05d}" for i in range(11)])
    with pytest.raises(ValidationError):
        GetPapersInput(paper_ids=[])


def test_a_known_missing_id_is_remembered_briefly(upstream, aws):
    route = upstream.get(API).respond(200, content=feed("id_list_0000.0000_no_results.xml"))
    _failure(["0000.0000"])
    _failure(["0000.0000"])
    assert route.call_count == 1


def test_an_html_page_on_http_200_is_an_upstream_error_and_nothing_is_remembered(upstream, aws):
    route = upstream.get(API)
    route.side_effect = [
        httpx.Response(200, content=html_render(), headers={"Content-Type": "text/html"}),
        httpx.Response(200, content=feed("id_list_1605.08386.xml")),
    ]
    err = _failure(["1605.08386"])
    assert (err.code, err.retryable) == (UPSTREAM_ERROR, True)
    assert _get("1605.08386").papers[0].id == "1605.08386v1"
    assert route.call_count == 2
