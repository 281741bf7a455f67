"""The books family's tool implementations (dispatched by scholar.runtime.family)."""

from __future__ import annotations

from scholar.core.catalogue import CallContext, Handler
from scholar.core.errors import InvalidArgumentError
from scholar.core.id_forms import refuse_other_forms
from scholar.core.ids import InvalidIdError, parse_isbn
from scholar.families.books import lookup, search
from scholar.families.books.models import BookExcerpt, BookList, BookRecommendations, BookResult
from scholar.families.books.spec import GetBookExcerptInput, GetBookInput, RecommendBooksInput, SearchBooksInput
from scholar.sources import google_books


async def search_books(args: SearchBooksInput, ctx: CallContext) -> BookList:
    return await search.search_books(args)


async def get_book(args: GetBookInput, ctx: CallContext) -> BookResult:
    return await lookup.get_book(args)


async def get_book_excerpt(args: GetBookExcerptInput, ctx: CallContext) -> BookExcerpt:
    refuse_other_forms(args.isbn, tool="get_book_excerpt", field="isbn", accepts={"isbn"}, takes="an ISBN-10/13")
    try:
        isbn13 = parse_isbn(args.isbn)
    except InvalidIdError as exc:
        raise InvalidArgumentError(exc.message, field="isbn") from exc
    volume = await google_books.volume_by_isbn(isbn13)
    return BookExcerpt(
        isbn=isbn13,
        title=volume.title,
        authors=volume.authors,
        description=volume.description,
        snippet=volume.snippet,
        preview_available=volume.preview_available,
        viewability=volume.viewability,
        preview_link=volume.preview_link,
        google_books_id=volume.id,
        google_books_url=volume.url,
    )


async def recommend_books(args: RecommendBooksInput, ctx: CallContext) -> BookRecommendations:
    return await search.recommend_books(args)


HANDLERS: dict[str, Handler] = {
    "search_books": search_books,
    "get_book": get_book,
    "get_book_excerpt": get_book_excerpt,
    "recommend_books": recommend_books,
}
