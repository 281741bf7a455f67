"""Negative answers are cached briefly for every source get_book asks (DESIGN §4): a repeat costs no request."""

from __future__ import annotations

import httpx

from scholar.store.cache import NEGATIVE_TTL_S, Cache
from tests.books.helpers import call, json_response, recorded

GATSBY_ISBN = "9780743273565"
GATSBY_EDITION = "openlibrary/books_OL23109860M.json"


def _not_found() -> httpx.Response:
    return json_response({"error": "notfound", "key": "/x"}, status=404)


def serve_gatsby_with_google_404(upstream):
    upstream.get(f"/openlibrary/isbn/{GATSBY_ISBN}.json").mock(return_value=json_response(recorded(GATSBY_EDITION)))
    upstream.get("/openlibrary/works/OL468431W.json").mock(return_value=_not_found())
    upstream.get("/openlibrary/authors/OL27349A.json").mock(return_value=_not_found())
    # Google Books answering 404 (as an unknown path or a proxy does), not an empty listing.
    return upstream.get("/google_books/books/v1/volumes").mock(return_value=_not_found())


def test_a_google_books_404_is_asked_once_then_answered_from_the_negative_cache(stores, upstream):
    google = serve_gatsby_with_google_404(upstream)
    first = call("get_book", identifier=GATSBY_ISBN)
    second = call("get_book", identifier=GATSBY_ISBN)
    assert google.call_count == 1
    assert first.google_books_url == second.google_books_url
    assert not second.partial


def test_a_missing_open_library_work_is_asked_once(stores, upstream):
    serve_gatsby_with_google_404(upstream)
    work = upstream.routes[1]
    call("get_book", identifier=GATSBY_ISBN)
    call("get_book", identifier=GATSBY_ISBN)
    assert work.call_count == 1


def test_the_negative_entry_is_brief(stores, upstream):
    serve_gatsby_with_google_404(upstream)
    call("get_book", identifier=GATSBY_ISBN)
    item = stores.dynamodb.get_item(TableName=stores.cache_table, Key={"pk": {"S": f"negative#gb-isbn:{GATSBY_ISBN}"}})
    stored, expires = int(item["Item"]["stored_at"]["N"]), int(item["Item"]["expires_at"]["N"])
    assert expires - stored <= NEGATIVE_TTL_S


def test_a_failing_google_books_is_never_remembered_as_missing(stores, upstream):
    google = serve_gatsby_with_google_404(upstream)
    google.mock(return_value=httpx.Response(500, text="oops"))
    first = call("get_book", identifier=GATSBY_ISBN)
    assert first.partial
    assert Cache().get("negative", f"gb-isbn:{GATSBY_ISBN}") is None
