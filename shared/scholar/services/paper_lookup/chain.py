"""Asking the sources for one paper, in order, until one knows it: a record one source knows is enough.

Order (each source only for the identifier kinds it can look up):

    s2         S2 id, CorpusId, DOI, arXiv, PMID, PMCID, ACM, MAG
    openalex   DOI (an arXiv id through its DataCite DOI), OpenAlex W id, PMID, PMCID
    crossref   DOI (not arXiv's DataCite DOIs, which Crossref does not hold)
    arxiv_api  arXiv id
    europepmc  DOI, PMID, PMCID
    inspire    INSPIRE record id, DOI, arXiv id

A source's "no such paper" moves on to the next. A source that fails (throttled, down) stops the chain with its
error, as a lone source would: the call is then retried or queued and finds the record every source agrees on,
rather than answering a lesser record now and caching it. A record found elsewhere for a kind Semantic Scholar
cannot look up itself (an OpenAlex or INSPIRE id) is completed by S2 through the DOI or arXiv id it carries, so
every form of one paper resolves to the same canonical record (when S2 fails then, the record found is answered,
marked incomplete so nobody caches it). Every answer is checked to be the paper asked for (a search may return
near matches).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass, field

from scholar.core import paper_mapping
from scholar.core.errors import NotFoundError, ScholarError
from scholar.core.ids import S2_KINDS, IdKind, PaperId, record_keys
from scholar.core.paper_mapping import S2_RECORD_FIELDS as FULL
from scholar.core.records import Paper
from scholar.sources import arxiv, crossref, europepmc, inspire, openalex, s2

ORDER = ("s2", "openalex", "crossref", "arxiv_api", "europepmc", "inspire")
KINDS: dict[str, frozenset[IdKind]] = {
    "s2": S2_KINDS,
    "openalex": frozenset({"doi", "arxiv", "openalex", "pmid", "pmcid"}),
    "crossref": frozenset({"doi"}),
    "arxiv_api": frozenset({"arxiv"}),
    "europepmc": frozenset({"doi", "pmid", "pmcid"}),
    "inspire": frozenset({"inspire", "doi", "arxiv"}),
}
NAMES = {"s2": "Semantic Scholar", "openalex": "OpenAlex", "crossref": "Crossref", "arxiv_api": "arXiv",
         "europepmc": "Europe PMC", "inspire": "INSPIRE-HEP"}


def doi_of(pid: PaperId) -> str | None:
    """The DOI to ask DOI-keyed sources for (an arXiv id has its DataCite DOI)."""
    if pid.kind == "doi":
        return pid.value
    if pid.kind == "arxiv":
        return f"10.48550/arxiv.{pid.value}"
    return None


def sources_for(pid: PaperId, skip: Collection[str] = ()) -> list[str]:
    """The sources that can look ``pid`` up, in order."""
    return [name for name in ORDER if pid.kind in KINDS[name] and name not in skip]


def _names(paper: Paper, pid: PaperId) -> bool:
    return pid.cache_key() in record_keys(paper.paperId, paper.externalIds or {})


async def _s2(pid: PaperId) -> Paper:
    return paper_mapping.from_s2(await s2.get_paper(pid.s2_key(), FULL), FULL)


async def _openalex(pid: PaperId) -> Paper:
    if pid.kind == "openalex":
        work = await openalex.get_work(pid.value)
    elif doi := doi_of(pid):
        work = await openalex.get_work_by_doi(doi)
    else:  # OpenAlex's short forms for external ids: pmid:123, pmcid:PMC123
        work = await openalex.get_work(f"{pid.kind}:{pid.value}")
    return paper_mapping.from_openalex(work)


async def _crossref(pid: PaperId) -> Paper:
    return paper_mapping.from_crossref(await crossref.get_work(pid.value))


async def _arxiv(pid: PaperId) -> Paper:
    feed = await arxiv.query({"id_list": pid.value, "start": "0", "max_results": "10"}, field="identifier")
    for entry in feed.entries:
        if entry.base_id == pid.value:
            return paper_mapping.from_arxiv_entry(entry)
    raise NotFoundError(f"arXiv has no paper {pid.value}", source=arxiv.API)


_EPMC_QUERY = {"doi": 'DOI:"{}"', "pmid": "EXT_ID:{} AND SRC:MED", "pmcid": "PMCID:{}"}


async def _europepmc(pid: PaperId) -> Paper:
    for result in await europepmc.search_core(_EPMC_QUERY[pid.kind].format(pid.value), page_size=5):
        paper = paper_mapping.from_europepmc(result)
        if _names(paper, pid):
            return paper
    raise NotFoundError(f"Europe PMC has no record for {pid.cache_key()}", source=europepmc.SOURCE)


async def _inspire(pid: PaperId) -> Paper:
    if pid.kind == "inspire":
        return paper_mapping.from_inspire(await inspire.get_record(pid.value))
    query = f"doi:{pid.value}" if pid.kind == "doi" else f"arxiv:{pid.value}"
    for hit in await inspire.search_literature(query, size=3):
        paper = paper_mapping.from_inspire(hit)
        if _names(paper, pid):
            return paper
    raise NotFoundError(f"INSPIRE-HEP has no record for {pid.cache_key()}", source=inspire.SOURCE)


_LOOKUPS: dict[str, Callable[[PaperId], Awaitable[Paper]]] = {
    "s2": _s2, "openalex": _openalex, "crossref": _crossref, "arxiv_api": _arxiv, "europepmc": _europepmc,
    "inspire": _inspire,
}


@dataclass
class Found:
    """What the chain learnt: the record (None when no source had it), who gave it, whom it asked, and whether
    the record is complete (False: a source that should have completed it failed; do not cache it)."""

    paper: Paper | None = None
    source: str | None = None
    asked: list[str] = field(default_factory=list)
    complete: bool = True


async def look_up(pid: PaperId, *, skip: Collection[str] = ()) -> Found:
    """Ask the sources that can look ``pid`` up, in order, until one has it (module docstring).

    Raises:
        RateLimitedError / UpstreamError / UpstreamTimeoutError: a source failed before any had the paper.
    """
    found = Found()
    for name in sources_for(pid, skip):
        found.asked.append(name)
        try:
            paper = await _LOOKUPS[name](pid)
        except NotFoundError:
            continue
        except ScholarError as err:
            err.source = err.source or name
            raise
        if name != "s2" and not _names(paper, pid):
            continue  # a near match is not the paper asked for
        found.paper, found.source = paper, name
        break
    if found.paper is not None and pid.kind not in S2_KINDS and "s2" not in skip:
        found.paper = await _completed_by_s2(found.paper, found)
    return found


async def _completed_by_s2(paper: Paper, found: Found) -> Paper:
    """S2's record of a paper found by an id S2 cannot look up, with that source's ids added; else the paper."""
    ext = paper.externalIds or {}
    key = f"DOI:{ext['DOI']}" if ext.get("DOI") else (f"ARXIV:{ext['ArXiv']}" if ext.get("ArXiv") else None)
    if key is None:
        return paper
    try:
        canonical = paper_mapping.from_s2(await s2.get_paper(key, FULL), FULL)
    except NotFoundError:
        return paper
    except ScholarError:
        found.complete = False
        return paper
    merged = {**ext, **(canonical.externalIds or {})}
    return canonical.model_copy(update={"externalIds": merged,
                                        "sources": list(dict.fromkeys([*canonical.sources, *paper.sources]))})


def not_found(pid: PaperId, asked: list[str]) -> NotFoundError:
    """The answer when every source that can look ``pid`` up said it has no such paper."""
    names = ", ".join(NAMES[name] for name in asked) or "no source"
    return NotFoundError(f"no paper for {pid.cache_key()}: {names} have no record of it", source=asked[0] if asked
                         else None, details={"asked": asked})
