"""Reading a JSONL library snapshot (scholar.services.library.export.to_jsonl) back into a caller's library.

Every line is validated before anything is written, so a bad line (named by its number; the header is
line 1) leaves the library untouched. Importing is idempotent: items keep their ids, and an item already
in the library is replaced only when the snapshot's copy is newer (``updated_at``); otherwise it is skipped.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from pydantic import ValidationError

from scholar.core.errors import InvalidArgumentError, NotFoundError, ScholarError, TooLargeError, UnavailableError
from scholar.core.records import Paper
from scholar.runtime.progress import report
from scholar.services.library.export import SNAPSHOT_FORMAT, SNAPSHOT_VERSION
from scholar.services.library.keys import own_export_key
from scholar.store.blobs import BlobStore
from scholar.store.library.bounds import oversized
from scholar.store.library.models import LibraryItem
from scholar.store.library.table import ItemExistsError

MAX_SNAPSHOT_ITEMS = 10_000
_ADD_ATTEMPTS = 3
_HINT = "Import a file written by library_export with format jsonl, unchanged."


class ItemWriter(Protocol):
    """What an import needs of the library store (scholar.store.library.table.LibraryStore has these)."""

    def get_many(self, ids: list[str]) -> dict[str, LibraryItem]: ...

    def put_many(self, items: list[LibraryItem], *, create_only: bool = False, keep_times: bool = False) -> Any: ...


@dataclass
class Snapshot:
    header: dict[str, Any]
    items: list[LibraryItem]


@dataclass
class ImportSummary:
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def _bad(line: int, rule: str, field_name: str) -> InvalidArgumentError:
    return InvalidArgumentError(f"{field_name} line {line}: {rule}", field=field_name, hint=_HINT,
                                details={"line": line})


def _header(text: str, field_name: str) -> dict[str, Any]:
    try:
        header = json.loads(text)
    except ValueError:
        header = None
    if not isinstance(header, dict) or header.get("format") != SNAPSHOT_FORMAT:
        raise _bad(1, f'the first line must be the snapshot header ({{"format": "{SNAPSHOT_FORMAT}", …}})',
                   field_name)
    if header.get("version") != SNAPSHOT_VERSION:
        raise _bad(1, f"snapshot version {header.get('version')!r} is not {SNAPSHOT_VERSION}, the one read here",
                   field_name)
    if not isinstance(header.get("count"), int) or header["count"] < 0:
        raise _bad(1, "the header's count must be a non-negative integer", field_name)
    return header


def _item(text: str, line: int, field_name: str) -> LibraryItem:
    try:
        item = LibraryItem.model_validate_json(text)
        Paper.model_validate(item.paper)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "the line"
        raise _bad(line, f"not a library item ({where}: {first['msg']})", field_name) from exc
    if (error := oversized(item)) is not None:
        # Before anything is written, like every other rule of the file; the line is named with the field.
        raise TooLargeError(f"{field_name} line {line}: {error.message}", reason=error.reason, hint=error.hint,
                            details={**error.details, "line": line})
    return item


def parse_snapshot(text: str, field_name: str = "jsonl") -> Snapshot:
    """The header and items of a snapshot, every line validated.

    Raises:
        InvalidArgumentError: (``field_name``, ``details.line``) a line is not valid, an item id repeats,
            there are more than ``MAX_SNAPSHOT_ITEMS`` items, or the count differs from the header's.
        TooLargeError: (``details.line``, ``details.field``, ``details.limit``) an item's field is past its bound.
    """
    lines = text.split("\n")
    header = _header(lines[0], field_name)
    items: list[LibraryItem] = []
    seen: set[str] = set()
    numbers: list[int] = []  # the line of each item
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        numbers.append(number)
        if len(items) == MAX_SNAPSHOT_ITEMS:
            raise _bad(number, f"a snapshot holds at most {MAX_SNAPSHOT_ITEMS} items; split it", field_name)
        item = _item(line, number, field_name)
        if item.item_id in seen:
            raise _bad(number, f"item {item.item_id} appears twice", field_name)
        seen.add(item.item_id)
        items.append(item)
    if len(items) != header["count"]:
        # Named at the line after the last item (where a missing one was expected), or at the first one too many.
        at = (numbers[-1] if numbers else 1) + 1 if len(items) < header["count"] else numbers[header["count"]]
        raise _bad(at, f"the header says {header['count']} items, the file holds {len(items)} (truncated or edited)",
                   field_name)
    return Snapshot(header=header, items=items)


def read_reference(reference: str, principal: str, blobs: BlobStore | None = None) -> str:
    """The text of an export this caller made (``exports/<digest>/<uuid>.jsonl``).

    Raises:
        InvalidArgumentError: (``reference``) not an export reference.
        NotFoundError: another caller's export, or one that no longer exists.
    """
    key = own_export_key(reference, principal, field="reference")
    data = (blobs or BlobStore()).get(key)
    if data is None:
        raise NotFoundError(f"no export {reference} exists", hint="Export again with library_export.")
    return data.decode("utf-8")


def _newer(a: str, b: str) -> bool:
    try:
        return datetime.fromisoformat(a) > datetime.fromisoformat(b)
    except ValueError:
        return a > b


def import_items(store: ItemWriter, items: Iterable[LibraryItem], collection: str | None = None,
                 chunk: int = 100) -> ImportSummary:
    """Write ``items`` into ``store``: new ones added, newer ones replacing, the rest skipped.

    Each chunk is written in ``put_many`` transactions that keep the snapshot's ``added_at`` and ``updated_at``
    (so the round trip is lossless and "newer" keeps its meaning); new items go with ``create_only``, so an item
    another writer adds meanwhile is never overwritten blindly: the chunk is classified again.

    Args:
        collection: put every item in this collection instead of its own.

    Raises:
        ScholarError: the store refused or failed (limits reached, throttled); items before the failure stay.
            Importing the same snapshot again completes it.
    """
    summary = ImportSummary()
    pending = [i.model_copy(update={"collection": collection}) if collection else i for i in items]
    for start in range(0, len(pending), chunk):
        _import_chunk(store, pending[start:start + chunk], summary)
        report(min(start + chunk, len(pending)), len(pending), "library import: items written")
    return summary


def _stopped(exc: ScholarError, summary: ImportSummary) -> ScholarError:
    """The store's own error, saying exactly what this import stored before it (counted from the store)."""
    stored = len(summary.added) + len(summary.updated)
    return exc.annotated(f"this import stored {stored} items before it ({len(summary.added)} added, "
                         f"{len(summary.updated)} updated); importing the same snapshot again completes it",
                         stored=stored, added=len(summary.added), updated=len(summary.updated))


