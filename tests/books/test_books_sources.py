"""The Open Library source on its own: edition pages, record mapping, and the shared ``book_metadata``."""

from __future__ import annotations

import json

import httpx
import pytest

from scholar.core.errors import RATE_LIMITED, ScholarError
from scholar.families.books.handlers import HANDLERS
from scholar.families.books.spec import TOOLS
from scholar.sources import openlibrary
from tests.books.helpers import json_response, recorded
from tests.books.test_books_get_book import serve_sabriel
from tests.fixtures.waiting import run

TOLKIEN_EDITIONS = "openlibrary/works_OL27258W_editions_limit10_offset0.json"


def test_every_books_tool_has_a_handler_and_every_handler_a_tool():
    assert {t.name for t in TOOLS} == set(HANDLERS) == {"search_books", "get_book", "get_book_excerpt",
                                                         "recommend_books"}
    assert {t.family for t in TOOLS} == {"books"}


def test_an_editions_page_follows_open_librarys_offset_and_size(upstream):
    route = upstream.get("/openlibrary/works/OL27258W/editions.json").mock(
        return_value=json_response(recorded(TOLKIEN_EDITIONS)))
    page = run(openlibrary.list_editions("OL27258W", offset=0, limit=10))
    assert dict(route.calls.last.request.url.params) == {"limit": "10", "offset": "0"}
    assert (page.total, len(page.entries)) == (19, 10)
    ace = next(e for e in page.entries if e.id == "OL3305354M")
    assert (ace.publishers, ace.isbn_10, ace.covers, ace.year) == (["Ace Books"], ["0441012035"], [284192], 2004)


def test_an_edition_record_maps_text_objects_lists_and_languages():
    edition = openlibrary.edition_from_json(json.loads(recorded("openlibrary/books_OL22951843M.json")))
    assert edition.id == "OL22951843M" and edition.work_id == "OL15832982W"
    assert edition.author_ids == ["OL382982A"]
    assert edition.languages == ["eng"]
    assert edition.description.startswith("Sabriel, daughter")
    assert edition.covers == []


def test_a_work_record_maps_its_description_and_author_roles():
    work = openlibrary.work_from_json(json.loads(recorded("openlibrary/works_OL15832982W.json")))
    assert work.author_ids == ["OL382982A"]
    assert work.description == "First in the Old Kingdom/Abhorsen series."
    assert work.covers == [6796986, 3843137]


def test_isbn_pair_derives_both_forms_from_one_number():
    assert openlibrary.isbn_pair(["0060273224", "0060273232"]) == ("0060273224", "9780060273224")
    assert openlibrary.isbn_pair(["bad", "9780262035613", "0000000000"]) == ("0262035618", "9780262035613")
    assert openlibrary.isbn_pair(["9791034302406"]) == (None, "9791034302406")  # 979: no ISBN-10 exists
    assert openlibrary.isbn_pair(["junk"]) == (None, None)


def test_book_metadata_for_a_papers_isbn_comes_from_the_edition_holding_it(upstream):
    serve_sabriel(upstream)
    meta = run(openlibrary.book_metadata("ISBN:0060273224"))
    assert (meta.isbn_13, meta.isbn_10, meta.publisher, meta.edition) == (
        "9780060273224", "0060273224", "Harper Trophy", "1st American ed.")
    assert (meta.openlibrary_work_id, meta.openlibrary_edition_id) == ("OL15832982W", "OL22951843M")
    assert meta.page_count == 491
    assert meta.cover_url is None
    assert "Fantasy" in meta.subjects


def test_book_metadata_is_none_for_an_unknown_or_invalid_isbn(upstream):
    upstream.get("/openlibrary/isbn/9780262035613.json").mock(return_value=json_response({}, status=404))
    upstream.get("/openlibrary/isbn/0262035618.json").mock(return_value=json_response({}, status=404))
    assert run(openlibrary.book_metadata("9780262035613")) is None
    assert run(openlibrary.book_metadata("not-an-isbn")) is None


def test_book_metadata_raises_a_throttled_lookup_instead_of_pretending_there_is_no_book(upstream):
    upstream.get("/openlibrary/isbn/9780262035613.json").mock(return_value=httpx.Response(429))
    with pytest.raises(ScholarError) as caught:
        run(openlibrary.book_metadata("9780262035613"))
    assert caught.value.code == RATE_LIMITED


def test_a_merged_work_is_followed_to_its_new_key(upstream):
    # Synthetic: Open Library's /type/redirect record for a merged work.
    upstream.get("/openlibrary/works/OL1W.json").mock(return_value=json_response(
        {"key": "/works/OL1W", "type": {"key": "/type/redirect"}, "location": "/works/OL15832982W"}))
    upstream.get("/openlibrary/works/OL15832982W.json").mock(
        return_value=json_response(recorded("openlibrary/works_OL15832982W.json")))
    assert run(openlibrary.get_work("OL1W")).id == "OL15832982W"
