"""get_book on recorded Open Library editions and works: identifiers, one edition per record, editions, faults."""

from __future__ import annotations

import httpx
import pytest
import respx

from scholar.core.errors import FORBIDDEN, INVALID_ARGUMENT, NOT_FOUND, RATE_LIMITED, UPSTREAM_ERROR, ScholarError
from tests.books.helpers import call, json_response, recorded

SABRIEL_EDITION = "openlibrary/books_OL22951843M.json"  # ISBN-10s only, no covers
SABRIEL_WORK = "openlibrary/works_OL15832982W.json"
SABRIEL_EDITIONS = "openlibrary/works_OL15832982W_editions.json"
GATSBY_EDITION = "openlibrary/books_OL23109860M.json"  # ISBN-10 + ISBN-13, covers, a Google id
# Synthetic: Google Books' answer for an ISBN it does not hold.
NO_VOLUMES = {"kind": "books#volumes", "totalItems": 0}


def _not_found() -> httpx.Response:
    return json_response({"error": "notfound", "key": "/x"}, status=404)


def serve_sabriel(upstream: respx.MockRouter) -> None:
    """Sabriel: ISBN-13 unknown to Open Library, its ISBN-10 resolves to the ISBN-10-only edition."""
    upstream.get("/openlibrary/isbn/9780060273224.json").mock(return_value=_not_found())
    upstream.get("/openlibrary/isbn/0060273224.json").mock(return_value=json_response(recorded(SABRIEL_EDITION)))
    upstream.get("/openlibrary/books/OL22951843M.json").mock(return_value=json_response(recorded(SABRIEL_EDITION)))
    upstream.get("/openlibrary/works/OL15832982W.json").mock(return_value=json_response(recorded(SABRIEL_WORK)))
    upstream.get("/openlibrary/works/OL15832982W/editions.json").mock(
        return_value=json_response(recorded(SABRIEL_EDITIONS)))
    upstream.get("/openlibrary/authors/OL382982A.json").mock(return_value=_not_found())
    upstream.get("/google_books/books/v1/volumes").mock(return_value=json_response(NO_VOLUMES))


def serve_gatsby(upstream: respx.MockRouter) -> None:
    upstream.get("/openlibrary/isbn/9780743273565.json").mock(return_value=json_response(recorded(GATSBY_EDITION)))
    upstream.get("/openlibrary/works/OL468431W.json").mock(return_value=_not_found())
    upstream.get("/openlibrary/authors/OL27349A.json").mock(return_value=_not_found())
    upstream.get("/google_books/books/v1/volumes").mock(return_value=json_response(NO_VOLUMES))


def test_an_isbn_10_only_edition_is_found_and_gets_both_isbn_forms(upstream):
    serve_sabriel(upstream)
    book = call("get_book", identifier="0-06-027322-4")
    assert book.openlibrary_edition_id == "OL22951843M"
    assert (book.isbn_10, book.isbn_13) == ("0060273224", "9780060273224")
    assert (book.publisher, book.year, book.edition) == ("Harper Trophy", 1996, "1st American ed.")
    assert book.page_count == 491
    assert book.openlibrary_work_id == "OL15832982W"
    assert book.description.startswith("Sabriel, daughter of the necromancer")  # the edition's own description
    assert "Fantasy" in book.subjects  # subjects come from the work
    assert book.first_publish_year == 1995


def test_an_edition_without_covers_has_a_null_cover_url_even_when_its_work_has_one(upstream):
    serve_sabriel(upstream)
    book = call("get_book", identifier="0060273224")
    assert book.cover_url is None


def test_the_isbn_asked_for_is_the_one_shown_when_an_edition_lists_several(upstream):
    serve_sabriel(upstream)
    upstream.get("/openlibrary/isbn/9780060273231.json").mock(return_value=_not_found())
    upstream.get("/openlibrary/isbn/0060273232.json").mock(return_value=json_response(recorded(SABRIEL_EDITION)))
    book = call("get_book", identifier="0060273232")
    assert (book.isbn_10, book.isbn_13) == ("0060273232", "9780060273231")


def test_a_dangling_author_reference_leaves_the_name_out_without_failing(upstream):
    serve_sabriel(upstream)
    assert call("get_book", identifier="0060273224").authors == []


