"""Many paper identifiers at once: S2 ``/paper/batch``, then OpenAlex OR-filters, then Crossref by DOI.

Costs ⌈N/500⌉ S2 requests, ⌈M/50⌉ OpenAlex requests for the M that S2 lacks, and one Crossref request
per DOI neither knows (at most ``CONCURRENCY`` at once). A source that fails marks the items it could
not answer with its status (rate_limited / upstream_error), never not_found, and is listed as failed.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from scholar.errors import NotFoundError, ScholarError
from scholar.ids import PaperId
from scholar.papers import biblio
from scholar.papers.budget import failed
from scholar.papers.mapping import from_crossref, from_openalex, from_s2
from scholar.records import FailedSource, Paper
from scholar.sources import crossref, openalex, s2

CONCURRENCY = 5
_S2_KINDS = frozenset({"doi", "arxiv", "pmid", "pmcid", "s2", "corpus", "acm", "mag"})


@dataclass
class Resolution:
    """What became of one identifier."""

    status: str  # ok | not_found | rate_limited | upstream_error
    paper: Paper | None = None
    source: str | None = None
    error: str | None = None


def doi_for(pid: PaperId) -> str | None:
    """The DOI to ask OpenAlex / Crossref for (arXiv ids have a DataCite DOI)."""
    if pid.kind == "doi":
        return pid.value
    if pid.kind == "arxiv":
        return f"10.48550/arxiv.{pid.value}"
    return None


def _status(err: ScholarError) -> str:
    return "rate_limited" if err.code == "rate_limited" else "upstream_error"


class _Resolver:
    def __init__(self, fields: tuple[str, ...]) -> None:
        self.fields = fields
        self.out: dict[str, Resolution] = {}
        self.errors: dict[str, ScholarError] = {}  # item key → the error that kept it unresolved
        self.failures: dict[tuple[str, str], FailedSource] = {}

    def fail(self, keys: list[str], err: ScholarError, source: str) -> None:
        self.failures.setdefault((source, err.code), failed(err, source))
        for key in keys:
            self.errors.setdefault(key, err)

    def open(self, pids: dict[str, PaperId]) -> dict[str, PaperId]:
        return {k: p for k, p in pids.items() if k not in self.out}

    async def s2_batch(self, pids: dict[str, PaperId]) -> None:
        wanted = {k: p for k, p in pids.items() if p.kind in _S2_KINDS}
        if not wanted:
            return
        try:
            rows = await s2.get_papers([p.s2_key() for p in wanted.values()], self.fields)
        except ScholarError as err:
            self.fail(list(wanted), err, "s2")
            return
        for key, row in zip(wanted, rows, strict=True):
            if row:
                self.out[key] = Resolution("ok", from_s2(row, self.fields), "s2")

    async def openalex_batch(self, pids: dict[str, PaperId]) -> None:
        by_doi = {doi: k for k, p in pids.items() if (doi := doi_for(p))}
        by_work = {p.value: k for k, p in pids.items() if p.kind == "openalex"}
        for filter_key, index in (("doi", by_doi), ("ids.openalex", by_work)):
            if not index:
                continue
            try:
                works = await openalex.get_works_by_filter(filter_key, list(index))
            except ScholarError as err:
                self.fail(list(index.values()), err, "openalex")
                continue
            for work in works:
                key = _work_key(work, filter_key, index)
                if key and key not in self.out:
                    self.out[key] = Resolution("ok", from_openalex(work), "openalex")

    async def crossref_each(self, pids: dict[str, PaperId]) -> None:
        gate = asyncio.Semaphore(CONCURRENCY)

        async def one(key: str, doi: str) -> None:
            async with gate:
                try:
                    message = await crossref.get_work(doi)
                except NotFoundError:
                    return
                except ScholarError as err:
                    self.fail([key], err, "crossref")
                    return
            # The Crossref record is also the citation-grade detail: keep it so nobody asks twice.
            paper = from_crossref(message).model_copy(update={"biblio": biblio.from_crossref(message)})
            self.out[key] = Resolution("ok", paper, "crossref")

        jobs = [one(k, p.value) for k, p in pids.items() if p.kind == "doi"]
        await asyncio.gather(*jobs)


def _work_key(work: dict[str, Any], filter_key: str, index: dict[str, str]) -> str | None:
    if filter_key == "doi":
        doi = (work.get("doi") or "").removeprefix("https://doi.org/").lower()
        return index.get(doi)
    return index.get(str(work.get("id") or "").rsplit("/", 1)[-1].upper())


async def resolve_papers(
    pids: dict[str, PaperId], fields: tuple[str, ...]
) -> tuple[dict[str, Resolution], list[FailedSource]]:
    """Resolve papers keyed by the caller's keys; every key gets a Resolution."""
    resolver = _Resolver(fields)
    await resolver.s2_batch(pids)
    await resolver.openalex_batch(resolver.open(pids))
    await resolver.crossref_each(resolver.open(pids))
    for key in resolver.open(pids):
        err = resolver.errors.get(key)
        resolver.out[key] = (
            Resolution(_status(err), error=f"{err.source or 'a source'} failed: {err.message}")
            if err
            else Resolution("not_found", error="Semantic Scholar, OpenAlex and Crossref have no record")
        )
    return resolver.out, list(resolver.failures.values())
