"""The W3C API (api.w3.org): specification list, specification documents, versions.

Documents link each other by absolute ``https://api.w3.org/…`` URLs; requests go to the configured base
with the same path, so a proxy or mirror serves them too.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from scholar import http

SOURCE = "w3c"
PAGE_SIZE = 100


def api_path(href: str) -> str:
    """``https://api.w3.org/specifications/webrtc?x=1`` → ``/specifications/webrtc?x=1``."""
    parts = urlsplit(href)
    return parts.path + (f"?{parts.query}" if parts.query else "")


async def get_document(href_or_path: str) -> dict[str, Any]:
    """GET one API document by its link (absolute) or path.

    Raises:
        NotFoundError: 404.
        UpstreamError: a failure or a non-JSON body.
    """
    path = api_path(href_or_path) if href_or_path.startswith("http") else href_or_path
    return await http.get_json(SOURCE, path, what=f"W3C document {path}")


async def list_page(page: int, items: int = PAGE_SIZE) -> dict[str, Any]:
    """One page of ``/specifications`` (with embedded documents when the API offers them)."""
    return await http.get_json(
        SOURCE,
        "/specifications",
        what="W3C specification list",
        params={"items": items, "page": page, "embed": "true"},
    )
