"""search_books on recorded Open Library searches: strategy, one edition per record, broadening, caching."""

from __future__ import annotations

import httpx
import pytest
import respx
from pydantic import ValidationError

from scholar.core.errors import FORBIDDEN, RATE_LIMITED, UPSTREAM_ERROR, ScholarError
from scholar.families.books.search import rank_by_author
from scholar.sources.openlibrary import SEARCH_FIELDS, SearchDoc
from tests.books.helpers import CONTACT, call, json_response, recorded

TIME_WAR = "openlibrary/search_this-is-how-you-lose-the-time-war.json"
TOLKIEN = "openlibrary/search_author-tolkien_title-lord-of-the-rings.json"
# Synthetic: an empty search answer (Open Library's shape, no recorded capture with zero hits exists).
EMPTY = {"numFound": 0, "start": 0, "docs": []}


def _search_route(upstream: respx.MockRouter) -> respx.Route:
    return upstream.get("/openlibrary/search.json")


def test_a_query_alone_is_sent_as_a_title_search_asking_only_for_the_fields_we_use(upstream):
    route = _search_route(upstream).mock(return_value=json_response(recorded(TIME_WAR)))
    result = call("search_books", query="This Is How You Lose the Time War")
    params = route.calls.last.request.url.params
    assert params["title"] == "This Is How You Lose the Time War"
    assert "q" not in params
    assert params["fields"] == SEARCH_FIELDS
    assert result.strategy == "title"
    assert [b.openlibrary_work_id for b in result.books] == ["OL20639540W", "OL19859295W"]


def test_requests_carry_a_user_agent_with_the_contact_email(upstream):
    route = _search_route(upstream).mock(return_value=json_response(recorded(TIME_WAR)))
    call("search_books", title="time war")
    assert CONTACT in route.calls.last.request.headers["user-agent"]


def test_a_single_edition_work_takes_isbn_publisher_and_year_from_that_edition(upstream):
    _search_route(upstream).mock(return_value=json_response(recorded(TIME_WAR)))
    book = call("search_books", title="This Is How You Lose the Time War").books[0]
    assert (book.isbn_13, book.isbn_10) == ("9781534431003", "1534431004")
    assert book.publisher == "Simon and Schuster"
    assert book.year == 2019
    assert book.openlibrary_edition_id == "OL27901088M"
    assert book.authors == ["Amal El-Mohtar", "Max Gladstone"]
    assert book.worldcat_url == "https://www.worldcat.org/isbn/9781534431003"


def test_a_work_without_editions_or_cover_fields_has_them_null(upstream):
    _search_route(upstream).mock(return_value=json_response(recorded(TIME_WAR)))
    first, second = call("search_books", title="This Is How You Lose the Time War").books
    assert first.cover_url is None  # the recorded doc has no cover_i
    assert second.cover_url == "https://covers.openlibrary.org/b/id/8665647-M.jpg"
    assert (second.isbn_13, second.publisher, second.openlibrary_edition_id) == (None, None, None)


def test_a_many_edition_work_never_mixes_isbn_and_publisher_across_editions(upstream):
    # The recorded (older) search shape merges every edition's ISBNs and publishers into work-level lists.
    _search_route(upstream).mock(return_value=json_response(recorded(TOLKIEN)))
    result = call("search_books", title="lord of the rings", author="tolkien", limit=5)
    lotr = result.books[0]
    assert lotr.openlibrary_work_id == "OL27448W"
    assert (lotr.isbn_13, lotr.isbn_10, lotr.publisher) == (None, None, None)
    assert lotr.openlibrary_edition_id == "OL23124795M"  # the edition whose cover the work shows
    assert lotr.year == 1954 and lotr.first_publish_year == 1954
    assert result.total_found == 81
    assert len(result.books) == 5


def test_the_best_matching_edition_of_a_current_search_answer_supplies_every_edition_field(upstream):
    # Synthetic: the current search.json shape with the ``editions`` sub-answer (no recorded capture has it).
    body = {"numFound": 1, "docs": [{
        "key": "/works/OL17953442W", "title": "Deep Learning", "author_name": ["Ian Goodfellow", "Yoshua Bengio"],
        "first_publish_year": 2016, "edition_count": 9, "cover_i": 8086745, "publisher": ["MIT Press", "Other"],
        "editions": {"numFound": 9, "start": 0, "docs": [{
            "key": "/books/OL26423929M", "title": "Deep Learning", "isbn": ["0262035618", "9780262035613"],
            "publisher": ["MIT Press"], "publish_date": ["2016"], "cover_i": 8086745}]},
    }]}
    _search_route(upstream).mock(return_value=json_response(body))
    book = call("search_books", title="deep learning").books[0]
    assert (book.isbn_13, book.isbn_10) == ("9780262035613", "0262035618")
    assert (book.publisher, book.year, book.openlibrary_edition_id) == ("MIT Press", 2016, "OL26423929M")


