"""Open Library (openlibrary.org, covers.openlibrary.org): editions, works, authors, search, subjects, covers.

Raw payloads are mapped once into the small models below (only the fields we use), and those models are
what the cache holds: ``record#ol-edition:<OL…M>``, ``record#ol-work:<OL…W>``, ``record#ol-author:<OL…A>``
and ``alias#isbn:<ISBN-13>`` → edition id, so work and edition lookups never overwrite each other.
Open Library asks for an identifying User-Agent and a gentle pace (scholar.http and the registry do both);
403 is reported as ``forbidden`` and 429 as ``rate_limited``, never as "not found" or an empty list.
``book_metadata`` is the small shared function other families call for papers that carry an ISBN.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any, Literal

import httpx
from pydantic import BaseModel, Field

from scholar import http
from scholar.errors import ForbiddenError, NotFoundError, UpstreamError
from scholar.ids import InvalidIdError, isbn13_to_isbn10, parse_isbn
from scholar.store.cache import Cache, unless_known_missing
from scholar.urlpath import segment

SOURCE = "openlibrary"
COVERS_SOURCE = "covers"
# Links handed to callers always name the public hosts, whatever base URL our requests use.
PUBLIC_BASE = "https://openlibrary.org"
PUBLIC_COVERS = "https://covers.openlibrary.org"

CoverSize = Literal["S", "M", "L"]

# search.json returns only what ``fields`` names; ``editions`` adds the best-matching edition of each work
# (one, so ISBN, publisher and year always describe the same edition).
SEARCH_FIELDS = (
    "key,title,subtitle,author_name,first_publish_year,edition_count,cover_i,cover_edition_key,subject,"
    "number_of_pages_median,edition_key,editions,editions.key,editions.isbn,editions.publisher,"
    "editions.publish_date,editions.publish_year,editions.cover_i"
)
# Work search docs from before ``editions`` existed carry per-work lists merged across editions; those
# are only used when the work has a single edition (see ``search_doc_from_json``).
MAX_AUTHORS = 10
_OLID_RE = re.compile(r"OL\d+[AMW]")
_YEAR_RE = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})\b")


class Edition(BaseModel):
    """One edition (a printing with its own ISBNs, publisher and date)."""

    id: str
    title: str | None = None
    subtitle: str | None = None
    work_id: str | None = None
    author_ids: list[str] = Field(default_factory=list)
    publishers: list[str] = Field(default_factory=list)
    publish_date: str | None = None
    isbn_10: list[str] = Field(default_factory=list)
    isbn_13: list[str] = Field(default_factory=list)
    covers: list[int] = Field(default_factory=list)
    number_of_pages: int | None = None
    edition_name: str | None = None
    physical_format: str | None = None
    languages: list[str] = Field(default_factory=list)
    description: str | None = None
    subjects: list[str] = Field(default_factory=list)
    google_ids: list[str] = Field(default_factory=list)

    @property
    def year(self) -> int | None:
        return year_of(self.publish_date)


class Work(BaseModel):
    """A work (the book across all its editions)."""

    id: str
    title: str | None = None
    subtitle: str | None = None
    author_ids: list[str] = Field(default_factory=list)
    description: str | None = None
    subjects: list[str] = Field(default_factory=list)
    covers: list[int] = Field(default_factory=list)
    first_publish_date: str | None = None


class EditionsPage(BaseModel):
    """One page of a work's editions."""

    work_id: str
    entries: list[Edition]
    offset: int
    limit: int
    total: int | None = None


class SearchEdition(BaseModel):
    """The one edition a search hit's edition-level fields come from."""

    id: str | None = None
    isbns: list[str] = Field(default_factory=list)
    publishers: list[str] = Field(default_factory=list)
    publish_year: int | None = None
    cover_id: int | None = None


class SearchDoc(BaseModel):
    """One work-level search hit (``search.json`` docs or a subject's works)."""

    work_id: str | None = None
    title: str | None = None
    subtitle: str | None = None
    authors: list[str] = Field(default_factory=list)
    first_publish_year: int | None = None
    edition_count: int | None = None
    cover_id: int | None = None
    subjects: list[str] = Field(default_factory=list)
    page_count_median: int | None = None
    edition: SearchEdition | None = None


class SearchPage(BaseModel):
    docs: list[SearchDoc]
    total: int | None = None


class SubjectPage(BaseModel):
    slug: str
    name: str | None = None
    work_count: int | None = None
    works: list[SearchDoc]


