"""Citations of a patent (``references-cited`` of its biblio): patent documents and non-patent literature.

NPL strings are parsed (DOI in any form, a quoted title, chapter and page patterns → seed 000's
``chapter_info``) and resolved to papers through Semantic Scholar, the papers family's resolver:
a DOI S2 knows → ``confidence: high``; a quoted title S2's search returns exactly → ``medium``; otherwise
the raw string only. One S2 batch request resolves every DOI; titles are searched one by one, at most
``MAX_TITLE_LOOKUPS`` per patent. Resolution is best effort: a failing S2 leaves the strings raw and is
reported (the caller marks the answer partial and does not cache it).
"""

from __future__ import annotations

import asyncio
import re
import unicodedata
from typing import Any
from urllib.parse import unquote

from scholar.core.errors import ScholarError
from scholar.families.patents.models import ChapterInfo, Citations, CitedPaper, NplCitation, PatentCitation
from scholar.sources import s2
from scholar.sources.epo_ops_biblio import NS, docdb_of, iso_date, text

MAX_TITLE_LOOKUPS = 5
_S2_FIELDS = ("title", "year", "externalIds")
_DOI = re.compile(r"(?:doi[:\s]*|https?://(?:dx\.)?doi\.org/)?(10\.\d{4,9}/[^\s,;\"'<>]+)", re.IGNORECASE)
_TITLE = re.compile(r"[\"“]([^\"”]{8,300})[\"”]")
_CHAPTER = re.compile(r"\b(?:chapter|chap\.|ch\.)\s*(\d+)\b", re.IGNORECASE)
_PAGES = re.compile(r"\b(?:pages?|pp?\.)\s*(\d+)\s*(?:-|–|to)\s*(\d+)", re.IGNORECASE)


def parse_references(doc: Any) -> dict[str, list[dict[str, Any]]]:
    """The ``references-cited`` of an exchange-document, as JSON-ready patent and NPL entries."""
    patents: dict[str, dict[str, Any]] = {}
    npl: list[dict[str, Any]] = []
    for citation in doc.xpath(".//ex:references-cited/ex:citation", namespaces=NS):
        categories = [c.strip() for c in citation.xpath("ex:category/text()", namespaces=NS) if c.strip()] or None
        patcit = citation.xpath("ex:patcit", namespaces=NS)
        if patcit:
            number = docdb_of(patcit[0])
            if number is None:
                continue
            ident = patcit[0].xpath("ex:document-id[@document-id-type='docdb']", namespaces=NS)[0]
            patents.setdefault(number.compact, PatentCitation(
                patent_id=number.compact, publication_number=number.docdb, country=number.country,
                number=number.number, kind=number.kind, name=text(ident, "ex:name"),
                date=iso_date(text(ident, "ex:date")), category=categories,
                cited_by=citation.get("cited-by"), cited_phase=citation.get("cited-phase"),
            ).model_dump(mode="json"))
            continue
        raw = text(citation, "ex:nplcit/ex:text")
        if raw:
            npl.append(parse_npl(raw.lstrip("- ").strip(), categories).model_dump(mode="json"))
    return {"patent_refs": list(patents.values()), "npl_refs": npl}


def find_doi(raw: str) -> str | None:
    """The DOI in a citation string (``doi:``, ``https://doi.org/…``, bare, percent-encoded), lower-cased."""
    match = _DOI.search(unquote(raw))
    return match.group(1).rstrip(".)]").lower() if match else None


def chapter_info(raw: str) -> ChapterInfo | None:
    """Chapter and page range of a citation string ("Ch. 5", "pp. 112-130", "pages 505 - 510")."""
    chapter, pages = _CHAPTER.search(raw), _PAGES.search(raw)
    if not chapter and not pages:
        return None
    return ChapterInfo(
        chapter_number=int(chapter.group(1)) if chapter else None,
        page_start=int(pages.group(1)) if pages else None,
        page_end=int(pages.group(2)) if pages else None,
    )


def parse_npl(raw: str, categories: list[str] | None = None) -> NplCitation:
    return NplCitation(raw=raw, doi=find_doi(raw), chapter_info=chapter_info(raw), category=categories)


def _fold(title: str) -> str:
    plain = unicodedata.normalize("NFKD", title.lower())
    return re.sub(r"[^a-z0-9]", "", "".join(c for c in plain if not unicodedata.combining(c)))


def _paper(data: dict[str, Any]) -> CitedPaper:
    ids = data.get("externalIds") or {}
    return CitedPaper(paperId=data.get("paperId"), title=data.get("title"), year=data.get("year"),
                      doi=(ids.get("DOI") or "").lower() or None)


async def _by_title(entry: NplCitation) -> NplCitation:
    title = _TITLE.search(entry.raw)
    if not title:
        return entry
    found = await s2.search_papers({"query": title.group(1), "limit": 1, "fields": ",".join(_S2_FIELDS)}, bulk=False)
    hits = found.get("data") or [] if isinstance(found, dict) else []
    if hits and _fold(hits[0].get("title") or "") == _fold(title.group(1)):
        return entry.model_copy(update={"paper": _paper(hits[0]), "confidence": "medium"})
    return entry


async def resolve(citations: Citations) -> tuple[Citations, ScholarError | None]:
    """Resolve the NPL entries to papers; returns the citations and the S2 failure, if any."""
    npl = list(citations.npl_refs)
    failure: ScholarError | None = None
    with_doi = [i for i, e in enumerate(npl) if e.doi]
    if with_doi:
        try:
            papers = await s2.get_papers([f"DOI:{npl[i].doi}" for i in with_doi], _S2_FIELDS)
            for i, data in zip(with_doi, papers, strict=True):
                if data:
                    npl[i] = npl[i].model_copy(update={"paper": _paper(data), "confidence": "high"})
        except ScholarError as err:
            failure = err
    titled = [i for i, e in enumerate(npl) if e.confidence is None and _TITLE.search(e.raw)][:MAX_TITLE_LOOKUPS]
    if titled and failure is None:
        outcomes = await asyncio.gather(*(_by_title(npl[i]) for i in titled), return_exceptions=True)
        for i, outcome in zip(titled, outcomes, strict=True):
            if isinstance(outcome, NplCitation):
                npl[i] = outcome
            elif isinstance(outcome, ScholarError):
                failure = failure or outcome
            elif isinstance(outcome, BaseException):
                raise outcome
    return citations.model_copy(update={"npl_refs": npl}), failure
