"""One citation entry per paper, from the best metadata at hand: Crossref details, then S2 / OpenAlex fields.

The entry kind decides the type in every format:

    kind         BibTeX          CSL-JSON           RIS
    article      @article        article-journal    JOUR
    conference   @inproceedings  paper-conference   CONF
    preprint     @misc + eprint  article            UNPB
    book         @book           book               BOOK
    chapter      @incollection   chapter            CHAP
    report       @techreport     report             RPRT
    thesis       @phdthesis      thesis             THES
    misc         @misc           document           GEN
"""

from __future__ import annotations

import html
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Literal

from scholar.core.records import Paper
from scholar.services.cite.names import Name, from_person, parse_name

Kind = Literal["article", "conference", "preprint", "book", "chapter", "report", "thesis", "misc"]

_CROSSREF_KINDS: dict[str, Kind] = {
    "journal-article": "article",
    "proceedings-article": "conference",
    "posted-content": "preprint",
    "book": "book",
    "monograph": "book",
    "edited-book": "book",
    "reference-book": "book",
    "book-chapter": "chapter",
    "book-section": "chapter",
    "book-part": "chapter",
    "report": "report",
    "dissertation": "thesis",
}
_S2_KINDS: dict[str, Kind] = {
    "Conference": "conference",
    "Book": "book",
    "BookSection": "chapter",
    "JournalArticle": "article",
    "Review": "article",
    "Dataset": "misc",
}
_TAGS = re.compile(r"<[^>]+>")
_STOP = frozenset(["a", "an", "the", "of", "on", "in", "for", "and", "to", "with", "from", "by", "at", "is", "are"])


@dataclass
class Entry:
    key: str
    kind: Kind
    title: str | None
    authors: list[Name] = field(default_factory=list)
    year: int | None = None
    month: int | None = None
    container: str | None = None
    publisher: str | None = None
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    doi: str | None = None
    url: str | None = None
    issn: list[str] = field(default_factory=list)
    isbn: list[str] = field(default_factory=list)
    arxiv: str | None = None
    arxiv_class: str | None = None  # the primary category, when an arXiv record said it
    edition: str | None = None
    event: str | None = None
    source_key: str | None = None  # the key the record's own source cites it by (INSPIRE's texkey)

    @property
    def page_range(self) -> tuple[str | None, str | None]:
        """(first, last) page; "E4832 - E4841" → ("E4832", "E4841")."""
        if not self.pages:
            return None, None
        parts = [p.strip() for p in re.split(r"\s*[-–—]+\s*", self.pages) if p.strip()]
        return (parts[0], parts[-1] if len(parts) > 1 else None) if parts else (None, None)


def clean(text: str | None) -> str | None:
    """Markup-free, whitespace-normalised text (Crossref titles carry <i>, <sub> …)."""
    if not text:
        return None
    return " ".join(html.unescape(_TAGS.sub("", text)).split()) or None


def kind_of(paper: Paper) -> Kind:
    ext = paper.externalIds or {}
    crossref_type = paper.biblio.type if paper.biblio else None
    if paper.book_metadata:
        return "book"
    if crossref_type in _CROSSREF_KINDS:
        return _CROSSREF_KINDS[crossref_type]
    types = paper.publicationTypes or []
    journal = (paper.journal.name if paper.journal else None) or ""
    venue = paper.venue or ""
    if ext.get("ArXiv") and (not journal or journal.lower() == "arxiv") and venue.lower() in ("", "arxiv", "arxiv.org"):
        return "preprint"
    for t in types:
        if t in _S2_KINDS:
            return _S2_KINDS[t]
    if types and types[0] in _CROSSREF_KINDS:  # records from OpenAlex / Crossref carry Crossref type names
        return _CROSSREF_KINDS[types[0]]
    return "article" if journal or venue else "misc"


def _ascii(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text) if c.isascii() and c.isalnum())


def _base_key(entry: Entry) -> str:
    first = entry.authors[0] if entry.authors else None
    who = _ascii((first.family or first.literal or "") if first else "") or "anon"
    word = next((w for w in re.findall(r"[\w]+", entry.title or "") if w.lower() not in _STOP), "")
    return f"{who.lower()}{entry.year or ''}{_ascii(word).lower()}"


def _authors(paper: Paper) -> list[Name]:
    if paper.biblio and paper.biblio.authors:
        return [from_person(p) for p in paper.biblio.authors]
    if paper.book_metadata and paper.book_metadata.get("authors") and not paper.authors:
        return [parse_name(n) for n in paper.book_metadata["authors"]]
    return [parse_name(a.name) for a in paper.authors or [] if a.name]


def build_entry(paper: Paper) -> Entry:
    """The entry of one resolved paper (key not yet unique: see ``build_entries``)."""
    ext = paper.externalIds or {}
    bib = paper.biblio
    book = paper.book_metadata or {}
    kind = kind_of(paper)
    journal = paper.journal
    year = (bib.year if bib and bib.year else None) or paper.year or book.get("year")
    month = bib.month if bib and bib.month else None
    if month is None and paper.publicationDate and len(paper.publicationDate) >= 7:
        month = int(paper.publicationDate[5:7])
    container = clean((bib.container_title if bib else None) or (journal.name if journal else None) or paper.venue)
    if kind in ("preprint", "book"):
        container = None if kind == "book" or (container or "").lower() in ("arxiv", "arxiv.org") else container
    volume = (bib.volume if bib else None) or (journal.volume if journal else None)
    if volume and volume.lower().startswith("abs/"):
        volume = None  # S2's "abs/2312.07559" for arXiv is an id, not a volume
    isbn = list(bib.isbn or []) if bib else []
    if book.get("isbn_13"):
        isbn = list(dict.fromkeys([book["isbn_13"], *isbn]))
    doi = ext.get("DOI")
    entry = Entry(
        key="",
        kind=kind,
        title=clean(paper.title or book.get("title")),
        authors=_authors(paper),
        year=year,
        month=month,
        container=container,
        publisher=(bib.publisher if bib else None) or book.get("publisher"),
        volume=volume,
        issue=bib.issue if bib else None,
        pages=(bib.pages if bib else None) or (journal.pages if journal else None),
        doi=doi.lower() if doi else None,
        url=paper.landing_url(),
        issn=list(bib.issn or []) if bib else [],
        isbn=isbn,
        arxiv=ext.get("ArXiv"),
        arxiv_class=bib.eprint_class if bib and ext.get("ArXiv") else None,
        edition=(bib.edition if bib else None) or book.get("edition"),
        event=clean(bib.event) if bib else None,
        source_key=bib.citation_key if bib else None,
    )
    return entry


def build_entries(papers: list[Paper]) -> list[Entry]:
    """Entries with unique keys, in the papers' order: the source's own key when it has one (INSPIRE's texkey,
    ``Tabar:2021rrw``, as INSPIRE's BibTeX writes it), else ``smith2020deep``, ``smith2020deepa`` …"""
    entries = [build_entry(p) for p in papers]
    seen: dict[str, int] = {}
    for entry in entries:
        base = entry.source_key or _base_key(entry)
        count = seen.get(base, 0)
        seen[base] = count + 1
        entry.key = base if count == 0 else f"{base}{chr(ord('a') + (count - 1) % 26)}{'' if count <= 26 else count}"
    return entries