class BookMetadata(BaseModel):
    """What a paper with an ISBN gets as ``book_metadata`` (seed 000, auto-enrichment)."""

    title: str | None = None
    publisher: str | None = None
    edition: str | None = None
    year: int | None = None
    isbn_10: str | None = None
    isbn_13: str | None = None
    cover_url: str | None = None
    openlibrary_work_id: str | None = None
    openlibrary_edition_id: str | None = None
    description: str | None = None
    subjects: list[str] = Field(default_factory=list)
    page_count: int | None = None
    authors: list[str] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=lambda: [SOURCE])


# ---------------------------------------------------------------- mapping (pure)


def olid(value: object) -> str | None:
    """The Open Library id (OL…A/M/W) inside a key such as ``/works/OL27448W``, or None."""
    match = _OLID_RE.search(value) if isinstance(value, str) else None
    return match.group(0) if match else None


def year_of(text: object) -> int | None:
    """The first plausible year in a free-form publish date ("April 22, 2008" → 2008)."""
    if isinstance(text, int):
        return text
    match = _YEAR_RE.search(text) if isinstance(text, str) else None
    return int(match.group(1)) if match else None


def text_value(value: object) -> str | None:
    """A plain string from either a string or a ``{"type": "/type/text", "value": …}`` object."""
    if isinstance(value, dict):
        value = value.get("value")
    return (value.strip() or None) if isinstance(value, str) else None


def cover_url(cover_id: int | None, size: CoverSize = "M") -> str | None:
    """The public cover image URL for a cover id (None when there is no cover)."""
    return f"{PUBLIC_COVERS}/b/id/{cover_id}-{size}.jpg" if cover_id and cover_id > 0 else None


def _strings(value: object) -> list[str]:
    return [v.strip() for v in value if isinstance(v, str) and v.strip()] if isinstance(value, list) else []


def _ints(value: object) -> list[int]:
    # Open Library marks deleted covers with -1.
    return [v for v in value if isinstance(v, int) and v > 0] if isinstance(value, list) else []


def _names(value: object) -> list[str]:
    """Names from ``["Gallimard"]`` or ``[{"name": "Gallimard"}]``."""
    if not isinstance(value, list):
        return []
    return [v.strip() for v in (x.get("name") if isinstance(x, dict) else x for x in value) if isinstance(v, str)]


def _keys(value: object, inner: str | None = None) -> list[str]:
    """OL ids from ``[{"key": …}]`` or ``[{"author": {"key": …}}]`` lists."""
    ids: list[str] = []
    for item in value if isinstance(value, list) else []:
        if isinstance(item, dict) and inner and isinstance(item.get(inner), dict):
            item = item[inner]
        key = olid(item.get("key")) if isinstance(item, dict) else None
        if key:
            ids.append(key)
    return ids


def _language_codes(value: object) -> list[str]:
    """MARC codes from ``[{"key": "/languages/eng"}]``."""
    keys = [x.get("key") for x in value if isinstance(x, dict)] if isinstance(value, list) else []
    return [k.rsplit("/", 1)[-1] for k in keys if isinstance(k, str)]


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and value > 0 else None


def edition_from_json(data: dict[str, Any]) -> Edition:
    """Map an edition record (``/books/OL…M.json``, ``/isbn/….json`` or an editions-list entry)."""
    identifiers = data.get("identifiers") if isinstance(data.get("identifiers"), dict) else {}
    return Edition(
        id=olid(data.get("key")) or "",
        title=text_value(data.get("title")),
        subtitle=text_value(data.get("subtitle")),
        work_id=next(iter(_keys(data.get("works"))), None),
        author_ids=_keys(data.get("authors"), "author"),
        publishers=_names(data.get("publishers")),
        publish_date=text_value(data.get("publish_date")),
        isbn_10=_strings(data.get("isbn_10")),
        isbn_13=_strings(data.get("isbn_13")),
        covers=_ints(data.get("covers")),
        number_of_pages=_int(data.get("number_of_pages")),
        edition_name=text_value(data.get("edition_name")),
        physical_format=text_value(data.get("physical_format")),
        languages=_language_codes(data.get("languages")),
        description=text_value(data.get("description")),
        subjects=_names(data.get("subjects")),
        google_ids=_strings(identifiers.get("google")),
    )


def work_from_json(data: dict[str, Any]) -> Work:
    """Map a work record (``/works/OL…W.json``)."""
    return Work(
        id=olid(data.get("key")) or "",
        title=text_value(data.get("title")),
        subtitle=text_value(data.get("subtitle")),
        author_ids=_keys(data.get("authors"), "author"),
        description=text_value(data.get("description")),
        subjects=_strings(data.get("subjects")),
        covers=_ints(data.get("covers")),
        first_publish_date=text_value(data.get("first_publish_date")),
    )


