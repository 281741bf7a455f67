"""The resolve step: a paper's metadata (Semantic Scholar) and every URL that may serve its PDF, in order.

Order (issue 4): Semantic Scholar's open-access link, arXiv, PubMed Central (through Europe PMC's PDF
render), every Unpaywall OA location (not only the best), OpenAlex locations. Duplicates keep their first
place. Unpaywall, OpenAlex and Europe PMC are asked concurrently; one that fails only loses its candidates
(named in ``failed_sources``), while a failing Semantic Scholar fails the step, unless the identifier itself
is enough to find a PDF (a DOI or arXiv id S2 does not know).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from pydantic import BaseModel, Field

from scholar.config import get_settings
from scholar.errors import NotFoundError, ScholarError
from scholar.fulltext.models import Candidate, PaperSummary, PdfSource
from scholar.records import FailedSource
from scholar.sources import europepmc, openalex, s2, unpaywall

logger = logging.getLogger(__name__)

S2_FIELDS = ("paperId", "title", "year", "venue", "authors", "externalIds", "openAccessPdf", "url")
ARXIV_PDF = "https://arxiv.org/pdf/{arxiv_id}"
PMC_PDF = "https://europepmc.org/articles/{pmcid}?pdf=render"
MAX_AUTHORS = 10


class Resolution(BaseModel):
    """The resolve step's output (it travels through the state machine, so it stays small)."""

    metadata: PaperSummary
    candidates: list[Candidate] = Field(default_factory=list)
    failed_sources: list[FailedSource] = Field(default_factory=list)


def summarize(record: dict[str, Any]) -> PaperSummary:
    """The paper summary of an S2 record."""
    ids = record.get("externalIds") or {}
    pmcid = ids.get("PubMedCentral")
    return PaperSummary(
        paper_id=record.get("paperId"),
        title=record.get("title"),
        year=record.get("year"),
        venue=record.get("venue") or None,
        authors=[a.get("name", "") for a in (record.get("authors") or [])[:MAX_AUTHORS] if isinstance(a, dict)],
        doi=(ids.get("DOI") or "").lower() or None,
        arxiv_id=ids.get("ArXiv"),
        pmid=str(ids["PubMed"]) if ids.get("PubMed") else None,
        pmcid=f"PMC{pmcid}" if pmcid and not str(pmcid).upper().startswith("PMC") else pmcid,
        url=record.get("url"),
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


def unpaywall_urls(record: dict[str, Any]) -> list[str]:
    """Every OA location's PDF URL (best first, then the others in Unpaywall's order)."""
    locations = [record.get("best_oa_location") or {}, *(record.get("oa_locations") or [])]
    return [str(loc["url_for_pdf"]) for loc in locations if isinstance(loc, dict) and loc.get("url_for_pdf")]


def openalex_urls(work: dict[str, Any]) -> list[str]:
    """Every OpenAlex location's PDF URL (best first)."""
    locations = [work.get("best_oa_location") or {}, work.get("primary_location") or {}, *(work.get("locations") or [])]
    return [str(loc["pdf_url"]) for loc in locations if isinstance(loc, dict) and loc.get("pdf_url")]


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


async def resolve_paper(identifier: str, s2_key: str) -> Resolution:
    """Metadata and ordered PDF candidates of a paper.

    Args:
        identifier: the normalised identifier (``doi:10.1/x``, ``arxiv:2101.00001`` …).
        s2_key: the same identifier in the form Semantic Scholar accepts.

    Raises:
        NotFoundError: S2 has no such paper and the identifier gives nothing else to look for.
        ScholarError: S2 failed (rate limited, upstream error).
    """
    try:
        record = await s2.get_paper(s2_key, S2_FIELDS)
    except NotFoundError:
        metadata = _from_identifier(identifier)
        if not (metadata.doi or metadata.arxiv_id or metadata.pmcid):
            raise
        return await _collect(metadata, None)
    s2_pdf = str((record.get("openAccessPdf") or {}).get("url") or "") or None
    return await _collect(summarize(record), s2_pdf)


async def _collect(metadata: PaperSummary, s2_pdf: str | None) -> Resolution:
    failed: list[FailedSource] = []
    doi = metadata.doi
    email = get_settings().contact_email
    upw, work, epmc = await asyncio.gather(
        _optional("unpaywall", unpaywall.get_doi(doi), failed) if doi and email else _nothing(),
        _optional("openalex", openalex.get_work_by_doi(doi), failed) if doi else _nothing(),
        _optional("europepmc", europepmc.find_pmcid(doi), failed) if doi and not metadata.pmcid else _nothing(),
    )
    upw = upw if isinstance(upw, dict) else {}
    work = work if isinstance(work, dict) else {}
    pmcid = metadata.pmcid or epmc or _pmcid_from_unpaywall(upw) or _pmcid_from_openalex(work)
    metadata = metadata.model_copy(update={"pmcid": pmcid})
    ordered: list[tuple[PdfSource, str]] = []
    if s2_pdf:
        ordered.append(("s2_oa", s2_pdf))
    if metadata.arxiv_id:
        ordered.append(("arxiv", ARXIV_PDF.format(arxiv_id=metadata.arxiv_id)))
    if pmcid:
        ordered.append(("pmc", PMC_PDF.format(pmcid=pmcid)))
    ordered += [("unpaywall", url) for url in unpaywall_urls(upw)]
    ordered += [("openalex", url) for url in openalex_urls(work)]
    seen: set[str] = set()
    candidates = []
    for source, url in ordered:
        key = url.strip().lower().rstrip("/")
        if key in seen or not url.lower().startswith(("http://", "https://")):
            continue
        seen.add(key)
        candidates.append(Candidate(source=source, url=url.strip()))
    return Resolution(metadata=metadata, candidates=candidates, failed_sources=failed)
