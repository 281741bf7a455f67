"""Resolving one paper by any identifier to its full record: cache, Semantic Scholar, then OpenAlex and Crossref.

Core, not a family's: get_paper (papers) and the library's add (scholar.library.keep) resolve the same way.

Cache layout (DESIGN §5): ``alias#<kind>:<value>`` → the canonical record key, ``record#<key>`` →
the full record, ``negative#<kind>:<value>`` → a recent not_found. Canonical keys are the S2 paper
id when S2 knows the paper, else ``openalex:<doi>`` / ``crossref:<doi>``.
"""

from __future__ import annotations

from typing import Any

from scholar.errors import InvalidArgumentError, NotFoundError
from scholar.ids import PaperId, parse_paper_id
from scholar.paper_mapping import S2_RECORD_FIELDS as FULL
from scholar.paper_mapping import from_crossref, from_openalex, from_s2
from scholar.records import Paper
from scholar.sources import crossref, openalex, s2
from scholar.store.cache import Cache

_NOT_PAPERS = {"isbn": "get_book", "patent": "get_patent", "url": "fetch_pdf_by_url"}


def parse_identifier(raw: str, field: str = "identifier") -> PaperId:
    """Parse a paper identifier, refusing forms that name something else.

    Raises:
        InvalidArgumentError: not a paper identifier (names the field and the accepted forms).
    """
    try:
        pid = parse_paper_id(raw)
    except ValueError as exc:
        raise InvalidArgumentError(str(exc), field=field) from exc
    if pid.kind in _NOT_PAPERS:
        raise InvalidArgumentError(
            f"{raw!r} is a {pid.kind}, not a paper identifier; use {_NOT_PAPERS[pid.kind]} for it", field=field
        )
    return pid


def _doi_of(pid: PaperId) -> str | None:
    if pid.kind == "doi":
        return pid.value
    if pid.kind == "arxiv":
        return f"10.48550/arxiv.{pid.value}"
    return None


def _aliases(paper: Paper, pid: PaperId) -> list[str]:
    keys = [pid.cache_key()]
    ext = paper.externalIds or {}
    if ext.get("DOI"):
        keys.append(f"doi:{ext['DOI'].lower()}")
    if ext.get("ArXiv"):
        keys.append(f"arxiv:{ext['ArXiv']}")
    if paper.paperId:
        keys.append(f"s2:{paper.paperId}")
    return list(dict.fromkeys(keys))


async def get_paper(raw: str, cache: Cache | None = None) -> Paper:
    """The full record of one paper.

    Raises:
        InvalidArgumentError: not a paper identifier.
        NotFoundError: no source holds it.
        RateLimitedError / UpstreamError: a source failed (nothing is cached then).
    """
    cache = cache or Cache()
    pid = parse_identifier(raw)
    key = await cache.aget("alias", pid.cache_key())
    if key:
        cached = await cache.aget("record", key)
        if cached is not None:
            return Paper.model_validate(cached)
    if await cache.aget("negative", pid.cache_key()):
        raise NotFoundError(f"no source has a paper for {raw!r} (cached answer)", source="s2")
    paper, record_key = await _fetch(pid, cache)
    await cache.aput("record", record_key, paper.model_dump(mode="json"))
    for alias in _aliases(paper, pid):
        await cache.aput("alias", alias, record_key)
    return paper


async def _fetch(pid: PaperId, cache: Cache) -> tuple[Paper, str]:
    s2_key = pid.s2_key()
    try:
        data: dict[str, Any] = await s2.get_paper(s2_key, FULL)
        paper = from_s2(data, FULL)
        return paper, paper.paperId or pid.cache_key()
    except NotFoundError:
        doi = _doi_of(pid)
        if doi is None:
            await cache.aput("negative", pid.cache_key(), True)
            raise
    try:
        return from_openalex(await openalex.get_work_by_doi(doi)), f"openalex:{doi}"
    except NotFoundError:
        pass
    try:
        return from_crossref(await crossref.get_work(doi)), f"crossref:{doi}"
    except NotFoundError:
        await cache.aput("negative", pid.cache_key(), True)
        raise NotFoundError(
            f"no paper for {pid.cache_key()}: Semantic Scholar, OpenAlex and Crossref have no record", source="s2"
        ) from None
