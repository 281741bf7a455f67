"""The NIST CSRC publications export (pubs-export.json) → one record per published document.

The export lists every revision, every update of a revision (``…/r5/upd1/final``) and every public draft
(``ipd``, ``2pd``, ``fpd``) as its own entry; they share a ``docidentifier`` such as ``SP 800-53 Rev. 5``.
Each becomes a record whose ``identifier`` is ``NIST <docidentifier>`` and whose ``id`` adds the update or
draft (``NIST SP 800-53 Rev. 5 (upd1)``), so the final active one wins a lookup by identifier while the
others stay reachable. Supersedes chains point at those ids.
"""

from __future__ import annotations

import re
from typing import Any

from scholar.families.standards.records import StandardRecord, Status

_SERIES = {"nist-sp": "SP", "nist-fips": "FIPS", "nist-ir": "IR", "csrc-white-paper": "CSWP"}
_PART = re.compile(r"^(upd\d+|ipd|\dpd|fpd)(?:-\(\d+\))?$|^final-\(\d+\)$")


def _tail(uri: str) -> list[str]:
    """The update / draft segments at the end of a CSRC publication URI."""
    segments = uri.rstrip("/").split("/")
    tail = [s for s in segments[-2:] if _PART.match(s)]
    return tail


def record_id(identifier: str, uri: str) -> str:
    """``NIST SP 800-53 Rev. 5`` + ``…/r5/upd1/final`` → ``NIST SP 800-53 Rev. 5 (upd1)``."""
    tail = _tail(uri)
    return f"{identifier} ({'/'.join(tail)})" if tail else identifier


def _identifier(entry: dict[str, Any]) -> str:
    return f"NIST {entry['docidentifier']}".replace("NIST NIST ", "NIST ")


def _status(entry: dict[str, Any]) -> Status:
    stage, sub = entry.get("status"), entry.get("substage")
    if stage != "final":
        return "draft" if sub == "active" else "withdrawn"
    if sub == "active":
        return "current"
    return "superseded" if entry.get("superseded-by") else "withdrawn"


def _refs(items: list[dict[str, Any]] | None) -> list[str]:
    out = []
    for item in items or []:
        ident = f"NIST {item.get('docidentifier', '')}".replace("NIST NIST ", "NIST ")
        out.append(record_id(ident, item.get("uri", "")))
    return out


def _record(entry: dict[str, Any]) -> StandardRecord:
    identifier = _identifier(entry)
    uri = entry.get("uri") or ""
    title = " - ".join(t for t in (entry.get("title-main"), entry.get("title-sub")) if t)
    doi = entry.get("doi")
    status = _status(entry)
    version_bits = [f"Rev. {entry['revision']}" if entry.get("revision") else None, *_tail(uri)]
    return StandardRecord(
        id=record_id(identifier, uri),
        identifier=identifier,
        title=title,
        body="NIST",
        bodies=["NIST"],
        status=status,
        upstream_status=f"{entry.get('status')}/{entry.get('substage')}",
        doc_type=("draft " if entry.get("status") != "final" else "") + _SERIES.get(entry.get("series", ""), "NIST"),
        version=" ".join(b for b in version_bits if b) or None,
        published=entry.get("published-date") or entry.get("issued-date"),
        withdrawn_on=entry.get("obsoleted-date"),
        authors=[a.get("fullName", "") for a in entry.get("authors") or [] if a.get("fullName")],
        keywords=list(entry.get("keywords") or []),
        supersedes=_refs(entry.get("supersedes")),
        superseded_by=_refs(entry.get("superseded-by")),
        urls=[uri] if uri else [],
        full_text_url=f"https://doi.org/{doi}" if doi else None,
        doi=doi,
        aliases=[f"NIST.{doi.split('NIST.', 1)[1]}"] if doi and "NIST." in doi else [],
        source="nist",
    )


def load_pubs_export(entries: list[dict[str, Any]]) -> list[StandardRecord]:
    """Map the export's entries to records; ids stay unique (a clash falls back to the CSRC path)."""
    records: dict[str, StandardRecord] = {}
    for entry in entries:
        record = _record(entry)
        if record.id in records:
            path = (entry.get("uri") or "").split("/pubs/", 1)[-1]
            record = record.model_copy(update={"id": f"NIST {path}"})
        records[record.id] = record
    return list(records.values())
