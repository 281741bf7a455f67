"""get_book: one book by ISBN or Open Library id, with its editions, Google Books link and stored cover.

The upstream records are cached by scholar.sources.openlibrary under their own keys (edition, work,
author, ISBN alias), so a work lookup and an edition lookup never overwrite each other; the assembled
answer is not cached (it is cheap to rebuild and may carry a failed enrichment).
"""

from __future__ import annotations

import re
from typing import Literal

from scholar.core.budget import RESERVE, fit, json_chars
from scholar.core.catalogue import MAX_RESULT_CHARS
from scholar.core.errors import InvalidArgumentError, NotFoundError, ScholarError
from scholar.core.id_forms import refuse_other_forms
from scholar.core.ids import InvalidIdError, parse_isbn
from scholar.families.books import covers
from scholar.families.books.models import (
    EXCERPT_SNIPPET_CHARS,
    EXCERPT_TEXT_CHARS,
    BookResult,
    EditionList,
    FailedSource,
)
from scholar.families.books.records import edition_summary, from_edition, from_work
from scholar.families.books.spec import GetBookInput
from scholar.sources import google_books, openlibrary
from scholar.sources.openlibrary import CoverSize, Edition, EditionsPage, Work
from scholar.store.blobs import BlobStore
from scholar.store.cache import Cache

BookIdKind = Literal["isbn", "work", "edition"]
FIRST_PAGE = 50  # editions read to pick the one that represents a work
_OL_ID_RE = re.compile(r"(?:^|/)(OL\d+[WMA])(?=$|[/.?#])", re.IGNORECASE)
_ACCEPTED = "an ISBN-10/13, an Open Library work id (OL…W), edition id (OL…M) or an openlibrary.org URL"


def parse_book_identifier(raw: str) -> tuple[BookIdKind, str]:
    """Classify a get_book identifier and normalise it (ISBNs → ISBN-13, OL ids upper-case).

    Raises:
        InvalidArgumentError: neither an Open Library work/edition id nor a checksum-valid ISBN.
    """
    text = raw.strip()
    refuse_other_forms(text, tool="get_book", field="identifier", accepts={"isbn", "url"}, takes=_ACCEPTED)
    if match := _OL_ID_RE.search(text):
        value = match.group(1).upper()
        if value.endswith("A"):
            raise InvalidArgumentError(f"{value} is an Open Library author id; give {_ACCEPTED}", field="identifier")
        return ("work" if value.endswith("W") else "edition"), value
    try:
        return "isbn", parse_isbn(text)
    except InvalidIdError as exc:
        raise InvalidArgumentError(f"{exc.message}; get_book takes {_ACCEPTED}", field="identifier") from exc


async def _work_or_none(work_id: str | None, cache: Cache) -> Work | None:
    if not work_id:
        return None
    try:
        return await openlibrary.get_work(work_id, cache)
    except NotFoundError:
        return None  # an edition pointing at a vanished work is still a complete edition record


def _within(first: EditionsPage | None, offset: int, limit: int) -> EditionsPage | None:
    """The requested window cut from the first page already read, when it lies inside it (saves a paced request)."""
    if first is None:
        return None
    complete = first.total is not None and len(first.entries) >= first.total
    if offset + limit > len(first.entries) and not complete:
        return None
    return first.model_copy(update={"entries": first.entries[offset: offset + limit], "offset": offset,
                                    "limit": limit})


def _edition_list(page: EditionsPage, reserve: int) -> EditionList:
    """The page of editions, cut where the answer would pass the size budget (next_offset goes on from there)."""
    entries, cut = fit([edition_summary(e) for e in page.entries], reserve=reserve)
    end = page.offset + len(entries)
    more = cut or (page.total is not None and end < page.total and len(page.entries) == page.limit)
    return EditionList(
        openlibrary_work_id=page.work_id,
        entries=entries,
        offset=page.offset,
        limit=page.limit,
        total=page.total,
        next_offset=end if more else None,
    )


