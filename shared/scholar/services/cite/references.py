"""Reference lists a user already has (BibTeX, RIS, CSL-JSON text), read into one shape: ``Reference``.

What library_import matches and keeps. The one non-obvious constraint: every entry of the text becomes one
``Reference`` (never dropped, never merged), in order; a format that cannot be read is a typed
``invalid_argument`` naming the argument and the rule. RIS is read here (a dozen tags; rispy skips a record that
has no ``ER`` line without a word, which would drop an entry), BibTeX by ``scholar.services.cite.bib_read``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, Field

from scholar.core.errors import InvalidArgumentError, TooLargeError
from scholar.core.records import Author, Journal, Paper
from scholar.services.cite.bib_read import TOO_MANY_ENTRIES, read_bib, split_names

__all__ = ["ReferenceFormat", "Reference", "detect_format", "paper_of", "read_references"]

ReferenceFormat = Literal["bibtex", "ris", "csl-json"]
_RIS_LINE = re.compile(r"^([A-Z][A-Z0-9])  -(?: (.*))?$")
_YEAR = re.compile(r"\b(1[5-9]\d\d|20\d\d|2100)\b")


class Reference(BaseModel):
    """One entry as its file wrote it: the fields we use, and every field as written (``fields``)."""

    key: str | None = None
    kind: str | None = None
    title: str | None = None
    authors: list[str] = Field(default_factory=list)
    year: int | None = None
    venue: str | None = None
    volume: str | None = None
    pages: str | None = None
    doi: str | None = None
    arxiv: str | None = None
    pmid: str | None = None
    url: str | None = None
    abstract: str | None = None
    fields: dict[str, str] = Field(default_factory=dict)

    def identifiers(self) -> list[str]:
        """The written identifiers it carries, best first (DOI, arXiv id, PMID, then a link that names a paper)."""
        ids = [
            self.doi,
            f"arXiv:{self.arxiv}" if self.arxiv else None,
            f"PMID:{self.pmid}" if self.pmid else None,
            self.url,
        ]  # a link may name its paper (scholar.core.link_forms); one that does not is skipped
        return [i for i in ids if i]


def _year(text: str | None) -> int | None:
    found = _YEAR.search(text or "")
    return int(found.group(1)) if found else None


def _plain(text: str | None) -> str | None:
    return " ".join(text.replace("{", "").replace("}", "").split()) or None if text else None


def from_bibtex(entry: dict[str, str]) -> Reference:
    """A bibtexparser entry (``ID``, ``ENTRYTYPE``, lower-case fields) as a ``Reference``."""
    eprint = entry.get("eprint") if (entry.get("archiveprefix") or "arxiv").lower() == "arxiv" else None
    return Reference(
        key=entry.get("ID"),
        kind=entry.get("ENTRYTYPE"),
        title=_plain(entry.get("title")),
        authors=split_names(entry.get("author", "")),
        year=_year(entry.get("year")),
        venue=_plain(entry.get("journal") or entry.get("booktitle")),
        volume=entry.get("volume"),
        pages=entry.get("pages"),
        doi=entry.get("doi"),
        arxiv=eprint,
        pmid=entry.get("pmid"),
        url=entry.get("url"),
        abstract=_plain(entry.get("abstract")),
        fields={k: v for k, v in entry.items() if isinstance(v, str)},
    )


def _ris_records(text: str, field: str) -> list[dict[str, list[str]]]:
    records: list[dict[str, list[str]]] = []
    current: dict[str, list[str]] | None = None
    last = ""
    for number, line in enumerate(text.splitlines(), start=1):
        tagged = _RIS_LINE.match(line.rstrip())
        if tagged is None:
            if current is not None and line.strip() and last:  # a value continued on the next line
                current[last][-1] += " " + line.strip()
            continue
        tag, value = tagged.group(1), (tagged.group(2) or "").strip()
        if tag == "TY":
            current = {"TY": [value]}
            records.append(current)
        elif current is None:
            raise InvalidArgumentError(
                f"{field}: line {number} has the tag {tag} before any TY line; every RIS record starts with TY",
                field=field,
                details={"line": number},
            )
        elif tag == "ER":
            current = None
        else:
            current.setdefault(tag, []).append(value)
        last = tag
    return records


def _first(record: dict[str, list[str]], *tags: str) -> str | None:
    return next((record[t][0] for t in tags if record.get(t) and record[t][0]), None)


def from_ris(record: dict[str, list[str]]) -> Reference:
    """One RIS record (tag → values) as a ``Reference`` (authors "Last, First" become "First Last")."""
    first, last = _first(record, "SP"), _first(record, "EP")
    return Reference(
        key=_first(record, "ID"),
        kind=_first(record, "TY"),
        title=_first(record, "TI", "T1"),
        authors=[
            " ".join(reversed([p.strip() for p in a.split(",", 1)])) for a in record.get("AU", record.get("A1", []))
        ],
        year=_year(_first(record, "PY", "Y1", "DA")),
        venue=_first(record, "JO", "JF", "T2", "JA", "BT"),
        volume=_first(record, "VL"),
        pages=f"{first}--{last}" if first and last else first,
        doi=_first(record, "DO"),
        url=_first(record, "UR"),
        abstract=_first(record, "AB", "N2"),
        fields={t: "; ".join(v) for t, v in record.items()},
    )


def _csl_name(person: Any) -> str:
    if not isinstance(person, dict):
        return str(person)
    if person.get("literal"):
        return str(person["literal"])
    return " ".join(str(person[p]) for p in ("given", "non-dropping-particle", "family") if person.get(p))


def from_csl(item: dict[str, Any]) -> Reference:
    """One CSL-JSON item as a ``Reference``."""
    parts = (item.get("issued") or {}).get("date-parts") or [[None]]
    year = parts[0][0] if parts and parts[0] and isinstance(parts[0][0], int | str) else None
    return Reference(
        key=str(item["id"]) if item.get("id") is not None else None,
        kind=item.get("type"),
        title=item.get("title"),
        authors=[_csl_name(a) for a in item.get("author") or []],
        year=_year(str(year)) if year else None,
        venue=item.get("container-title"),
        volume=str(item["volume"]) if item.get("volume") else None,
        pages=item.get("page"),
        doi=item.get("DOI"),
        pmid=str(item["PMID"]) if item.get("PMID") else None,
        url=item.get("URL"),
        abstract=item.get("abstract"),
        fields={k: v if isinstance(v, str) else json.dumps(v, ensure_ascii=False) for k, v in item.items()},
    )


def _csl_items(text: str, field: str) -> list[dict[str, Any]]:
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise InvalidArgumentError(f"{field}: not JSON ({exc}); CSL-JSON is a list of items", field=field) from exc
    items = data if isinstance(data, list) else [data]
    if not all(isinstance(i, dict) for i in items):
        raise InvalidArgumentError(f"{field}: CSL-JSON is a list of objects (items)", field=field)
    return items


def _json_lines(text: str) -> bool:
    """Whether ``text`` is JSON Lines (a library snapshot): a JSON object on its first line, more lines after."""
    first, _, rest = text.strip().partition("\n")
    try:
        return isinstance(json.loads(first), dict) and bool(rest.strip())
    except ValueError:
        return False


def detect_format(text: str) -> ReferenceFormat | Literal["jsonl"]:
    """jsonl for JSON Lines, csl-json for other JSON, ris when a line starts ``TY  -``, bibtex for an ``@type{``.

    Raises:
        InvalidArgumentError: none of them.
    """
    start = text.lstrip("\ufeff \t\r\n")[:1]
    if start in "[{" and start:
        return "jsonl" if start == "{" and _json_lines(text) else "csl-json"
    if re.search(r"^TY  -", text, re.MULTILINE):
        return "ris"
    if re.search(r"@\s*[A-Za-z]+\s*[{(]", text):
        return "bibtex"
    raise InvalidArgumentError(
        "the text is none of BibTeX (@article{…), RIS (TY  - …), CSL-JSON ([{…}]) or a JSONL snapshot; say which "
        "with format",
        field="format",
    )


def read_references(text: str, fmt: ReferenceFormat, *, field: str, max_entries: int) -> list[Reference]:
    """Every entry of ``text`` in ``fmt``, in order.

    Raises:
        InvalidArgumentError: the text is not that format (the rule named), or holds no entry at all.
        TooLargeError: more than ``max_entries`` entries.
    """
    readers: dict[ReferenceFormat, Callable[[], list[Reference]]] = {
        "bibtex": lambda: [
            from_bibtex(e) for e in read_bib(text, where=f"the {field} text", field=field, max_entries=max_entries)
        ],
        "ris": lambda: [from_ris(r) for r in _ris_records(text, field)],
        "csl-json": lambda: [from_csl(i) for i in _csl_items(text, field)],
    }
    references = readers[fmt]()
    if not references:
        raise InvalidArgumentError(f"{field}: no {fmt} entry found in the text", field=field)
    if len(references) > max_entries:
        raise TooLargeError(
            f"{field}: {len(references)} entries; at most {max_entries} are imported at once: "
            "nothing was written; split the file",
            reason=TOO_MANY_ENTRIES,
            details={"entries": len(references), "max": max_entries},
        )
    return references


def paper_of(reference: Reference, source: str) -> Paper:
    """The paper record of an entry as written (no source asked): what is kept when no record matches it."""
    external = {k: v for k, v in (("DOI", reference.doi), ("ArXiv", reference.arxiv), ("PubMed", reference.pmid)) if v}
    venue = reference.venue
    return Paper(
        title=reference.title,
        authors=[Author(name=n) for n in reference.authors] or None,
        year=reference.year,
        externalIds=external or None,
        venue=venue,
        abstract=reference.abstract,
        url=reference.url,
        journal=Journal(name=venue, volume=reference.volume, pages=reference.pages) if venue else None,
        sources=[source],
    )
