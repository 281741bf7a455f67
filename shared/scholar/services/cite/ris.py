"""RIS writer. RIS has no comment syntax, so unresolved ids are never written here (the caller lists them)."""

from __future__ import annotations

from scholar.services.cite.entry import Entry
from scholar.services.cite.names import Name

_TYPES = {
    "article": "JOUR",
    "conference": "CONF",
    "preprint": "UNPB",
    "book": "BOOK",
    "chapter": "CHAP",
    "report": "RPRT",
    "thesis": "THES",
    "misc": "GEN",
}


def _name(name: Name) -> str:
    if name.literal is not None:
        return name.literal
    family = f"{name.particle} {name.family}" if name.particle else (name.family or "")
    parts = [family, name.given or ""]
    if name.suffix:
        parts.append(name.suffix)
    return ", ".join(p for p in parts if p) if name.given or name.suffix else family


def _line(tag: str, value: str) -> str:
    return f"{tag}  - {' '.join(value.split())}"


def _record(entry: Entry) -> list[str]:
    lines = [_line("TY", _TYPES[entry.kind])]
    lines += [_line("AU", _name(n)) for n in entry.authors]
    if entry.title:
        lines.append(_line("TI", entry.title))
    if entry.container:
        lines.append(_line("JO" if entry.kind == "article" else "T2", entry.container))
    if entry.year:
        lines.append(_line("PY", str(entry.year)))
        month = f"{entry.month:02d}" if entry.month else ""
        lines.append(_line("DA", f"{entry.year}/{month}//" if month else f"{entry.year}///"))
    first, last = entry.page_range
    pairs = [
        ("VL", entry.volume), ("IS", entry.issue), ("SP", first), ("EP", last), ("PB", entry.publisher),
        ("ET", entry.edition), ("DO", entry.doi), ("UR", entry.url),
    ]
    lines += [_line(tag, value) for tag, value in pairs if value]
    lines += [_line("SN", value) for value in [*entry.issn, *entry.isbn]]
    if entry.kind == "conference" and entry.event and entry.event != entry.container:
        lines.append(_line("C3", entry.event))
    if entry.arxiv:
        lines.append(_line("M3", "Preprint" if entry.kind == "preprint" else "arXiv"))
        lines.append(_line("AN", f"arXiv:{entry.arxiv}"))
    lines.append("ER  - ")
    return lines


def to_ris(entries: list[Entry]) -> str:
    """RIS text, one record per entry, records separated by a blank line."""
    return "\n\n".join("\n".join(_record(e)) for e in entries) + "\n"
