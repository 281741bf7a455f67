"""The RFC Editor (www.rfc-editor.org): the full RFC index and RFC plain text.

The index (~14 MB of XML) is fetched conditionally: with the ETag of the last good copy a 304 costs nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from scholar.core.errors import UpstreamError
from scholar.sources import http

SOURCE = "rfc_editor"
INDEX_PATH = "/rfc-index.xml"


@dataclass(frozen=True)
class Fetched:
    """A conditional download: ``data`` is None when the upstream said it has not changed."""

    data: bytes | None
    etag: str | None


async def fetch_rfc_index(etag: str | None = None) -> Fetched:
    """GET rfc-index.xml, conditionally on ``etag``.

    Raises:
        UpstreamError: a failure, or a body that is not XML (an HTML error page with 200).
    """
    headers = {"If-None-Match": etag} if etag else None
    response = await http.request(SOURCE, "GET", INDEX_PATH, headers=headers)
    if response.status_code == 304:
        return Fetched(None, etag)
    http.raise_for_status(SOURCE, response, what="RFC index")
    if not response.content.lstrip().startswith(b"<?xml") and b"<rfc-index" not in response.content[:2000]:
        raise UpstreamError(
            f"{SOURCE} answered HTTP {response.status_code} with something other than the RFC index XML",
            source=SOURCE,
            status=response.status_code,
        )
    return Fetched(response.content, response.headers.get("etag"))


async def fetch_rfc_text(number: int) -> str:
    """The plain text of RFC ``number``.

    Raises:
        NotFoundError: no such RFC text.
        UpstreamError: the source failed.
    """
    response = await http.request(SOURCE, "GET", f"/rfc/rfc{number}.txt")
    http.raise_for_status(SOURCE, response, what=f"text of RFC {number}")
    # RFC plain text never starts with markup: an HTML page on 200 (maintenance, error) is not the RFC.
    if response.content.lstrip()[:1] == b"<":
        raise UpstreamError(
            f"{SOURCE} answered HTTP {response.status_code} with an HTML page instead of the text of RFC {number}",
            source=SOURCE,
            status=response.status_code,
        )
    return response.text
