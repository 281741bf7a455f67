"""The EPO OPS number service: an ambiguous patent number as OPS writes it in docdb, asked once and cached.

``scholar.core.patent_numbers`` parses every form users paste without I/O; a form no office rule explains is
marked ``ambiguous`` there, and only then is OPS asked (``standardise``). The answer is cached without
expiry (namespace ``alias``): a publication's docdb number never changes.
"""

from __future__ import annotations

from scholar.core.errors import NotFoundError
from scholar.core.patent_numbers import PatentNumber, invalid
from scholar.sources import epo_ops, epo_ops_biblio
from scholar.store.cache import Cache

NUMBER_CACHE_NAMESPACE = "alias"


async def standardise(number: PatentNumber) -> PatentNumber:
    """An ambiguous number as OPS's number service writes it in docdb (asked once, then cached); others as given.

    Raises:
        InvalidArgumentError: the number service does not recognise the number.
        RateLimitedError, UpstreamError: OPS failed (nothing is cached then).
    """
    if not number.ambiguous:
        return number
    original = number.original or number.compact
    key = f"patent-number:{original}{number.kind or ''}"
    cache = Cache()
    held = await cache.aget(NUMBER_CACHE_NAMESPACE, key)
    if isinstance(held, dict):
        return PatentNumber(held["country"], held["number"], held.get("kind"))
    reference = f"{number.country}.({original[2:]})" + (f".{number.kind}" if number.kind else "")
    try:
        response = await epo_ops.call(
            "GET", epo_ops.path("number-service", "publication", "original", reference, "docdb"),
            service="other", what=f"number-service answer for {original}",
        )
    except NotFoundError as exc:
        raise invalid(original, "the EPO number service does not recognise it") from exc
    root = epo_ops_biblio.parse_xml(response.content, what="the number service")
    standardization = root.xpath(".//ops:standardization", namespaces=epo_ops_biblio.NS)
    outputs = standardization[0].xpath("ops:output", namespaces=epo_ops_biblio.NS) if standardization else []
    # The answer's document-id is typed by the output format asked for (docdb).
    found = epo_ops_biblio.docdb_of(outputs[0], standardization[0].get("outputFormat", "docdb")) if outputs else None
    if found is None:
        raise invalid(original, "the EPO number service returned no docdb form for it")
    found = found.with_kind(found.kind or number.kind)
    docdb = {"country": found.country, "number": found.number, "kind": found.kind}
    await cache.aput(NUMBER_CACHE_NAMESPACE, key, docdb)
    return found