def _search_edition(doc: dict[str, Any]) -> SearchEdition | None:
    """The edition-level fields of a search doc, all from one edition, or None when that cannot be assured."""
    sub = doc.get("editions")
    if isinstance(sub, dict):
        eds = [e for e in sub.get("docs") or [] if isinstance(e, dict)]
        if not eds:
            return None
        ed = eds[0]
        years = [y for y in ed.get("publish_year") or [] if isinstance(y, int)]
        return SearchEdition(
            id=olid(ed.get("key")),
            isbns=_strings(ed.get("isbn")),
            publishers=_strings(ed.get("publisher")),
            publish_year=min(years) if years else year_of(next(iter(_strings(ed.get("publish_date"))), None)),
            cover_id=_int(ed.get("cover_i")),
        )
    # Older docs merge every edition's ISBNs and publishers into one list: usable only for a one-edition work.
    edition_keys = _strings(doc.get("edition_key"))
    if len(edition_keys) == 1 and doc.get("edition_count") in (1, None):
        years = [y for y in doc.get("publish_year") or [] if isinstance(y, int)]
        return SearchEdition(
            id=olid(edition_keys[0]),
            isbns=_strings(doc.get("isbn")),
            publishers=_strings(doc.get("publisher")),
            publish_year=min(years) if years else None,
        )
    cover_edition = olid(doc.get("cover_edition_key"))
    return SearchEdition(id=cover_edition) if cover_edition else None


def search_doc_from_json(doc: dict[str, Any]) -> SearchDoc:
    """Map one ``search.json`` doc (current shape with ``editions``, or the older merged-lists shape)."""
    return SearchDoc(
        work_id=olid(doc.get("key")),
        title=text_value(doc.get("title")),
        subtitle=text_value(doc.get("subtitle")),
        authors=_strings(doc.get("author_name")),
        first_publish_year=_int(doc.get("first_publish_year")),
        edition_count=doc.get("edition_count") if isinstance(doc.get("edition_count"), int) else None,
        cover_id=_int(doc.get("cover_i")),
        subjects=_strings(doc.get("subject"))[:25],
        page_count_median=_int(doc.get("number_of_pages_median")),
        edition=_search_edition(doc),
    )


def subject_work_from_json(work: dict[str, Any]) -> SearchDoc:
    """Map one work of a subject page (``/subjects/<slug>.json``): work-level only."""
    return SearchDoc(
        work_id=olid(work.get("key")),
        title=text_value(work.get("title")),
        subtitle=text_value(work.get("subtitle")),
        authors=_names(work.get("authors")),
        first_publish_year=_int(work.get("first_publish_year")),
        edition_count=work.get("edition_count") if isinstance(work.get("edition_count"), int) else None,
        cover_id=_int(work.get("cover_id")),
        subjects=_strings(work.get("subject"))[:25],
    )


def isbn_pair(candidates: list[str], prefer: str | None = None) -> tuple[str | None, str | None]:
    """(ISBN-10, ISBN-13) of ONE book number: ``prefer`` when given, else the first valid ISBN-13, else ISBN-10.

    Both forms are derived from the chosen number, so they always agree (979 ISBNs have no ISBN-10).
    """
    if prefer:
        chosen = parse_isbn(prefer)
        return isbn13_to_isbn10(chosen), chosen
    # ISBN-13s first: they are the current form; an edition's ISBN-10 usually encodes the same number.
    ordered = sorted(candidates, key=lambda c: len(re.sub(r"[\s-]", "", c)) != 13)
    for raw in ordered:
        try:
            chosen = parse_isbn(raw)
        except InvalidIdError:
            continue  # Open Library holds some malformed ISBNs; skip them rather than fail the record
        return isbn13_to_isbn10(chosen), chosen
    return None, None


def subject_slug(subject: str) -> str:
    """Normalise a subject the way Open Library's subject URLs do ("Machine Learning" → "machine_learning")."""
    text = subject.strip().lower()
    text = re.sub(r"[^\w:\-\s]", " ", text)
    text = re.sub(r"[\s_]+", "_", text).strip("_-:")
    return text


# ---------------------------------------------------------------- requests


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


# ---------------------------------------------------------------- shared function


def pick_edition(editions: list[Edition], work: Work | None = None) -> Edition | None:
    """The edition that represents a work: the one showing the work's cover, else one with an ISBN-13, else any ISBN."""
    if not editions:
        return None
    if work and work.covers:
        for ed in editions:
            if work.covers[0] in ed.covers:
                return ed
    return (next((e for e in editions if e.isbn_13), None) or next((e for e in editions if e.isbn_10), None)
            or editions[0])


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
