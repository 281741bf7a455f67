"""Upstream payloads → ``Paper`` records (one function per upstream shape)."""

from __future__ import annotations

from typing import Any

from scholar.records import Author, Journal, OpenAccessPdf, Paper


def _str_ids(raw: dict[str, Any] | None) -> dict[str, str] | None:
    if not raw:
        return None
    return {k: str(v) for k, v in raw.items() if v is not None}


def from_s2(data: dict[str, Any], fields: tuple[str, ...]) -> Paper:
    """An S2 paper object (any field subset) → Paper carrying only ``fields``."""
    wanted = set(fields)
    values: dict[str, Any] = {}
    for name in wanted & set(data):
        value = data[name]
        if name == "authors":
            value = [Author(authorId=a.get("authorId"), name=a.get("name")) for a in value or []]
        elif name == "externalIds":
            value = _str_ids(value)
        elif name == "tldr":
            value = (value or {}).get("text")
        elif name == "openAccessPdf":
            value = OpenAccessPdf(**value) if value and value.get("url") else None
        elif name == "journal":
            value = Journal(**{k: value.get(k) for k in ("name", "volume", "pages")}) if value else None
        values[name] = value
    return Paper(**values, sources=["s2"])


def shorten_for_list(paper: Paper) -> Paper:
    """Compact form for lists: abstract and author list cut, with the cut stated."""
    from scholar.papers.fields import LIST_ABSTRACT_CHARS, LIST_AUTHORS

    update: dict[str, Any] = {}
    if paper.abstract and len(paper.abstract) > LIST_ABSTRACT_CHARS:
        update["abstract"] = paper.abstract[:LIST_ABSTRACT_CHARS].rstrip() + "…"
        update["abstractTruncated"] = True
    if paper.authors and len(paper.authors) > LIST_AUTHORS:
        update["authors"] = paper.authors[:LIST_AUTHORS]
        update["authorCount"] = len(paper.authors)
    return paper.model_copy(update=update) if update else paper


def _openalex_abstract(index: dict[str, list[int]] | None) -> str | None:
    if not index:
        return None
    words: dict[int, str] = {}
    for word, positions in index.items():
        for pos in positions:
            words[pos] = word
    return " ".join(words[i] for i in sorted(words))


def from_openalex(work: dict[str, Any]) -> Paper:
    """An OpenAlex work → Paper (sources: openalex)."""
    ids = work.get("ids") or {}
    external: dict[str, str] = {}
    if work.get("doi"):
        external["DOI"] = work["doi"].removeprefix("https://doi.org/")
    if ids.get("pmid"):
        external["PubMed"] = str(ids["pmid"]).rsplit("/", 1)[-1]
    if ids.get("mag"):
        external["MAG"] = str(ids["mag"])
    if work.get("id"):
        external["OpenAlex"] = work["id"].rsplit("/", 1)[-1]
    location = work.get("primary_location") or {}
    source = location.get("source") or {}
    oa = work.get("open_access") or {}
    biblio = work.get("biblio") or {}
    pages = "-".join(p for p in (biblio.get("first_page"), biblio.get("last_page")) if p) or None
    topics = [t.get("display_name") for t in (work.get("topics") or [])[:5] if t.get("display_name")]
    return Paper(
        title=work.get("display_name") or work.get("title"),
        year=work.get("publication_year"),
        venue=source.get("display_name"),
        citationCount=work.get("cited_by_count"),
        authors=[
            Author(name=(a.get("author") or {}).get("display_name")) for a in work.get("authorships") or []
        ],
        externalIds=external or None,
        abstract=_openalex_abstract(work.get("abstract_inverted_index")),
        openAccessPdf=OpenAccessPdf(url=oa.get("oa_url"), status=(oa.get("oa_status") or "").upper() or None)
        if oa.get("oa_url")
        else None,
        fieldsOfStudy=topics or None,
        referenceCount=len(work.get("referenced_works") or []) or None,
        isOpenAccess=oa.get("is_oa"),
        publicationDate=work.get("publication_date"),
        publicationTypes=[work["type"]] if work.get("type") else None,
        journal=Journal(name=source.get("display_name"), volume=biblio.get("volume"), pages=pages)
        if source.get("display_name")
        else None,
        url=work.get("id"),
        sources=["openalex"],
    )


def _crossref_date(message: dict[str, Any]) -> tuple[int | None, str | None]:
    for key in ("published", "published-print", "published-online", "issued", "created"):
        parts = ((message.get(key) or {}).get("date-parts") or [[None]])[0]
        if parts and parts[0]:
            year = int(parts[0])
            date = "-".join(f"{int(p):02d}" for p in parts) if len(parts) == 3 else None
            return year, date
    return None, None


def from_crossref(message: dict[str, Any]) -> Paper:
    """A Crossref work message → Paper (sources: crossref)."""
    year, date = _crossref_date(message)
    container = (message.get("container-title") or [None])[0]
    authors = [
        Author(name=" ".join(p for p in (a.get("given"), a.get("family")) if p) or a.get("name"))
        for a in message.get("author") or []
    ]
    return Paper(
        title=(message.get("title") or [None])[0],
        year=year,
        venue=container,
        citationCount=message.get("is-referenced-by-count"),
        authors=authors or None,
        externalIds={"DOI": message["DOI"].lower()} if message.get("DOI") else None,
        referenceCount=message.get("references-count"),
        publicationDate=date,
        publicationTypes=[message["type"]] if message.get("type") else None,
        journal=Journal(name=container, volume=message.get("volume"), pages=message.get("page")) if container else None,
        url=message.get("URL"),
        sources=["crossref"],
    )
