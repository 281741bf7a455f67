"""The resolve step: a paper's metadata and every URL that may serve its PDF, in order.

The metadata is the core resolver's record (scholar.services.paper_lookup: a recent search's merged record, the cache,
then
Semantic Scholar, OpenAlex, Crossref, arXiv, Europe PMC, INSPIRE-HEP), so any identifier another tool handed out
works here. Order of the candidates (issue 4): the record's own open-access link, arXiv, PubMed Central (through
Europe PMC's PDF render), every Unpaywall OA location (not only the best), OpenAlex locations, and for
download_paper the publisher's own PDF links deposited with Crossref. Each candidate carries the version its source
labels (published, accepted, submitted; arXiv is a preprint). Duplicates (the same URL over http or https) keep their
first place and take a version label a later copy gives. Unpaywall, OpenAlex, Europe PMC (and Crossref) are
asked concurrently; one that fails only loses its candidates (named in ``failed_sources``), while a record no
source could give because one failed fails the step, unless the identifier itself is enough to find a PDF (a DOI
or arXiv id no source knows).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from pydantic import BaseModel, Field

from scholar.core.config import get_settings
from scholar.core.errors import NotFoundError, ScholarError
from scholar.core.ids import PaperId
from scholar.core.records import FailedSource, FailedSources, Paper
from scholar.services import paper_lookup
from scholar.services.fulltext.models import Candidate, PaperSummary, PdfSource
from scholar.sources import crossref, europepmc, openalex, unpaywall
from scholar.store.library.models import PdfVersionKind

logger = logging.getLogger(__name__)

# The source of a record's own open-access link, as the candidates name it.
OA_LABELS: dict[str, PdfSource] = {"s2": "s2_oa", "arxiv": "arxiv", "europepmc": "pmc", "openalex": "openalex"}
ARXIV_PDF = "https://arxiv.org/pdf/{arxiv_id}"
PMC_PDF = "https://europepmc.org/articles/{pmcid}?pdf=render"
MAX_AUTHORS = 10
# Unpaywall's and OpenAlex's location versions; Crossref's link content-version (vor, am).
VERSIONS: dict[str, PdfVersionKind] = {
    "publishedVersion": "published", "acceptedVersion": "accepted", "submittedVersion": "submitted",
    "vor": "published", "am": "accepted",
}
Location = tuple[str, PdfVersionKind | None]


class Resolution(BaseModel):
    """The resolve step's output (it travels through the state machine, so it stays small)."""

    metadata: PaperSummary
    candidates: list[Candidate] = Field(default_factory=list)
    failed_sources: FailedSources


def summary_of(paper: Paper) -> PaperSummary:
    """The paper summary of a resolved record (whichever sources supplied it)."""
    ids = paper.externalIds or {}
    pmcid = ids.get("PubMedCentral")
    return PaperSummary(
        paper_id=paper.paperId,
        title=paper.title,
        year=paper.year,
        venue=paper.venue or None,
        authors=[a.name or "" for a in (paper.authors or [])[:MAX_AUTHORS]],
        doi=(ids.get("DOI") or "").lower() or None,
        arxiv_id=ids.get("ArXiv"),
        pmid=str(ids["PubMed"]) if ids.get("PubMed") else None,
        pmcid=f"PMC{pmcid}" if pmcid and not str(pmcid).upper().startswith("PMC") else pmcid,
        url=paper.url,
    )


def _from_identifier(identifier: str) -> PaperSummary:
    """What the identifier alone tells (when S2 has no record)."""
    kind, _, value = identifier.partition(":")
    fields = {"doi": "doi", "arxiv": "arxiv_id", "pmcid": "pmcid", "pmid": "pmid"}
    if kind not in fields:
        return PaperSummary()
    return PaperSummary(**{fields[kind]: value})


def _pmcid_from_unpaywall(record: dict[str, Any]) -> str | None:
    for location in record.get("oa_locations") or []:
        pmh = str((location or {}).get("pmh_id") or "")
        if pmh.startswith("oai:pubmedcentral.nih.gov:"):
            return "PMC" + pmh.rsplit(":", 1)[-1]
    return None


def _pmcid_from_openalex(work: dict[str, Any]) -> str | None:
    raw = str((work.get("ids") or {}).get("pmcid") or "")
    tail = raw.rstrip("/").rsplit("/", 1)[-1]
    if not tail:
        return None
    return tail.upper() if tail.upper().startswith("PMC") else f"PMC{tail}"


def _located(locations: list[Any], url_field: str, version_field: str = "version") -> list[Location]:
    return [(str(loc[url_field]), VERSIONS.get(str(loc.get(version_field)))) for loc in locations
            if isinstance(loc, dict) and loc.get(url_field)]


def unpaywall_locations(record: dict[str, Any]) -> list[Location]:
    """Every OA location's PDF URL and version (best first, then the others in Unpaywall's order)."""
    return _located([record.get("best_oa_location") or {}, *(record.get("oa_locations") or [])], "url_for_pdf")


