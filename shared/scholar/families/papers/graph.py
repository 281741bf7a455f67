"""get_citation_graph: breadth-first from 1–10 seeds, concurrent per level, with node and time budgets.

One identifier space: seeds given as DOI / arXiv / … are first mapped to their S2 paper id (one batch
request), so a seed and the same paper reached through the graph are one node. Without filters the
nodes are chosen in discovery order and hydrated once at the end (⌈N/500⌉ batch requests); with filters
each level's candidates are hydrated before choosing, since the filters need year, fields and counts.
Budgets end the walk with ``truncated: true`` and what was reached; nothing truncated by time or by a
failed source is cached.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from scholar.core.errors import NotFoundError, ScholarError
from scholar.core.ids import InvalidIdError, parse_paper_id
from scholar.core.paper_mapping import from_s2
from scholar.families.papers.budget import MAX_RESULT_CHARS
from scholar.families.papers.cache_keys import cache_key
from scholar.families.papers.citations import graph_key
from scholar.families.papers.filters import check_years, has_filters, passes
from scholar.families.papers.neighbours import MAX_PAGE, GraphReader, Kind, Neighbours, is_s2_id
from scholar.families.papers.spec_graph import (
    GetCitationGraphInput,
    GetCitationGraphResult,
    GraphEdge,
    GraphNode,
    GraphStats,
)
from scholar.services.citation_graph import SOURCES as citation_graph_sources_order
from scholar.services.citation_graph import enabled as citation_sources_enabled
from scholar.services.paper_lookup import explain_missing
from scholar.store.cache import Cache

NODE_FIELDS = ("paperId", "title", "year", "citationCount", "externalIds", "fieldsOfStudy", "authors")
TIME_BUDGET_S = 20.0
# Candidates hydrated per level when filtering (4 batch requests at most).
MAX_CANDIDATES = 2000
_TITLE_CHARS = 160


KINDS: dict[str, tuple[Kind, ...]] = {
    "citations": ("citations",), "references": ("references",), "both": ("citations", "references")}


def _node(paper_id: str, row: dict[str, Any] | None, depth: int) -> GraphNode:
    row = row or {}
    title = row.get("title")
    if title and len(title) > _TITLE_CHARS:
        title = title[: _TITLE_CHARS - 1] + "…"
    doi = (row.get("externalIds") or {}).get("DOI")
    authors = row.get("authors") or []
    return GraphNode(
        id=paper_id, title=title, year=row.get("year"), citationCount=row.get("citationCount"),
        doi=doi.lower() if doi else None, depth=depth, first_author=(authors[0] or {}).get("name") if authors else None,
    )


class _Walk:
    """The state of one traversal."""

    def __init__(self, args: GetCitationGraphInput, reader: GraphReader, deadline: float) -> None:
        self.args = args
        self.reader = reader
        self.deadline = deadline
        self.rows: dict[str, dict[str, Any] | None] = {}
        self.depth: dict[str, int] = {}
        self.edges: set[tuple[str, str]] = set()
        self.truncated_by: list[str] = []
        self.expanded = 0
        self.unexpanded = 0

    def stop(self, reason: str) -> None:
        if reason not in self.truncated_by:
            self.truncated_by.append(reason)

    async def expand(self, frontier: list[str]) -> list[tuple[str, Kind, Neighbours]]:
        """Read the neighbour lists of a level concurrently until the time budget runs out."""
        per_node = MAX_PAGE if has_filters(self.args) else min(MAX_PAGE, self.args.max_nodes)
        jobs = {
            asyncio.ensure_future(self.reader.neighbours(pid, kind, per_node)): (pid, kind)
            for pid in frontier
            for kind in KINDS[self.args.direction]
        }
        remaining = self.deadline - time.monotonic()
        done, pending = await asyncio.wait(jobs, timeout=max(0.0, remaining)) if jobs else (set(), set())
        for job in pending:
            job.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
            self.stop("time_budget")
            self.unexpanded += len({jobs[j][0] for j in pending})
        out = []
        for job in done:
            pid, kind = jobs[job]
            found = job.result()
            if found is None:
                self.stop("failed_source")
                continue
            out.append((pid, kind, found))
        self.expanded += len({jobs[j][0] for j in done})
        # Keep discovery order stable whatever order the requests finished in.
        order = {pid: i for i, pid in enumerate(frontier)}
        out.sort(key=lambda item: (order[item[0]], item[1]))
        return out

    async def level(self, frontier: list[str], depth: int) -> list[str]:
        """Expand one level; return the nodes it added."""
        found = await self.expand(frontier)
        candidates: list[str] = []
        links: list[tuple[str, str]] = []
        for pid, kind, listed in found:
            for other in listed.ids:
                links.append((other, pid) if kind == "citations" else (pid, other))
                if other not in self.depth:
                    candidates.append(other)
        candidates = list(dict.fromkeys(candidates))
        room = self.args.max_nodes - len(self.depth)
        if has_filters(self.args) and candidates:
            hydrated = await self.reader.hydrate(candidates[:MAX_CANDIDATES], NODE_FIELDS)
            self.rows.update(hydrated)
            candidates = [c for c in candidates[:MAX_CANDIDATES] if c in hydrated and passes(hydrated[c], self.args)]
        if len(candidates) > room:
            candidates = candidates[: max(room, 0)]
            self.stop("max_nodes")
        for pid in candidates:
            self.depth[pid] = depth
        self.edges.update((a, b) for a, b in links if a in self.depth and b in self.depth and a != b)
        return candidates


async def _seed_keys(args: GetCitationGraphInput, merged: bool) -> list[str]:
    """Each seed's S2 form; with the merged graph, a seed S2 cannot be asked about keeps its own key."""
    keys = []
    for i, raw in enumerate(args.seed_ids):
        key = await graph_key(raw, f"seed_ids[{i}]", tool="get_citation_graph", merged=merged)
        keys.append(key or parse_paper_id(raw).cache_key())
    return keys


