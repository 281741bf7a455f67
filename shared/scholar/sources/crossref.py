"""Crossref REST API (api.crossref.org): works by DOI, polite pool via mailto."""

from __future__ import annotations

from typing import Any

from scholar.core.config import get_settings
from scholar.core.urlpath import segment
from scholar.sources import http

SOURCE = "crossref"


async def get_work(doi: str) -> dict[str, Any]:
    """The Crossref ``message`` for this DOI.

    Raises:
        NotFoundError: Crossref has no such DOI.
    """
    email = get_settings().contact_email
    params = {"mailto": email} if email else None
    data = await http.get_json(SOURCE, f"/works/{segment(doi)}", what=f"work for DOI {doi}", params=params)
    return data.get("message", {})


async def get_references(doi: str) -> list[dict[str, Any]]:
    """The references the publisher deposited for this DOI (the work's ``reference`` array; often empty).

    Raises:
        NotFoundError: Crossref has no such DOI.
    """
    return [r for r in (await get_work(doi)).get("reference") or [] if isinstance(r, dict)]


async def search_works(query: str, *, rows: int) -> list[dict[str, Any]]:
    """The first ``rows`` items of a bibliographic query (``/works?query=``), Crossref's relevance order.

    Raises:
        RateLimitedError / UpstreamError: the request failed.
    """
    params: dict[str, Any] = {"query": query, "rows": str(rows)}
    if email := get_settings().contact_email:
        params["mailto"] = email
    data = await http.get_json(SOURCE, "/works", what="work search", params=params)
    items = ((data.get("message") or {}).get("items") if isinstance(data, dict) else None) or []
    return [item for item in items if isinstance(item, dict)]


# The fields a bibliographic match reads: enough to check a candidate and to cite it.
MATCH_SELECT = "DOI,title,author,issued,published,container-title,short-container-title,volume,page,type"


async def search_bibliographic(citation: str, *, rows: int) -> list[dict[str, Any]]:
    """The first ``rows`` works for a citation string or title (``/works?query.bibliographic=``), best first.

    Raises:
        RateLimitedError / UpstreamError: the request failed.
    """
    params: dict[str, Any] = {"query.bibliographic": citation, "rows": str(rows), "select": MATCH_SELECT}
    if email := get_settings().contact_email:
        params["mailto"] = email
    data = await http.get_json(SOURCE, "/works", what="bibliographic match", params=params)
    items = ((data.get("message") or {}).get("items") if isinstance(data, dict) else None) or []
    return [item for item in items if isinstance(item, dict)]
