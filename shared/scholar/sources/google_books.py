"""Google Books API (www.googleapis.com/books/v1): one volume by ISBN, for excerpts and preview links.

The API key is optional (``SCHOLAR_GOOGLE_BOOKS_API_KEY``). Google accepts it as the ``key`` query parameter
or the ``x-goog-api-key`` header; we send the header, because httpx logs every request URL (query included)
at INFO, so a ``key=`` parameter would reach the logs. Quota answers are typed: 429 and the
403 quota reasons are ``rate_limited``, any other 403 is ``forbidden``. A ``q=isbn:`` search may answer
with a volume for another ISBN; only a volume that lists the ISBN asked for counts as found.
"""

from __future__ import annotations

import html
import re
from typing import Any

import httpx
from pydantic import BaseModel, Field

from scholar.core.errors import ForbiddenError, NotFoundError, RateLimitedError, UpstreamError
from scholar.core.ids import InvalidIdError, parse_isbn
from scholar.sources import http
from scholar.store.cache import Cache, unless_known_missing
from scholar.store.secrets import aget_secret

SOURCE = "google_books"
PUBLIC_BOOKS = "https://books.google.com"
API_KEY_HEADER = "x-goog-api-key"
# 403 reasons that mean "over quota", i.e. retry later (Google's error.errors[].reason).
_QUOTA_REASONS = frozenset({"rateLimitExceeded", "userRateLimitExceeded", "dailyLimitExceeded", "quotaExceeded",
                            "RATE_LIMIT_EXCEEDED"})
_TAG_RE = re.compile(r"<[^>]+>")


class Volume(BaseModel):
    """The fields of a Google Books volume we use."""

    id: str
    title: str | None = None
    subtitle: str | None = None
    authors: list[str] = Field(default_factory=list)
    publisher: str | None = None
    published_date: str | None = None
    description: str | None = None
    snippet: str | None = None
    page_count: int | None = None
    isbn_10: str | None = None
    isbn_13: str | None = None
    viewability: str | None = None
    preview_link: str | None = None
    info_link: str | None = None
    canonical_link: str | None = None
    thumbnail: str | None = None

    @property
    def preview_available(self) -> bool:
        return self.viewability in ("PARTIAL", "ALL_PAGES")

    @property
    def url(self) -> str:
        return f"{PUBLIC_BOOKS}/books?id={self.id}"


def plain_text(value: object) -> str | None:
    """Text without HTML tags and entities (snippets come as HTML: ``&#39;``, ``<b>``)."""
    if not isinstance(value, str):
        return None
    text = html.unescape(_TAG_RE.sub("", value)).strip()
    return re.sub(r"\s+", " ", text) or None


def _https(url: object) -> str | None:
    return re.sub(r"^http://", "https://", url) if isinstance(url, str) and url else None


def volume_from_json(item: dict[str, Any]) -> Volume:
    """Map one ``items[]`` entry of a volumes answer."""
    info = item.get("volumeInfo") or {}
    access = item.get("accessInfo") or {}
    ids = {i.get("type"): i.get("identifier") for i in info.get("industryIdentifiers") or [] if isinstance(i, dict)}
    pages = info.get("pageCount")
    return Volume(
        id=str(item.get("id") or ""),
        title=info.get("title"),
        subtitle=info.get("subtitle"),
        authors=[a for a in info.get("authors") or [] if isinstance(a, str)],
        publisher=info.get("publisher"),
        published_date=info.get("publishedDate"),
        description=plain_text(info.get("description")),
        snippet=plain_text((item.get("searchInfo") or {}).get("textSnippet")),
        # Google reports 0 pages when it does not know.
        page_count=pages if isinstance(pages, int) and pages > 0 else None,
        isbn_10=ids.get("ISBN_10"),
        isbn_13=ids.get("ISBN_13"),
        viewability=access.get("viewability"),
        preview_link=_https(info.get("previewLink")),
        info_link=_https(info.get("infoLink")),
        canonical_link=_https(info.get("canonicalVolumeLink")),
        thumbnail=_https((info.get("imageLinks") or {}).get("thumbnail")),
    )


def _holds(volume: Volume, isbn13: str) -> bool:
    for raw in (volume.isbn_13, volume.isbn_10):
        try:
            if raw and parse_isbn(raw) == isbn13:
                return True
        except InvalidIdError:
            continue
    return False


def _error_reasons(response: httpx.Response) -> set[str]:
    try:
        body = response.json()
    except ValueError:
        return set()
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return set()
    reasons = {e.get("reason") for e in error.get("errors") or [] if isinstance(e, dict)}
    reasons |= {d.get("reason") for d in error.get("details") or [] if isinstance(d, dict)}
    if isinstance(error.get("status"), str):
        reasons.add(error["status"])
    return {r for r in reasons if isinstance(r, str)}


def _raise_refusal(response: httpx.Response, what: str) -> None:
    if response.status_code != 403:
        return
    reasons = _error_reasons(response)
    if reasons & _QUOTA_REASONS:
        raise RateLimitedError(
            f"{SOURCE} quota exhausted for {what} (HTTP 403: {', '.join(sorted(reasons & _QUOTA_REASONS))})",
            source=SOURCE,
            status=403,
            hint="Google Books quota is used up; retry later, or configure SCHOLAR_GOOGLE_BOOKS_API_KEY.",
        )
    raise ForbiddenError(
        f"{SOURCE} refused the request for {what} (HTTP 403)",
        source=SOURCE,
        status=403,
        hint="Google Books refused this caller (API key not allowed, or the service is blocked for this network).",
    )


async def _volume_listing(isbn13: str) -> Volume:
    """Ask Google Books for the volume holding ``isbn13`` (a 404 and an empty listing are both not_found)."""
    key = await aget_secret("google_books_api_key")
    headers = {API_KEY_HEADER: key.get_secret_value()} if key is not None else None
    what = f"volume with ISBN {isbn13}"
    response = await http.request(SOURCE, "GET", "/books/v1/volumes", params={"q": f"isbn:{isbn13}"}, headers=headers)
    _raise_refusal(response, what)
    http.raise_for_status(SOURCE, response, what=what)
    data = http.parse_json(SOURCE, response)
    if not isinstance(data, dict) or data.get("kind") not in (None, "books#volumes"):
        raise UpstreamError(f"{SOURCE} answered {what} with something other than a volumes list", source=SOURCE)
    items = data.get("items") or []
    volumes = [volume_from_json(i) for i in items if isinstance(i, dict)]
    volume = next((v for v in volumes if v.id and _holds(v, isbn13)), None)
    if volume is None:
        raise NotFoundError(f"{SOURCE} has no volume with ISBN {isbn13}", source=SOURCE, status=404)
    return volume


async def volume_by_isbn(isbn: str, cache: Cache | None = None) -> Volume:
    """The Google Books volume listing this ISBN (cached 7 days under ``result#gb-volume:<ISBN-13>``).

    Raises:
        InvalidIdError: not a valid ISBN.
        NotFoundError: Google Books has no volume with this ISBN (a 404 or an empty listing; remembered for an hour).
        RateLimitedError, ForbiddenError, UpstreamError: the request failed.
    """
    cache = cache or Cache()
    isbn13 = parse_isbn(isbn)
    if (hit := await cache.aget("result", f"gb-volume:{isbn13}")) is not None:
        return Volume.model_validate(hit)
    volume = await unless_known_missing(cache, f"gb-isbn:{isbn13}", lambda: _volume_listing(isbn13))
    await cache.aput("result", f"gb-volume:{isbn13}", volume.model_dump(mode="json"))
    return volume
