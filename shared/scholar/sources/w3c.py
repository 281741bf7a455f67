"""The W3C API (api.w3.org): specification list, specification documents, versions.

Documents link each other by absolute ``https://api.w3.org/…`` URLs; requests go to the configured base
with the same path, so a proxy or mirror serves them too.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, urlsplit

from scholar.sources import http

SOURCE = "w3c"
PAGE_SIZE = 100


def api_path(href: str) -> tuple[str, list[tuple[str, str]]]:
    """``https://api.w3.org/specifications/webrtc?x=1`` → (``/specifications/webrtc``, ``[("x", "1")]``).

    The query goes to ``params``: a path handed to scholar.sources.http holds no query (docs/security.md).
    """
    parts = urlsplit(href)
    return parts.path, parse_qsl(parts.query, keep_blank_values=True)


async def get_document(href_or_path: str) -> dict[str, Any]:
    """GET one API document by its link (absolute) or path.

    Raises:
        NotFoundError: 404.
        UpstreamError: a failure or a non-JSON body.
    """
    path, params = api_path(href_or_path)
    return await http.get_json(SOURCE, path, what=f"W3C document {path}", params=params or None)


async def list_page(page: int, items: int = PAGE_SIZE) -> dict[str, Any]:
    """One page of ``/specifications`` (with embedded documents when the API offers them)."""
    return await http.get_json(
        SOURCE,
        "/specifications",
        what="W3C specification list",
        params={"items": items, "page": page, "embed": "true"},
    )
