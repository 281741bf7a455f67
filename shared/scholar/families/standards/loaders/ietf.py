"""The RFC Editor index (rfc-index.xml) → records for every RFC, BCP, STD and FYI.

RFC numbers below 1000 are unpadded in the index (RFC1) and padded in DOIs (RFC0001); both resolve.
Status: an RFC that is obsoleted by another is ``superseded``; HISTORIC is ``withdrawn``; the
rest (including the UNKNOWN of the early RFCs) is ``current``. Not-issued numbers are skipped.
"""

from __future__ import annotations

import re

from lxml import etree

from scholar.core.errors import UpstreamError
from scholar.families.standards.records import StandardRecord

_NS = "{https://www.rfc-editor.org/rfc-index}"
_MONTHS = {
    m: i
    for i, m in enumerate(
        (
            "january",
            "february",
            "march",
            "april",
            "may",
            "june",
            "july",
            "august",
            "september",
            "october",
            "november",
            "december",
        ),
        start=1,
    )
}
_ID = re.compile(r"^(RFC|BCP|STD|FYI)0*(\d+)$")
_SERIES_TITLE = {"BCP": "Best Current Practice", "STD": "Internet Standard", "FYI": "For Your Information"}


def display(doc_id: str) -> str:
    """``RFC0791`` / ``RFC791`` → ``RFC 791``."""
    match = _ID.match(doc_id.strip().upper())
    return f"{match[1]} {match[2]}" if match else doc_id


def _ids(entry: etree._Element, tag: str) -> list[str]:
    return [display(e.text or "") for e in entry.findall(f"{_NS}{tag}/{_NS}doc-id")]


def _text(entry: etree._Element, tag: str) -> str | None:
    el = entry.find(f"{_NS}{tag}")
    return " ".join("".join(el.itertext()).split()) if el is not None else None


def _date(entry: etree._Element) -> str | None:
    date = entry.find(f"{_NS}date")
    if date is None:
        return None
    y = date.findtext(f"{_NS}year")
    m = _MONTHS.get((date.findtext(f"{_NS}month") or "").lower())
    return f"{y}-{m:02d}" if y and m else y


def _number(entry: etree._Element) -> int:
    match = _ID.match((entry.findtext(f"{_NS}doc-id") or "").strip().upper())
    if match is None:
        raise ValueError(f"index entry without a document number: {etree.tostring(entry)[:80]!r}")
    return int(match[2])


def _rfc(entry: etree._Element) -> StandardRecord:
    number = _number(entry)
    obsoleted_by = _ids(entry, "obsoleted-by")
    current = (entry.findtext(f"{_NS}current-status") or "").strip()
    status = "superseded" if obsoleted_by else ("withdrawn" if current == "HISTORIC" else "current")
    abstract_el = entry.find(f"{_NS}abstract")
    abstract = (
        "\n\n".join(" ".join("".join(p.itertext()).split()) for p in abstract_el.findall(f"{_NS}p"))
        if abstract_el is not None
        else None
    )
    formats = [f.text for f in entry.findall(f"{_NS}format/{_NS}file-format") if f.text]
    info = f"https://www.rfc-editor.org/info/rfc{number}"
    return StandardRecord(
        id=f"RFC{number}",
        identifier=f"RFC {number}",
        title=_text(entry, "title") or "",
        body="IETF",
        bodies=["IETF"],
        status=status,
        upstream_status=current or None,
        doc_type="RFC",
        published=_date(entry),
        abstract=abstract or None,
        authors=[a.findtext(f"{_NS}name") or "" for a in entry.findall(f"{_NS}author")],
        keywords=[k.text for k in entry.findall(f"{_NS}keywords/{_NS}kw") if k.text],
        supersedes=_ids(entry, "obsoletes"),
        superseded_by=obsoleted_by,
        updates=_ids(entry, "updates"),
        updated_by=_ids(entry, "updated-by"),
        related=_ids(entry, "is-also"),
        urls=[info, f"https://www.rfc-editor.org/rfc/rfc{number}.html"],
        full_text_url=f"https://www.rfc-editor.org/rfc/rfc{number}.txt" if "TXT" in formats or not formats else None,
        doi=entry.findtext(f"{_NS}doi"),
        aliases=[f"RFC{number:04d}", f"RFC {number:04d}"],
        source="rfc_editor",
    )


def _series(entry: etree._Element, series: str) -> StandardRecord:
    number = _number(entry)
    members = _ids(entry, "is-also")
    title = _text(entry, "title") or f"{_SERIES_TITLE[series]} {number}"
    return StandardRecord(
        id=f"{series}{number}",
        identifier=f"{series} {number}",
        title=title,
        body="IETF",
        bodies=["IETF"],
        status="current" if members else "withdrawn",
        doc_type=series,
        related=members,
        urls=[f"https://www.rfc-editor.org/info/{series.lower()}{number}"],
        aliases=[f"{series}{number:04d}"],
        source="rfc_editor",
    )


def load_rfc_index(data: bytes) -> list[StandardRecord]:
    """Parse rfc-index.xml into records (RFC, BCP, STD, FYI), titles of series entries from their RFCs.

    Raises:
        UpstreamError: the index does not parse (cut short, or not XML): the body's sync fails typed and keeps
            its last good data.
    """
    try:
        root = etree.fromstring(data, parser=etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True))
    except etree.XMLSyntaxError as exc:
        raise UpstreamError(f"rfc_editor answered an rfc-index.xml that does not parse: {exc}",
                            source="rfc_editor") from exc
    records: list[StandardRecord] = []
    for entry in root:
        tag = etree.QName(entry).localname
        if tag == "rfc-entry":
            records.append(_rfc(entry))
        elif tag in ("bcp-entry", "std-entry", "fyi-entry"):
            records.append(_series(entry, tag[:3].upper()))
    titles = {r.identifier: r.title for r in records if r.doc_type == "RFC"}
    for record in records:
        series = record.doc_type
        if series in _SERIES_TITLE and record.related and record.title.startswith(_SERIES_TITLE[series]):
            record.title = f"{record.title}: " + "; ".join(titles.get(m, m) for m in record.related[:5])
    return records
