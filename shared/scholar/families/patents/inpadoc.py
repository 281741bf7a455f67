"""INPADOC answers: family members and legal events (OPS ``family`` and ``legal`` services).

The legal answer lists events per family member; each event keeps its office (``L001``), gazette date
(``L007``), code and description, and the member it belongs to. Codes come padded (``"AK  "``): trimmed.
"""

from __future__ import annotations

from typing import Any

from scholar.families.patents.models import FamilyMember, LegalEvent
from scholar.sources.epo_ops_biblio import NS, docdb_of, iso_date, parse_xml, text


def _members(root: Any) -> list[Any]:
    return list(root.xpath("//ops:family-member", namespaces=NS))


def parse_family(body: bytes) -> list[FamilyMember]:
    """Family members with country, number, kind and publication date (each publication once)."""
    members: dict[str, FamilyMember] = {}
    for member in _members(parse_xml(body, what="the family")):
        pub = member.xpath("ex:publication-reference", namespaces=NS)
        number = docdb_of(pub[0]) if pub else None
        if number is None:
            continue
        date = text(pub[0], "ex:document-id[@document-id-type='docdb']/ex:date")
        app = member.xpath("ex:application-reference", namespaces=NS)
        application = docdb_of(app[0]) if app else None
        members.setdefault(number.compact, FamilyMember(
            patent_id=number.compact, publication_number=number.docdb, country=number.country,
            number=number.number, kind=number.kind, date=iso_date(date),
            application_number=application.compact if application else None,
        ))
    return list(members.values())


def _field(event: Any, prefix: str) -> str | None:
    return text(event, f"ops:*[starts-with(local-name(), '{prefix}')]")


def parse_legal(body: bytes) -> list[LegalEvent]:
    """Every legal event of the family, oldest first, with its office and family member."""
    events: list[LegalEvent] = []
    for member in _members(parse_xml(body, what="legal events")):
        pub = member.xpath("ex:publication-reference", namespaces=NS)
        number = docdb_of(pub[0]) if pub else None
        for event in member.xpath("ops:legal", namespaces=NS):
            code = (event.get("code") or "").strip()
            if not code:
                continue
            effect = (event.get("infl") or "").strip() or None
            events.append(LegalEvent(
                date=_field(event, "L007"), code=code, description=(event.get("desc") or "").strip() or None,
                country=_field(event, "L001"), patent_id=number.compact if number else None, effect=effect,
            ))
    return sorted(events, key=lambda e: e.date or "")
