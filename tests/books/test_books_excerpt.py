"""get_book_excerpt on recorded Google Books answers: fields, the optional key, and quota errors."""

from __future__ import annotations

import logging

import httpx
import pytest

from scholar.core.errors import FORBIDDEN, INVALID_ARGUMENT, NOT_FOUND, RATE_LIMITED, UPSTREAM_ERROR, ScholarError
from tests.books.helpers import SPECS, call, json_response, recorded

READY_PLAYER_ONE = "google_books/volumes_q-isbn-9780099560432_2023.json"
WILLARD_GIBBS = "google_books/volumes_q-isbn-9780918024565_2023_no-cover.json"
SECRET = "AIza-test-secret-key"


def _volumes(upstream):
    return upstream.get("/google_books/books/v1/volumes")


def _google_error(status: int, reason: str) -> dict:
    # Synthetic: Google's JSON error shape (no recorded 403/429 body exists; see PROVENANCE).
    return {"error": {"code": status, "message": "quota", "errors": [{"reason": reason, "domain": "usageLimits"}]}}


def test_an_excerpt_has_description_snippet_and_preview_facts(upstream):
    route = _volumes(upstream).mock(return_value=json_response(recorded(READY_PLAYER_ONE)))
    excerpt = call("get_book_excerpt", isbn="978-0-09-956043-2")
    assert route.calls.last.request.url.params["q"] == "isbn:9780099560432"
    assert excerpt.isbn == "9780099560432"
    assert (excerpt.title, excerpt.authors) == ("Ready Player One", ["Ernest Cline"])
    assert excerpt.description.startswith("It's the year 2044")
    assert excerpt.snippet.startswith("' Guardian 'This book pleased")  # HTML entities decoded
    assert (excerpt.preview_available, excerpt.viewability) == (False, "NO_PAGES")
    assert excerpt.preview_link.startswith("https://books.google.nl/books?id=4zugGMReN3cC")
    assert excerpt.google_books_url == "https://books.google.com/books?id=4zugGMReN3cC"


def test_a_volume_without_description_or_snippet_has_them_null(upstream):
    _volumes(upstream).mock(return_value=json_response(recorded(WILLARD_GIBBS)))
    excerpt = call("get_book_excerpt", isbn="0918024560")
    assert (excerpt.title, excerpt.description, excerpt.snippet) == ("Willard Gibbs", None, None)


def test_a_volume_for_another_isbn_is_not_found(upstream):
    _volumes(upstream).mock(return_value=json_response(recorded(READY_PLAYER_ONE)))
    with pytest.raises(ScholarError) as caught:
        call("get_book_excerpt", isbn="9780918024565")
    assert caught.value.code == NOT_FOUND


def test_the_api_key_travels_in_a_header_and_never_reaches_a_url_a_log_or_an_error(upstream, env, caplog):
    env.set(SCHOLAR_GOOGLE_BOOKS_API_KEY=SECRET)
    route = _volumes(upstream).mock(return_value=json_response(_google_error(403, "keyInvalid"), status=403))
    with caplog.at_level(logging.DEBUG), pytest.raises(ScholarError) as caught:
        call("get_book_excerpt", isbn="9780099560432")
    request = route.calls.last.request
    assert request.headers["x-goog-api-key"] == SECRET
    assert SECRET not in str(request.url)
    assert caught.value.code == FORBIDDEN
    assert SECRET not in str(caught.value.to_envelope())
    assert not [r for r in caplog.records if SECRET in r.getMessage()]


def test_without_a_key_no_key_is_sent(upstream):
    route = _volumes(upstream).mock(return_value=json_response(recorded(READY_PLAYER_ONE)))
    call("get_book_excerpt", isbn="9780099560432")
    request = route.calls.last.request
    assert "key" not in request.url.params and "x-goog-api-key" not in request.headers


@pytest.mark.parametrize(("status", "reason"), [(403, "dailyLimitExceeded"), (403, "rateLimitExceeded"),
                                                (429, "rateLimitExceeded")])
def test_google_quota_errors_are_rate_limited(upstream, status, reason):
    _volumes(upstream).mock(return_value=json_response(_google_error(status, reason), status=status))
    with pytest.raises(ScholarError) as caught:
        call("get_book_excerpt", isbn="9780099560432")
    assert caught.value.code == RATE_LIMITED
    assert caught.value.source == "google_books"


def test_html_on_200_from_google_is_an_upstream_error(upstream):
    _volumes(upstream).mock(return_value=httpx.Response(200, text="<html>sorry</html>",
                                                        headers={"content-type": "text/html"}))
    with pytest.raises(ScholarError) as caught:
        call("get_book_excerpt", isbn="9780099560432")
    assert caught.value.code == UPSTREAM_ERROR


def test_a_bad_isbn_checksum_is_an_invalid_argument_naming_isbn(upstream):
    with pytest.raises(ScholarError) as caught:
        call("get_book_excerpt", isbn="9780099560433")
    assert caught.value.code == INVALID_ARGUMENT
    assert caught.value.details["field"] == "isbn"
    assert not upstream.calls


def test_the_excerpt_tool_is_write_tagged():
    spec = SPECS["get_book_excerpt"]
    assert "write" in spec.tags
    assert spec.annotations.read_only is False
