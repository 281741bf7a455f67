"""Open Library payloads → our models (pure): ids, years, ISBN pairs, subject slugs, the representative edition."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from scholar.core.ids import InvalidIdError, isbn13_to_isbn10, parse_isbn
from scholar.sources.openlibrary.models import (
    CoverSize,
    Edition,
    SearchDoc,
    SearchEdition,
    Work,
    year_of,
)

# Links handed to callers always name the public hosts, whatever base URL our requests use.
PUBLIC_COVERS = "https://covers.openlibrary.org"
# Work search docs from before ``editions`` existed carry per-work lists merged across editions; those
# are only used when the work has a single edition (see ``search_doc_from_json``).
MAX_AUTHORS = 10
_OLID_RE = re.compile(r"OL\d+[AMW]")


def olid(value: object) -> str | None:
    """The Open Library id (OL…A/M/W) inside a key such as ``/works/OL27448W``, or None."""
    match = _OLID_RE.search(value) if isinstance(value, str) else None
    return match.group(0) if match else None


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


# The edition fields read straight from the key of the same name, each with its reader.
_EDITION_FIELDS: dict[str, Callable[[object], object]] = {
    "title": text_value,
    "subtitle": text_value,
    "publishers": _names,
    "publish_date": text_value,
    "isbn_10": _strings,
    "isbn_13": _strings,
    "covers": _ints,
    "number_of_pages": _int,
    "edition_name": text_value,
    "physical_format": text_value,
    "languages": _language_codes,
    "description": text_value,
    "subjects": _names,
}


def edition_from_json(data: dict[str, Any]) -> Edition:
    """Map an edition record (``/books/OL…M.json``, ``/isbn/….json`` or an editions-list entry)."""
    identifiers = raw if isinstance(raw := data.get("identifiers"), dict) else {}
    return Edition(
        id=olid(data.get("key")) or "",
        work_id=next(iter(_keys(data.get("works"))), None),
        author_ids=_keys(data.get("authors"), "author"),
        google_ids=_strings(identifiers.get("google")),
        **{field: read(data.get(field)) for field, read in _EDITION_FIELDS.items()},
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


def _work_doc(doc: dict[str, Any], *, authors: list[str], cover_key: str, **edition_level: Any) -> SearchDoc:
    """The work-level fields both shapes share; ``edition_level`` adds what only a search doc carries."""
    return SearchDoc(
        work_id=olid(doc.get("key")),
        title=text_value(doc.get("title")),
        subtitle=text_value(doc.get("subtitle")),
        authors=authors,
        first_publish_year=_int(doc.get("first_publish_year")),
        edition_count=doc.get("edition_count") if isinstance(doc.get("edition_count"), int) else None,
        cover_id=_int(doc.get(cover_key)),
        subjects=_strings(doc.get("subject"))[:25],
        **edition_level,
    )


def search_doc_from_json(doc: dict[str, Any]) -> SearchDoc:
    """Map one ``search.json`` doc (current shape with ``editions``, or the older merged-lists shape)."""
    return _work_doc(doc, authors=_strings(doc.get("author_name")), cover_key="cover_i",
                     page_count_median=_int(doc.get("number_of_pages_median")), edition=_search_edition(doc))


def subject_work_from_json(work: dict[str, Any]) -> SearchDoc:
    """Map one work of a subject page (``/subjects/<slug>.json``): work-level only."""
    return _work_doc(work, authors=_names(work.get("authors")), cover_key="cover_id")


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

