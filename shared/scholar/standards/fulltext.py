"""Full text of open standards, paged by character offset and kept beside the record (never inside it).

RFC plain text comes from the RFC Editor and is cached in the CacheTable (``result#standard-text#RFCn``);
other bodies' documents need a PDF/HTML conversion (docling), which is not wired here yet: their records
carry ``full_text_url`` to fetch by hand.
"""

from __future__ import annotations

from typing import Any

from scholar.errors import ScholarError
from scholar.sources import rfc_editor
from scholar.standards.records import StandardRecord
from scholar.store.cache import Cache

NAMESPACE = "result"


def _key(record: StandardRecord) -> str:
    return f"standard-text#{record.id}"


async def _rfc_text(record: StandardRecord) -> str:
    cache = Cache()
    cached = cache.get(NAMESPACE, _key(record))
    if isinstance(cached, str):
        return cached
    text = await rfc_editor.fetch_rfc_text(int(record.id.removeprefix("RFC")))
    cache.put(NAMESPACE, _key(record), text)
    return text


def page(text: str, offset: int, max_chars: int | None) -> dict[str, Any]:
    """One page of ``text`` and the paging facts (seed 001: text_offset … next_offset)."""
    chunk = text[offset : offset + max_chars] if max_chars is not None else text[offset:]
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


async def text_page(record: StandardRecord, offset: int, max_chars: int | None) -> dict[str, Any]:
    """The fields to add to get_standard's answer: a text page, a full_text_error, or nothing on offer."""
    if record.body != "IETF" or record.doc_type != "RFC":
        return {}
    try:
        text = await _rfc_text(record)
    except ScholarError as err:
        return {"full_text_error": f"{err.code}: {err.message}"}
    return page(text, offset, max_chars)
