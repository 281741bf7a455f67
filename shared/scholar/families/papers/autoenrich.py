"""Auto-enrichment (seed 000): Crossref details for papers with a DOI, Open Library ``book_metadata`` for ISBNs.

Bounded fan-out (``CONCURRENCY`` requests at once per batch), only the fields we use, results cached per
DOI / ISBN. A failing source is never dropped silently: it comes back as a ``FailedSource`` and the caller
marks its answer partial (and does not cache it). "Not found" is no failure: the record stays as it was.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from scholar.core.errors import NotFoundError, ScholarError
from scholar.core.ids import InvalidIdError, parse_isbn
from scholar.core.records import Bibliographic, FailedSource, Paper
from scholar.families.papers import biblio
from scholar.families.papers.budget import failed
from scholar.sources import crossref, openlibrary
from scholar.store.cache import Cache

CONCURRENCY = 5
# DataCite DOIs (arXiv) are not in Crossref: asking would only cost a 404.
_NOT_CROSSREF = ("10.48550/",)


def doi_of(paper: Paper) -> str | None:
    doi = (paper.externalIds or {}).get("DOI")
    return doi.lower() if doi else None


def isbn_of(paper: Paper) -> str | None:
    raw = (paper.externalIds or {}).get("ISBN")
    if not raw:
        return None
    try:
        return parse_isbn(raw)
    except InvalidIdError:
        return None


async def crossref_biblio(doi: str, cache: Cache) -> Bibliographic | None:
    """Crossref details of a DOI (cached 30 days; a miss is remembered for a day).

    Raises:
        RateLimitedError / UpstreamError: Crossref failed.
    """
    key = f"crossref:{doi}"
    known = await cache.aget_first(("record", key), ("negative", key))
    if known is not None:
        namespace, value = known
        return Bibliographic.model_validate(value) if namespace == "record" else None
    try:
        message = await crossref.get_work(doi)
    except NotFoundError:
        await cache.aput("negative", key, True)
        return None
    found = biblio.from_crossref(message)
    await cache.aput("record", key, found.model_dump(mode="json"))
    return found


async def book_metadata(isbn: str, cache: Cache) -> dict[str, Any] | None:
    """Open Library metadata of an ISBN as a plain dict (None when Open Library has no edition)."""
    meta = await openlibrary.book_metadata(isbn, cache)
    return meta.model_dump(mode="json", exclude_none=True) if meta else None


async def enrich(
    papers: list[Paper], *, crossref: bool, books: bool, cache: Cache | None = None
) -> tuple[list[Paper], list[FailedSource]]:
    """Return the papers with ``biblio`` / ``book_metadata`` added, and the sources that failed."""
    cache = cache or Cache()
    gate = asyncio.Semaphore(CONCURRENCY)
    failures: dict[tuple[str, str], FailedSource] = {}

    async def guarded(source: str, call: Callable[[], Awaitable[Any]]) -> Any:
        async with gate:
            try:
                return await call()
            except ScholarError as err:
                failures.setdefault((source, err.code), failed(err, source))
                return None

    async def one(paper: Paper) -> Paper:
        update: dict[str, Any] = {}
        doi = doi_of(paper)
        if crossref and doi and paper.biblio is None and not doi.startswith(_NOT_CROSSREF):
            found = await guarded("crossref", lambda: crossref_biblio(doi, cache))
            if found is not None:
                update["biblio"] = found
                update["sources"] = [*paper.sources, "crossref"]
        isbn = isbn_of(paper)
        if books and isbn and paper.book_metadata is None:
            meta = await guarded("openlibrary", lambda: book_metadata(isbn, cache))
            if meta is not None:
                update["book_metadata"] = meta
                update["sources"] = [*update.get("sources", paper.sources), "openlibrary"]
        return paper.model_copy(update=update) if update else paper

    enriched = await asyncio.gather(*(one(p) for p in papers))
    return list(enriched), list(failures.values())
