"""The sections of one patent document: fetched from OPS concurrently, each cached with its own lifetime.

``biblio`` also carries the abstract and the citations (one OPS request serves all three). A section OPS
does not hold for the document (a 404, or an answer without that part) is *absent*: reported, cached
briefly in the negative namespace, never an error of the whole call. Only complete, parsed sections are
cached; a failed request is not.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scholar.core.errors import NotFoundError
from scholar.core.patent_numbers import PatentNumber
from scholar.families.patents import fulltext, inpadoc
from scholar.families.patents.citations import parse_references
from scholar.sources import epo_ops, epo_ops_biblio
from scholar.store.cache import DAY, Cache

# Section → (cache namespace, lifetime override): records change rarely, legal status daily.
CACHE = {
    "biblio": ("record", None),
    "claims": ("record", None),
    "description": ("record", None),
    "family": ("list", 7 * DAY),
    "legal": ("list", DAY),
}
# Which OPS answer serves each requested section.
SERVED_BY = {"biblio": "biblio", "abstract": "biblio", "citations": "biblio", "claims": "claims",
             "description": "description", "family": "family", "legal": "legal"}
ABSENT = "absent"


def _request(number: PatentNumber, part: str) -> tuple[str, str]:
    """(path, OPS service) of one part."""
    ref_format, reference = number.ops_reference()
    if part in ("family", "legal"):
        return epo_ops.path(part, "publication", ref_format, reference), "inpadoc"
    return epo_ops.publication(ref_format, reference, part), "retrieval"


def _biblio(body: bytes) -> dict[str, Any] | None:
    docs = epo_ops_biblio.exchange_documents(epo_ops_biblio.parse_xml(body, what="biblio"))
    if not docs:
        return None
    doc = docs[0]  # a kindless (epodoc) request lists every kind: the first publication answers
    return {"record": epo_ops_biblio.to_record(doc).model_dump(mode="json"), "references": parse_references(doc)}


def _family(body: bytes) -> dict[str, Any] | None:
    members = inpadoc.parse_family(body)
    return {"members": [m.model_dump(mode="json") for m in members]} if members else None


def _legal(body: bytes) -> dict[str, Any] | None:
    events = inpadoc.parse_legal(body)
    return {"events": [e.model_dump(mode="json") for e in events]} if events else None


PARSERS: dict[str, Callable[[bytes], dict[str, Any] | None]] = {
    "biblio": _biblio,
    "claims": fulltext.parse_claims,
    "description": fulltext.parse_description,
    "family": _family,
    "legal": _legal,
}


def cache_key(number: PatentNumber, part: str) -> str:
    return f"patent:{part}:{number.docdb}"


async def load(number: PatentNumber, part: str) -> dict[str, Any]:
    """One part, parsed: from the cache, else from OPS. ``{"absent": reason}`` when OPS does not hold it.

    Raises:
        RateLimitedError, UnavailableError, UpstreamError, ForbiddenError: OPS failed (nothing cached).
    """
    cache = Cache()
    namespace, ttl = CACHE[part]
    key = cache_key(number, part)
    held = await cache.aget(namespace, key) or await cache.aget("negative", key)
    if isinstance(held, dict):
        return held
    path, service = _request(number, part)
    try:
        response = await epo_ops.call("GET", path, service=service, what=f"{part} of {number.docdb}")
    except NotFoundError:
        value: dict[str, Any] | None = None
    else:
        value = PARSERS[part](response.content)
    if value is None:
        absent = {ABSENT: f"EPO OPS holds no {part} for {number.docdb}"}
        await cache.aput("negative", key, absent)
        return absent
    await cache.aput(namespace, key, value, ttl_s=ttl)
    return value

