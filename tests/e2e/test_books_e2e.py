"""search_books, get_book, get_book_excerpt and recommend_books through the local server, on the recorded responses."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp import Client

from scholar.core.errors import FORBIDDEN, INVALID_ARGUMENT, NOT_FOUND, UPSTREAM_ERROR
from tests.fixtures.servers import read_link
from tests.fixtures_dir import fixtures_dir

pytestmark = pytest.mark.e2e

SABRIEL_EDITION = "upstream/openlibrary/books_OL22951843M.json"  # ISBN-10s only, no cover
GATSBY_EDITION = "upstream/openlibrary/books_OL23109860M.json"  # ISBN-10 + ISBN-13, covers


async def _call(url: str, tool: str, args: dict[str, Any]) -> Any:
    async with Client(url) as client:
        return await client.call_tool(tool, args)


def call(server: Any, tool: str, args: dict[str, Any]) -> Any:
    return anyio.run(_call, server.url, tool, args)


def serve_isbn(fake: Any, isbn: str, fixture: str) -> None:
    # Open Library redirects /isbn/<isbn>.json to the edition; the recordings hold the edition body only.
    fake.add_route("GET", "openlibrary", f"/isbn/{isbn}.json", body=fixtures_dir() / fixture)


def test_the_books_tools_are_listed_and_the_excerpt_tool_is_not_read_only(local_server):
    async def main():
        async with Client(local_server.url) as client:
            return {t.name: t for t in (await client.list_tools()).tools}

    tools = anyio.run(main)
    assert {"search_books", "get_book", "get_book_excerpt", "recommend_books"} <= set(tools)
    assert tools["get_book_excerpt"].annotations.read_only_hint is False
    assert tools["get_book"].annotations.read_only_hint is True


def test_a_recorded_search_returns_work_records_without_mixing_editions(local_server, fake):
    result = call(local_server, "search_books", {"title": "lord of the rings", "author": "tolkien", "limit": 3})
    assert not result.is_error, result.content
    books = result.structured_content["books"]
    assert [b["openlibrary_work_id"] for b in books] == ["OL27448W", "OL27516W", "OL262757W"]
    assert "isbn_13" not in books[0] and "publisher" not in books[0]  # 120 editions, none singled out (absent)
    asked = [r for r in fake.requests if r.source == "openlibrary" and r.path == "/search.json"]
    assert ("fields" in dict(asked[-1].query)) and ("title", "lord of the rings") in asked[-1].query


def test_an_isbn_10_only_edition_with_its_editions_and_a_cached_repeat(local_server, fake):
    serve_isbn(fake, "9780060273224", SABRIEL_EDITION)
    result = call(local_server, "get_book", {"identifier": "0-06-027322-4", "include_editions": True,
                                             "editions_limit": 2})
    assert not result.is_error, result.content
    book = result.structured_content
    assert (book["isbn_10"], book["isbn_13"], book["publisher"]) == ("0060273224", "9780060273224", "Harper Trophy")
    assert "cover_url" not in book  # this edition has no cover (absent, not null)
    assert [e["openlibrary_edition_id"] for e in book["editions"]["entries"]] == ["OL9142127M", "OL22951843M"]
    asked = fake.count(source="openlibrary")
    again = call(local_server, "get_book", {"identifier": "9780060273224"})
    assert again.structured_content["openlibrary_edition_id"] == "OL22951843M"
    assert fake.count(source="openlibrary") == asked


def test_a_work_with_covers_gets_its_edition_fields_from_the_cover_edition(local_server, fake):
    result = call(local_server, "get_book", {"identifier": "OL15832982W"})
    book = result.structured_content
    assert (book["openlibrary_edition_id"], book["publisher"], book["year"]) == ("OL24743307M", "HarperCollins", 1995)
    assert book["cover_url"] == "https://covers.openlibrary.org/b/id/6796986-M.jpg"


def test_download_cover_stores_the_cover_and_returns_a_link(local_server, fake):
    serve_isbn(fake, "9780743273565", GATSBY_EDITION)
    # Synthetic: JPEG bytes (no recorded cover image exists).
    jpeg = b"\xff\xd8\xff\xe0fake-jpeg\xff\xd9"
    fake.add_route("GET", "covers", "/b/id/6776207-S.jpg", body=jpeg, content_type="image/jpeg")
    result = call(local_server, "get_book", {"identifier": "0743273567", "download_cover": True, "cover_size": "S"})
    assert not result.is_error, result.content
    book = result.structured_content
    assert book["cover_path"] == "covers/9780743273565_S.jpg"
    assert read_link(book["cover_download_url"]) == jpeg


def test_an_unknown_isbn_is_not_found(local_server, fake):
    result = call(local_server, "get_book", {"identifier": "978-0-262-03561-3"})
    assert result.is_error and result.structured_content["error"]["code"] == NOT_FOUND


def test_a_bad_isbn_checksum_is_an_invalid_argument(local_server, fake):
    result = call(local_server, "get_book", {"identifier": "9780743273566"})
    assert result.is_error and result.structured_content["error"]["code"] == INVALID_ARGUMENT
    assert fake.count(source="openlibrary") == 0


@pytest.mark.parametrize(("status", "body", "content_type", "code"), [
    (403, b"<html>Forbidden</html>", "text/html", FORBIDDEN),
    (200, b"<!DOCTYPE html><html><body>maintenance</body></html>", "text/html", UPSTREAM_ERROR),
])
def test_open_library_faults_are_typed_errors(local_server, fake, status, body, content_type, code):
    fake.inject("openlibrary", "/search.json", status=status, body=body, content_type=content_type)
    result = call(local_server, "search_books", {"title": f"fault {status}"})
    assert result.is_error and result.structured_content["error"]["code"] == code


def test_a_throttled_search_is_queued_as_a_task_not_answered_empty(local_server, fake):
    fake.inject("openlibrary", "/search.json", status=429, times=None)
    result = call(local_server, "search_books", {"title": "throttled"})
    assert not result.is_error
    assert result.structured_content["queued"] is True and result.structured_content["reason"] == "rate_limited"


def test_an_excerpt_from_the_recorded_google_books_answer(local_server, fake):
    result = call(local_server, "get_book_excerpt", {"isbn": "978-0-09-956043-2"})
    assert not result.is_error, result.content
    excerpt = result.structured_content
    assert (excerpt["title"], excerpt["preview_available"]) == ("Ready Player One", False)
    assert excerpt["google_books_url"] == "https://books.google.com/books?id=4zugGMReN3cC"
