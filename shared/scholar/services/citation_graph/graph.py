"""One citation graph: a paper's references or citations from every source that lists them, merged into one list.

The sources are read side by side (each request still waits for its source's shared pace, scholar.sources.http)
within a time budget; their rows are merged by the identity rules search uses (scholar.core.paper_pool: a shared
identifier, else the same title with consistent year and first author), so a work named by three sources is one
``Link`` whose ``sources`` names all three. A source that fails or runs out of time is in ``failed`` and the answer
is partial: callers cache nothing partial. A seed known to S2 by its S2 id alone first asks S2 for its other
identifiers (the sources that cannot read S2 ids need them).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Collection, Sequence
from dataclasses import dataclass, field

from scholar.core.config import get_settings
from scholar.core.errors import NotFoundError, ScholarError
from scholar.core.paper_mapping import from_s2
from scholar.core.paper_pool import PRIORITY, Pool
from scholar.core.records import FailedSource, Paper
from scholar.services.citation_graph.readers import OTHERS, Kind, Listed, read_s2
from scholar.services.citation_graph.seed import Seed
from scholar.sources import s2

SOURCES = ("s2", *OTHERS)
# Rows read from each source other than S2 for one paper and direction (OpenAlex: 4 OR-filter requests at most).
OTHER_LIMIT = 200
TIME_BUDGET_S = 15.0
_RANK = {name: i for i, name in enumerate(PRIORITY)}


@dataclass
class Link:
    """One neighbour: the merged record, and the sources whose lists name this edge."""

    paper: Paper
    sources: list[str]


@dataclass
class Neighbourhood:
    """What the sources listed for one seed and direction."""

    links: list[Link] = field(default_factory=list)
    failed: list[FailedSource] = field(default_factory=list)
    complete: bool = True  # every source's whole list was read
    s2_known: bool = False  # S2 has a record of the seed
    listed_by: list[str] = field(default_factory=list)
    known_by: list[str] = field(default_factory=list)  # sources with a record of the seed, listing or not
    requests: int = 0
    incomplete: list[str] = field(default_factory=list)  # sources whose list was longer than read
    errors: list[ScholarError] = field(default_factory=list)  # what ``failed`` says, to raise when nothing answered


def enabled() -> tuple[str, ...]:
    """The sources the settings let the graph read (``SCHOLAR_CITATION_SOURCES``; all by default), in order."""
    chosen = get_settings().citation_sources
    return tuple(name for name in SOURCES if chosen is None or name in chosen)


def _failure(err: ScholarError, source: str) -> FailedSource:
    return FailedSource(source=err.source or source, code=err.code, status=err.status, message=err.message)


async def _learn_from_s2(seed: Seed) -> None:
    """Add the identifiers S2 holds for a seed given by its S2 id (a failure leaves the seed as it was)."""
    try:
        seed.learn(from_s2(await s2.get_paper(seed.s2_key or "", ("externalIds",)), ("externalIds",)))
    except ScholarError:
        return  # S2's own list read reports S2's failure; the others then start from what the caller gave


async def neighbourhood(
    seed: Seed,
    kind: Kind,
    *,
    sources: Collection[str] | None = None,
    s2_fields: Sequence[str] = ("paperId", "externalIds", "title", "year"),
    s2_limit: int = 1000,
    limit: int = OTHER_LIMIT,
    time_budget_s: float = TIME_BUDGET_S,
) -> Neighbourhood:
    """The merged references (``kind="references"``) or citations of ``seed`` from ``sources``.

    Never raises for a source: failures and time-outs land in ``failed``.
    """
    sources = enabled() if sources is None else sources
    deadline = time.monotonic() + time_budget_s
    out = Neighbourhood()
    jobs: dict[asyncio.Task[Listed], str] = {}
    if "s2" in sources and seed.s2_key:
        jobs[asyncio.ensure_future(read_s2(seed, kind, s2_limit, s2_fields))] = "s2"
    others = [name for name in OTHERS if name in sources]
    if others and seed.s2_key and not seed.ids and not seed.known:
        await _within(_learn_from_s2(seed), deadline)
        out.requests += 1
    for name in others:
        jobs[asyncio.ensure_future(OTHERS[name](seed, kind, limit))] = name
    done, pending = await asyncio.wait(jobs, timeout=max(0.0, deadline - time.monotonic())) if jobs else (set(), set())
    for job in pending:
        job.cancel()
        out.failed.append(FailedSource(source=jobs[job], code="timeout", message=f"no answer in {time_budget_s:g} s"))
    if pending:
        await asyncio.gather(*pending, return_exceptions=True)
    listed: dict[str, Listed] = {}
    for job in done:
        name = jobs[job]
        try:
            listed[name] = job.result()
            out.requests += listed[name].requests
        except NotFoundError:
            out.requests += 1
            continue  # the source has no record of the paper: it lists nothing
        except ScholarError as err:
            out.requests += 1
            out.failed.append(_failure(err, name))
            out.errors.append(err)
        if name == "s2" and name in listed:
            out.s2_known = True
    out.failed.sort(key=lambda f: _RANK.get(f.source, len(_RANK)))
    out.complete = not out.failed and all(part.complete for part in listed.values())
    out.links = merge({name: listed[name].papers for name in SOURCES if name in listed})
    out.incomplete = [name for name in SOURCES if name in listed and not listed[name].complete]
    out.errors.sort(key=lambda e: _RANK.get(e.source or "", len(_RANK)))
    out.known_by = [name for name in SOURCES if name in listed and listed[name].known]
    out.listed_by = [name for name in SOURCES if listed.get(name) and listed[name].papers]
    return out


async def _within(step: Awaitable[None], deadline: float) -> None:
    try:
        await asyncio.wait_for(step, timeout=max(0.0, deadline - time.monotonic()))
    except TimeoutError:
        return  # the readers then start from what the caller gave; the time budget is spent anyway


def merge(lists: dict[str, list[Paper]]) -> list[Link]:
    """One link per work however many lists name it, in the first list's order, then each next list's newcomers."""
    pool = Pool()
    for name, papers in lists.items():
        for paper in papers:
            pool.add(paper, name)
    return [Link(c.record(), sorted(c.found_by, key=lambda s: _RANK.get(s, len(_RANK)))) for c in pool.alive()]
