"""Bringing a caller's full-text index up to date with the library store, within a deadline.

A build goes through the items in id order and records how far it got; a catch-up applies the change log in
slices and records the revision each slice reaches. Work cut off by the deadline resumes on the next call
(``CatchUp.complete`` is False until then).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice
from typing import Protocol

from scholar.services.library.index import BodyReader, LibraryIndex, past
from scholar.store.library.models import LibraryItem

# A change feed longer than this is read with get_many in slices of this size.
GET_MANY_CHUNK = 100
# Items per transaction while building, and revisions per slice of a catch-up: the deadline is checked between.
BUILD_BATCH = 25
REVISIONS_PER_SLICE = 10


class IndexSource(Protocol):
    """What the index reads from the library store (scholar.store.library.table.LibraryStore has these)."""

    def revision(self) -> int: ...

    def get_many(self, ids: list[str]) -> dict[str, LibraryItem]: ...

    def changes_since(self, rev: int, until: int | None = None) -> tuple[list[str], int]: ...

    def iter_items(self, after: str | None = None) -> Iterator[LibraryItem]: ...


@dataclass(frozen=True)
class CatchUp:
    """What one catch-up did: whether the index changed, and whether it now reflects the whole library."""

    changed: bool
    complete: bool
    indexed: int = 0  # items in the index when it stopped
    built: bool = False  # it built (or went on building) from every item
    applied: int = 0  # items of the change log it upserted or dropped


def catch_up(index: LibraryIndex, store: IndexSource, bodies: BodyReader, deadline: float | None = None) -> CatchUp:
    """Bring ``index`` towards the store's current revision, stopping at ``deadline``; say what it did.

    A new index is built from every item in id order, from the revision read *before* listing them: a write made
    while listing is applied again by the catch-up that follows, which is harmless (upserts are idempotent). A
    build or catch-up cut off by the deadline keeps what it did (the last id built, the revision reached) and the
    next call resumes there. At least one batch is done per call, so every call makes progress.
    """
    changed = built = False
    applied = 0
    if index.revision is None:
        built = True
        if index.build is None:
            index.start_build(store.revision())
        remaining = store.iter_items(after=(index.build or {}).get("after"))
        while True:
            batch = list(islice(remaining, BUILD_BATCH))
            if not batch:
                break
            index.apply(batch, (), None, bodies, built_after=batch[-1].item_id)
            changed = True
            if len(batch) < BUILD_BATCH:
                break
            if past(deadline):
                return CatchUp(changed=True, complete=False, indexed=index.count(), built=True)
        index.finish_build()
        changed = True
    while True:
        revision = index.revision or 0
        ids, reached = store.changes_since(revision, until=revision + REVISIONS_PER_SLICE)
        if reached < revision:
            # The library is behind its index (deleted and started again): nothing in the index can be trusted.
            index.clear()
            return catch_up(index, store, bodies, deadline)
        if reached == revision:
            return CatchUp(changed=changed, complete=True, indexed=index.count(), built=built, applied=applied)
        ids = list(dict.fromkeys(ids))
        found: dict[str, LibraryItem] = {}
        for start in range(0, len(ids), GET_MANY_CHUNK):
            found.update(store.get_many(ids[start:start + GET_MANY_CHUNK]))
        index.apply(found.values(), [i for i in ids if i not in found], reached, bodies)
        changed = True
        applied += len(ids)
        if past(deadline):
            return CatchUp(changed=True, complete=index.revision == store.revision(), indexed=index.count(),
                           built=built, applied=applied)