def _stored(store: ItemWriter, written: list[LibraryItem]) -> list[str]:
    """The ids of ``written`` the store holds as written (after a put_many that failed part way)."""
    there = store.get_many([i.item_id for i in written])
    return [i.item_id for i in written if (found := there.get(i.item_id)) is not None
            and found.updated_at == i.updated_at]


def _import_chunk(store: ItemWriter, part: list[LibraryItem], summary: ImportSummary) -> None:
    for _attempt in range(_ADD_ATTEMPTS):
        existing = store.get_many([i.item_id for i in part])
        added = [i for i in part if i.item_id not in existing]
        try:
            if added:
                store.put_many(added, create_only=True, keep_times=True)
        except ItemExistsError:
            continue  # another writer added one of them since get_many: classify the chunk again
        except ScholarError as exc:
            summary.added += _stored(store, added)  # the transactions before the failing one are in
            raise _stopped(exc, summary) from exc
        break
    else:
        raise UnavailableError("the library kept changing while importing; import again (it is idempotent)",
                               retryable=True)
    summary.added += [i.item_id for i in added]
    newer = [i for i in part if i.item_id in existing and _newer(i.updated_at, existing[i.item_id].updated_at)]
    if newer:
        try:
            store.put_many(newer, keep_times=True)
        except ScholarError as exc:
            summary.updated += _stored(store, newer)
            raise _stopped(exc, summary) from exc
    replaced = {i.item_id for i in newer}
    summary.updated += [i.item_id for i in newer]
    summary.skipped += [i.item_id for i in part if i.item_id in existing and i.item_id not in replaced]