def test_a_title_search_without_hits_falls_back_to_free_text(upstream):
    route = _search_route(upstream).mock(side_effect=[json_response(EMPTY), json_response(recorded(TIME_WAR))])
    result = call("search_books", query="lose the time war epistolary")
    assert route.call_count == 2
    assert route.calls[1].request.url.params["q"] == "lose the time war epistolary"
    assert "title" not in route.calls[1].request.url.params
    assert result.strategy == "free_text"
    assert len(result.books) == 2


def test_a_thin_multi_word_author_search_is_broadened_to_name_variants(upstream):
    # Synthetic: a surname search answering with a name variant and a namesake with another first name.
    variants = {"numFound": 2, "docs": [
        {"key": "/works/OL1W", "title": "The Changing Workplace", "author_name": ["Francis Duffy"]},
        {"key": "/works/OL2W", "title": "Rapture", "author_name": ["Carol Ann Duffy"]},
    ]}
    route = _search_route(upstream).mock(side_effect=[json_response(EMPTY), json_response(variants)])
    result = call("search_books", author="Frank Duffy")
    assert route.calls[1].request.url.params["author"] == "duffy"
    assert result.broadened is True
    assert result.strategy == "author+broadened"
    assert [b.authors for b in result.books] == [["Francis Duffy"]]


def test_search_needs_one_of_query_title_or_author():
    with pytest.raises(ValidationError, match="at least one of query, title or author"):
        call("search_books", limit=5)


def test_limit_is_bounded_to_fifty():
    with pytest.raises(ValidationError):
        call("search_books", title="x", limit=51)


def test_a_search_answer_is_cached_and_served_without_a_second_request(upstream, stores):
    route = _search_route(upstream).mock(return_value=json_response(recorded(TIME_WAR)))
    first = call("search_books", title="This Is How You Lose the Time War")
    again = call("search_books", title="this is how you lose the time war")
    assert route.call_count == 1
    assert again == first


@pytest.mark.parametrize("status", [429, 403])
def test_a_refused_search_is_a_typed_error_and_is_not_cached(upstream, stores, status):
    route = _search_route(upstream).mock(return_value=httpx.Response(status, text="slow down"))
    expected = {429: RATE_LIMITED, 403: FORBIDDEN}[status]
    with pytest.raises(ScholarError) as caught:
        call("search_books", title="dune")
    assert caught.value.code == expected
    route.mock(return_value=json_response(recorded(TIME_WAR)))
    assert len(call("search_books", title="dune").books) == 2  # the failure left nothing in the cache


def test_an_html_page_on_200_is_an_upstream_error_not_an_empty_list(upstream):
    _search_route(upstream).mock(return_value=httpx.Response(
        200, text="<!DOCTYPE html><html><body>Open Library is down for maintenance</body></html>",
        headers={"content-type": "text/html; charset=utf-8"}))
    with pytest.raises(ScholarError) as caught:
        call("search_books", title="dune")
    assert caught.value.code == UPSTREAM_ERROR


def test_author_hits_sharing_no_name_part_are_dropped_only_when_others_share_one():
    docs = [SearchDoc(work_id="OL1W", authors=["Frank Herbert"]),
            SearchDoc(work_id="OL2W", authors=["Francis Duffy"]),
            SearchDoc(work_id="OL3W", authors=["Jane Austen"])]
    assert [d.work_id for d in rank_by_author(docs, "Duffy, Frank")] == ["OL1W", "OL2W"]
    # A misspelling Open Library resolved through alternative names: nothing matches literally, nothing is dropped.
    tolkien = [SearchDoc(work_id="OL27448W", authors=["J. R. R. Tolkien"])]
    assert rank_by_author(tolkien, "Tolkein") == tolkien


def test_a_last_first_author_is_broadened_by_its_surname(upstream):
    variants = {"numFound": 1, "docs": [{"key": "/works/OL1W", "title": "Office", "author_name": ["Francis Duffy"]}]}
    route = _search_route(upstream).mock(side_effect=[json_response(EMPTY), json_response(variants)])
    result = call("search_books", author="Duffy, Frank")
    assert route.calls[1].request.url.params["author"] == "duffy"
    assert result.broadened is True
