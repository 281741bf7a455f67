"""A library item as a Zotero item and back: item type, fields, creators, identifiers, tags, the child note.

Item types, from the paper record:

    record                                      Zotero itemType   identifiers
    publicationTypes has Book / an ISBN         book              ISBN field; DOI, arXiv, PMID in ``extra``
    a patent number among its ids               patent            patentNumber; inventors as creators
    a standard (``standard:`` id)               standard          number
    arXiv id and no journal                     preprint          DOI, archiveID ``arXiv:<id>``; PMID in ``extra``
    anything else                               journalArticle    DOI field; arXiv, PMID in ``extra``

The non-obvious constraint: a push must be recognisable the next time, on both sides. Our item id rides in
``extra`` as ``Scholar-ID: lib_…`` (Zotero keeps unknown ``extra`` lines), and ``digest()`` is taken over exactly
the fields we write, so an item whose mapped fields did not change is ``unchanged`` without a request.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
from collections.abc import Iterable
from typing import Any

from scholar.core.ids import InvalidIdError, parse_paper_id
from scholar.core.records import Author, Journal, Paper
from scholar.services.cite.names import parse_name
from scholar.store.library.models import TAG_PATTERN, LibraryItem

__all__ = ["SCHOLAR_ID", "clean_tags", "digest", "identity", "note_html", "note_text", "paper_from_zotero",
           "scholar_id", "tags_from_zotero", "to_zotero"]

SCHOLAR_ID = "Scholar-ID"
_EXTRA_LINE = re.compile(r"^\s*([A-Za-z][A-Za-z -]*):\s*(.+?)\s*$")
_TAG = re.compile(TAG_PATTERN)
_TAG_CHARS = re.compile(r"[^A-Za-z0-9._:\-/]+")


def _item_type(paper: Paper, ids: list[str]) -> str:
    kinds = {i.split(":", 1)[0].lower() for i in ids if ":" in i}
    ext = paper.externalIds or {}
    if "Book" in (paper.publicationTypes or []) or paper.book_metadata or "isbn" in kinds:
        return "book"
    if "patent" in kinds:
        return "patent"
    if "standard" in kinds:
        return "standard"
    journal = (paper.journal.name if paper.journal else None) or ""
    if ext.get("ArXiv") and journal.lower() in ("", "arxiv"):
        return "preprint"
    return "journalArticle"


def _creators(paper: Paper, creator_type: str) -> list[dict[str, str]]:
    creators = []
    for author in paper.authors or []:
        name = parse_name(author.name or "")
        if name.literal is not None or not name.family:
            creators.append({"creatorType": creator_type, "name": author.name or ""})
            continue
        family = " ".join(p for p in (name.particle, name.family) if p)
        creators.append({"creatorType": creator_type, "firstName": name.given or "", "lastName": family})
    return creators


def to_zotero(item: LibraryItem, collection_key: str) -> dict[str, Any]:
    """The Zotero item ``data`` of a library item (no key or version: the caller adds them)."""
    paper = Paper.model_validate(item.paper)
    ext = paper.externalIds or {}
    item_type = _item_type(paper, item.ids)
    data: dict[str, Any] = {
        "itemType": item_type,
        "title": paper.title or "",
        "creators": _creators(paper, "inventor" if item_type == "patent" else "author"),
        "abstractNote": paper.abstract or "",
        "date": paper.publicationDate or (str(paper.year) if paper.year else ""),
        "url": paper.landing_url() or "",
        "tags": [{"tag": t} for t in item.tags],
        "collections": [collection_key],
    }
    extra: list[str] = []
    doi = ext.get("DOI")
    if item_type in ("journalArticle", "preprint"):
        data["DOI"] = doi or ""
    elif doi:
        extra.append(f"DOI: {doi}")
    if item_type == "journalArticle":
        journal = paper.journal or Journal()
        data |= {"publicationTitle": journal.name or paper.venue or "", "volume": journal.volume or "",
                 "pages": journal.pages or ""}
        if ext.get("ArXiv"):
            extra.append(f"arXiv: {ext['ArXiv']}")
    if item_type == "book":
        book = paper.book_metadata or {}
        data |= {"ISBN": ext.get("ISBN") or book.get("isbn_13") or "", "publisher": book.get("publisher") or ""}
    if item_type == "preprint":
        data |= {"archiveID": f"arXiv:{ext['ArXiv']}", "repository": "arXiv"}
    if item_type in ("patent", "standard"):
        number = next((i.split(":", 1)[1] for i in item.ids if i.lower().startswith(f"{item_type}:")), "")
        data["patentNumber" if item_type == "patent" else "number"] = number
    if ext.get("PubMed"):
        extra.append(f"PMID: {ext['PubMed']}")
    extra.append(f"{SCHOLAR_ID}: {item.item_id}")
    data["extra"] = "\n".join(extra)
    return data


def note_html(item: LibraryItem) -> str:
    """Our notes as a Zotero child note (HTML paragraphs, the text escaped)."""
    paragraphs = [p.strip() for p in (item.notes or "").split("\n\n") if p.strip()]
    return "".join(f"<p>{html.escape(p)}</p>" for p in paragraphs)


def note_text(note: str) -> str:
    """A Zotero note's HTML back as our plain notes (paragraphs kept)."""
    parts = re.split(r"</p>\s*<p>|<br\s*/?>", note)
    return "\n\n".join(html.unescape(re.sub(r"<[^>]+>", "", p)).strip() for p in parts if p.strip()).strip()


