"""The merged list behind get_citations and get_references when the citation graph reads more than S2.

A paper's list is read once as one window: the first ``MAX_SCAN`` rows of S2's list merged with what OpenAlex,
Crossref, Europe PMC and INSPIRE-HEP list (scholar.services.citation_graph; one row per work, each naming the
sources that list it), S2's rows first in S2's order, then each other source's newcomers. Pages are cut from the
window by offset, and the complete window is cached (namespace ``list``), so later pages ask nobody. When S2's
list is longer than the window, offsets past the window continue S2's own list (``s2_offset``). A window some
source failed to give is used for this answer only, never cached.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, Field

from scholar.core.errors import NotFoundError
from scholar.core.records import FailedSource, Paper
from scholar.services.citation_graph import enabled, neighbourhood, seed_of
from scholar.services.paper_lookup import explain_missing
from scholar.store.cache import Cache

Kind = Literal["citations", "references"]
MAX_SCAN = 1000


class Window(BaseModel):
    """One paper's merged list: its rows, the sources of each row, and how S2's list goes on past it."""

    papers: list[Paper] = Field(default_factory=list)
    edge_sources: list[list[str]] = Field(default_factory=list)
    s2_rows: int = 0  # rows of S2's list inside the window
    s2_more: bool = False  # S2's list goes on past the window
    sources: list[str] = Field(default_factory=list)
    failed_sources: list[FailedSource] = Field(default_factory=list)

    def s2_offset(self, offset: int) -> int:
        """Where an offset past the window falls in S2's own list."""
        return offset - len(self.papers) + self.s2_rows


async def window(kind: Kind, raw: str, key: str | None, fields: Sequence[str], *, tool: str, cache: Cache) -> Window:
    """The merged window of ``kind`` for the paper ``raw`` (S2 form ``key``), cached when every source answered.

    Raises:
        NotFoundError / UnavailableError: no graph source has a record of the paper (as ``explain_missing``); one
            that has a record and lists nothing answers an empty list.
        RateLimitedError / UpstreamError: every source that could answer failed (the first one's error).
    """
    ckey = f"window:{kind}:{key or raw}:{','.join(sorted(fields))}:{','.join(enabled())}"
    cached = await cache.aget("list", ckey)
    if cached is not None:
        return Window.model_validate(cached)
    hood = await neighbourhood(seed_of(raw, key), kind, s2_fields=fields, s2_limit=MAX_SCAN)
    if not hood.links and hood.errors:
        raise hood.errors[0]
    if not hood.links and not hood.known_by:
        err = NotFoundError(f"no source lists {kind} of {raw!r}", source="s2")
        raise await explain_missing(raw, err, tool=tool, what=f"its {kind}", cache=cache) from err
    s2_rows = sum(1 for link in hood.links if "s2" in link.sources)
    result = Window(
        papers=[link.paper for link in hood.links],
        edge_sources=[link.sources for link in hood.links],
        s2_rows=s2_rows,
        s2_more="s2" in hood.incomplete,
        sources=hood.listed_by or ["s2"],
        failed_sources=hood.failed,
    )
    if not hood.failed:
        await cache.aput("list", ckey, result.model_dump(mode="json"))
    return result
