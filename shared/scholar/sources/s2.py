"""Semantic Scholar Graph API (api.semanticscholar.org/graph/v1) and Recommendations API."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from scholar import http
from scholar.config import get_settings

SOURCE = "s2"
GRAPH = "/graph/v1"
BATCH_SIZE = 500


def _headers() -> dict[str, str]:
    key = get_settings().secrets.s2_api_key
    return {"x-api-key": key.get_secret_value()} if key else {}


async def get_paper(s2_key: str, fields: Sequence[str]) -> dict[str, Any]:
    """One paper by any id form S2 accepts (``DOI:…``, ``ARXIV:…``, 40-hex …).

    Raises:
        NotFoundError: S2 has no such paper.
    """
    return await http.get_json(
        SOURCE, f"{GRAPH}/paper/{s2_key}", what=f"paper {s2_key}", params={"fields": ",".join(fields)}, headers=_headers()
    )


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
        out.extend(data)
    return out


async def search_papers(params: Mapping[str, Any], *, bulk: bool) -> dict[str, Any]:
    """Relevance search (``/paper/search``) or bulk search with sort (``/paper/search/bulk``)."""
    path = f"{GRAPH}/paper/search/bulk" if bulk else f"{GRAPH}/paper/search"
    return await http.get_json(SOURCE, path, what="search results", params=params, headers=_headers())
