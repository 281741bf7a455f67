"""Upstream payloads → the shared ``Paper`` record (one function per upstream shape).

Core, not a family's: papers and research map the same payloads. Each function fills the fields its
upstream supports and names its source in ``sources``; unknown values stay absent.
"""

from __future__ import annotations

import re
from typing import Any

from scholar.core.numerals import ascii_int
from scholar.core.records import Author, Bibliographic, Journal, OpenAccessPdf, Paper

# The Semantic Scholar fields of a full paper record (get_paper's "full" set; what the library stores).
S2_RECORD_FIELDS = (
    "paperId", "title", "year", "venue", "citationCount", "authors", "externalIds", "abstract", "tldr",
    "openAccessPdf", "fieldsOfStudy", "referenceCount", "influentialCitationCount", "isOpenAccess",
    "publicationDate", "publicationTypes", "journal", "url",
)


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


def from_arxiv_entry(entry: Any) -> Paper:
    """An arXiv Atom entry (``scholar.sources.arxiv.Entry``) → Paper (sources: arxiv)."""
    external = {"ArXiv": entry.base_id}
    if entry.doi:
        external["DOI"] = entry.doi.lower()
    year = ascii_int(entry.published[:4])
    return Paper(
        title=entry.title or None,
        year=year,
        venue=entry.journal_ref or "arXiv",
        authors=[Author(name=name) for name in entry.authors] or None,
        externalIds=external,
        abstract=entry.summary or None,
        openAccessPdf=OpenAccessPdf(url=entry.pdf_url, status="GREEN"),
        fieldsOfStudy=entry.categories or None,
        isOpenAccess=True,
        publicationDate=entry.published[:10] or None,
        publicationTypes=["preprint"],
        url=entry.abstract_url,
        biblio=Bibliographic(eprint_class=entry.primary_category) if entry.primary_category else None,
        sources=["arxiv"],
    )


def _epmc_pdf(result: dict[str, Any]) -> OpenAccessPdf | None:
    for link in ((result.get("fullTextUrlList") or {}).get("fullTextUrl") or []):
        if link.get("documentStyle") == "pdf" and link.get("availabilityCode") in ("OA", "F"):
            return OpenAccessPdf(url=link.get("url"), status="GREEN")
    return None


_SURNAME_INITIALS = re.compile(r"^(?P<surname>.+?)\s+(?P<initials>[A-Z]{1,4})$")


def _given_first(name: str) -> str:
    """Europe PMC writes people as "Surname INITIALS" ("Schoenfeld JD"); every other source and every citation
    style reads the last word as the family name, so turn it round ("JD Schoenfeld"). Other names pass as they are."""
    match = _SURNAME_INITIALS.match(name)
    return f"{match['initials']} {match['surname']}" if match else name


def _epmc_author(author: dict[str, Any]) -> str | None:
    """One ``authorList`` entry's name, given names first: first + last name when Europe PMC splits them, a group's
    ``collectiveName``, else ``fullName`` turned round."""
    if author.get("lastName"):
        return " ".join(p for p in (author.get("firstName") or author.get("initials"), author["lastName"]) if p)
    if author.get("collectiveName"):
        return str(author["collectiveName"])
    return _given_first(str(author["fullName"]).strip()) if author.get("fullName") else None


def from_europepmc(result: dict[str, Any]) -> Paper:
    """A Europe PMC search result (``resultType=core`` or ``lite``) → Paper (sources: europepmc)."""
    external: dict[str, str] = {}
    if result.get("doi"):
        external["DOI"] = str(result["doi"]).lower()
    if result.get("pmid"):
        external["PubMed"] = str(result["pmid"])
    if result.get("pmcid"):
        external["PubMedCentral"] = str(result["pmcid"]).upper()
    authors = [Author(name=name) for a in ((result.get("authorList") or {}).get("author") or [])
               if (name := _epmc_author(a))]
    if not authors and result.get("authorString"):
        authors = [Author(name=_given_first(n.strip().rstrip("."))) for n in str(result["authorString"]).split(",")
                   if n.strip().rstrip(".")]
    journal = ((result.get("journalInfo") or {}).get("journal") or {}).get("title") or result.get("journalTitle")
    year = str(result.get("pubYear", ""))
    cited = str(result.get("citedByCount", ""))
    return Paper(
        title=(result.get("title") or "").rstrip(".") or None,
        year=ascii_int(year),
        venue=journal,
        citationCount=ascii_int(cited),
        authors=authors or None,
        externalIds=external or None,
        abstract=result.get("abstractText"),
        openAccessPdf=_epmc_pdf(result),
        isOpenAccess=result.get("isOpenAccess") == "Y" if result.get("isOpenAccess") else None,
        publicationDate=result.get("firstPublicationDate"),
        url=f"https://europepmc.org/article/{result['source']}/{result['id']}" if result.get("source") else None,
        sources=["europepmc"],
    )


def _inspire_name(full_name: str) -> str:
    family, _, given = full_name.partition(",")
    return f"{given.strip()} {family.strip()}".strip() if given else full_name.strip()


def from_inspire(hit: dict[str, Any]) -> Paper:
    """An INSPIRE-HEP literature record (``{"id", "metadata"}``, as served and as a search hit) → Paper."""
    meta = hit.get("metadata") or {}
    external: dict[str, str] = {}
    if meta.get("dois"):
        external["DOI"] = str(meta["dois"][0].get("value") or "").lower()
    if meta.get("arxiv_eprints"):
        external["ArXiv"] = str(meta["arxiv_eprints"][0].get("value") or "")
    control = meta.get("control_number") or hit.get("id")
    if control:
        external["INSPIRE"] = str(control)
    pub = (meta.get("publication_info") or [{}])[0]
    dates = [str(d) for d in (meta.get("preprint_date"), (meta.get("imprints") or [{}])[0].get("date")) if d]
    year = pub.get("year") or (ascii_int(dates[0][:4]) if dates else None)
    categories = [c.get("term") for c in meta.get("inspire_categories") or [] if c.get("term")]
    pages = "-".join(str(p) for p in (pub.get("page_start"), pub.get("page_end")) if p) or pub.get("artid")
    journal = Journal(name=pub["journal_title"], volume=pub.get("journal_volume"), pages=pages or None) \
        if pub.get("journal_title") else None
    texkey = (meta.get("texkeys") or [None])[0]
    return Paper(
        title=((meta.get("titles") or [{}])[0]).get("title"),
        year=year,
        venue=pub.get("journal_title"),
        journal=journal,
        biblio=Bibliographic(citation_key=str(texkey)) if texkey else None,
        citationCount=meta.get("citation_count"),
        authors=[Author(name=_inspire_name(a["full_name"])) for a in meta.get("authors") or [] if a.get("full_name")]
        or None,
        authorCount=meta.get("author_count"),
        externalIds={k: v for k, v in external.items() if v} or None,
        abstract=((meta.get("abstracts") or [{}])[0]).get("value"),
        fieldsOfStudy=categories or None,
        publicationDate=dates[0] if dates else None,
        publicationTypes=meta.get("document_type"),
        url=f"https://inspirehep.net/literature/{control}" if control else None,
        sources=["inspire"],
    )
