"""Following the seeds' references, citations and related work through the citation graph's batch reads.

One request per source and hop, never one per paper (scholar.services.citation_graph.many): S2's
``POST /paper/batch`` with nested ``references.*`` and ``citations.*`` fields answers every seed's neighbours at
once (and completes the seeds' own records), OpenAlex answers each hop for all seeds with one OR filter
(``cited_by:W1|W2…``, ``cites:W1|W2…``), and ``POST /recommendations/v1/papers`` takes all seeds as positive
examples; all run side by side, so the expansion waits for the slowest of them, not their sum.
The intent chooses the hops: foundational work lies in the seeds' references, recent work in their
citations (newest first).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from scholar.core.errors import ScholarError
from scholar.core.ids import InvalidIdError, parse_paper_id
from scholar.core.paper_mapping import from_s2
from scholar.core.paper_pool import Candidate, Pool
from scholar.core.records import FailedSource
from scholar.families.research.search.fanout import Queues
from scholar.services import citation_graph
from scholar.services.citation_graph.many import read_many
from scholar.sources import s2
from scholar.sources.paper_search import S2_FIELDS

SEEDS = 5
PER_SEED = 15
RECOMMENDATIONS = 20
NESTED = ("paperId", "title", "year", "venue", "citationCount", "externalIds", "authors", "publicationDate",
          "isOpenAccess")
HOPS: dict[str | None, tuple[str, ...]] = {
    None: ("references", "citations", "recommendations"),
    "foundational": ("references",),
    "recent": ("citations",),
    "survey": ("references", "recommendations"),
    "methods": ("references", "citations", "recommendations"),
    "datasets": ("citations", "recommendations"),
}
_S2_PREFIX = {"DOI": "doi", "ArXiv": "arxiv", "PubMed": "pmid", "PubMedCentral": "pmcid", "CorpusId": "corpusid"}


@dataclass
class Expansion:
    """What the expansion did: its hops, how many new works it added, and what failed."""

    hops: list[str] = field(default_factory=list)
    seeds: int = 0
    added: int = 0
    failed: list[FailedSource] = field(default_factory=list)


def s2_key(candidate: Candidate) -> str | None:
    """The form S2's batch accepts for a candidate (its S2 id, else DOI, arXiv, PMID …), or None."""
    if s2_id := candidate.external.get("S2"):
        return s2_id
    for name, prefix in _S2_PREFIX.items():
        if value := candidate.external.get(name):
            try:
                return parse_paper_id(f"{prefix}:{value}").s2_key()
            except InvalidIdError:
                continue
    return None


def _neighbours(row: dict[str, Any], relation: str, intent: str | None) -> list[dict[str, Any]]:
    items = [x for x in row.get(relation) or [] if isinstance(x, dict) and x.get("title")]
    if relation == "citations" and intent == "recent":
        items.sort(key=lambda x: x.get("year") or 0, reverse=True)
    return items[:PER_SEED]


def _failed(err: ScholarError, hop: str) -> FailedSource:
    return FailedSource(source=err.source or "s2", code=err.code, status=err.status, message=f"{hop}: {err.message}")


async def expand(pool: Pool, seeds: Sequence[Candidate], *, intent: str | None, queues: Queues) -> Expansion:
    """Add the seeds' neighbours to ``pool`` (``finding=False``: expansion never counts as a source agreeing)."""
    hops = HOPS[intent]
    chosen = list(seeds[:SEEDS])
    keyed = [(c, k) for c in chosen if (k := s2_key(c))]
    openalex_ids = [c.external["OpenAlex"] for c in chosen if c.external.get("OpenAlex")]
    out = Expansion(hops=list(hops), seeds=len(keyed) or len(openalex_ids))
    if not keyed and not openalex_ids:
        return out
    before = len(pool.alive())
    relations = [h for h in hops if h in ("references", "citations")]
    fields = list(S2_FIELDS) + [f"{rel}.{name}" for rel in relations for name in NESTED]
    keys = [k for _, k in keyed]
    sources = citation_graph.enabled()

    async def related() -> list[Any]:
        if "recommendations" not in hops or not keys:
            return []
        try:  # the seeds' keys as positive examples: the two hops need not wait for each other
            return await queues.call("s2", lambda: s2.recommend_from_lists(keys, [], NESTED, limit=RECOMMENDATIONS))
        except ScholarError as err:
            out.failed.append(_failed(err, "recommendations"))
            return []

    many, recommended = await asyncio.gather(
        read_many(keys, openalex_ids, relations, s2_fields=fields, per_hop=PER_SEED * max(1, len(openalex_ids)),
                  sources=sources, run=queues.call),
        related(),
    )
    out.failed.extend(many.failed)
    for row in many.s2_rows:
        if not isinstance(row, dict):
            continue
        pool.add(from_s2(row, S2_FIELDS), "s2", finding=False)  # completes the seed: a lookup, not agreement
        for relation in relations:
            for item in _neighbours(row, relation, intent):
                pool.add(from_s2(item, NESTED), "s2", finding=False, via=relation)
    for relation, papers in many.openalex.items():
        for paper in papers:
            pool.add(paper, "openalex", finding=False, via=relation)
    for item in recommended:
        if isinstance(item, dict) and item.get("title"):
            pool.add(from_s2(item, NESTED), "s2", finding=False, via="recommendations")
    out.added = len(pool.alive()) - before
    return out
