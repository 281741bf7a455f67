"""Finding a caller's items by the identifiers a caller has at hand: item ids or any paper identifier.

An item id is looked up as it is. A paper identifier is first tried as the item's own identity (the DOI or
arXiv id it was added by); only when that misses is the paper resolved (through the record cache that
adding it filled, so usually without an upstream request) to its canonical identity, and looked up again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

from scholar.core.errors import NOT_FOUND, RATE_LIMITED, InvalidArgumentError, ScholarError
from scholar.services.library.keep import resolve_item
from scholar.services.paper_lookup import parse_identifier
from scholar.store.library.models import LibraryItem, is_item_id, item_id_for
from scholar.store.library.table import LibraryStore

__all__ = ["Found", "find_items"]


@dataclass(frozen=True)
class Found:
    """What one identifier names: the caller's item, or why there is none."""

    identifier: str
    item: LibraryItem | None = None
    status: str = "ok"  # ok | not_found | invalid_id | upstream_error | rate_limited
    message: str | None = None
    error: ScholarError | None = None  # what resolving the identifier raised, when that is why there is no item


def _status_of(err: ScholarError) -> str:
    if isinstance(err, InvalidArgumentError):
        return "invalid_id"
    if err.code == NOT_FOUND:
        return "not_found"
    return "rate_limited" if err.code == RATE_LIMITED else "upstream_error"


async def find_items(store: LibraryStore, identifiers: Sequence[str]) -> list[Found]:
    """One ``Found`` per identifier, in order (a repeated identifier is answered each time)."""
    direct: dict[str, str] = {}
    failed: dict[str, Found] = {}
    for identifier in identifiers:
        if is_item_id(identifier):
            direct[identifier] = identifier.strip()
            continue
        try:
            direct[identifier] = item_id_for(parse_identifier(identifier).cache_key())
        except InvalidArgumentError as err:
            failed[identifier] = Found(identifier, status="invalid_id", message=err.message, error=err)
    items = await store.aget_many(list(dict.fromkeys(direct.values())))
    missing = [i for i in dict.fromkeys(direct) if direct[i] not in items and not is_item_id(i)]
    resolved = await asyncio.gather(*(resolve_item(i) for i in missing), return_exceptions=True)
    canonical: dict[str, str] = {}
    for identifier, outcome in zip(missing, resolved, strict=True):
        if isinstance(outcome, ScholarError):
            failed[identifier] = Found(identifier, status=_status_of(outcome), message=outcome.message, error=outcome)
        elif isinstance(outcome, BaseException):
            raise outcome
        else:
            canonical[identifier] = outcome[0]
    if canonical:
        items |= await store.aget_many([c for c in dict.fromkeys(canonical.values()) if c not in items])
    out = []
    for identifier in identifiers:
        if identifier in failed:
            out.append(failed[identifier])
            continue
        item = items.get(canonical.get(identifier) or direct[identifier])
        out.append(Found(identifier, item=item) if item else
                   Found(identifier, status="not_found", message="not in your library"))
    return out