def openalex_locations(work: dict[str, Any]) -> list[Location]:
    """Every OpenAlex location's PDF URL and version (best first)."""
    locations = [work.get("best_oa_location") or {}, work.get("primary_location") or {}, *(work.get("locations") or [])]
    return _located(locations, "pdf_url")


def publisher_locations(work: dict[str, Any]) -> list[Location]:
    """The PDF links a publisher deposited with Crossref (``link`` entries of type application/pdf)."""
    links = [link for link in work.get("link") or [] if isinstance(link, dict)
             and str(link.get("content-type", "")).lower() == "application/pdf"]
    return _located(links, "URL", "content-version")


async def _optional(source: str, call: Any, failed: list[FailedSource]) -> Any:
    """Run one secondary lookup; a failure is recorded, never raised (not_found is simply no data)."""
    try:
        return await call
    except NotFoundError:
        return None
    except ScholarError as err:
        logger.info("%s lookup failed during PDF resolution: %s", source, err.code)
        failed.append(FailedSource(source=source, code=err.code, status=err.status, message=err.message[:200]))
        return None


async def _nothing() -> None:
    return None


async def resolve_paper(identifier: str, *, publisher_links: bool = False) -> Resolution:
    """Metadata and ordered PDF candidates of a paper.

    Args:
        identifier: the normalised identifier (``doi:10.1/x``, ``arxiv:2101.00001``, ``openalex:W1`` …).
        publisher_links: also ask Crossref for the publisher's PDF links (download_paper).

    Raises:
        NotFoundError: no source has such a paper and the identifier gives nothing else to look for.
        ScholarError: no source found it while one failed (rate limited, upstream error).
    """
    try:
        paper = await paper_lookup.resolve(PaperId.from_cache_key(identifier))
    except NotFoundError:
        metadata = _from_identifier(identifier)
        if not (metadata.doi or metadata.arxiv_id or metadata.pmcid):
            raise
        return await _collect(metadata, None, publisher_links)
    link = paper.openAccessPdf.url if paper.openAccessPdf and paper.openAccessPdf.url else None
    first = paper.sources[0] if paper.sources else "s2"
    return await _collect(summary_of(paper), (OA_LABELS.get(first, "s2_oa"), link) if link else None,
                          publisher_links)


async def _collect(metadata: PaperSummary, record_pdf: tuple[PdfSource, str] | None,
                   publisher_links: bool = False) -> Resolution:
    failed: list[FailedSource] = []
    doi = metadata.doi
    email = get_settings().contact_email
    upw, work, epmc, deposit = await asyncio.gather(
        _optional("unpaywall", unpaywall.get_doi(doi), failed) if doi and email else _nothing(),
        _optional("openalex", openalex.get_work_by_doi(doi), failed) if doi else _nothing(),
        _optional("europepmc", europepmc.find_pmcid(doi), failed) if doi and not metadata.pmcid else _nothing(),
        _optional("crossref", crossref.get_work(doi), failed) if doi and publisher_links else _nothing(),
    )
    upw = upw if isinstance(upw, dict) else {}
    work = work if isinstance(work, dict) else {}
    deposit = deposit if isinstance(deposit, dict) else {}
    pmcid = metadata.pmcid or epmc or _pmcid_from_unpaywall(upw) or _pmcid_from_openalex(work)
    metadata = metadata.model_copy(update={"pmcid": pmcid})
    ordered: list[tuple[PdfSource, str, PdfVersionKind | None]] = []
    if record_pdf:
        ordered.append((*record_pdf, "preprint" if record_pdf[0] == "arxiv" else None))
    if metadata.arxiv_id:
        ordered.append(("arxiv", ARXIV_PDF.format(arxiv_id=metadata.arxiv_id), "preprint"))
    if pmcid:
        ordered.append(("pmc", PMC_PDF.format(pmcid=pmcid), None))
    ordered += [("unpaywall", url, version) for url, version in unpaywall_locations(upw)]
    ordered += [("openalex", url, version) for url, version in openalex_locations(work)]
    ordered += [("publisher", url, version) for url, version in publisher_locations(deposit)]
    return Resolution(metadata=metadata, candidates=_distinct(ordered), failed_sources=failed)


def _distinct(ordered: list[tuple[PdfSource, str, PdfVersionKind | None]]) -> list[Candidate]:
    """The http(s) candidates in order, each URL once (http and https alike), with the first version label given."""
    found: dict[str, Candidate] = {}
    for source, url, version in ordered:
        if not url.lower().startswith(("http://", "https://")):
            continue
        key = url.strip().lower().rstrip("/").split("://", 1)[1]
        if key not in found:
            found[key] = Candidate(source=source, url=url.strip(), version=version)
        elif found[key].version is None and version is not None:
            found[key] = found[key].model_copy(update={"version": version})
    return list(found.values())
