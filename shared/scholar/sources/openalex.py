"""OpenAlex works API (api.openalex.org): lookups by DOI and id, polite pool via mailto."""

from __future__ import annotations

from typing import Any

from scholar.core.config import get_settings
from scholar.core.urlpath import segment
from scholar.sources import http
from scholar.store.secrets import get_secret

SOURCE = "openalex"


def _params(extra: dict[str, Any] | None = None) -> dict[str, Any]:
    settings = get_settings()
    params: dict[str, Any] = dict(extra or {})
    if settings.contact_email:
        params["mailto"] = settings.contact_email
    key = get_secret("openalex_api_key", settings)
    if key:
        params["api_key"] = key.get_secret_value()
    return params


async def get_work_by_doi(doi: str) -> dict[str, Any]:
    """The work with this DOI.

    Raises:
        NotFoundError: OpenAlex has no such DOI.
    """
    path = f"/works/https://doi.org/{segment(doi)}"
    return await http.get_json(SOURCE, path, what=f"work for DOI {doi}", params=_params())


async def get_work(work_id: str) -> dict[str, Any]:
    return await http.get_json(SOURCE, f"/works/{segment(work_id)}", what=f"work {work_id}", params=_params())


# OpenAlex accepts up to 50 values in one OR filter (``doi:a|b|…``) and 200 results a page.
OR_FILTER_MAX = 50


async def get_works_by_filter(key: str, values: list[str], *, select: str | None = None) -> list[dict[str, Any]]:
    """Works whose ``key`` (``doi``, ``ids.openalex`` …) is any of ``values``: ⌈N/50⌉ requests.

    Raises:
        RateLimitedError / UpstreamError: a request failed (no partial list is returned).
    """
    works: list[dict[str, Any]] = []
    for start in range(0, len(values), OR_FILTER_MAX):
        chunk = values[start : start + OR_FILTER_MAX]
        extra = {"filter": f"{key}:{'|'.join(chunk)}", "per-page": str(OR_FILTER_MAX)}
        if select:
            extra["select"] = select
        data = await http.get_json(SOURCE, "/works", what=f"works by {key}", params=_params(extra))
        works.extend(data.get("results") or [])
    return works


async def get_work_select(work: str, *, select: str) -> dict[str, Any]:
    """One work by OpenAlex id (``W…``) or ``doi:…`` / ``pmid:…`` form, only the ``select`` fields.

    Raises:
        NotFoundError: OpenAlex has no such work.
    """
    params = _params({"select": select})
    return await http.get_json(SOURCE, f"/works/{segment(work)}", what=f"work {work}", params=params)


# ``per-page`` is at most 200 in OpenAlex's list endpoints.
PER_PAGE_MAX = 200


async def get_citing_works(
    work_id: str, *, limit: int, select: str | None = None
) -> tuple[list[dict[str, Any]], int]:
    """The first ``limit`` (≤ 200) works citing ``work_id`` (``filter=cites:W…``), and how many cite it in all.

    Raises:
        RateLimitedError / UpstreamError: the request failed.
    """
    extra = {"filter": f"cites:{work_id}", "per-page": str(min(limit, PER_PAGE_MAX))}
    if select:
        extra["select"] = select
    data = await http.get_json(SOURCE, "/works", what=f"works citing {work_id}", params=_params(extra))
    results = [w for w in (data.get("results") or []) if isinstance(w, dict)] if isinstance(data, dict) else []
    total = ((data.get("meta") or {}).get("count") if isinstance(data, dict) else None) or len(results)
    return results, int(total)


async def get_filtered(
    filter_value: str, *, per_page: int, select: str | None = None, sort: str = "cited_by_count:desc"
) -> list[dict[str, Any]]:
    """The first ``per_page`` (≤ 200) works matching one ``filter`` expression (``cites:W1|W2`` …), ``sort`` order.

    Raises:
        RateLimitedError / UpstreamError: the request failed.
    """
    extra = {"filter": filter_value, "per-page": str(min(per_page, PER_PAGE_MAX)), "sort": sort}
    if select:
        extra["select"] = select
    data = await http.get_json(SOURCE, "/works", what="works by filter", params=_params(extra))
    return [w for w in (data.get("results") or []) if isinstance(w, dict)] if isinstance(data, dict) else []


async def search_works(query: str, *, limit: int) -> list[dict[str, Any]]:
    """The first ``limit`` works of a full-text search (``/works?search=``), OpenAlex's relevance order.

    Raises:
        RateLimitedError / UpstreamError: the request failed.
    """
    data = await http.get_json(
        SOURCE, "/works", what="work search", params=_params({"search": query, "per-page": str(limit)})
    )
    return [w for w in (data.get("results") or []) if isinstance(w, dict)] if isinstance(data, dict) else []


async def search_titles(title: str, *, limit: int) -> list[dict[str, Any]]:
    """Works whose title matches ``title`` (``/works?filter=title.search:``), OpenAlex's relevance order.

    Raises:
        RateLimitedError / UpstreamError: the request failed.
    """
    # A comma would split the filter value into another filter: OpenAlex reads "," as the filter separator.
    extra = {"filter": f"title.search:{title.replace(',', ' ')}", "per-page": str(limit)}
    data = await http.get_json(SOURCE, "/works", what="title search", params=_params(extra))
    return [w for w in (data.get("results") or []) if isinstance(w, dict)] if isinstance(data, dict) else []
