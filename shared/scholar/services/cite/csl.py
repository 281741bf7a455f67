"""CSL-JSON writer: items valid against the CSL data schema (shared/schemas/csl-data.json)."""

from __future__ import annotations

from typing import Any

from scholar.services.cite.entry import Entry
from scholar.services.cite.names import Name

_TYPES = {
    "article": "article-journal",
    "conference": "paper-conference",
    "preprint": "article",
    "book": "book",
    "chapter": "chapter",
    "report": "report",
    "thesis": "thesis",
    "misc": "document",
}


def _name(name: Name) -> dict[str, str]:
    if name.literal is not None:
        return {"literal": name.literal}
    out = {"family": name.family or "", "given": name.given or ""}
    if name.particle:
        out["non-dropping-particle"] = name.particle
    if name.suffix:
        out["suffix"] = name.suffix
    return {k: v for k, v in out.items() if v}


def _item(entry: Entry) -> dict[str, Any]:
    item: dict[str, Any] = {"id": entry.key, "type": _TYPES[entry.kind], "citation-key": entry.key}
    if entry.title:
        item["title"] = entry.title
    if entry.authors:
        item["author"] = [_name(n) for n in entry.authors]
    if entry.year:
        item["issued"] = {"date-parts": [[entry.year, entry.month] if entry.month else [entry.year]]}
    optional = {
        "container-title": entry.container,
        "publisher": entry.publisher or ("arXiv" if entry.kind == "preprint" else None),
        "volume": entry.volume,
        "issue": entry.issue,
        "page": entry.pages.replace(" ", "") if entry.pages else None,
        "DOI": entry.doi,
        "URL": entry.url,
        "ISSN": entry.issn[0] if entry.issn else None,
        "ISBN": entry.isbn[0] if entry.isbn else None,
        "edition": entry.edition,
        "event-title": entry.event if entry.kind == "conference" else None,
        "number": entry.arxiv if entry.kind == "preprint" else None,
        "genre": "Preprint" if entry.kind == "preprint" else None,
    }
    item.update({k: v for k, v in optional.items() if v})
    return item


def to_csl(entries: list[Entry]) -> list[dict[str, Any]]:
    """CSL-JSON items for the entries."""
    return [_item(e) for e in entries]