def digest(data: dict[str, Any]) -> str:
    """A fingerprint of exactly the fields written (order-free)."""
    return hashlib.sha256(json.dumps(data, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:32]


def extra_fields(extra: str) -> dict[str, str]:
    """``Key: value`` lines of ``extra`` (Zotero's convention for fields an item type lacks)."""
    found: dict[str, str] = {}
    for line in (extra or "").splitlines():
        match = _EXTRA_LINE.match(line)
        if match:
            found.setdefault(match.group(1).strip().lower(), match.group(2))
    return found


def scholar_id(data: dict[str, Any]) -> str | None:
    """Our item id, when the Zotero item came from a push."""
    return extra_fields(data.get("extra", "")).get(SCHOLAR_ID.lower())


def _year(date: str) -> int | None:
    match = re.search(r"\b(1[5-9]\d\d|20\d\d)\b", date or "")
    return int(match.group(1)) if match else None


def paper_from_zotero(data: dict[str, Any], base: Paper | None = None) -> Paper:
    """Our paper record with the fields a Zotero item carries (on top of ``base``, what we knew before)."""
    extra = extra_fields(data.get("extra", ""))
    ext = dict((base.externalIds if base else None) or {})
    doi = data.get("DOI") or extra.get("doi")
    arxiv = (data.get("archiveID") or "").removeprefix("arXiv:") or extra.get("arxiv")
    for name, value in (("DOI", doi), ("ArXiv", arxiv), ("PubMed", extra.get("pmid"))):
        if value:
            ext[name] = value
    authors = [Author(name=c.get("name") or " ".join(p for p in (c.get("firstName"), c.get("lastName")) if p))
               for c in data.get("creators", []) if c.get("creatorType") in ("author", "inventor", "editor")]
    fields: dict[str, Any] = {"title": data.get("title") or None, "abstract": data.get("abstractNote") or None,
                              "year": _year(data.get("date", "")), "authors": authors or None,
                              "externalIds": ext or None}
    if data.get("publicationTitle"):
        fields["venue"] = data["publicationTitle"]
        fields["journal"] = Journal(name=data["publicationTitle"], volume=data.get("volume") or None,
                                    pages=data.get("pages") or None)
    record = (base or Paper()).model_copy(update={k: v for k, v in fields.items() if v is not None})
    if "zotero" not in record.sources:
        record.sources = [*record.sources, "zotero"]
    return record


def tags_from_zotero(data: dict[str, Any]) -> list[str]:
    """Zotero tags in our tag grammar (see ``clean_tags``)."""
    return clean_tags(entry.get("tag", "") for entry in data.get("tags", []))


def clean_tags(names: Iterable[str]) -> list[str]:
    """Another side's tags in our tag grammar (spaces and other characters become ``-``; empty ones dropped)."""
    tags: list[str] = []
    for name in names:
        tag = _TAG_CHARS.sub("-", name).strip("-")[:50]
        if tag and _TAG.fullmatch(tag) and tag not in tags:
            tags.append(tag)
    return tags


def identity(paper: Paper, fallback: str) -> str:
    """The identity (``kind:value``) a pulled item is kept under: its DOI, else arXiv id, else ``fallback``."""
    ext = paper.externalIds or {}
    for written in (ext.get("DOI"), f"arXiv:{ext['ArXiv']}" if ext.get("ArXiv") else None):
        if written:
            try:
                return parse_paper_id(written).cache_key()
            except InvalidIdError:
                continue  # a garbled id typed by hand: fall through
    return fallback
