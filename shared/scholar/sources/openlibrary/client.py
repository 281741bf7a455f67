"""Open Library's HTTP API: editions, works, authors, editions lists, search, subjects, covers; cached records.

403 is reported as ``forbidden`` and 429 as ``rate_limited``, never as "not found" or an empty list.
``book_metadata`` is the small shared function other families call for papers that carry an ISBN.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from scholar.core.errors import ForbiddenError, NotFoundError, UpstreamError
from scholar.core.ids import InvalidIdError, isbn13_to_isbn10, parse_isbn
from scholar.core.urlpath import segment
from scholar.sources import http
from scholar.sources.openlibrary.mapping import (
    MAX_AUTHORS,
    cover_url,
    edition_from_json,
    isbn_pair,
    search_doc_from_json,
    subject_work_from_json,
    text_value,
    work_from_json,
)
from scholar.sources.openlibrary.models import (
    SOURCE,
    BookMetadata,
    CoverSize,
    Edition,
    EditionsPage,
    SearchPage,
    SubjectPage,
    Work,
)
from scholar.store.cache import Cache, unless_known_missing

COVERS_SOURCE = "covers"

# search.json returns only what ``fields`` names; ``editions`` adds the best-matching edition of each work
# (one, so ISBN, publisher and year always describe the same edition).
SEARCH_FIELDS = (
    "key,title,subtitle,author_name,first_publish_year,edition_count,cover_i,cover_edition_key,subject,"
    "number_of_pages_median,edition_key,editions,editions.key,editions.isbn,editions.publisher,"
    "editions.publish_date,editions.publish_year,editions.cover_i"
)


def _refused(response: httpx.Response, source: str, what: str) -> None:
    """403 is a refusal (fair-use block, banned User-Agent), never "not found"."""
    if response.status_code == 403:
        raise ForbiddenError(
            f"{source} refused the request for {what} (HTTP 403)",
            source=source,
            status=403,
            hint="Open Library blocks clients that lack an identifying User-Agent or call too fast; set "
            "SCHOLAR_CONTACT_EMAIL and retry later.",
        )


async def _get(path: str, *, what: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    response = await http.request(SOURCE, "GET", path, params=params)
    _refused(response, SOURCE, what)
    http.raise_for_status(SOURCE, response, what=what)
    data = http.parse_json(SOURCE, response)
    if not isinstance(data, dict):
        raise UpstreamError(f"{SOURCE} answered {what} with a JSON {type(data).__name__}, not an object",
                            source=SOURCE, status=response.status_code)
    return data


async def _get_record(path: str, *, what: str) -> dict[str, Any]:
    """GET a record, following one ``/type/redirect`` (merged works and editions)."""
    data = await _get(path, what=what)
    if (data.get("type") or {}).get("key") == "/type/redirect" and isinstance(data.get("location"), str):
        data = await _get(f"{data['location']}.json", what=what)
    if (data.get("type") or {}).get("key") == "/type/delete":
        raise NotFoundError(f"{SOURCE} has deleted {what}", source=SOURCE)
    return data


async def get_edition(edition_id: str, cache: Cache | None = None) -> Edition:
    """The edition ``OL…M`` (cached 30 days under ``record#ol-edition:<id>``).

    Raises:
        NotFoundError: Open Library has no such edition.
        ForbiddenError, RateLimitedError, UpstreamError: the request failed.
    """
    cache = cache or Cache()
    if (hit := await cache.aget("record", f"ol-edition:{edition_id}")) is not None:
        return Edition.model_validate(hit)
    data = await unless_known_missing(
        cache,
        f"ol-edition:{edition_id}",
        lambda: _get_record(f"/books/{segment(edition_id)}.json", what=f"edition {edition_id}"),
    )
    edition = edition_from_json(data)
    edition.id = edition.id or edition_id
    await cache.aput("record", f"ol-edition:{edition.id}", edition.model_dump(mode="json"))
    return edition


async def get_edition_by_isbn(isbn: str, cache: Cache | None = None) -> Edition:
    """The edition holding this ISBN (any form; asked as ISBN-13, then as ISBN-10 when Open Library misses).

    Raises:
        InvalidIdError: not a valid ISBN.
        NotFoundError: no edition has it (remembered for a day).
    """
    cache = cache or Cache()
    isbn13 = parse_isbn(isbn)
    if (edition_id := await cache.aget("alias", f"isbn:{isbn13}")) is not None:
        return await get_edition(str(edition_id), cache)
    if await cache.aget("negative", f"ol-isbn:{isbn13}") is not None:
        raise NotFoundError(f"{SOURCE} has no edition with ISBN {isbn13}", source=SOURCE, status=404)
    data: dict[str, Any] | None = None
    for form in dict.fromkeys(f for f in (isbn13, isbn13_to_isbn10(isbn13)) if f):
        try:
            data = await _get_record(f"/isbn/{segment(form)}.json", what=f"edition with ISBN {form}")
            break
        except NotFoundError:
            continue
    if data is None:
        await cache.aput("negative", f"ol-isbn:{isbn13}", {"status": 404})
        raise NotFoundError(f"{SOURCE} has no edition with ISBN {isbn13}", source=SOURCE, status=404)
    edition = edition_from_json(data)
    if not edition.id:
        raise UpstreamError(f"{SOURCE} answered ISBN {isbn13} with a record without an edition key", source=SOURCE)
    await cache.aput("record", f"ol-edition:{edition.id}", edition.model_dump(mode="json"))
    await cache.aput("alias", f"isbn:{isbn13}", edition.id)
    return edition


async def get_work(work_id: str, cache: Cache | None = None) -> Work:
    """The work ``OL…W`` (cached 30 days under ``record#ol-work:<id>``).

    Raises:
        NotFoundError: Open Library has no such work.
    """
    cache = cache or Cache()
    if (hit := await cache.aget("record", f"ol-work:{work_id}")) is not None:
        return Work.model_validate(hit)
    data = await unless_known_missing(
        cache, f"ol-work:{work_id}", lambda: _get_record(f"/works/{segment(work_id)}.json", what=f"work {work_id}")
    )
    work = work_from_json(data)
    work.id = work.id or work_id
    await cache.aput("record", f"ol-work:{work.id}", work.model_dump(mode="json"))
    return work


async def _author_name(author_id: str, cache: Cache) -> str | None:
    if (hit := await cache.aget("record", f"ol-author:{author_id}")) is not None:
        return hit.get("name")
    if await cache.aget("negative", f"ol-author:{author_id}") is not None:
        return None
    try:
        data = await _get_record(f"/authors/{segment(author_id)}.json", what=f"author {author_id}")
    except NotFoundError:
        # A dangling author reference: the book record is complete without that name.
        await cache.aput("negative", f"ol-author:{author_id}", {"status": 404})
        return None
    name = text_value(data.get("name")) or text_value(data.get("personal_name"))
    await cache.aput("record", f"ol-author:{author_id}", {"name": name})
    return name


async def author_names(author_ids: list[str], cache: Cache | None = None) -> list[str]:
    """Names of the first ``MAX_AUTHORS`` authors, in order (unknown ids are skipped)."""
    cache = cache or Cache()
    ids = list(dict.fromkeys(author_ids))[:MAX_AUTHORS]
    names = await asyncio.gather(*(_author_name(a, cache) for a in ids))
    return [n for n in names if n]


async def list_editions(work_id: str, *, offset: int = 0, limit: int = 50, cache: Cache | None = None) -> EditionsPage:
    """One page of a work's editions (cached 3 days under ``list#ol-editions:<work>:<offset>:<limit>``).

    Raises:
        NotFoundError: Open Library has no such work.
    """
    cache = cache or Cache()
    key = f"ol-editions:{work_id}:{offset}:{limit}"
    if (hit := await cache.aget("list", key)) is not None:
        return EditionsPage.model_validate(hit)
    data = await unless_known_missing(cache, f"ol-editions:{work_id}", lambda: _get(
        f"/works/{segment(work_id)}/editions.json",
        what=f"editions of work {work_id}",
        params={"limit": limit, "offset": offset},
    ))
    entries = data.get("entries")
    if not isinstance(entries, list):
        raise UpstreamError(f"{SOURCE} answered the editions of {work_id} without an entries list", source=SOURCE)
    # Some answers hold more entries than asked for; keep the page we asked for.
    page = EditionsPage(
        work_id=work_id,
        entries=[edition_from_json(e) for e in entries[:limit] if isinstance(e, dict)],
        offset=offset,
        limit=limit,
        total=data["size"] if isinstance(data.get("size"), int) else None,
    )
    await cache.aput("list", key, page.model_dump(mode="json"))
    return page


async def search(
    *, title: str | None = None, author: str | None = None, q: str | None = None, limit: int = 10
) -> SearchPage:
    """One ``search.json`` request asking only for ``SEARCH_FIELDS`` (not cached here; callers cache answers)."""
    params: dict[str, Any] = {"fields": SEARCH_FIELDS, "limit": limit}
    for name, value in (("title", title), ("author", author), ("q", q)):
        if value:
            params[name] = value
    data = await _get("/search.json", what="book search", params=params)
    docs = data.get("docs")
    if not isinstance(docs, list):
        raise UpstreamError(f"{SOURCE} answered a search without a docs list", source=SOURCE)
    total = data.get("numFound", data.get("num_found"))
    return SearchPage(docs=[search_doc_from_json(d) for d in docs[:limit] if isinstance(d, dict)],
                      total=total if isinstance(total, int) else None)


async def subject(slug: str, *, limit: int = 50) -> SubjectPage:
    """The works of a subject (``/subjects/<slug>.json``), as Open Library orders them."""
    data = await _get(
        f"/subjects/{segment(slug, field='subject')}.json", what=f"subject {slug}", params={"limit": limit}
    )
    works = data.get("works")
    if not isinstance(works, list):
        raise UpstreamError(f"{SOURCE} answered subject {slug} without a works list", source=SOURCE)
    return SubjectPage(
        slug=slug,
        name=text_value(data.get("name")),
        work_count=data.get("work_count") if isinstance(data.get("work_count"), int) else None,
        works=[subject_work_from_json(w) for w in works if isinstance(w, dict)],
    )


async def fetch_cover(cover_id: int, size: CoverSize = "M") -> bytes | None:
    """The JPEG bytes of a cover (by cover id: not subject to the covers API's per-IP ISBN limit); None if absent.

    Raises:
        ForbiddenError, RateLimitedError, UpstreamError: the covers host failed or answered something else.
    """
    what = f"cover {cover_id}-{size}"
    # default=false: a missing cover is a 404, not a blank placeholder image.
    response = await http.request(
        COVERS_SOURCE, "GET", f"/b/id/{segment(f'{cover_id}-{size}')}.jpg", params={"default": "false"}
    )
    if response.status_code == 404:
        return None
    _refused(response, COVERS_SOURCE, what)
    http.raise_for_status(COVERS_SOURCE, response, what=what)
    ctype = response.headers.get("content-type", "")
    if not ctype.startswith("image/"):
        raise UpstreamError(f"{COVERS_SOURCE} answered {what} with {ctype or 'no content-type'}, not an image",
                            source=COVERS_SOURCE, status=response.status_code)
    return response.content


async def book_metadata(isbn: str, cache: Cache | None = None) -> BookMetadata | None:
    """Open Library metadata for a paper's ISBN (seed 000 ``book_metadata``); None when no edition has it.

    Every edition-level field comes from the edition holding this ISBN; description, subjects and authors
    fall back to its work. Invalid ISBNs give None too (a paper's ``externalIds.ISBN`` is not ours to fix).

    Raises:
        ForbiddenError, RateLimitedError, UpstreamError: Open Library failed; callers report the source as failed.
    """
    cache = cache or Cache()
    try:
        edition = await get_edition_by_isbn(isbn, cache)
    except (NotFoundError, InvalidIdError):
        return None
    work: Work | None = None
    if edition.work_id:
        try:
            work = await get_work(edition.work_id, cache)
        except NotFoundError:
            work = None
    # Open Library found this edition by the ISBN asked for, so that number is the edition's.
    isbn10, isbn13 = isbn_pair([], prefer=isbn)
    cover = edition.covers[0] if edition.covers else None
    return BookMetadata(
        title=edition.title or (work.title if work else None),
        publisher=edition.publishers[0] if edition.publishers else None,
        edition=edition.edition_name,
        year=edition.year,
        isbn_10=isbn10,
        isbn_13=isbn13,
        cover_url=cover_url(cover),
        openlibrary_work_id=edition.work_id,
        openlibrary_edition_id=edition.id,
        description=edition.description or (work.description if work else None),
        subjects=(work.subjects if work and work.subjects else edition.subjects)[:25],
        page_count=edition.number_of_pages,
        authors=await author_names(edition.author_ids or (work.author_ids if work else []), cache),
    )
