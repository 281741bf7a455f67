"""Many paper identifiers at once: recent search records, S2 ``/paper/batch``, OpenAlex OR-filters, Crossref by
DOI, then the remaining sources one by one (arXiv's API, Europe PMC, INSPIRE-HEP: scholar.services.paper_lookup.chain).

A paper a recent search answer listed costs no request (scholar.services.paper_lookup.recent). The rest cost ⌈N/500⌉ S2
requests, ⌈M/50⌉ OpenAlex requests for the M that S2 lacks, one Crossref request per DOI neither knows, and for
what is still open the chain's remaining sources (at most ``CONCURRENCY`` lookups at once). A source that fails
marks the items it could not answer with its status (rate_limited / upstream_error), never not_found, and is
listed as failed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from scholar.core.errors import NotFoundError, ScholarError
from scholar.core.ids import S2_KINDS, PaperId
from scholar.core.paper_mapping import from_crossref, from_openalex, from_s2
from scholar.core.records import FailedSource, Paper
from scholar.families.papers import biblio
from scholar.families.papers.budget import failed
from scholar.services.paper_lookup import look_up, recall_many
from scholar.services.paper_lookup.chain import doi_of
from scholar.sources import crossref, openalex, s2

CONCURRENCY = 5
# The caller's key of an item (a position, a name): opaque here, handed back with its Resolution.
Key = TypeVar("Key", bound=Hashable)
# Asked in batches before the chain's one-by-one lookups.
_BATCHED = ("s2", "openalex", "crossref")


@dataclass
class Resolution:
    """What became of one identifier."""

    status: str  # ok | not_found | rate_limited | upstream_error
    paper: Paper | None = None
    source: str | None = None
    error: str | None = None


def _status(err: ScholarError) -> str:
    return "rate_limited" if err.code == "rate_limited" else "upstream_error"


class _Resolver(Generic[Key]):
    def __init__(self, fields: tuple[str, ...]) -> None:
        self.fields = fields
        self.out: dict[Key, Resolution] = {}
        self.errors: dict[Key, ScholarError] = {}  # item key → the error that kept it unresolved
        self.failures: dict[tuple[str, str], FailedSource] = {}

    def fail(self, keys: list[Key], err: ScholarError, source: str) -> None:
        self.failures.setdefault((source, err.code), failed(err, source))
        for key in keys:
            self.errors.setdefault(key, err)

    def open(self, pids: dict[Key, PaperId]) -> dict[Key, PaperId]:
        return {k: p for k, p in pids.items() if k not in self.out}

    async def recent(self, pids: dict[Key, PaperId]) -> None:
        found = await recall_many(p.cache_key() for p in pids.values())
        for key, pid in pids.items():
            if (paper := found.get(pid.cache_key())) is not None:
                self.out[key] = Resolution("ok", paper, paper.sources[0] if paper.sources else "recent")

    async def s2_batch(self, pids: dict[Key, PaperId]) -> None:
        wanted = {k: p for k, p in pids.items() if p.kind in S2_KINDS}
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

    async def openalex_batch(self, pids: dict[Key, PaperId]) -> None:
        by_doi = {doi: k for k, p in pids.items() if (doi := doi_of(p))}
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
                if key is not None and key not in self.out:
                    self.out[key] = Resolution("ok", from_openalex(work), "openalex")

    async def crossref_each(self, pids: dict[Key, PaperId]) -> None:
        gate = asyncio.Semaphore(CONCURRENCY)

        async def one(key: Key, doi: str) -> None:
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

    async def others_each(self, pids: dict[Key, PaperId]) -> None:
        """The chain's remaining sources for what the batches left open (arXiv, Europe PMC, INSPIRE-HEP)."""
        gate = asyncio.Semaphore(CONCURRENCY)

        async def one(key: Key, pid: PaperId) -> None:
            async with gate:
                try:
                    found = await look_up(pid, skip=_BATCHED)
                except ScholarError as err:
                    self.fail([key], err, err.source or "?")
                    return
            if found.paper is not None:
                self.out[key] = Resolution("ok", found.paper, found.source)

        await asyncio.gather(*(one(k, p) for k, p in pids.items()))


def _work_key(work: dict[str, Any], filter_key: str, index: dict[str, Key]) -> Key | None:
    if filter_key == "doi":
        doi = (work.get("doi") or "").removeprefix("https://doi.org/").lower()
        return index.get(doi)
    return index.get(str(work.get("id") or "").rsplit("/", 1)[-1].upper())


async def resolve_papers(
    pids: dict[Key, PaperId], fields: tuple[str, ...]
) -> tuple[dict[Key, Resolution], list[FailedSource]]:
    """Resolve papers keyed by the caller's keys; every key gets a Resolution."""
    resolver: _Resolver[Key] = _Resolver(fields)
    await resolver.recent(pids)
    await resolver.s2_batch(resolver.open(pids))
    await resolver.openalex_batch(resolver.open(pids))
    await resolver.crossref_each(resolver.open(pids))
    await resolver.others_each(resolver.open(pids))
    for key in resolver.open(pids):
        err = resolver.errors.get(key)
        resolver.out[key] = (
            Resolution(_status(err), error=f"{err.source or 'a source'} failed: {err.message}")
            if err
            else Resolution("not_found", error="no source has a record of it")
        )
    return resolver.out, list(resolver.failures.values())
