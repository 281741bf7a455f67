"""INSPIRE-HEP literature API (inspirehep.net/api/literature): search and records by control number."""

from __future__ import annotations

from typing import Any

from scholar.core.urlpath import segment
from scholar.sources import http

SOURCE = "inspire"
LITERATURE = "/api/literature"
# Only what a paper record needs: INSPIRE records carry full reference lists otherwise (tens of KB each).
SEARCH_FIELDS = (
    "control_number,titles,authors.full_name,author_count,abstracts,dois,arxiv_eprints,publication_info,"
    "citation_count,inspire_categories,document_type,preprint_date,imprints,texkeys"
)


async def search_literature(query: str, *, size: int) -> list[dict[str, Any]]:
    """The first ``size`` hits (``{"id", "metadata"}``) of a literature search in INSPIRE's query syntax.

    Raises:
        RateLimitedError / UpstreamError: the request failed.
    """
    params = {"q": query, "size": str(size), "fields": SEARCH_FIELDS}
    data = await http.get_json(SOURCE, LITERATURE, what="literature search", params=params)
    hits = ((data.get("hits") or {}).get("hits") if isinstance(data, dict) else None) or []
    return [hit for hit in hits if isinstance(hit, dict)]


async def get_record(control_number: str) -> dict[str, Any]:
    """One literature record (``{"id", "metadata", "links"}``) by its control number.

    Raises:
        NotFoundError: INSPIRE has no such record.
        RateLimitedError / UpstreamError: the request failed.
    """
    path = f"{LITERATURE}/{segment(control_number)}"
    params = {"fields": SEARCH_FIELDS}
    data = await http.get_json(SOURCE, path, what=f"literature record {control_number}", params=params)
    return data if isinstance(data, dict) else {}


async def get_references(control_number: str) -> list[dict[str, Any]]:
    """The ``references`` of a literature record (each ``{"record": {"$ref"}, "reference": {…}}``).

    Raises:
        NotFoundError: INSPIRE has no such record.
        RateLimitedError / UpstreamError: the request failed.
    """
    path = f"{LITERATURE}/{segment(control_number)}"
    data = await http.get_json(SOURCE, path, what=f"references of {control_number}", params={"fields": "references"})
    refs = ((data.get("metadata") or {}).get("references") if isinstance(data, dict) else None) or []
    return [r for r in refs if isinstance(r, dict)]