async def _seeds(args: GetCitationGraphInput, reader: GraphReader,
                 keys: list[str]) -> tuple[list[str], list[str], dict[str, Any]]:
    """Map the seeds to S2 ids: (ids in order, unresolved inputs, rows already known)."""
    if all(is_s2_id(k) for k in keys) and not reader.merged:
        return list(dict.fromkeys(keys)), [], {}
    try:
        rows = await reader.batch([k for k in keys if not k.startswith(_NOT_S2)], NODE_FIELDS)
    except ScholarError:
        if not reader.merged:
            raise
        rows = {}  # the other sources may still know the seeds
    ids: list[str] = []
    unresolved: list[str] = []
    known: dict[str, Any] = {}
    for raw, key in zip(args.seed_ids, keys, strict=True):
        row = rows.get(key)
        if row and row.get("paperId"):
            ids.append(reader.node(from_s2(row, NODE_FIELDS)) if reader.merged else row["paperId"])
            known[row["paperId"]] = row
        elif reader.merged and (node := key if is_s2_id(key) else _seed_node(reader, raw)):
            ids.append(node)  # S2 did not answer for it: the other sources may know it
        else:
            unresolved.append(raw)
    return list(dict.fromkeys(ids)), unresolved, known


# Seed keys S2 cannot be asked about (``_seed_keys`` keeps them as the identifier's own key).
_NOT_S2 = ("openalex:", "inspire:")


def _seed_node(reader: GraphReader, raw: str) -> str | None:
    """The node of a seed S2 does not know, named by its identifier (the merged graph's other sources may)."""
    try:
        return reader.seed_node(parse_paper_id(raw).cache_key())
    except InvalidIdError:
        return None


