"""Crossref and OpenAlex payloads → ``Bibliographic``: the details a citation needs and S2 does not carry."""

from __future__ import annotations

from typing import Any

from scholar.core.numerals import ascii_int
from scholar.core.records import Bibliographic, PersonName


def _first(values: Any) -> str | None:
    if isinstance(values, list):
        return next((str(v) for v in values if v), None)
    return str(values) if values else None


def _date_parts(message: dict[str, Any]) -> list[int]:
    for key in ("published-print", "published", "issued", "published-online", "created"):
        parts = ((message.get(key) or {}).get("date-parts") or [[None]])[0]
        if parts and parts[0]:
            return [int(p) for p in parts if p is not None]
    return []


def _person(author: dict[str, Any]) -> PersonName:
    if author.get("family") or author.get("given"):
        return PersonName(given=author.get("given"), family=author.get("family"), suffix=author.get("suffix"))
    return PersonName(literal=author.get("name"))


def from_crossref(message: dict[str, Any]) -> Bibliographic:
    """A Crossref work message → Bibliographic (only the fields a citation uses)."""
    parts = _date_parts(message)
    isbns = [i.get("value") for i in message.get("isbn-type") or [] if i.get("value")] or message.get("ISBN")
    event = message.get("event") or {}
    authors = [_person(a) for a in message.get("author") or []]
    return Bibliographic(
        type=message.get("type"),
        container_title=_first(message.get("container-title")),
        publisher=message.get("publisher"),
        volume=message.get("volume"),
        issue=message.get("issue") or (message.get("journal-issue") or {}).get("issue"),
        pages=message.get("page") or message.get("article-number"),
        issn=list(dict.fromkeys(message.get("ISSN") or [])) or None,
        isbn=list(dict.fromkeys(isbns or [])) or None,
        year=parts[0] if parts else None,
        month=parts[1] if len(parts) > 1 and 1 <= parts[1] <= 12 else None,
        event=event.get("name") if isinstance(event, dict) else None,
        edition=message.get("edition-number"),
        authors=[a for a in authors if a.family or a.given or a.literal] or None,
    )


def from_openalex(work: dict[str, Any]) -> Bibliographic:
    """An OpenAlex work → Bibliographic (venue, volume, issue, pages, ISSN, publisher)."""
    location = work.get("primary_location") or {}
    source = location.get("source") or {}
    biblio = work.get("biblio") or {}
    first, last = biblio.get("first_page"), biblio.get("last_page")
    pages = f"{first}-{last}" if first and last and first != last else first
    date = work.get("publication_date") or ""
    month = ascii_int(date[5:7]) if len(date) >= 7 else None
    return Bibliographic(
        type=work.get("type_crossref") or work.get("type"),
        container_title=source.get("display_name"),
        publisher=source.get("host_organization_name"),
        volume=biblio.get("volume"),
        issue=biblio.get("issue"),
        pages=pages,
        issn=source.get("issn") or None,
        year=work.get("publication_year"),
        month=month,
    )
