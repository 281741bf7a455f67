"""Full text of open standards, paged by character offset and kept beside the record (never inside it).

RFC plain text comes from the RFC Editor and is cached in the CacheTable (``result#standard-text#RFCn``).
NIST and ETSI PDFs and W3C spec pages (scholar.families.standards.documents) are converted to Markdown once and
stored in S3 (scholar.families.standards.texts); every page is then cut from the stored text. A PDF conversion is
slow, so outside a task the caller gets a task instead (scholar.families.standards.conversion); W3C pages convert
inline. Failures are reported in ``full_text_error`` and never stored.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl

from scholar.core.config import get_settings
from scholar.core.errors import ScholarError, TooLargeError, UpstreamError
from scholar.families.standards import texts
from scholar.families.standards.documents import Document, document_for
from scholar.families.standards.records import StandardRecord
from scholar.families.standards.spec import WHOLE_TEXT_CHARS
from scholar.families.standards.w3c_html import html_to_markdown
from scholar.sources import http, rfc_editor
from scholar.store.cache import Cache

NAMESPACE = "result"
# A standard PDF larger than this is not converted (SP 800-53 Rev. 5, ~500 pages, is ~6 MB).
MAX_DOCUMENT_BYTES = 100 * 1024 * 1024


def _key(record: StandardRecord) -> str:
    return f"standard-text#{record.id}"


async def _rfc_text(record: StandardRecord) -> str:
    cache = Cache()
    cached = await cache.aget(NAMESPACE, _key(record))
    if isinstance(cached, str):
        return cached
    text = await rfc_editor.fetch_rfc_text(int(record.id.removeprefix("RFC")))
    await cache.aput(NAMESPACE, _key(record), text)
    return text


def _is_rfc(record: StandardRecord) -> bool:
    return record.body == "IETF" and record.doc_type == "RFC"


async def _download(record: StandardRecord, doc: Document) -> bytes:
    """The document's bytes, refusing an answer of the wrong kind (an HTML error page with a 200)."""
    what = f"full text of {record.identifier}"
    path, _, query = doc.path.partition("?")  # a path handed to scholar.sources.http holds no query (docs/security.md)
    response = await http.request(doc.source, "GET", path, params=parse_qsl(query, keep_blank_values=True) or None)
    http.raise_for_status(doc.source, response, what=what)
    data = response.content
    if len(data) > MAX_DOCUMENT_BYTES:
        raise TooLargeError(
            f"the {what} is {len(data) // (1024 * 1024)} MB, over the {MAX_DOCUMENT_BYTES // (1024 * 1024)} MB limit",
            source=doc.source,
        )
    ctype = response.headers.get("content-type", "none")
    looks_right = data.lstrip()[:5] == b"%PDF-" if doc.kind == "pdf" else data.lstrip()[:1] == b"<"
    if not looks_right:
        raise UpstreamError(
            f"{doc.source} answered HTTP {response.status_code} with something other than "
            f"{'a PDF' if doc.kind == 'pdf' else 'an HTML page'} (content-type: {ctype})",
            source=doc.source,
            status=response.status_code,
        )
    return data


async def _document_text(record: StandardRecord, doc: Document) -> str:
    key = texts.text_key(record, doc.converter)
    stored = texts.load_text(key)
    if stored is not None:
        return stored
    data = await _download(record, doc)
    if doc.kind == "pdf":
        from scholar.services.pdftext.convert import convert_pdf  # noqa: PLC0415  # pdfium loads only where a PDF is converted

        text = convert_pdf(data, ocr_languages=get_settings().ocr_languages).markdown
    else:
        text = html_to_markdown(data, spec_only=True)
    texts.save_text(key, text)
    return text


def needs_task(record: StandardRecord) -> bool:
    """True when the record's text is a PDF that has not been converted yet (the slow path)."""
    doc = document_for(record)
    if doc is None or doc.kind != "pdf":
        return False
    try:
        return not texts.has_text(texts.text_key(record, doc.converter))
    except ScholarError:
        return False  # no storage: the inline path reports it in full_text_error


def page(text: str, offset: int, max_chars: int | None) -> dict[str, Any]:
    """One page of ``text`` and the paging facts (seed 001: text_offset … next_offset).

    ``max_chars`` None is "the rest at once", up to ``WHOLE_TEXT_CHARS``: the answer's advertised size
    (``_meta["anthropic/maxResultSizeChars"]``) is a cap the code keeps, so a longer text goes on at next_offset.
    """
    chunk = text[offset : offset + (WHOLE_TEXT_CHARS if max_chars is None else max_chars)]
    end = offset + len(chunk)
    next_offset = end if end < len(text) else None
    return {
        "full_text": chunk,
        "text_offset": offset,
        "text_returned_chars": len(chunk),
        "text_total_chars": len(text),
        "text_truncated": next_offset is not None,
        "next_offset": next_offset,
    }


def describe(err: ScholarError) -> str:
    """``full_text_error``: the reason (or error code) first, then what happened."""
    return f"{err.reason or err.code}: {err.message}"


async def text_page(record: StandardRecord, offset: int, max_chars: int | None) -> dict[str, Any]:
    """The fields to add to get_standard's answer: a text page, a full_text_error, or nothing on offer.

    Converts inline when the text is not stored yet (callers outside a task check ``needs_task`` first).
    """
    doc = None if _is_rfc(record) else document_for(record)
    if not _is_rfc(record) and doc is None:
        return {}
    try:
        text = await (_rfc_text(record) if doc is None else _document_text(record, doc))
    except ScholarError as err:
        return {"full_text_error": describe(err)}
    return page(text, offset, max_chars)
