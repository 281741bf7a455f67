"""Europe PMC REST API (www.ebi.ac.uk/europepmc/webservices/rest): searches, a paper's record and its PMC id."""

from __future__ import annotations

from typing import Any

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
