"""Relaton bibliographic YAML (ETSI, ISO, IEC, IEEE data repositories) → records.

Relaton YAML comes in more than one shape: the data files of schema v1.x hold lists of ``{content: …}``
objects (``docid: [{id, type, primary}]``, ``language: [en]``), while the hand-kept static files and the
newer v2 serialisation write single values where v1 writes lists (``docid: {id: …}``, ``date: {…}``,
``language: en``, ``name: "ISO"``) and may say ``docidentifier`` / ``content`` instead of ``docid`` / ``id``.
Every accessor here takes either. Status comes from the body's own vocabulary: ISO stage.substage
(95.99 withdrawn), IEC stage words (PUBLISHED, REVISED, WITHDRAWN), IEEE ``standard_status``.
"""

from __future__ import annotations

import re
from typing import Any

from scholar.families.standards.identifiers import PUBLISHERS
from scholar.families.standards.records import StandardRecord, Status

_AMENDMENT = re.compile(r"/(?:(?:WD|CD|DIS|FDIS|D|FD|CD) ?)?(?:Amd|AMD|Cor|COR|ISH|Add)(?![a-z]).*$|/D-?\d[^/]*/.*$")
_YEAR = re.compile(r"(?:19|20)\d\d")
_IEC_STAGES: dict[str, Status] = {
    "PUBLISHED": "current",
    "CONFIRMED": "current",
    "REVISED": "superseded",
    "REPLACED": "superseded",
    "WITHDRAWN": "withdrawn",
    "DELETED": "withdrawn",
}
_IEEE_STATUS: dict[str, Status] = {
    "active": "current",
    "superseded": "superseded",
    "inactive": "withdrawn",
    "withdrawn": "withdrawn",
}


def many(value: Any) -> list[Any]:
    """A list whatever the shape: None → [], a single value → [value]."""
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def text(value: Any) -> str | None:
    """The string inside a value: a plain string, ``{content: …}``, ``{value: …}`` or the first of a list."""
    if value is None:
        return None
    if isinstance(value, str | int | float):
        return str(value)
    if isinstance(value, dict):
        for name in ("content", "value", "id", "name"):
            if name in value:
                return text(value[name])
        return None
    if isinstance(value, list):
        for item in value:
            found = text(item)
            if found:
                return found
    return None


def _languages(item: dict[str, Any]) -> list[str]:
    return [str(x) for x in many(item.get("language"))]


def _english(items: list[Any]) -> list[dict[str, Any]]:
    dicts = [i for i in items if isinstance(i, dict)]
    english = [i for i in dicts if not _languages(i) or "en" in _languages(i)]
    return english or dicts


def _clean(value: str | None) -> str | None:
    # Some ETSI records carry the literal placeholder "<empty>" where the title is missing.
    return " ".join(value.split()) if value and value.strip() != "<empty>" else None


def docids(data: dict[str, Any]) -> list[tuple[str, str | None, bool]]:
    """(identifier, type, primary) of every docid, in file order."""
    out: list[tuple[str, str | None, bool]] = []
    for item in many(data.get("docid", data.get("docidentifier"))):
        if isinstance(item, str):
            out.append((item, None, False))
        elif isinstance(item, dict):
            ident = text(item.get("id", item.get("content")))
            if ident:
                out.append((ident, item.get("type"), bool(item.get("primary"))))
    return out


def primary_docid(data: dict[str, Any]) -> str | None:
    ids = docids(data)
    for ident, _type, primary in ids:
        if primary:
            return ident
    return ids[0][0] if ids else text(data.get("formattedref"))


def _title(data: dict[str, Any]) -> str:
    titles = _english(many(data.get("title")))
    for wanted in ("main", None):
        for item in titles:
            if item.get("type") == wanted or wanted is None and item.get("type") is None:
                found = _clean(text(item))
                if found:
                    return found
    parts = [_clean(text(i)) for t in ("title-intro", "title-main", "title-part") for i in titles if i.get("type") == t]
    return " - ".join(p for p in parts if p) or (_clean(text(titles)) or "")


