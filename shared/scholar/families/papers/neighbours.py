"""Reading the citation graph for traversals: neighbour ids, batch hydration, seed resolution, request counts.

Neighbour lists ask S2 for ``paperId`` only; the papers that end up in an answer are hydrated with
``/paper/batch`` (500 ids a request). So a traversal costs one request per expanded node plus
⌈N/500⌉, the least the API allows. Expansions run concurrently; each request still waits for the
shared pace (scholar.sources.http), so concurrency hides latency without exceeding the published rate.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from scholar.core.errors import NotFoundError, ScholarError
from scholar.core.records import FailedSource
from scholar.families.papers.budget import failed
from scholar.families.papers.citations import LISTINGS, Kind
from scholar.sources import s2

# S2's largest page for citation and reference lists.
MAX_PAGE = 1000
_HEX = re.compile(r"^[0-9a-f]{40}$")


def is_s2_id(key: str) -> bool:
    return bool(_HEX.match(key))


@dataclass
class Neighbours:
    ids: list[str]
    complete: bool  # False when S2 has more than one page


@dataclass
class GraphReader:
    """One traversal's access to S2: counts requests, gathers failures, bounds concurrency."""

    concurrency: int = 8
    requests: int = 0
    failures: dict[tuple[str, str], FailedSource] = field(default_factory=dict)
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

        A paper S2 does not know has no neighbours. Failures are recorded, not raised.
        """
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
        """Like ``batch`` but failures are recorded and give an empty answer (the ids stay bare)."""
        try:
            found = await self.batch(ids, fields)
        except ScholarError as err:
            self._record(err)
            return {}
        return {k: v for k, v in found.items() if v}
