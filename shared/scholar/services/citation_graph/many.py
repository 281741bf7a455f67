"""Neighbours of several seeds at once, for search's expansion: one request per source and hop.

    s2        POST /paper/batch with nested ``references.*`` / ``citations.*`` fields: every seed's lists and the
              seeds' own records in one request (the caller picks each seed's top rows)
    openalex  one request per hop with an OR filter over the seeds' OpenAlex ids: ``cited_by:W1|W2…`` (works the
              seeds cite) and ``cites:W1|W2…`` (works citing them), most cited first

Both run side by side through the caller's ``run`` (search's per-source queues); each failure is returned as a
``FailedSource``, never raised. The other graph sources answer one paper a request, too slow for a search's
budget: the citation tools read them (``graph.neighbourhood``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from scholar.core.errors import ScholarError
from scholar.core.paper_mapping import from_openalex
from scholar.core.records import FailedSource, Paper
from scholar.services.citation_graph.readers import OPENALEX_SELECT
from scholar.sources import openalex, s2

Runner = Callable[[str, Callable[[], Awaitable[Any]]], Awaitable[Any]]
_OPENALEX_FILTER = {"references": "cited_by", "citations": "cites"}


async def _direct(source: str, call: Callable[[], Awaitable[Any]]) -> Any:
    return await call()


@dataclass
class Many:
    """What the sources answered: S2's seed records (nested lists included), OpenAlex's rows per hop, failures."""

    s2_rows: list[Any] = field(default_factory=list)
    openalex: dict[str, list[Paper]] = field(default_factory=dict)
    failed: list[FailedSource] = field(default_factory=list)


def _failed(err: ScholarError, source: str, hop: str) -> FailedSource:
    return FailedSource(source=err.source or source, code=err.code, status=err.status, message=f"{hop}: {err.message}")


async def read_many(
    s2_keys: Sequence[str],
    openalex_ids: Sequence[str],
    relations: Sequence[str],
    *,
    s2_fields: Sequence[str],
    per_hop: int,
    sources: Sequence[str],
    run: Runner = _direct,
) -> Many:
    """The seeds' neighbours over ``relations`` (``references`` / ``citations``) from S2 and OpenAlex."""
    out = Many()

    async def from_s2() -> None:
        if not s2_keys or "s2" not in sources:
            return
        try:
            out.s2_rows = await run("s2", lambda: s2.get_papers(list(s2_keys), s2_fields))
        except ScholarError as err:
            out.failed.append(_failed(err, "s2", "+".join(relations) or "seed lookup"))

    async def openalex_hop(relation: str) -> None:
        values = [f"{_OPENALEX_FILTER[relation]}:{'|'.join(openalex_ids[: openalex.OR_FILTER_MAX])}"]
        try:
            works = await run(
                "openalex", lambda: openalex.get_filtered(values[0], per_page=per_hop, select=OPENALEX_SELECT)
            )
        except ScholarError as err:
            out.failed.append(_failed(err, "openalex", relation))
            return
        out.openalex[relation] = [from_openalex(w) for w in works]

    hops = [openalex_hop(r) for r in relations if openalex_ids and "openalex" in sources]
    await asyncio.gather(from_s2(), *hops)
    return out
