"""Recovery hints fit the tool (scholar.runtime.hints, scholar.services.pdftext): no DOI advice for a book, no OCR for
a lock."""

from __future__ import annotations

import httpx

from functions.books.app import lambda_handler as books_handler
from scholar.core.errors import NOT_FOUND, NotFoundError
from scholar.runtime.hints import HINTS, with_family_hint
from scholar.services.pdftext.convert import PdfExtractionError


def test_an_unknown_isbn_gets_a_books_hint_not_a_doi_hint(env, upstream, lambda_context):
    env(SCHOLAR_RETRY_BUDGET_S="0", SCHOLAR_CACHE_TABLE=None)
    upstream.get("/openlibrary/isbn/9780000000002.json").mock(return_value=httpx.Response(404, json={}))
    upstream.get("/openlibrary/isbn/0000000000.json").mock(return_value=httpx.Response(404, json={}))
    event = {"tool": "get_book", "arguments": {"identifier": "9780000000002"}, "principal": "p", "request_id": "r"}
    outcome = books_handler(event, lambda_context)
    assert outcome["error"]["code"] == NOT_FOUND
    hint = outcome["error"]["recovery"]["hint"]
    assert "ISBN" in hint and "DOI" not in hint
    assert outcome["error"]["data"]["recovery"]["hint"] == hint


def test_every_family_hint_names_only_its_own_identifiers():
    assert "DOI" not in HINTS["books"][NOT_FOUND] and "ISBN" not in HINTS["papers"][NOT_FOUND]


def test_a_hint_the_raiser_chose_is_kept():
    err = with_family_hint(NotFoundError("gone", hint="Use the newer version."), "papers")
    assert err.hint == "Use the newer version."


def test_an_encrypted_pdf_does_not_get_the_ocr_hint_but_a_scanned_one_does():
    assert "OCR" not in PdfExtractionError("locked", cause="encrypted").hint
    assert "OCR" in PdfExtractionError("scanned", cause="no_text_layer").hint
