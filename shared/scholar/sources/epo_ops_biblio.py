"""EPO OPS exchange documents (XML) → ``PatentRecord``: shared by the patents family and batch_resolve.

OPS lists every party in several data formats (``docdb``, ``epodoc``, ``original``) and often the same
person twice in the original format (``HERRALA, SAMI`` and ``Herrala, Sami``, ``KYLMAENEN`` and
``Kylmänen``). One party per name: the original spelling is kept (mixed case preferred over all capitals),
and names are compared folded (case, accents, ä→ae, punctuation, ``[FI]`` country tags), so no duplicates.
English title and abstract are preferred; otherwise the first language, reported. XML is parsed without
entity expansion or network access.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote

from lxml import etree

from scholar.core.errors import NotFoundError, UpstreamError
from scholar.core.patent_numbers import PatentNumber
from scholar.core.records import PatentRecord
from scholar.sources import epo_ops

SOURCE = "epo_ops"
NS = {"ex": "http://www.epo.org/exchange", "ops": "http://ops.epo.org", "ft": "http://www.epo.org/fulltext"}
ABSTRACT_LIST_CHARS = 500
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)
_COUNTRY_TAG = re.compile(r"\s*\[[A-Z]{2}\]\s*")
_FOLD = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss", "å": "aa", "ø": "oe", "æ": "ae"})
ESPACENET = "https://worldwide.espacenet.com/patent/search?q=pn%3D"


_OPS_ROOT = "{http://ops.epo.org}world-patent-data"  # every OPS data answer (an error is ops:fault, on a 4xx)


def parse_xml(body: bytes, *, what: str) -> Any:
    """The root element of an OPS answer.

    Raises:
        UpstreamError: the body is not XML (a truncated answer), or not an OPS document (an HTML page).
    """
    try:
        root = etree.fromstring(body, _PARSER)
    except etree.XMLSyntaxError as exc:
        raise UpstreamError(f"EPO OPS answered {what} with a body that is not XML", source=SOURCE) from exc
    if root is None or root.tag != _OPS_ROOT:
        raise UpstreamError(f"EPO OPS answered {what} with a document that is not OPS data", source=SOURCE)
    return root


def text(node: Any, xpath: str) -> str | None:
    """The stripped text of the first match (all its inner text), or None."""
    found = node.xpath(xpath, namespaces=NS)
    if not found:
        return None
    value = " ".join("".join(found[0].itertext()).split()) if not isinstance(found[0], str) else found[0].strip()
    return value or None


def iso_date(raw: str | None) -> str | None:
    """``20111228`` → ``2011-12-28``."""
    if raw and re.fullmatch(r"\d{8}", raw):
        return f"{raw[:4]}-{raw[4:6]}-{raw[6:]}"
    return raw or None


def docdb_of(node: Any, id_type: str = "docdb") -> PatentNumber | None:
    """The document-id of ``id_type`` under ``node`` (country, doc-number, kind)."""
    ids = node.xpath(f".//ex:document-id[@document-id-type='{id_type}']", namespaces=NS)
    if not ids:
        return None
    country, number = text(ids[0], "ex:country"), text(ids[0], "ex:doc-number")
    if not country or not number:
        return None
    return PatentNumber(country, number, text(ids[0], "ex:kind"))


def exchange_documents(root: Any) -> list[Any]:
    """Every ``exchange-document`` of an answer (biblio, bulk biblio, search with biblio)."""
    return list(root.xpath(".//ex:exchange-document", namespaces=NS))


def _fold(name: str) -> str:
    plain = unicodedata.normalize("NFKD", name.lower().translate(_FOLD))
    return re.sub(r"[^a-z0-9]", "", "".join(c for c in plain if not unicodedata.combining(c)))


def _clean(name: str) -> str:
    return _COUNTRY_TAG.sub(" ", name).strip().strip(",;").strip()


def unique_parties(names: Iterable[tuple[str, str]]) -> list[str]:
    """One entry per party from ``(data_format, name)`` pairs: originals first, mixed case over capitals."""
    ordered = sorted(names, key=lambda pair: pair[0] != "original")  # stable: originals lead, in sequence
    kept: dict[str, str] = {}
    for _, raw in ordered:
        name = _clean(raw)
        key = _fold(name)
        if not key:
            continue
        held = kept.get(key)
        if held is None or held.isupper() and not name.isupper():
            kept[key] = name
    return list(kept.values())


def _parties(doc: Any, kind: str) -> list[str]:
    pairs = [
        (party.get("data-format") or "", text(party, f"ex:{kind}-name/ex:name") or "")
        for party in doc.xpath(f".//ex:parties/ex:{kind}s/ex:{kind}", namespaces=NS)
    ]
    originals = [p for p in pairs if p[0] == "original"]
    return unique_parties(originals or pairs)


def _preferred(nodes: list[Any]) -> tuple[str | None, str | None]:
    """Text and language of the English node, else of the first one."""
    if not nodes:
        return None, None
    chosen = next((n for n in nodes if (n.get("lang") or "").lower() == "en"), nodes[0])
    value = " ".join("".join(chosen.itertext()).split()) or None
    return value, (chosen.get("lang") or "").lower() or None


def _cpc(doc: Any) -> list[str]:
    codes: list[str] = []
    for c in doc.xpath(".//ex:patent-classifications/ex:patent-classification", namespaces=NS):
        parts = [text(c, f"ex:{p}") or "" for p in ("section", "class", "subclass", "main-group", "subgroup")]
        if parts[0]:
            code = f"{parts[0]}{parts[1]}{parts[2]}{parts[3]}/{parts[4]}" if parts[3] else "".join(parts[:3])
            codes.append(code)
    return list(dict.fromkeys(codes))


def _ipc(doc: Any) -> list[str]:
    codes = []
    for node in doc.xpath(".//ex:classifications-ipcr/ex:classification-ipcr/ex:text", namespaces=NS):
        fields = "".join(node.itertext()).split()
        if len(fields) >= 3 and fields[1].endswith("/"):
            codes.append(f"{fields[0]}{fields[1]}{fields[2]}")  # "H04W  84/    20" → H04W84/20
    return list(dict.fromkeys(codes))


def _priority_date(doc: Any) -> str | None:
    dates = [d for d in doc.xpath(".//ex:priority-claims/ex:priority-claim//ex:date/text()", namespaces=NS)]
    return iso_date(min(dates)) if dates else None


def to_record(doc: Any, *, compact: bool = False) -> PatentRecord:
    """Map one exchange-document; ``compact`` shortens the abstract for lists."""
    number = PatentNumber(doc.get("country") or "", doc.get("doc-number") or "", doc.get("kind") or None)
    title, title_lang = _preferred(doc.xpath(".//ex:invention-title", namespaces=NS))
    abstract, abstract_lang = _preferred(doc.xpath("ex:abstract", namespaces=NS))
    truncated = None
    if compact and abstract and len(abstract) > ABSTRACT_LIST_CHARS:
        abstract, truncated = abstract[:ABSTRACT_LIST_CHARS].rsplit(" ", 1)[0] + " …", True
    pub = doc.xpath(".//ex:publication-reference/ex:document-id[@document-id-type='docdb']", namespaces=NS)
    app = doc.xpath(".//ex:application-reference/ex:document-id", namespaces=NS)
    app_date = next((text(a, "ex:date") for a in app if text(a, "ex:date")), None)
    app_number = next((text(a, "ex:doc-number") for a in app if a.get("document-id-type") == "epodoc"), None)
    return PatentRecord(
        patent_id=number.compact,
        publication_number=number.docdb,
        country=number.country,
        number=number.number,
        kind=number.kind,
        title=title,
        title_language=title_lang,
        abstract=abstract,
        abstract_language=abstract_lang,
        abstract_truncated=truncated,
        applicants=_parties(doc, "applicant"),
        inventors=_parties(doc, "inventor"),
        publication_date=iso_date(text(pub[0], "ex:date")) if pub else None,
        filing_date=iso_date(app_date),
        priority_date=_priority_date(doc),
        application_number=app_number,
        family_id=doc.get("family-id"),
        classifications=_cpc(doc),
        ipc=_ipc(doc),
        url=ESPACENET + quote(number.compact, safe=""),
    )


async def bulk_biblio(numbers: Iterable[PatentNumber]) -> dict[str, PatentRecord | None]:
    """Biblio of many publications in ⌈N/100⌉ POST requests per number format (docdb with kind, epodoc without).

    Returns:
        ``compact`` number as asked → its record, or None when OPS holds no such publication.

    Raises:
        RateLimitedError, UnavailableError, UpstreamError, ForbiddenError: OPS failed (see ``epo_ops.call``).
    """
    by_format: dict[str, list[PatentNumber]] = {}
    for number in dict.fromkeys(numbers):
        by_format.setdefault(number.ops_reference()[0], []).append(number)
    found: dict[str, PatentRecord | None] = {}
    for ref_format, group in by_format.items():
        for start in range(0, len(group), epo_ops.BULK_SIZE):
            chunk = group[start : start + epo_ops.BULK_SIZE]
            try:
                response = await epo_ops.call(
                    "POST", epo_ops.path("published-data", "publication", ref_format, "biblio"), service="retrieval",
                    what=f"biblio of {len(chunk)} publications", content=",".join(n.ops_reference()[1] for n in chunk),
                )
            except NotFoundError:
                found.update(dict.fromkeys((n.compact for n in chunk), None))
                continue
            records = [to_record(d) for d in exchange_documents(parse_xml(response.content, what="bulk biblio"))
                       if (d.get("status") or "").lower() != "not found"]
            for number in chunk:
                found[number.compact] = next(
                    (r for r in records if r.country == number.country and r.number == number.number
                     and (number.kind is None or r.kind == number.kind)), None)
    return found