def test_author_names_are_resolved_from_author_records(upstream):
    serve_sabriel(upstream)
    # The recorded author record of OL1A stands in for the edition's author (the only recorded author body).
    upstream.get("/openlibrary/authors/OL382982A.json").mock(
        return_value=json_response(recorded("openlibrary/authors_OL1A.json")))
    assert call("get_book", identifier="0060273224").authors == ["Sachi Rautroy"]


@pytest.mark.parametrize("identifier", ["9780743273565", "978-0-7432-7356-5", "0743273567", "ISBN 0-7432-7356-7"])
def test_isbn_forms_with_or_without_hyphens_reach_the_same_edition(upstream, identifier):
    serve_gatsby(upstream)
    book = call("get_book", identifier=identifier)
    assert book.openlibrary_edition_id == "OL23109860M"
    assert (book.isbn_10, book.isbn_13) == ("0743273567", "9780743273565")
    assert book.cover_url == "https://covers.openlibrary.org/b/id/6776207-M.jpg"
    assert book.google_books_url == "https://books.google.com/books?id=iXn5U2IzVH0C"  # from the edition record


def test_an_edition_whose_work_is_gone_is_still_a_complete_record(upstream):
    serve_gatsby(upstream)
    book = call("get_book", identifier="9780743273565")
    assert (book.title, book.publisher, book.year) == ("The Great Gatsby", "Scribner", 2004)
    assert book.openlibrary_work_id == "OL468431W"
    assert book.partial is False


@pytest.mark.parametrize("identifier", ["9780743273566", "0743273568", "12345", "OL27349A"])
def test_a_bad_identifier_is_an_invalid_argument_naming_the_field_and_sends_nothing(upstream, identifier):
    with pytest.raises(ScholarError) as caught:
        call("get_book", identifier=identifier)
    assert caught.value.code == INVALID_ARGUMENT
    assert caught.value.details["field"] == "identifier"
    assert not upstream.calls


def test_an_edition_id_is_looked_up_directly(upstream):
    serve_sabriel(upstream)
    book = call("get_book", identifier="https://openlibrary.org/books/OL22951843M/Sabriel")
    assert book.openlibrary_edition_id == "OL22951843M"
    assert book.isbn_10 == "0060273224"


def test_a_work_id_takes_every_edition_field_from_the_edition_showing_the_works_cover(upstream):
    serve_sabriel(upstream)
    book = call("get_book", identifier="OL15832982W")
    # OL24743307M carries the work's first cover (6796986): HarperCollins 1995, ISBN-10 0060273224.
    assert book.openlibrary_edition_id == "OL24743307M"
    assert (book.publisher, book.year, book.isbn_10, book.isbn_13) == (
        "HarperCollins", 1995, "0060273224", "9780060273224")
    assert book.cover_url == "https://covers.openlibrary.org/b/id/6796986-M.jpg"
    assert book.description == "First in the Old Kingdom/Abhorsen series."
    assert book.edition_count == 15


def test_include_editions_lists_a_page_of_the_works_editions(upstream):
    serve_sabriel(upstream)
    book = call("get_book", identifier="OL15832982W", include_editions=True, editions_offset=0, editions_limit=5)
    page = book.editions
    assert page.openlibrary_work_id == "OL15832982W"
    assert (page.offset, page.limit, page.total, page.next_offset) == (0, 5, 15, 5)
    assert [e.openlibrary_edition_id for e in page.entries] == [
        "OL9142127M", "OL22951843M", "OL7946150M", "OL9952943M", "OL9788823M"]
    no_cover, with_cover = page.entries[0], page.entries[4]
    assert no_cover.cover_url is None
    assert with_cover.cover_url == "https://covers.openlibrary.org/b/id/5014078-M.jpg"
    assert page.entries[1].isbn_13 == "9780060273224"  # converted from the ISBN-10-only edition
    # The page lies inside the first page read to pick the edition: no second request for it.
    assert len([c for c in upstream.calls if c.request.url.path.endswith("/editions.json")]) == 1


def test_a_page_beyond_the_editions_already_read_is_asked_for(upstream):
    serve_sabriel(upstream)
    book = call("get_book", identifier="OL15832982W", include_editions=True, editions_offset=20, editions_limit=5)
    # The recorded list holds all 15 editions, so a window past the end is empty and has no next page.
    assert (book.editions.entries, book.editions.next_offset, book.editions.total) == ([], None, 15)


