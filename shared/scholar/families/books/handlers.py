"""The books family's tool implementations (dispatched by scholar.runtime.family)."""

from __future__ import annotations

from scholar.core.catalogue import CallContext, Handler, args_only
from scholar.core.errors import InvalidArgumentError
from scholar.core.id_forms import refuse_other_forms
from scholar.core.ids import InvalidIdError, parse_isbn
from scholar.families.books import lookup, search
from scholar.families.books.models import (
    EXCERPT_AUTHORS,
    EXCERPT_SNIPPET_CHARS,
    EXCERPT_TEXT_CHARS,
    EXCERPT_TITLE_CHARS,
    BookExcerpt,
)
from scholar.families.books.spec import GetBookExcerptInput
from scholar.sources import google_books


def _cut(text: str | None, cap: int) -> str | None:
    return None if text is None else text[:cap]


async def get_book_excerpt(args: GetBookExcerptInput, ctx: CallContext) -> BookExcerpt:
    refuse_other_forms(args.isbn, tool="get_book_excerpt", field="isbn", accepts={"isbn"}, takes="an ISBN-10/13")
    try:
        isbn13 = parse_isbn(args.isbn)
    except InvalidIdError as exc:
        raise InvalidArgumentError(exc.message, field="isbn") from exc
    volume = await google_books.volume_by_isbn(isbn13)
    cut = (len(volume.description or "") > EXCERPT_TEXT_CHARS or len(volume.snippet or "") > EXCERPT_SNIPPET_CHARS)
    return BookExcerpt(
        isbn=isbn13,
        title=_cut(volume.title, EXCERPT_TITLE_CHARS),
        authors=[name[:EXCERPT_TITLE_CHARS] for name in volume.authors[:EXCERPT_AUTHORS]],
        description=_cut(volume.description, EXCERPT_TEXT_CHARS),
        snippet=_cut(volume.snippet, EXCERPT_SNIPPET_CHARS),
        truncated=cut,
        preview_available=volume.preview_available,
        viewability=volume.viewability,
        preview_link=volume.preview_link,
        google_books_id=volume.id,
        google_books_url=volume.url,
    )


HANDLERS: dict[str, Handler] = {
    "search_books": args_only(search.search_books),
    "get_book": args_only(lookup.get_book),
    "get_book_excerpt": get_book_excerpt,
    "recommend_books": args_only(search.recommend_books),
}
