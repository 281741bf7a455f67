"""Following the seeds' references, citations and related work through Semantic Scholar's batch endpoints.

One request per hop, never one per paper: ``POST /paper/batch`` with nested ``references.*`` and
``citations.*`` fields answers every seed's neighbours at once (and completes the seeds' own records), and
``POST /recommendations/v1/papers`` takes all seeds as positive examples; the two run side by side.
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
    keyed = [(c, k) for c in seeds[:SEEDS] if (k := s2_key(c))]
    out = Expansion(hops=list(hops), seeds=len(keyed))
    if not keyed:
        return out
    before = len(pool.alive())
    relations = [h for h in hops if h in ("references", "citations")]
    fields = list(S2_FIELDS) + [f"{rel}.{name}" for rel in relations for name in NESTED]
    keys = [k for _, k in keyed]

    async def neighbours() -> list[Any]:
        try:
            return await queues.call("s2", lambda: s2.get_papers(keys, fields))
        except ScholarError as err:
            out.failed.append(_failed(err, "+".join(relations) or "seed lookup"))
            return []

    async def related() -> list[Any]:
        if "recommendations" not in hops:
            return []
        try:  # the seeds' keys as positive examples: the two hops need not wait for each other
            return await queues.call("s2", lambda: s2.recommend_from_lists(keys, [], NESTED, limit=RECOMMENDATIONS))
        except ScholarError as err:
            out.failed.append(_failed(err, "recommendations"))
            return []

    rows, recommended = await asyncio.gather(neighbours(), related())
    for row in rows:
        if not isinstance(row, dict):
            continue
        pool.add(from_s2(row, S2_FIELDS), "s2", finding=False)  # completes the seed: a lookup, not agreement
        for relation in relations:
            for item in _neighbours(row, relation, intent):
                pool.add(from_s2(item, NESTED), "s2", finding=False, via=relation)
    for item in recommended:
        if isinstance(item, dict) and item.get("title"):
            pool.add(from_s2(item, NESTED), "s2", finding=False, via="recommendations")
    out.added = len(pool.alive()) - before
    return out