async def citation_graph(
    args: GetCitationGraphInput,
    cache: Cache | None = None,
    *,
    time_budget_s: float = TIME_BUDGET_S,
    concurrency: int = 8,
) -> GetCitationGraphResult:
    """The graph around the seeds (``concurrency=1`` gives the serial baseline the benchmark compares with).

    Raises:
        InvalidArgumentError: a bad seed or year range.
        NotFoundError: no seed resolves.
        RateLimitedError / UpstreamError: resolving the seeds failed (nothing else to show).
    """
    check_years(args)
    began = time.monotonic()
    cache = cache or Cache()
    reader = GraphReader(concurrency=concurrency)
    seed_keys = await _seed_keys(args, reader.merged)
    extra = {"graph": ",".join(citation_sources_enabled())} if reader.merged else {}
    ckey = cache_key("graph", args, seed_ids=sorted(set(seed_keys)), **extra)
    cached = await cache.aget("graph", ckey)
    if cached is not None:
        return GetCitationGraphResult.model_validate(cached)
    walk = _Walk(args, reader, began + time_budget_s)
    seeds, unresolved, known = await _seeds(args, reader, seed_keys)
    if not seeds:
        err = NotFoundError(f"none of the seeds resolves: {', '.join(unresolved)}", source="s2")
        raise (await explain_missing(unresolved[0], err, tool="get_citation_graph", what="its citation graph")
               if len(unresolved) == 1 else err)
    walk.rows.update(known)
    for pid in seeds[: args.max_nodes]:
        walk.depth[pid] = 0
    frontier = list(walk.depth)
    for depth in range(1, args.depth + 1):
        if not frontier or walk.truncated_by:
            break
        frontier = await walk.level(frontier, depth)
    # Unfiltered nodes (and seeds given as S2 ids) are hydrated once, here.
    missing = [pid for pid in walk.depth if pid not in walk.rows]
    walk.rows.update(await reader.hydrate(missing, NODE_FIELDS))
    if all(walk.rows.get(s) is None for s in seeds) and not reader.failures and not walk.edges:
        raise NotFoundError(f"Semantic Scholar has none of the seeds: {', '.join(args.seed_ids)}", source="s2")
    result = _result(walk, seeds, unresolved, began)
    if not result.partial:
        await cache.aput("graph", ckey, result.model_dump(mode="json"))
    return result


def _result(walk: _Walk, seeds: list[str], unresolved: list[str], began: float) -> GetCitationGraphResult:
    nodes = [_node(pid, walk.rows.get(pid), d) for pid, d in walk.depth.items()]
    edges = [GraphEdge(source=a, target=b, sources=walk.reader.sources_of(a, b)) for a, b in sorted(walk.edges)]
    nodes, edges, omitted = _fit(nodes, edges, walk)
    failures = walk.reader.failed_sources()
    stats = GraphStats(
        total_nodes=len(nodes),
        total_edges=len(edges),
        depth_reached=max((n.depth for n in nodes), default=0),
        truncated=bool(walk.truncated_by),
        truncated_by=walk.truncated_by,
        expanded=walk.expanded,
        unexpanded=walk.unexpanded,
        edges_omitted=omitted,
        upstream_requests=walk.reader.requests,
        elapsed_s=round(time.monotonic() - began, 3),
    )
    partial = bool(failures) or "time_budget" in walk.truncated_by
    listed = {name for edge in edges for name in edge.sources or []}
    return GetCitationGraphResult(
        nodes=nodes, edges=edges, stats=stats, unresolved_seeds=unresolved, partial=partial, failed_sources=failures,
        sources=[name for name in citation_graph_sources_order if name in listed] or ["s2"],
    )


def _fit(nodes: list[GraphNode], edges: list[GraphEdge], walk: _Walk) -> tuple[list[GraphNode], list[GraphEdge], int]:
    """Drop edges, then the deepest nodes, until the answer fits the size budget."""
    budget = MAX_RESULT_CHARS - 3_000
    node_chars = [len(n.model_dump_json()) + 1 for n in nodes]
    edge_chars = 95 + (40 if walk.reader.merged else 0)  # two 40-hex ids and the keys (and the edge's sources)
    total_nodes = sum(node_chars)
    if total_nodes + edge_chars * len(edges) <= budget:
        return nodes, edges, 0
    walk.stop("size_budget")
    if total_nodes <= budget:
        keep = (budget - total_nodes) // edge_chars
        return nodes, edges[:keep], len(edges) - keep
    order = sorted(range(len(nodes)), key=lambda i: (nodes[i].depth, i))
    kept: set[int] = set()
    used = 0
    for i in order:
        if used + node_chars[i] > budget:
            break
        kept.add(i)
        used += node_chars[i]
    small = [n for i, n in enumerate(nodes) if i in kept]
    return small, [], len(edges)

