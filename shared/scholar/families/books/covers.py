"""Book covers in the artifact bucket: ``covers/<isbn>_<size>.jpg``, handed out as short-lived links."""

from __future__ import annotations

from scholar.sources import openlibrary
from scholar.sources.openlibrary import CoverSize
from scholar.store.blobs import BlobStore

LINK_TTL_S = 900


def cover_key(name: str, size: CoverSize) -> str:
    """The artifact key of a cover: ``covers/<isbn-13 or Open Library id>_<size>.jpg``."""
    return f"covers/{name}_{size}.jpg"


async def store_cover(
    name: str, cover_id: int | None, size: CoverSize, blobs: BlobStore | None = None
) -> tuple[str, str] | None:
    """Store a cover once and return ``(key, presigned URL)``; None when the book has no cover.

    Raises:
        UnavailableError: no artifact bucket is configured.
        ForbiddenError, RateLimitedError, UpstreamError: the covers host failed.
    """
    if not cover_id:
        return None
    blobs = blobs or BlobStore()
    key = cover_key(name, size)
    if not await blobs.aexists(key):
        data = await openlibrary.fetch_cover(cover_id, size)
        if data is None:
            return None
        await blobs.aput(key, data, "image/jpeg")
    return key, blobs.presign(key, LINK_TTL_S)
