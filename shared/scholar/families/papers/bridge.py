"""find_bridge_papers: the shortest citation path of at most ``max_depth`` hops, searched from both ends.

Each round expands the whole current level of the smaller side and checks the new nodes against
everything the other side has reached; the first meeting is a shortest path, and the search stops
once the two depths add up to ``max_depth`` — so a path of exactly ``max_depth`` hops is found and
a longer one never is. Searching from both ends reaches depth d/2 on each side instead of d on one.
Budgets (expansions per level, in total, time) make ``stats.exhaustive`` false when they cut the search.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

from scholar.core.budget import RESERVE, json_chars, shorten_for_list
from scholar.core.catalogue import MAX_RESULT_CHARS
from scholar.core.errors import NotFoundError, ScholarError
from scholar.core.ids import parse_paper_id
from scholar.core.paper_mapping import from_s2
from scholar.core.records import Paper
from scholar.families.papers.cache_keys import cache_key
from scholar.families.papers.citations import graph_key
from scholar.families.papers.fields import COMPACT
from scholar.families.papers.neighbours import GraphReader, Kind, is_s2_id
from scholar.families.papers.spec_graph import BridgeStats, FindBridgePapersInput, FindBridgePapersResult, GraphEdge
from scholar.services import citation_graph
from scholar.services.paper_lookup import explain_missing
from scholar.store.cache import Cache

MAX_LEVEL_EXPANSIONS = 200
MAX_EXPANSIONS = 600
TIME_BUDGET_S = 20.0
TOOL = "find_bridge_papers"
PATH_FIELDS = (*COMPACT, "externalIds", "authors")


@dataclass
class _Side:
    """One end of the search: parents (node → (parent, citing, cited)), depths, current frontier."""

    kinds: tuple[Kind, ...]
    parent: dict[str, tuple[str, str, str] | None]
    frontier: list[str]
    depth: int = 0
    reached: dict[str, int] = field(default_factory=dict)


def _sides(source: str, target: str, direction: str) -> tuple[_Side, _Side]:
    # references: source cites … cites target. Forward follows references, backward follows citations.
    forward: tuple[Kind, ...]
    backward: tuple[Kind, ...]
    if direction == "references":
        forward, backward = ("references",), ("citations",)
    elif direction == "citations":
        forward, backward = ("citations",), ("references",)
    else:
        forward = backward = ("citations", "references")
    return (
        _Side(forward, {source: None}, [source], reached={source: 0}),
        _Side(backward, {target: None}, [target], reached={target: 0}),
    )


class _Search:
    def __init__(self, reader: GraphReader, deadline: float) -> None:
        self.reader = reader
        self.deadline = deadline
        self.expanded = 0
        self.exhaustive = True

    async def grow(self, side: _Side) -> list[str]:
        """Expand the side's whole frontier (within budgets); return the newly reached nodes."""
        frontier = side.frontier
        allowed = min(MAX_LEVEL_EXPANSIONS, MAX_EXPANSIONS - self.expanded)
        if len(frontier) > allowed:
            frontier, self.exhaustive = frontier[: max(allowed, 0)], False
        jobs = {
            asyncio.ensure_future(self.reader.neighbours(pid, kind)): (pid, kind)
            for pid in frontier
            for kind in side.kinds
        }
        done, pending = await asyncio.wait(jobs, timeout=max(0.0, self.deadline - time.monotonic())) if jobs else (
            set(), set())
        for job in pending:
            job.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
            self.exhaustive = False
        self.expanded += len(frontier)
        order = {pid: i for i, pid in enumerate(frontier)}
        new: list[str] = []
        for job in sorted(done, key=lambda j: (order[jobs[j][0]], jobs[j][1])):
            pid, kind = jobs[job]
            found = job.result()
            if found is None or not found.complete:
                self.exhaustive = False
            for other in found.ids if found else []:
                if other in side.parent:
                    continue
                citing, cited = (other, pid) if kind == "citations" else (pid, other)
                side.parent[other] = (pid, citing, cited)
                side.reached[other] = side.depth + 1
                new.append(other)
        side.depth += 1
        side.frontier = new
        return new


def _chain(side: _Side, node: str) -> list[tuple[str, str, str]]:
    """Hops from the side's origin to ``node`` as (node, citing, cited), origin first."""
    hops = []
    while (step := side.parent[node]) is not None:
        hops.append((node, step[1], step[2]))
        node = step[0]
    return list(reversed(hops))


async def _keys(args: FindBridgePapersInput, merged: bool) -> list[str]:
    """The S2 forms of source and target; with the merged graph, one S2 cannot be asked about keeps its own key."""
    keys = []
    for raw, name in ((args.source_id, "source_id"), (args.target_id, "target_id")):
        keys.append(await graph_key(raw, name, tool=TOOL, merged=merged) or parse_paper_id(raw).cache_key())
    return keys


