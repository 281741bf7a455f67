"""get_book against moto: covers stored in S3 behind short-lived links, records cached under their own keys."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from scholar.core.errors import NOT_FOUND, RATE_LIMITED, UPSTREAM_ERROR, ScholarError
from scholar.store.cache import Cache
from tests.books.helpers import call, json_response, recorded
from tests.books.test_books_get_book import serve_gatsby, serve_sabriel

# Synthetic: the first bytes of a JPEG (no recorded cover image exists; see PROVENANCE).
JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xff\xd9"


def _cover_route(upstream, size="M", response=None):
    return upstream.get(f"/covers/b/id/6776207-{size}.jpg").mock(
        return_value=response or httpx.Response(200, content=JPEG, headers={"content-type": "image/jpeg"}))


def test_download_cover_stores_the_cover_under_its_isbn_and_returns_a_presigned_link(upstream, stores):
    serve_gatsby(upstream)
    route = _cover_route(upstream, "L")
    book = call("get_book", identifier="0743273567", download_cover=True, cover_size="L")
    assert book.cover_path == "covers/9780743273565_L.jpg"
    stored = stores.s3.get_object(Bucket=stores.bucket, Key=book.cover_path)
    assert stored["Body"].read() == JPEG
    assert stored["ContentType"] == "image/jpeg"
    link = urlsplit(book.cover_download_url)
    assert link.path.endswith("/covers/9780743273565_L.jpg")
    query = parse_qs(link.query)
    assert {"Signature", "X-Amz-Signature"} & set(query)  # signed (SigV2 or SigV4, as the client chooses)
    assert route.calls.last.request.url.params["default"] == "false"  # a missing cover must be a 404


def test_a_stored_cover_is_not_downloaded_again(upstream, stores):
    serve_gatsby(upstream)
    route = _cover_route(upstream)
    call("get_book", identifier="9780743273565", download_cover=True)
    again = call("get_book", identifier="9780743273565", download_cover=True)
    assert route.call_count == 1
    assert again.cover_path == "covers/9780743273565_M.jpg"


def test_an_edition_without_a_cover_gets_null_cover_fields_without_asking_the_covers_host(upstream, stores):
    serve_sabriel(upstream)
    book = call("get_book", identifier="0060273224", download_cover=True)
    assert (book.cover_url, book.cover_path, book.cover_download_url) == (None, None, None)
    assert not [c for c in upstream.calls if "/covers/" in c.request.url.path]


def test_a_cover_the_covers_host_does_not_have_is_null_not_an_error(upstream, stores):
    serve_gatsby(upstream)
    _cover_route(upstream, response=httpx.Response(404, text="not found"))
    book = call("get_book", identifier="9780743273565", download_cover=True)
    assert (book.cover_url, book.cover_path, book.cover_download_url) == (None, None, None)


def test_a_throttled_covers_host_is_rate_limited_not_a_missing_cover(upstream, stores):
    serve_gatsby(upstream)
    _cover_route(upstream, response=httpx.Response(429, text="slow down"))
    with pytest.raises(ScholarError) as caught:
        call("get_book", identifier="9780743273565", download_cover=True)
    assert caught.value.code == RATE_LIMITED
    assert caught.value.source == "covers"


def test_an_html_page_instead_of_a_cover_image_is_an_upstream_error(upstream, stores):
    serve_gatsby(upstream)
    html = httpx.Response(200, text="<html>oops</html>", headers={"content-type": "text/html"})
    _cover_route(upstream, response=html)
    with pytest.raises(ScholarError) as caught:
        call("get_book", identifier="9780743273565", download_cover=True)
    assert caught.value.code == UPSTREAM_ERROR
    assert not stores.s3.list_objects_v2(Bucket=stores.bucket).get("Contents")


def test_work_and_edition_records_are_cached_under_their_own_keys(upstream, stores):
    serve_sabriel(upstream)
    by_isbn = call("get_book", identifier="0060273224")
    by_work = call("get_book", identifier="OL15832982W")
    cache = Cache()
    edition = cache.get("record", "ol-edition:OL22951843M")
    work = cache.get("record", "ol-work:OL15832982W")
    assert edition["id"] == "OL22951843M" and edition["publishers"] == ["Harper Trophy"]
    assert work["id"] == "OL15832982W" and work["description"] == "First in the Old Kingdom/Abhorsen series."
    assert cache.get("alias", "isbn:9780060273224") == "OL22951843M"
    # The work lookup did not overwrite what the ISBN lookup stored, and vice versa.
    assert by_isbn.openlibrary_edition_id == "OL22951843M"
    assert by_work.openlibrary_edition_id == "OL24743307M"


def test_a_cached_book_is_served_without_asking_open_library(upstream, stores):
    serve_sabriel(upstream)
    first = call("get_book", identifier="0060273224")
    before = len([c for c in upstream.calls if "/openlibrary/" in c.request.url.path])
    again = call("get_book", identifier="978-0-06-027322-4")
    after = len([c for c in upstream.calls if "/openlibrary/" in c.request.url.path])
    assert again == first
    assert after == before


def test_a_not_found_isbn_is_remembered_briefly(upstream, stores):
    route13 = upstream.get("/openlibrary/isbn/9780262035613.json").mock(return_value=json_response({}, status=404))
    upstream.get("/openlibrary/isbn/0262035618.json").mock(return_value=json_response({}, status=404))
    for _ in range(2):
        with pytest.raises(ScholarError) as caught:
            call("get_book", identifier="9780262035613")
        assert caught.value.code == NOT_FOUND
    assert route13.call_count == 1


def test_a_failed_lookup_caches_nothing(upstream, stores):
    route = upstream.get("/openlibrary/works/OL15832982W.json").mock(return_value=httpx.Response(429))
    with pytest.raises(ScholarError) as caught:
        call("get_book", identifier="OL15832982W")
    assert caught.value.code == RATE_LIMITED
    assert Cache().get("record", "ol-work:OL15832982W") is None
    assert Cache().get("negative", "ol-isbn:OL15832982W") is None
    route.mock(return_value=json_response(recorded("openlibrary/works_OL15832982W.json")))
    serve_sabriel(upstream)
    assert call("get_book", identifier="OL15832982W").openlibrary_work_id == "OL15832982W"
