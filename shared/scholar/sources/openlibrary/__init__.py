"""Open Library (openlibrary.org, covers.openlibrary.org): editions, works, authors, search, subjects, covers.

Raw payloads are mapped once (``mapping``) into small models (``models``: only the fields we use), and those
models are what the cache holds: ``record#ol-edition:<OL…M>``, ``record#ol-work:<OL…W>``,
``record#ol-author:<OL…A>`` and ``alias#isbn:<ISBN-13>`` → edition id, so work and edition lookups never
overwrite each other. Open Library asks for an identifying User-Agent and a gentle pace (scholar.sources.http and
the registry do both); the requests are in ``client``.
"""

from scholar.sources.openlibrary.client import (
    SEARCH_FIELDS,
    author_names,
    book_metadata,
    fetch_cover,
    get_edition,
    get_edition_by_isbn,
    get_work,
    list_editions,
    search,
    subject,
)
from scholar.sources.openlibrary.mapping import (
    cover_url,
    edition_from_json,
    isbn_pair,
    pick_edition,
    subject_slug,
    work_from_json,
)
from scholar.sources.openlibrary.models import (
    SOURCE,
    CoverSize,
    Edition,
    EditionsPage,
    SearchDoc,
    Work,
    year_of,
)

__all__ = [
    "SEARCH_FIELDS",
    "SOURCE",
    "CoverSize",
    "Edition",
    "EditionsPage",
    "SearchDoc",
    "Work",
    "author_names",
    "book_metadata",
    "cover_url",
    "edition_from_json",
    "fetch_cover",
    "get_edition",
    "get_edition_by_isbn",
    "get_work",
    "isbn_pair",
    "list_editions",
    "pick_edition",
    "search",
    "subject",
    "subject_slug",
    "work_from_json",
    "year_of",
]
