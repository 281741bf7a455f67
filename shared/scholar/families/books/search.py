"""search_books and recommend_books: Open Library search and subjects, cached as whole answers.

Search strategy (seed 000): a query alone is first sent as a title search (Open Library's title index ranks
far better than free text) and only on no hits as free text; a multi-word author whose results are thin is
broadened with one surname search filtered to the same first initial, which catches name variants
(Frank Duffy → Francis Duffy) without the noise of every Duffy.
"""

from __future__ import annotations

import re

from scholar.core.budget import fit
from scholar.core.errors import InvalidArgumentError
from scholar.families.books.models import Book, BookList, BookRecommendations
from scholar.families.books.records import from_search_doc
from scholar.families.books.spec import RecommendBooksInput, SearchBooksInput
from scholar.sources import openlibrary
from scholar.sources.openlibrary import SearchDoc
from scholar.store.cache import DAY, Cache

THIN = 3  # fewer hits than this for a multi-word author triggers the broadened search
SUBJECT_POOL = 50  # works fetched per subject; limit slices this cached pool


def _tokens(name: str) -> list[str]:
    """Lower-case name parts in "First Last" order ("Tolkien, J. R. R." → j, r, r, tolkien)."""
    if name.count(",") == 1:
        last, first = name.split(",")
        name = f"{first} {last}"
    return re.findall(r"\w+", name.lower())


def author_score(doc: SearchDoc, author: str) -> int:
    """How many tokens of ``author`` the best-matching author name of ``doc`` contains."""
    tokens = _tokens(author)
    return max((sum(t in _tokens(name) for t in tokens) for name in doc.authors), default=0)


def is_name_variant(doc: SearchDoc, author: str) -> bool:
    """True when an author of ``doc`` has the same surname and first initial (Frank Duffy ~ Francis Duffy)."""
    tokens = _tokens(author)
    first, last = tokens[0], tokens[-1]
    for name in doc.authors:
        parts = _tokens(name)
        if parts and parts[-1] == last and parts[0][:1] == first[:1]:
            return True
    return False


def rank_by_author(docs: list[SearchDoc], author: str) -> list[SearchDoc]:
    """Best author matches first (stable); hits sharing no name part are dropped when others do share one.

    Open Library matches each name part on its own ("Frank Duffy" also finds every Frank), hence the drop;
    but it also matches alternative spellings ("Tolkein"), so when no hit shares a part, none is dropped.
    """
    scored = [(author_score(d, author), i, d) for i, d in enumerate(docs)]
    if any(score > 0 for score, _, _ in scored):
        scored = [s for s in scored if s[0] > 0 or not s[2].authors]
    return [d for _, _, d in sorted(scored, key=lambda s: (-s[0], s[1]))]


def _merge(first: list[SearchDoc], extra: list[SearchDoc]) -> list[SearchDoc]:
    seen = {d.work_id for d in first}
    merged = list(first)
    for doc in extra:
        if doc.work_id not in seen:
            seen.add(doc.work_id)
            merged.append(doc)
    return merged


async def search_books(args: SearchBooksInput, cache: Cache | None = None) -> BookList:
    """Run the search strategy; the whole answer is cached for a day.

    Raises:
        ForbiddenError, RateLimitedError, UpstreamError: Open Library failed (nothing is cached).
    """
    cache = cache or Cache()
    query, title, author = (v.strip() if v else None for v in (args.query, args.title, args.author))
    key = f"books:t={title or ''}|a={author or ''}|q={query or ''}|n={args.limit}".lower()
    if (hit := await cache.aget("search", key)) is not None:
        return BookList.model_validate(hit)
    if query and not title and not author:
        page = await openlibrary.search(title=query, limit=args.limit)
        strategy = "title"
        if not page.docs:
            page = await openlibrary.search(q=query, limit=args.limit)
            strategy = "free_text"
    else:
        page = await openlibrary.search(title=title, author=author, q=query, limit=args.limit)
        strategy = "+".join(n for n, v in (("title", title), ("author", author), ("free_text", query)) if v)
    docs = rank_by_author(page.docs, author) if author else page.docs
    broadened = False
    if author and len(_tokens(author)) > 1 and len(docs) < THIN:
        surname = _tokens(author)[-1]
        extra = await openlibrary.search(title=title, author=surname, q=query, limit=args.limit)
        variants = [d for d in extra.docs if is_name_variant(d, author)]
        merged = _merge(docs, variants)
        broadened = len(merged) > len(docs)
        docs = merged
        strategy += "+broadened" if broadened else ""
    books, cut = fit([from_search_doc(d) for d in docs[: args.limit]])
    result = BookList(
        books=books,
        truncated=cut,
        total_found=page.total,
        strategy=strategy,
        broadened=broadened,
    )
    await cache.aput("search", key, result.model_dump(mode="json"))
    return result


async def recommend_books(args: RecommendBooksInput, cache: Cache | None = None) -> BookRecommendations:
    """The subject's works, most editions first; a pool of 50 is cached 7 days per slug and sliced to ``limit``.

    Raises:
        InvalidArgumentError: the subject has no letters or digits.
        ForbiddenError, RateLimitedError, UpstreamError: Open Library failed (nothing is cached).
    """
    cache = cache or Cache()
    slug = openlibrary.subject_slug(args.subject)
    if not slug:
        raise InvalidArgumentError(f"subject {args.subject!r} has no letters or digits", field="subject")
    hit = await cache.aget("search", f"ol-subject:{slug}")
    if hit is None:
        page = await openlibrary.subject(slug, limit=SUBJECT_POOL)
        works = sorted(page.works, key=lambda w: -(w.edition_count or 0))
        pool = BookRecommendations(
            subject=slug,
            subject_name=page.name,
            work_count=page.work_count,
            books=[_work_level(from_search_doc(w)) for w in works],
        )
        await cache.aput("search", f"ol-subject:{slug}", pool.model_dump(mode="json"), ttl_s=7 * DAY)
    else:
        pool = BookRecommendations.model_validate(hit)
    books, cut = fit(pool.books[: args.limit])
    return pool.model_copy(update={"books": books, "truncated": cut})


def _work_level(book: Book) -> Book:
    # Subject results describe works: no edition may lend them ISBNs (seed 000).
    return book.model_copy(update={"isbn_10": None, "isbn_13": None, "openlibrary_edition_id": None,
                                   "publisher": None, "worldcat_url": None})
