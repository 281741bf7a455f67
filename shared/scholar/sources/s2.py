"""Semantic Scholar Graph API (api.semanticscholar.org/graph/v1) and Recommendations API."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from scholar.core.errors import NotFoundError, UpstreamError
from scholar.core.urlpath import segment
from scholar.sources import http
from scholar.store.secrets import get_secret

SOURCE = "s2"
GRAPH = "/graph/v1"
BATCH_SIZE = 500


def _headers() -> dict[str, str]:
    key = get_secret("s2_api_key")
    return {"x-api-key": key.get_secret_value()} if key else {}


async def _get(path: str, *, what: str, params: Mapping[str, Any]) -> Any:
    """GET a JSON resource of the S2 API with our key (when configured); failures typed as ``http.get_json``."""
    return await http.get_json(SOURCE, path, what=what, params=params, headers=_headers())


async def get_paper(s2_key: str, fields: Sequence[str]) -> dict[str, Any]:
    """One paper by any id form S2 accepts (``DOI:…``, ``ARXIV:…``, 40-hex …).

    Raises:
        NotFoundError: S2 has no such paper.
    """
    return await _get(f"{GRAPH}/paper/{segment(s2_key)}", what=f"paper {s2_key}", params={"fields": ",".join(fields)})


async def get_papers(ids: Sequence[str], fields: Sequence[str]) -> list[dict[str, Any] | None]:
    """Many papers with ⌈N/500⌉ POST /paper/batch requests; None where S2 has no record (same order)."""
    out: list[dict[str, Any] | None] = []
    for start in range(0, len(ids), BATCH_SIZE):
        chunk = list(ids[start : start + BATCH_SIZE])
        data = await http.post_json(
            SOURCE,
            f"{GRAPH}/paper/batch",
            {"ids": chunk},
            what="papers",
            params={"fields": ",".join(fields)},
            headers=_headers(),
        )
        if not isinstance(data, list) or len(data) != len(chunk):
            raise UpstreamError(f"{SOURCE} answered a batch of {len(chunk)} ids with something else", source=SOURCE)
        out.extend(data)
    return out


async def search_papers(params: Mapping[str, Any], *, bulk: bool) -> dict[str, Any]:
    """Relevance search (``/paper/search``) or bulk search with sort (``/paper/search/bulk``)."""
    path = f"{GRAPH}/paper/search/bulk" if bulk else f"{GRAPH}/paper/search"
    return await _get(path, what="search results", params=params)


async def match_title(title: str, fields: Sequence[str]) -> list[dict[str, Any]]:
    """S2's best title match (``/paper/search/match``): one paper, or none (S2 answers 404 "Title match not found").

    Raises:
        RateLimitedError / UpstreamError: the request failed.
    """
    try:
        data = await _get(f"{GRAPH}/paper/search/match", what="title match",
                          params={"query": title, "fields": ",".join(fields)})
    except NotFoundError:
        return []
    return [row for row in (data.get("data") or []) if isinstance(row, dict)] if isinstance(data, dict) else []


RECOMMENDATIONS = "/recommendations/v1"


async def get_citation_page(
    s2_key: str, kind: str, *, fields: Sequence[str], offset: int, limit: int
) -> dict[str, Any]:
    """One page of ``/paper/{id}/citations`` or ``/references`` (``kind``); ``next`` is absent on the last page.

    Raises:
        NotFoundError: S2 has no such paper.
    """
    params = {"fields": ",".join(fields), "offset": str(offset), "limit": str(limit)}
    path = f"{GRAPH}/paper/{segment(s2_key)}/{segment(kind)}"
    return await _get(path, what=f"{kind} of paper {s2_key}", params=params)


async def get_author(author_id: str, fields: Sequence[str]) -> dict[str, Any]:
    """One author profile.

    Raises:
        NotFoundError: S2 has no such author.
    """
    path = f"{GRAPH}/author/{segment(author_id, field='author_id')}"
    return await _get(path, what=f"author {author_id}", params={"fields": ",".join(fields)})


async def get_author_papers(author_id: str, fields: Sequence[str], *, offset: int, limit: int) -> dict[str, Any]:
    """One page of an author's papers (``/author/{id}/papers``)."""
    params = {"fields": ",".join(fields), "offset": str(offset), "limit": str(limit)}
    path = f"{GRAPH}/author/{segment(author_id, field='author_id')}/papers"
    return await _get(path, what=f"papers of author {author_id}", params=params)


async def search_authors(name: str, fields: Sequence[str], *, limit: int) -> dict[str, Any]:
    """Author search by name (``/author/search``)."""
    params = {"query": name, "fields": ",".join(fields), "offset": "0", "limit": str(limit)}
    return await _get(f"{GRAPH}/author/search", what="author search", params=params)


async def recommend_for_paper(
    paper_id: str, fields: Sequence[str], *, limit: int, pool: str = "recent"
) -> list[dict[str, Any]]:
    """Recommendations from one positive example (``GET /papers/forpaper/{id}``; ``pool``: recent or all-cs)."""
    params = {"fields": ",".join(fields), "limit": str(limit), "from": pool}
    path = f"{RECOMMENDATIONS}/papers/forpaper/{segment(paper_id)}"
    data = await _get(path, what=f"recommendations for {paper_id}", params=params)
    return data.get("recommendedPapers") or []


async def recommend_from_lists(
    positive: Sequence[str], negative: Sequence[str], fields: Sequence[str], *, limit: int
) -> list[dict[str, Any]]:
    """Recommendations from positive and negative examples (``POST /papers/``)."""
    data = await http.post_json(
        SOURCE,
        f"{RECOMMENDATIONS}/papers/",
        {"positivePaperIds": list(positive), "negativePaperIds": list(negative)},
        what="recommendations",
        params={"fields": ",".join(fields), "limit": str(limit)},
        headers=_headers(),
    )
    return data.get("recommendedPapers") or []
