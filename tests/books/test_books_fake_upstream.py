"""The books tools over real loopback HTTP against the fake upstream that replays the recorded responses.

These go through our real HTTP client (User-Agent, proxy base, error translation) rather than respx; the
end-to-end tests through the local MCP server are tests/e2e/test_books_e2e.py.
"""

from __future__ import annotations

import pytest

from scholar.core.errors import FORBIDDEN, NOT_FOUND, RATE_LIMITED, UPSTREAM_ERROR, ScholarError
from tests.books.helpers import CONTACT, call
from tests.fakes.upstream import FakeUpstream
from tests.fixtures.servers import fake_fixture, fake_upstream_fixture
from tests.fixtures_dir import fixtures_dir

SABRIEL_EDITION = "upstream/openlibrary/books_OL22951843M.json"


fake_upstream = fake_upstream_fixture(scope="module")
fake = fake_fixture(settings={
    "SCHOLAR_RETRY_BUDGET_S": "0",
    "SCHOLAR_CONTACT_EMAIL": CONTACT,
    "SCHOLAR_CACHE_TABLE": None,
    "SCHOLAR_ARTIFACT_BUCKET": None,
    "SCHOLAR_GOOGLE_BOOKS_API_KEY": None,
})


def _serve_isbn(fake: FakeUpstream, isbn: str, fixture: str) -> None:
    # /isbn/<isbn>.json redirects to the edition in Open Library; the recording holds the edition body only.
    fake.add_route("GET", "openlibrary", f"/isbn/{isbn}.json", body=fixtures_dir() / fixture)


def test_a_recorded_search_is_served_and_mapped(fake):
    result = call("search_books", title="lord of the rings", author="tolkien", limit=3)
    assert [b.openlibrary_work_id for b in result.books] == ["OL27448W", "OL27516W", "OL262757W"]
    assert result.books[0].isbn_13 is None  # a 120-edition work: no single edition in the older search shape
    request = next(r for r in fake.requests if r.path == "/search.json")
    assert ("title", "lord of the rings") in request.query and ("author", "tolkien") in request.query


def test_an_isbn_10_only_edition_with_its_recorded_work(fake):
    _serve_isbn(fake, "9780060273224", SABRIEL_EDITION)
    fake.add_route("GET", "google_books", "/books/v1/volumes", body=b'{"kind": "books#volumes", "totalItems": 0}')
    book = call("get_book", identifier="978-0-06-027322-4", include_editions=True, editions_limit=3)
    assert (book.isbn_10, book.publisher, book.openlibrary_work_id) == ("0060273224", "Harper Trophy", "OL15832982W")
    assert book.subjects[:1] == ["Fantasy"]
    assert [e.openlibrary_edition_id for e in book.editions.entries] == ["OL9142127M", "OL22951843M", "OL7946150M"]


def test_a_work_with_its_recorded_edition_list(fake):
    fake.add_route("GET", "google_books", "/books/v1/volumes", body=b'{"kind": "books#volumes", "totalItems": 0}')
    book = call("get_book", identifier="OL15832982W")
    assert (book.openlibrary_edition_id, book.year) == ("OL24743307M", 1995)


def test_an_unrecorded_isbn_is_not_found(fake):
    with pytest.raises(ScholarError) as caught:
        call("get_book", identifier="9780262035613")
    assert caught.value.code == NOT_FOUND


def test_google_books_answering_for_another_isbn_is_not_taken_as_this_books_volume(fake):
    # The fake answers any volumes query with its nearest recording (another ISBN's volume).
    with pytest.raises(ScholarError) as caught:
        call("get_book_excerpt", isbn="9780262035613")
    assert caught.value.code == NOT_FOUND


@pytest.mark.parametrize(("status", "body", "content_type", "code"), [
    (429, None, "application/json", RATE_LIMITED),
    (403, b"<html>Forbidden</html>", "text/html", FORBIDDEN),
    (200, b"<!DOCTYPE html><html><body>maintenance</body></html>", "text/html", UPSTREAM_ERROR),
])
def test_faults_injected_at_the_fake_upstream_are_typed(fake, status, body, content_type, code):
    fake.inject("openlibrary", "/search.json", status=status, body=body, content_type=content_type)
    with pytest.raises(ScholarError) as caught:
        call("search_books", title="This Is How You Lose the Time War")
    assert caught.value.code == code


def test_a_query_alone_goes_out_once_as_a_title_search_when_it_has_hits(fake):
    call("search_books", query="This Is How You Lose the Time War")
    assert fake.count("openlibrary", "/search.json") == 1
