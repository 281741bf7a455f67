"""The merged records of recent search answers, where every family reads them (seed 003: "reads and downloads
first use the merged record from a recent result").

The research search keeps the merged record of every result it hands out under each of the record's identifier
keys (``doi:…``, ``arxiv:…``, ``s2:…``, ``openalex:…``, ``pmid:…`` …) in the CacheTable namespace ``recent`` for
``RECENT_TTL_S``, so a follow-up call by any of the ids a result listed resolves without an upstream request, in
whichever function it runs. Public metadata only: keyed by identifier, bound to no caller.
"""

from __future__ import annotations

from collections.abc import Iterable

from scholar.core.ids import record_keys
from scholar.core.records import Paper
from scholar.store.cache import NAMESPACE_TTL, Cache

NAMESPACE = "recent"
RECENT_TTL_S = NAMESPACE_TTL[NAMESPACE]


def keys_of(paper: Paper) -> set[str]:
    """The identifier keys a record is kept under."""
    return record_keys(paper.paperId, paper.externalIds or {})


async def remember(papers: Iterable[Paper], cache: Cache | None = None) -> int:
    """Keep each record under every one of its identifier keys; return how many keys were written.

    A key two records share (one paper found twice) keeps the first record given: callers pass their best first.
    """
    values: dict[str, object] = {}
    for paper in papers:
        record = paper.model_dump(mode="json")
        for key in sorted(keys_of(paper)):
            values.setdefault(key, record)
    await (cache or Cache()).aput_many(NAMESPACE, values)
    return len(values)


async def recall(key: str, cache: Cache | None = None) -> Paper | None:
    """The recent merged record kept under ``key`` (``kind:value``), or None."""
    found = await (cache or Cache()).aget(NAMESPACE, key)
    return Paper.model_validate(found) if isinstance(found, dict) else None


async def recall_many(keys: Iterable[str], cache: Cache | None = None) -> dict[str, Paper]:
    """The recent merged records kept under any of ``keys`` (one batch read)."""
    found = await (cache or Cache()).aget_many(NAMESPACE, keys)
    return {key: Paper.model_validate(value) for key, value in found.items() if isinstance(value, dict)}