async def _resolve(args: FindBridgePapersInput, reader: GraphReader, keys: list[str]) -> tuple[str, str]:
    if all(is_s2_id(k) for k in keys):
        return keys[0], keys[1]
    try:
        rows = await reader.batch([k for k in keys if not k.startswith(("openalex:", "inspire:"))], ("paperId",))
    except ScholarError:
        if not reader.merged:
            raise
        rows = {}  # the other sources may still know both ends
    ids = []
    for key, raw, name in zip(keys, (args.source_id, args.target_id), ("source_id", "target_id"), strict=True):
        row = rows.get(key)
        if not row and reader.merged:
            ids.append(reader.seed_node(parse_paper_id(raw).cache_key()))
            continue
        if not row:
            err = NotFoundError(f"Semantic Scholar has no paper for {name} {raw!r}", source="s2")
            raise await explain_missing(raw, err, tool=TOOL, what="its citation links")
        ids.append(row["paperId"])
    return ids[0], ids[1]


async def find_bridge(
    args: FindBridgePapersInput, cache: Cache | None = None, *, time_budget_s: float = TIME_BUDGET_S
) -> FindBridgePapersResult:
    """The shortest path between two papers within ``max_depth`` hops (complete answers cached a day).

    Raises:
        InvalidArgumentError: a bad identifier.
        NotFoundError: source or target does not resolve.
        RateLimitedError / UpstreamError: resolving them failed.
    """
    cache = cache or Cache()
    sources = citation_graph.enabled()
    keys = await _keys(args, sources != ("s2",))
    extra = {"graph": ",".join(sources)} if sources != ("s2",) else {}
    key = cache_key("bridge", args, source_id=keys[0], target_id=keys[1], **extra)
    cached = await cache.aget("graph", key)
    if cached is not None:
        return FindBridgePapersResult.model_validate(cached)
    result = await _search(args, keys, time_budget_s)
    if not result.partial and (result.found or result.stats.exhaustive):
        await cache.aput("graph", key, result.model_dump(mode="json"))
    return result


async def _search(args: FindBridgePapersInput, keys: list[str], time_budget_s: float) -> FindBridgePapersResult:
    began = time.monotonic()
    reader = GraphReader()
    source, target = await _resolve(args, reader, keys)
    search = _Search(reader, began + time_budget_s)
    forward, backward = _sides(source, target, args.direction)
    meeting: str | None = source if source == target else None
    while meeting is None and forward.depth + backward.depth < args.max_depth:
        if not forward.frontier and not backward.frontier:
            break
        grow, other = (forward, backward) if _smaller(forward, backward) else (backward, forward)
        new = await search.grow(grow)
        meets = [n for n in new if n in other.parent]
        if meets:
            meeting = min(meets, key=lambda n: other.reached[n])
        if time.monotonic() >= search.deadline:
            search.exhaustive = False
            break
    stats_base = {"expanded": search.expanded, "visited": len(forward.parent) + len(backward.parent) - 1}
    failures = reader.failed_sources()
    if meeting is None:
        return FindBridgePapersResult(
            found=False,
            stats=_stats(search, reader, began, **stats_base),
            partial=bool(failures),
            failed_sources=failures,
        )
    hops = _chain(forward, meeting) + list(reversed(_chain(backward, meeting)))
    order = [source] + [h[0] for h in _chain(forward, meeting)] + [p for p in _backward_nodes(backward, meeting)]
    rows = await reader.hydrate(order, PATH_FIELDS)
    path = fit_path([from_s2(rows[p], PATH_FIELDS) if p in rows else Paper(paperId=p, sources=["s2"]) for p in order])
    edges = [GraphEdge(source=citing, target=cited, sources=reader.sources_of(citing, cited))
             for _, citing, cited in hops]
    return FindBridgePapersResult(
        found=True,
        length=len(order) - 1,
        path=path,
        hops=edges,
        stats=_stats(search, reader, began, **stats_base),
        partial=bool(reader.failed_sources()),
        failed_sources=reader.failed_sources(),
    )


def fit_path(path: list[Paper]) -> list[Paper]:
    """The path whole, each paper longer than its share of the size budget (a collaboration's thousands of authors)
    shortened as in lists (authorCount says so)."""
    share = (MAX_RESULT_CHARS - RESERVE) // max(1, len(path))
    return [p if json_chars(p) <= share else shorten_for_list(p) for p in path]


def _backward_nodes(side: _Side, meeting: str) -> list[str]:
    """Nodes after the meeting point on the way to the target."""
    out = []
    node = meeting
    while (step := side.parent[node]) is not None:
        node = step[0]
        out.append(node)
    return out


def _smaller(forward: _Side, backward: _Side) -> bool:
    if not backward.frontier:
        return True
    if not forward.frontier:
        return False
    return len(forward.frontier) <= len(backward.frontier)


def _stats(search: _Search, reader: GraphReader, began: float, *, expanded: int, visited: int) -> BridgeStats:
    return BridgeStats(
        expanded=expanded,
        visited=visited,
        exhaustive=search.exhaustive and not reader.failures,
        elapsed_s=round(time.monotonic() - began, 3),
        upstream_requests=reader.requests,
    )
