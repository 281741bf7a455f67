"""The bounds of every stored field of a library item, stated once (DESIGN §12: a caller's data is bounded).

Whichever way a record arrives (library_add's resolved paper, library_update, library_import, download_paper's
keep step), a field past its bound is ``too_large``, naming the field and the limit, and nothing is written.
The non-obvious reason for bounds this tight: every stored text is indexed for library_search, and one item's
text must stay small enough that building its index and answering over it fit in one call (issue #22: a
1,000,000-character abstract, compressed under DynamoDB's item size, stalled search for two minutes). The
tool inputs (notes, tags) carry the same numbers in their schemas, so a client learns them up front.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from scholar.core.errors import TooLargeError
from scholar.store.library.models import MAX_NOTES_CHARS, MAX_TAGS, LibraryItem

MAX_TITLE_CHARS = 2_000
MAX_ABSTRACT_CHARS = 20_000  # the longest real abstracts are a few thousand characters
MAX_VENUE_CHARS = 500
# Large collaborations sign with 3,000–5,200 authors; each listed once, with a name of ordinary length.
MAX_AUTHORS = 6_000
MAX_AUTHOR_NAME_CHARS = 300
MAX_IDS = 50
MAX_ID_CHARS = 300
MAX_PDFS = 20
MAX_URL_CHARS = 2_000
# The whole record as JSON: bounds what no rule above names (journal, biblio, fields of study, unknown keys).
MAX_RECORD_CHARS = 600_000
REASON = "library_field_too_large"
_HINT = "Shorten that field (or leave it out) and try again; the limit is stated in details.limit."

# Field as the error names it → its limit (characters for texts, entries for lists).
LIMITS: dict[str, int] = {
    "paper.title": MAX_TITLE_CHARS,
    "paper.abstract": MAX_ABSTRACT_CHARS,
    "paper.tldr": MAX_ABSTRACT_CHARS,
    "paper.venue": MAX_VENUE_CHARS,
    "paper.authors": MAX_AUTHORS,
    "paper.authors[].name": MAX_AUTHOR_NAME_CHARS,
    "ids": MAX_IDS,
    "ids[]": MAX_ID_CHARS,
    "paper.externalIds": MAX_IDS,
    "paper.externalIds[]": MAX_ID_CHARS,
    "notes": MAX_NOTES_CHARS,
    "tags": MAX_TAGS,
    "pdfs": MAX_PDFS,
    "pdfs[].source_url": MAX_URL_CHARS,
    "record": MAX_RECORD_CHARS,
}


def _text(value: Any) -> int:
    return len(value) if isinstance(value, str) else 0


def _measures(item: LibraryItem) -> Iterator[tuple[str, int]]:
    """(field, size) of every bounded field: characters for texts, entries for lists."""
    paper = item.paper
    for name in ("title", "abstract", "tldr", "venue"):
        yield f"paper.{name}", _text(paper.get(name))
    authors = paper.get("authors")
    if isinstance(authors, list):
        yield "paper.authors", len(authors)
        yield "paper.authors[].name", max((_text(a.get("name")) for a in authors if isinstance(a, dict)), default=0)
    external = paper.get("externalIds")
    if isinstance(external, dict):
        yield "paper.externalIds", len(external)
        yield "paper.externalIds[]", max((_text(v) for v in external.values()), default=0)
    yield "ids", len(item.ids)
    yield "ids[]", max((len(i) for i in item.ids), default=0)
    yield "notes", _text(item.notes)
    yield "tags", len(item.tags)
    yield "pdfs", len(item.pdfs)
    yield "pdfs[].source_url", max((len(p.source_url) for p in item.pdfs), default=0)


def oversized(item: LibraryItem) -> TooLargeError | None:
    """The error for the first field of ``item`` past its bound (``details``: field, limit, size), or None."""
    for name, size in _measures(item):
        if size > LIMITS[name]:
            return _error(item, name, size)
    size = len(json.dumps(item.paper, ensure_ascii=False)) + sum(len(i) for i in item.ids) + _text(item.notes)
    return _error(item, "record", size) if size > MAX_RECORD_CHARS else None


def _error(item: LibraryItem, name: str, size: int) -> TooLargeError:
    unit = "entries" if name in ("paper.authors", "ids", "paper.externalIds", "tags", "pdfs") else "characters"
    return TooLargeError(
        f"{name} of {item.item_id} holds {size} {unit}; a library item holds at most {LIMITS[name]}",
        reason=REASON, hint=_HINT, details={"field": name, "limit": LIMITS[name], "size": size},
    )


def check_bounds(item: LibraryItem) -> LibraryItem:
    """``item`` itself when every field is within its bound.

    Raises:
        TooLargeError: (reason ``library_field_too_large``) the first field past its bound, named in
            ``details.field`` with ``details.limit``.
    """
    if (error := oversized(item)) is not None:
        raise error
    return item
