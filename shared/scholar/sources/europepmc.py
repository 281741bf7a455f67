"""Europe PMC REST API (www.ebi.ac.uk/europepmc/webservices/rest): searches, a paper's record, its PMC id, and its
reference and citation lists (``/{source}/{id}/references`` and ``/citations``, up to 1,000 a page)."""

from __future__ import annotations

from typing import Any

from scholar.core.urlpath import segment
from scholar.sources import http

SOURCE = "europepmc"
SEARCH_PATH = "/europepmc/webservices/rest/search"


async def search(query: str, *, page_size: int = 5) -> list[dict[str, Any]]:
    """The first results of a Europe PMC search (``resultType=lite``: ids, title, DOI).

    Raises:
        UpstreamError: Europe PMC failed or answered something else than a result list.
    """
    params = {"query": query, "format": "json", "resultType": "lite", "pageSize": page_size}
    data = await http.get_json(SOURCE, SEARCH_PATH, what=f"search {query!r}", params=params)
    results = ((data or {}).get("resultList") or {}).get("result") if isinstance(data, dict) else None
    return [r for r in results or [] if isinstance(r, dict)]


async def find_pmcid(doi: str) -> str | None:
    """The PMC id (``PMC123``) of the record whose DOI is ``doi``, or None when Europe PMC has none.

    Only a result carrying exactly this DOI counts (a search may return near matches).
    """
    wanted = doi.lower()
    for record in await search(f'DOI:"{doi}"'):
        if str(record.get("doi") or "").lower() == wanted and record.get("pmcid"):
            return str(record["pmcid"])
    return None


async def search_core(query: str, *, page_size: int) -> list[dict[str, Any]]:
    """The first results of a Europe PMC search with abstracts and author lists (``resultType=core``).

    Raises:
        UpstreamError: Europe PMC failed or answered something else than a result list.
    """
    params = {"query": query, "format": "json", "resultType": "core", "pageSize": page_size}
    data = await http.get_json(SOURCE, SEARCH_PATH, what="search", params=params)
    results = ((data or {}).get("resultList") or {}).get("result") if isinstance(data, dict) else None
    return [r for r in results or [] if isinstance(r, dict)]


REST = "/europepmc/webservices/rest"
# The largest ``pageSize`` the references and citations endpoints take.
LINKS_PAGE_MAX = 1000
_LIST_KEYS = {"references": ("referenceList", "reference"), "citations": ("citationList", "citation")}


async def get_links(source: str, record_id: str, kind: str, *, limit: int) -> tuple[list[dict[str, Any]], int]:
    """The first page of a record's ``references`` or ``citations`` (``kind``) and the list's whole length.

    Args:
        source: Europe PMC's source of the record (``MED`` for a PMID, ``PMC`` …).
        record_id: its id in that source.

    Raises:
        NotFoundError / RateLimitedError / UpstreamError: the request failed.
    """
    path = f"{REST}/{segment(source)}/{segment(record_id)}/{segment(kind)}"
    params = {"format": "json", "page": "1", "pageSize": str(min(limit, LINKS_PAGE_MAX))}
    data = await http.get_json(SOURCE, path, what=f"{kind} of {source}/{record_id}", params=params)
    outer, inner = _LIST_KEYS[kind]
    rows = ((data.get(outer) or {}).get(inner) if isinstance(data, dict) else None) or []
    total = (data.get("hitCount") if isinstance(data, dict) else None) or len(rows)
    return [r for r in rows if isinstance(r, dict)], int(total)