def _dates(data: dict[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in many(data.get("date")):
        if isinstance(item, dict) and item.get("type"):
            value = item.get("value", item.get("on", item.get("at", item.get("from"))))
            if value is not None:
                out.setdefault(str(item["type"]), str(value))
    return out


def _publishers(data: dict[str, Any]) -> list[str]:
    out = []
    for contributor in many(data.get("contributor")):
        if not isinstance(contributor, dict) or "organization" not in contributor:
            continue
        roles = [text(r.get("type") if isinstance(r, dict) else r) for r in many(contributor.get("role"))]
        if "publisher" not in roles:
            continue
        org = contributor["organization"] or {}
        name = text(org.get("abbreviation")) or text(org.get("name"))
        if name:
            out.append(name.upper())
    return out


def _identifier_bodies(identifier: str) -> list[str]:
    head = identifier.split(" ", 1)[0]
    return [p.upper() for p in head.split("/") if p.lower() in PUBLISHERS]


def _status(body: str, data: dict[str, Any], identifier: str) -> tuple[Status, str | None]:
    ext = data.get("ext") or {}
    docstatus = data.get("docstatus") or {}
    stage = text(docstatus.get("stage")) if isinstance(docstatus, dict) else text(docstatus)
    substage = text(docstatus.get("substage")) if isinstance(docstatus, dict) else None
    if body == "IEEE" or ext.get("standard_status"):
        raw = text(ext.get("standard_status"))
        modified = text(ext.get("standard_modified"))
        if (stage or "").lower() == "draft" or re.search(r"\bStd P\d|\bP\d", identifier):
            return "draft", raw or stage
        label = "/".join(x for x in (raw, modified) if x) or stage
        if modified and modified.lower() == "withdrawn":
            return "withdrawn", label
        return _IEEE_STATUS.get((raw or "").split("-")[0].lower(), "current"), label
    if stage and stage.replace(".", "").isdigit():
        label = f"{stage}.{substage}" if substage else stage
        major, minor = int(float(stage)), int(substage or 0)
        if major < 60 or major == 60 and minor < 60:
            return "draft", label
        if major == 95 and minor == 99:
            return "withdrawn", label
        return "current", label
    if stage:
        return _IEC_STAGES.get(stage.upper(), "draft" if stage.upper() in ("PREPARING", "DRAFT") else "current"), stage
    return "current", None


def base_of(identifier: str) -> str | None:
    """The standard an amendment, corrigendum or interpretation sheet applies to (None for a base standard)."""
    stripped = _AMENDMENT.sub("", identifier)
    return stripped if stripped != identifier else None


def _doc_type(data: dict[str, Any], identifier: str) -> str | None:
    if re.search(r"/(?:\w+ )?(?:Amd|AMD)(?![a-z])", identifier):
        return "amendment"
    if re.search(r"/(?:Cor|COR)", identifier):
        return "corrigendum"
    if "/ISH" in identifier:
        return "interpretation sheet"
    if re.search(r"\bCSV$", identifier):
        return "consolidated version"
    ext = data.get("ext") or {}
    doctype = ext.get("doctype") or data.get("doctype")
    if isinstance(doctype, dict):
        return text(doctype.get("abbreviation")) or text(doctype.get("type"))
    return text(doctype)


def _year(identifier: str) -> int | None:
    years = _YEAR.findall(identifier.split("/")[0] if "/" not in identifier[:8] else identifier)
    return int(years[-1]) if years else None


def _relations(identifier: str, data: dict[str, Any], fields: dict[str, list[str]]) -> None:
    own_year = _year(identifier)
    for relation in many(data.get("relation")):
        if not isinstance(relation, dict):
            continue
        kind = relation.get("type")
        target = primary_docid(relation.get("bibitem") or {})
        if not target or target == identifier:
            continue
        if kind in ("updates", "updatedBy", "obsoletes", "obsoletedBy") and base_of(target) == identifier:
            fields["amendments"].append(target)
        elif kind == "obsoletes":
            fields["supersedes"].append(target)
        elif kind == "obsoletedBy":
            fields["superseded_by"].append(target)
        elif kind in ("updates", "updatedBy"):
            # relaton-iso writes "updates" towards the newer edition, relaton-ieee towards the revised older one:
            # the years say which way the relation points.
            target_year = _year(target)
            newer = kind == "updatedBy" or (own_year is not None and target_year is not None and target_year > own_year)
            fields["superseded_by" if newer else "supersedes"].append(target)
        elif kind in ("includes", "hasPart", "adoptedAs", "adoptedFrom", "identicalAdopted", "equivalent"):
            fields["related"].append(target)


def load_relaton(data: dict[str, Any], body: str) -> StandardRecord | None:
    """One Relaton item → a record of ``body`` (None when it has no identifier)."""
    identifier = primary_docid(data)
    if not identifier:
        return None
    identifier = _clean(identifier) or identifier
    status, upstream_status = _status(body, data, identifier)
    dates = _dates(data)
    bodies = list(dict.fromkeys(_identifier_bodies(identifier) + [p for p in _publishers(data) if p != "CISPR"]))
    if body not in bodies:
        bodies.insert(0, body)
    fields: dict[str, list[str]] = {k: [] for k in ("supersedes", "superseded_by", "amendments", "related")}
    _relations(identifier, data, fields)
    links = [(link.get("type"), text(link)) for link in many(data.get("link")) if isinstance(link, dict)]
    base = base_of(identifier)
    aliases = [i for i, t, _p in docids(data) if i != identifier and t not in ("URN", "ISBN", "DOI", "iso-reference")]
    version = text(data.get("edition")) or text(
        [v.get("draft") for v in many(data.get("version")) if isinstance(v, dict)]
    )
    abstracts = _english(many(data.get("abstract")))
    return StandardRecord(
        id=identifier,
        identifier=identifier,
        title=_title(data),
        body=body,
        bodies=bodies,
        status=status,
        upstream_status=upstream_status,
        doc_type=_doc_type(data, identifier),
        version=version,
        published=min((d for d in (dates.get("published"), dates.get("issued")) if d), default=dates.get("updated")),
        withdrawn_on=dates.get("obsoleted"),
        abstract=_clean(text(abstracts[0])) if abstracts else None,
        keywords=[k for k in (text(x) for x in many(data.get("keyword"))) if k],
        supersedes=list(dict.fromkeys(fields["supersedes"])),
        superseded_by=list(dict.fromkeys(fields["superseded_by"])),
        amends=[base] if base else [],
        amendments=list(dict.fromkeys(fields["amendments"])),
        related=list(dict.fromkeys(fields["related"])),
        urls=[u for t, u in links if u and t != "rss"],
        full_text_url=next((u for t, u in links if t == "pdf" and u), None),
        aliases=list(dict.fromkeys(aliases)),
        source="relaton",
    )


def index_files(index: Any) -> list[str]:
    """The data file paths listed by a Relaton index (``index-v1.yaml`` rows ``{:id, :file}``; v2 rows alike)."""
    out = []
    for row in many(index):
        if isinstance(row, dict):
            path = row.get(":file", row.get("file"))
            if isinstance(path, str):
                out.append(path)
    return out