async def _enrich_google(result: BookResult, cache: Cache) -> None:
    """Add the Google Books link and snippet; a failure marks the answer partial instead of failing it."""
    if not result.isbn_13:
        return
    try:
        volume = await google_books.volume_by_isbn(result.isbn_13, cache)
    except NotFoundError:
        return
    except ScholarError as err:
        result.partial = True
        result.failed_sources.append(
            FailedSource(source=google_books.SOURCE, code=err.code, status=err.status, message=err.message)
        )
        return
    result.google_books_url = result.google_books_url or volume.url
    result.snippet = volume.snippet
    result.sources.append(google_books.SOURCE)


async def get_book(args: GetBookInput, cache: Cache | None = None, blobs: BlobStore | None = None) -> BookResult:
    """Resolve, assemble and enrich one book.

    Raises:
        InvalidArgumentError: the identifier is neither an ISBN nor an Open Library work/edition id.
        NotFoundError: Open Library has no such book.
        ForbiddenError, RateLimitedError, UpstreamError: Open Library failed (the covers host too, with
            download_cover).
    """
    cache = cache or Cache()
    kind, value = parse_book_identifier(args.identifier)
    edition: Edition | None
    work: Work | None
    listing: EditionsPage | None = None
    first: EditionsPage | None = None
    if kind == "work":
        work = await openlibrary.get_work(value, cache)
        first = await openlibrary.list_editions(value, offset=0, limit=FIRST_PAGE, cache=cache)
        edition = openlibrary.pick_edition(first.entries, work)
        total = first.total
    else:
        edition = await (openlibrary.get_edition_by_isbn(value, cache) if kind == "isbn"
                         else openlibrary.get_edition(value, cache))
        work = await _work_or_none(edition.work_id, cache)
        total = None
    if args.include_editions and work:
        listing = _within(first, args.editions_offset, args.editions_limit) or await openlibrary.list_editions(
            work.id, offset=args.editions_offset, limit=args.editions_limit, cache=cache)
        total = listing.total if listing.total is not None else total
    author_ids = (edition.author_ids if edition and edition.author_ids else []) or (work.author_ids if work else [])
    authors = await openlibrary.author_names(author_ids, cache)
    if edition is not None:
        book = from_edition(edition, work, authors, isbn=value if kind == "isbn" else None, edition_count=total,
                            about_work=kind == "work")
    elif work is not None:
        book = from_work(work, authors, edition_count=total)
    else:  # unreachable: a work lookup either returns the work or raises
        raise NotFoundError(f"Open Library has no book {value}", source=openlibrary.SOURCE)
    result = BookResult.model_validate(book.model_dump())
    await _enrich_google(result, cache)
    if args.download_cover:
        # The edition's own cover; a work with no edition to describe shows the work's.
        owner = edition if edition is not None else work
        await _attach_cover(result, owner.covers[0] if owner and owner.covers else None, args.cover_size, blobs)
    return fit_book(result, listing)


def fit_book(result: BookResult, listing: EditionsPage | None) -> BookResult:
    """``result`` within the size budget: a description of a whole book (Open Library's is unbounded) and the
    snippet cut to get_book_excerpt's caps, with ``truncated``; then the editions that fit beside it."""
    if json_chars(result) > MAX_RESULT_CHARS - RESERVE:
        result.description = (result.description or "")[:EXCERPT_TEXT_CHARS] or None
        result.snippet = (result.snippet or "")[:EXCERPT_SNIPPET_CHARS] or None
        result.truncated = True
    if listing is not None:
        result.editions = _edition_list(listing, reserve=RESERVE + json_chars(result))
    return result


async def _attach_cover(result: BookResult, cover_id: int | None, size: CoverSize, blobs: BlobStore | None) -> None:
    """Store the cover under ``covers/<isbn>_<size>.jpg`` and add its key and link; no cover leaves them null."""
    name = result.isbn_13 or result.openlibrary_edition_id or result.openlibrary_work_id or "unknown"
    stored = await covers.store_cover(name, cover_id, size, blobs)
    if stored is None:
        result.cover_url = None  # the covers host has no image for this id
    else:
        result.cover_path, result.cover_download_url = stored
