"""Reading the citation graph for traversals: neighbour ids, batch hydration, seed resolution, request counts.

With S2 as the graph's one source (``SCHOLAR_CITATION_SOURCES=s2``), neighbour lists ask S2 for ``paperId`` only;
the papers that end up in an answer are hydrated with ``/paper/batch`` (500 ids a request). So a traversal costs
one request per expanded node plus ⌈N/500⌉, the least the API allows. With the merged graph (the default) each
expansion reads every source through scholar.services.citation_graph, and the reader keeps one identity pool for
the whole traversal, so a work reached through two sources or two paths is one node: its S2 id when S2 knows it,
else an identifier every tool accepts (``doi:…``, ``arxiv:…``, ``pmid:…``, ``openalex:…``, ``inspire:…``).
Expansions run concurrently; each request still waits for the shared pace (scholar.sources.http), so concurrency
hides latency without exceeding the published rate.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from scholar.core.errors import NotFoundError, ScholarError
from scholar.core.paper_pool import Candidate, Pool
from scholar.core.records import FailedSource, Paper
from scholar.families.papers.budget import failed
from scholar.families.papers.citations import LISTINGS, Kind
from scholar.services import citation_graph
from scholar.services.paper_lookup.s2_forms import s2_form_of
from scholar.sources import s2

# S2's largest page for citation and reference lists.
MAX_PAGE = 1000
_HEX = re.compile(r"^[0-9a-f]{40}$")


def is_s2_id(key: str) -> bool:
    return bool(_HEX.match(key))


# A node's id when S2 does not know it: its first identifier of these kinds, as ``kind:value``.
_NODE_KINDS = ("doi", "arxiv", "pmid", "pmcid", "openalex", "inspire")
_EXTERNAL = {"doi": "DOI", "arxiv": "ArXiv", "pmid": "PubMed", "pmcid": "PubMedCentral", "openalex": "OpenAlex",
             "inspire": "INSPIRE"}


@dataclass
class Neighbours:
    ids: list[str]
    complete: bool  # False when a source has more than one page
    sources: list[list[str]] | None = None  # per id, the sources naming the edge (the merged graph)


@dataclass
class GraphReader:
    """One traversal's access to S2: counts requests, gathers failures, bounds concurrency."""

    concurrency: int = 8
    requests: int = 0
    failures: dict[tuple[str, str], FailedSource] = field(default_factory=dict)
    merged: bool = field(default_factory=lambda: citation_graph.enabled() != ("s2",))
    records: dict[str, dict[str, Any]] = field(default_factory=dict)  # node id → record (the merged graph)
    edge_sources: dict[tuple[str, str], set[str]] = field(default_factory=dict)  # (citing, cited) → sources
    _pool: Pool = field(default_factory=Pool)
    _node_of: dict[int, str] = field(default_factory=dict)
    _gate: asyncio.Semaphore | None = None

    @property
    def gate(self) -> asyncio.Semaphore:
        if self._gate is None:
            self._gate = asyncio.Semaphore(self.concurrency)
        return self._gate

    def failed_sources(self) -> list[FailedSource]:
        return list(self.failures.values())

    def _record(self, err: ScholarError) -> None:
        self.failures.setdefault((err.source or "s2", err.code), failed(err, "s2"))

    async def neighbours(self, paper_id: str, kind: Kind, limit: int = MAX_PAGE) -> Neighbours | None:
        """Ids citing (``citations``) or cited by (``references``) a paper; None when the read failed.

        A paper no source knows has no neighbours. Failures are recorded, not raised.
        """
        if self.merged:
            return await self._merged(paper_id, kind, limit)
        async with self.gate:
            self.requests += 1
            try:
                page = await s2.get_citation_page(paper_id, kind, fields=("paperId",), offset=0, limit=limit)
            except NotFoundError:
                return Neighbours([], True)
            except ScholarError as err:
                self._record(err)
                return None
        ids = [((row.get(LISTINGS[kind].nested) or {}).get("paperId")) for row in page.get("data") or []]
        return Neighbours([i for i in ids if i], complete=not page.get("next"))

    async def _merged(self, node_id: str, kind: Kind, limit: int) -> Neighbours | None:
        async with self.gate:
            hood = await citation_graph.neighbourhood(
                self.seed(node_id), kind, s2_limit=limit, limit=min(limit, citation_graph.OTHER_LIMIT))
        self.requests += hood.requests
        for entry in hood.failed:
            self.failures.setdefault((entry.source, entry.code), entry)
        if not hood.links and hood.failed:
            return None
        ids = [self.node(link.paper) for link in hood.links]
        for other, link in zip(ids, hood.links, strict=True):
            edge = (other, node_id) if kind == "citations" else (node_id, other)
            self.edge_sources.setdefault(edge, set()).update(link.sources)
        return Neighbours(ids, complete=hood.complete, sources=[link.sources for link in hood.links])

    def sources_of(self, citing: str, cited: str) -> list[str] | None:
        """The sources naming an edge, in the graph's order (None when S2 alone was read)."""
        named = self.edge_sources.get((citing, cited))
        return [s for s in citation_graph.SOURCES if s in named] if named else None

    def seed(self, node_id: str) -> citation_graph.Seed:
        """What the sources can be asked about a node by: its record's identifiers (and S2 form), or its id."""
        row = self.records.get(node_id)
        record = Paper.model_validate(row or {})
        # A node reached through a list (or a seed S2 answered) carries every id its record has.
        seed = citation_graph.Seed(s2_key=node_id if is_s2_id(node_id) else s2_form_of(record), known=row is not None)
        seed.learn(record)
        seed.add({node_id})
        return seed

    def node(self, paper: Paper) -> str:
        """The node id of a work (one per work for the whole traversal), its record merged with ``paper``."""
        candidate = self._pool.add(paper, (paper.sources or ["s2"])[0], finding=False)
        node_id = self._node_of.get(id(candidate)) or paper.paperId or _key_id(candidate)
        self._node_of[id(candidate)] = node_id
        self.records[node_id] = candidate.record().model_dump(mode="json", exclude_none=True)
        return node_id

    def seed_node(self, key: str) -> str:
        """The node of a seed only its identifier names (``doi:…`` …: S2 has no record of it)."""
        kind, _, value = key.partition(":")
        return self.node(Paper(externalIds={_EXTERNAL[kind]: value}, sources=["s2"])) if kind in _EXTERNAL else key

    async def batch(self, keys: Sequence[str], fields: Sequence[str]) -> dict[str, dict[str, Any] | None]:
        """Papers by S2 key (any S2 id form) with ⌈N/500⌉ requests; None where S2 has no record.

        Raises:
            RateLimitedError / UpstreamError: the batch failed (callers decide whether that is fatal).
        """
        unique = list(dict.fromkeys(keys))
        if not unique:
            return {}
        self.requests += -(-len(unique) // s2.BATCH_SIZE)
        rows = await s2.get_papers(unique, fields)
        return dict(zip(unique, rows, strict=True))

    async def hydrate(self, ids: Sequence[str], fields: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Like ``batch`` but failures are recorded and give an empty answer (the ids stay bare); a node S2 has
        no id for answers the record the merged graph gave it."""
        wanted = set(ids)
        known = {i: self.records[i] for i in wanted if not is_s2_id(i) and self.records.get(i)}
        try:
            found = await self.batch([i for i in ids if is_s2_id(i) or i not in known], fields)
        except ScholarError as err:
            self._record(err)
            found = {}
        rows = {k: v for k, v in found.items() if v}
        return {**{k: v for k, v in self.records.items() if k in wanted and k not in rows}, **rows, **known}


def _key_id(candidate: Candidate) -> str:
    for kind in _NODE_KINDS:
        for key in sorted(candidate.keys):
            if key.startswith(f"{kind}:"):
                return key
    return sorted(candidate.keys)[0] if candidate.keys else f"title:{sorted(candidate.titles)[0]}"