def test_a_work_without_editions_keeps_edition_fields_null(upstream):
    upstream.get("/openlibrary/works/OL15832982W.json").mock(return_value=json_response(recorded(SABRIEL_WORK)))
    # Synthetic: an empty editions list.
    upstream.get("/openlibrary/works/OL15832982W/editions.json").mock(
        return_value=json_response({"links": {}, "size": 0, "entries": []}))
    upstream.get("/openlibrary/authors/OL382982A.json").mock(return_value=_not_found())
    book = call("get_book", identifier="OL15832982W")
    assert (book.title, book.isbn_13, book.publisher, book.openlibrary_edition_id) == ("Sabriel", None, None, None)
    assert book.year == 1995  # the first publication year: no edition to describe
    assert book.cover_url == "https://covers.openlibrary.org/b/id/6796986-M.jpg"  # the work's own cover


def test_include_editions_sends_the_requested_offset_and_limit(upstream):
    serve_sabriel(upstream)
    call("get_book", identifier="0060273224", include_editions=True, editions_offset=10, editions_limit=5)
    asked = [c.request.url.params for c in upstream.calls if c.request.url.path.endswith("/editions.json")]
    assert [(p["offset"], p["limit"]) for p in asked] == [("10", "5")]


def test_an_isbn_no_edition_holds_is_not_found(upstream):
    upstream.get("/openlibrary/isbn/9780262035613.json").mock(return_value=_not_found())
    upstream.get("/openlibrary/isbn/0262035618.json").mock(return_value=_not_found())
    with pytest.raises(ScholarError) as caught:
        call("get_book", identifier="978-0-262-03561-3")
    assert caught.value.code == NOT_FOUND


@pytest.mark.parametrize(("response", "code"), [
    (httpx.Response(429, headers={"Retry-After": "30"}, text="Too Many Requests"), RATE_LIMITED),
    (httpx.Response(403, text="Forbidden"), FORBIDDEN),
    (httpx.Response(200, text="<html><body>Internal error</body></html>", headers={"content-type": "text/html"}),
     UPSTREAM_ERROR),
    (httpx.Response(200, text='{"key": "/books/OL1M", "title": "trunc', headers={"content-type": "application/json"}),
     UPSTREAM_ERROR),
])
def test_open_library_faults_are_typed_errors_never_not_found(upstream, response, code):
    upstream.get("/openlibrary/isbn/9780743273565.json").mock(return_value=response)
    with pytest.raises(ScholarError) as caught:
        call("get_book", identifier="9780743273565")
    assert caught.value.code == code
    assert caught.value.source == "openlibrary"


def test_a_rate_limit_reports_the_retry_after(upstream):
    upstream.get("/openlibrary/works/OL15832982W.json").mock(
        return_value=httpx.Response(429, headers={"Retry-After": "30"}))
    with pytest.raises(ScholarError) as caught:
        call("get_book", identifier="OL15832982W")
    assert caught.value.retry_after_s == pytest.approx(30)
    assert caught.value.retryable is True


def test_a_failing_google_books_marks_the_answer_partial_but_keeps_the_open_library_record(upstream):
    serve_gatsby(upstream)
    upstream.get("/google_books/books/v1/volumes").mock(return_value=httpx.Response(503, text="backend error"))
    book = call("get_book", identifier="9780743273565")
    assert book.title == "The Great Gatsby"
    assert book.partial is True
    assert [(f.source, f.code) for f in book.failed_sources] == [("google_books", UPSTREAM_ERROR)]


def test_google_books_adds_its_snippet_when_it_holds_the_isbn(upstream):
    upstream.get("/openlibrary/isbn/9780099560432.json").mock(return_value=json_response(
        # Synthetic: a minimal edition record for the ISBN of the recorded Google Books answer.
        {"key": "/books/OL1M", "title": "Ready Player One", "isbn_13": ["9780099560432"],
         "publishers": ["Random House"], "publish_date": "2012"}))
    upstream.get("/google_books/books/v1/volumes").mock(
        return_value=json_response(recorded("google_books/volumes_q-isbn-9780099560432_2023.json")))
    book = call("get_book", identifier="9780099560432")
    assert book.google_books_url == "https://books.google.com/books?id=4zugGMReN3cC"
    assert book.snippet.startswith("' Guardian 'This book pleased every geeky bone")
    assert book.sources == ["openlibrary", "google_books"]
