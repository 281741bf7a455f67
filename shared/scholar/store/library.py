"""The LibraryTable (DESIGN §5): each caller's saved papers, collections and change log, in the caller's partition.

Keys: ``pk = <principal>`` always, so no read or write can reach another caller's items (another caller's item
id is simply absent). Sort keys: ``meta`` (revision, item count, record bytes), ``item#<item_id>`` (the
zlib-compressed JSON of a ``LibraryItem`` plus the attributes lists filter on), ``collection#<name>`` (its
item count) and ``change#<revision, 12 digits>`` (the item ids one write touched; the full-text index catches
up from them).

The non-obvious constraint: every write is one ``TransactWriteItems`` conditioned on the revision it read
from ``meta``, so two concurrent writes can never both succeed on the same revision; the loser re-reads and
tries again. That serialises a caller's writes (a person's library, not a hot table) and is what keeps the
item count, the byte count and the change log exact.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import random
import time
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from botocore.exceptions import ClientError
from pydantic import ValidationError

from scholar.config import get_settings
from scholar.errors import (
    InternalError,
    InvalidArgumentError,
    NotFoundError,
    TooLargeError,
    UnavailableError,
)
from scholar.library.models import Collection, LibraryItem
from scholar.store import aws
from scholar.store.boundary import boto_errors, error_code

META = "meta"
ITEM = "item#"
COLLECTION = "collection#"
CHANGE = "change#"
_REV_DIGITS = 12
_LAST_CHANGE = CHANGE + "9" * _REV_DIGITS
# DynamoDB's limits: 100 actions and 4 MB per transaction, 100 keys per BatchGetItem, 400 KB per item.
_TX_ITEMS = 30  # items per transaction: each may also touch two collection counters (30 * 3 + meta + change)
_TX_BYTES = 3 * 1024 * 1024
_BATCH_GET = 100
MAX_DOC_BYTES = 350 * 1024
# A lost race re-reads and tries again; twenty writers on one library settle well within this.
MAX_ATTEMPTS = 60
_BACKOFF_CAP_S = 0.05
UNPROCESSED_ROUNDS = 6
_sleep = time.sleep  # tests replace it: no real waiting
_CONFLICTS = frozenset({"ConditionalCheckFailed", "TransactionConflict"})
# A full library is ``too_large`` with one of these reasons; ``details`` name the setting, its value and the usage.
FULL_ITEMS = "library_max_items"
FULL_BYTES = "library_max_bytes"
_FULL_HINT = "Remove items you no longer need (library_remove), or ask the operator to raise the limit."


class ItemExistsError(Exception):
    """``put(create_only=True)`` found the item already stored (a concurrent add won); ``item`` is it."""

    def __init__(self, item: LibraryItem) -> None:
        super().__init__(item.item_id)
        self.item = item


class _Conflict(Exception):
    """A transaction lost a race (a condition another writer made false): re-read and try again."""


@dataclass(frozen=True)
class _Meta:
    exists: bool = False
    revision: int = 0
    items: int = 0
    bytes: int = 0


@dataclass(frozen=True)
class _Stored:
    item: LibraryItem
    size: int  # bytes of the record's JSON (what the byte limit counts)


def now_iso() -> str:
    """The current UTC time, ISO 8601 with seconds (the library's timestamps)."""
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _rev_key(revision: int) -> str:
    return f"{CHANGE}{revision:0{_REV_DIGITS}d}"


def _encode(item: LibraryItem) -> tuple[bytes, int]:
    raw = item.model_dump_json(exclude_none=True).encode()
    doc = zlib.compress(raw, 6)
    if len(doc) > MAX_DOC_BYTES:
        raise TooLargeError(
            f"the library record of {item.item_id} is {len(doc)} bytes compressed; one record holds at most "
            f"{MAX_DOC_BYTES}", reason="library_record_too_large",
            hint="Shorten the notes or the tags and try again.",
        )
    return doc, len(raw)


def _decode(row: dict[str, Any]) -> _Stored:
    raw = zlib.decompress(row["doc"]["B"])
    return _Stored(LibraryItem.model_validate_json(raw), len(raw))


def _meta_of(row: dict[str, Any] | None) -> _Meta:
    if not row:
        return _Meta()
    # A row without a revision is one being created (moto shows it half-written): a write on it loses the
    # condition and re-reads, as for any race.
    return _Meta(True, int(row.get("revision", {}).get("N", 0)), int(row.get("items", {}).get("N", 0)),
                 int(row.get("bytes", {}).get("N", 0)))


def _year(item: LibraryItem) -> int | None:
    year = item.paper.get("year")
    return year if isinstance(year, int) and not isinstance(year, bool) else None


class LibraryStore:
    """One caller's library: items, collections, the change log; every key starts from the principal."""

    def __init__(self, principal: str, table: Any | None = None, *, client: Any = None) -> None:
        if not principal:
            raise InternalError("a library needs a caller (empty principal)")
        self.principal = principal
        self._table = table
        self._client = client

    # ------------------------------------------------------------------ plumbing
    @property
    def table(self) -> str:
        table = self._table or get_settings().resources.library_table
        if not table:
            raise UnavailableError("no library table is configured (SCHOLAR_LIBRARY_TABLE)",
                                   reason="library_not_configured",
                                   hint="The deployment has no LibraryTable; tell its operator.")
        return table

    @property
    def client(self) -> Any:
        return self._client or aws.dynamodb()

    def _key(self, sk: str) -> dict[str, Any]:
        return {"pk": {"S": self.principal}, "sk": {"S": sk}}

    def _get_row(self, sk: str) -> dict[str, Any] | None:
        table = self.table
        with boto_errors("reading the library"):
            return self.client.get_item(TableName=table, Key=self._key(sk), ConsistentRead=True).get("Item")

    def _meta(self) -> _Meta:
        return _meta_of(self._get_row(META))

    def _stored(self, item_id: str) -> _Stored | None:
        row = self._get_row(ITEM + item_id)
        return _decode(row) if row else None

    def _query(self, what: str, **kwargs: Any) -> Iterator[dict[str, Any]]:
        """Every row of a query in the caller's partition, page by page."""
        table = self.table
        start: dict[str, Any] | None = None
        while True:
            extra = {"ExclusiveStartKey": start} if start else {}
            with boto_errors(what):
                page = self.client.query(TableName=table, ConsistentRead=True, **kwargs, **extra)
            yield from page.get("Items", [])
            start = page.get("LastEvaluatedKey")
            if not start:
                return

    def _transact(self, what: str, plan: Callable[[_Meta], tuple[list[dict[str, Any]], Any]]) -> Any:
        """Read ``meta``, build the actions with ``plan`` and commit them as one transaction; retry lost races.

        ``plan`` returns (actions, result); an empty action list commits nothing and returns the result.
        """
        table = self.table
        for attempt in range(MAX_ATTEMPTS):
            actions, result = plan(self._meta())
            if not actions:
                return result
            for action in actions:
                next(iter(action.values()))["TableName"] = table
            try:
                self._commit(what, actions)
                return result
            except _Conflict:
                _sleep(random.uniform(0, min(_BACKOFF_CAP_S, 0.002 * 2**attempt)))
        raise UnavailableError(f"the library changed {MAX_ATTEMPTS} times while {what}", retryable=True,
                               reason="storage_conflict", hint="Many writes reach your library at once; retry.")

    def _commit(self, what: str, actions: list[dict[str, Any]]) -> None:
        with boto_errors(what):
            try:
                self.client.transact_write_items(TransactItems=actions)
            except ClientError as exc:
                code = error_code(exc)
                reasons = {r.get("Code", "None") for r in exc.response.get("CancellationReasons") or []} - {"None"}
                if code == "TransactionConflictException" or (
                    code == "TransactionCanceledException" and reasons and reasons <= _CONFLICTS
                ):
                    raise _Conflict from exc
                raise

    def _meta_action(self, meta: _Meta, revision: int, items: int, size: int) -> dict[str, Any]:
        # Timeline guarded: two writers both read revision R; only the first commit may move it to R + 1,
        # the second finds revision != R, re-reads and writes R + 2. Counts stay exact for the limits.
        values = {":rev": {"N": str(revision)}, ":items": {"N": str(meta.items + items)},
                  ":bytes": {"N": str(meta.bytes + size)}}
        if meta.exists:
            condition = "revision = :seen"
            values[":seen"] = {"N": str(meta.revision)}
        else:
            condition = "attribute_not_exists(sk)"
        return {"Update": {"Key": self._key(META), "UpdateExpression": "SET revision = :rev, #i = :items, #b = :bytes",
                           "ConditionExpression": condition, "ExpressionAttributeNames": {"#i": "items", "#b": "bytes"},
                           "ExpressionAttributeValues": values}}

    def _change_action(self, revision: int, item_ids: Sequence[str]) -> dict[str, Any]:
        return {"Put": {"Item": {**self._key(_rev_key(revision)), "rev": {"N": str(revision)},
                                 "ids": {"L": [{"S": i} for i in item_ids]}, "at": {"S": now_iso()}},
                        "ConditionExpression": "attribute_not_exists(sk)"}}

    def _collection_action(self, name: str, delta: int) -> dict[str, Any]:
        # Writing an item into a collection creates the collection (download_paper's "inbox" needs no setup).
        return {"Update": {"Key": self._key(COLLECTION + name),
                           "UpdateExpression": "SET #n = :name, created_at = if_not_exists(created_at, :now) "
                           "ADD #c :delta",
                           "ExpressionAttributeNames": {"#n": "name", "#c": "items"},
                           "ExpressionAttributeValues": {":name": {"S": name}, ":now": {"S": now_iso()},
                                                         ":delta": {"N": str(delta)}}}}

    def _check_limits(self, meta: _Meta, items: int, size: int) -> None:
        settings = get_settings()
        if items > 0 and meta.items + items > settings.library_max_items:
            raise TooLargeError(
                f"your library holds {meta.items} items; its limit is {settings.library_max_items} items",
                reason=FULL_ITEMS, hint=_FULL_HINT,
                details={"limit": "SCHOLAR_LIBRARY_MAX_ITEMS", "max": settings.library_max_items,
                         "current": meta.items})
        if size > 0 and meta.bytes + size > settings.library_max_bytes:
            raise TooLargeError(
                f"your library's records take {meta.bytes} bytes; its limit is {settings.library_max_bytes} bytes",
                reason=FULL_BYTES, hint=_FULL_HINT,
                details={"limit": "SCHOLAR_LIBRARY_MAX_BYTES", "max": settings.library_max_bytes,
                         "current": meta.bytes})

    def _plan_writes(self, meta: _Meta, items: Sequence[LibraryItem],
                     existing: dict[str, _Stored]) -> tuple[list[dict[str, Any]], list[LibraryItem]]:
        """The actions that store ``items`` at revision ``meta.revision + 1``, replacing ``existing`` ones."""
        revision = meta.revision + 1
        now = now_iso()
        actions: list[dict[str, Any]] = []
        stored: list[LibraryItem] = []
        counts: dict[str, int] = {}
        added = size_delta = 0
        for item in items:
            old = existing.get(item.item_id)
            new = item.model_copy(update={"rev": revision, "updated_at": now,
                                          **({"added_at": old.item.added_at} if old else {})})
            new = LibraryItem.model_validate(new.model_dump())  # the copy skipped validation: check it once
            doc, size = _encode(new)
            row = {**self._key(ITEM + new.item_id), "doc": {"B": doc}, "rev": {"N": str(revision)},
                   "collection": {"S": new.collection}, "tags": {"L": [{"S": t} for t in new.tags]}}
            if (year := _year(new)) is not None:
                row["year"] = {"N": str(year)}
            if old:
                # Timeline guarded: a writer that read this item at rev r may replace it only while it is still r.
                condition = {"ConditionExpression": "rev = :old",
                             "ExpressionAttributeValues": {":old": {"N": str(old.item.rev)}}}
                size_delta += size - old.size
                if old.item.collection != new.collection:
                    counts[old.item.collection] = counts.get(old.item.collection, 0) - 1
                    counts[new.collection] = counts.get(new.collection, 0) + 1
            else:
                condition = {"ConditionExpression": "attribute_not_exists(sk)"}
                added += 1
                size_delta += size
                counts[new.collection] = counts.get(new.collection, 0) + 1
            actions.append({"Put": {"Item": row, **condition}})
            stored.append(new)
        self._check_limits(meta, added, size_delta)
        actions += [self._collection_action(name, delta) for name, delta in counts.items() if delta]
        actions.append(self._meta_action(meta, revision, added, size_delta))
        actions.append(self._change_action(revision, [i.item_id for i in stored]))
        return actions, stored

    # ------------------------------------------------------------------ reads
    def revision(self) -> int:
        """The caller's library revision: how many writes it has seen (0 when empty)."""
        return self._meta().revision

    def usage(self) -> tuple[int, int]:
        """(items, bytes of stored records) of the caller's library."""
        meta = self._meta()
        return meta.items, meta.bytes

    def get(self, item_id: str) -> LibraryItem | None:
        """The caller's item, or None (also for another caller's item id: it is not in this partition)."""
        stored = self._stored(item_id)
        return stored.item if stored else None

    def get_many(self, item_ids: Sequence[str]) -> dict[str, LibraryItem]:
        """The caller's items among ``item_ids``, by id (absent ids are left out); BatchGetItem, 100 a request.

        Raises:
            UnavailableError: DynamoDB kept some keys unprocessed after every retry.
        """
        table = self.table
        found: dict[str, LibraryItem] = {}
        wanted = list(dict.fromkeys(item_ids))
        for start in range(0, len(wanted), _BATCH_GET):
            keys = [self._key(ITEM + i) for i in wanted[start : start + _BATCH_GET]]
            for attempt in range(UNPROCESSED_ROUNDS):
                with boto_errors("reading library items"):
                    out = self.client.batch_get_item(
                        RequestItems={table: {"Keys": keys, "ConsistentRead": True}})
                for row in out.get("Responses", {}).get(table, []):
                    item = _decode(row).item
                    found[item.item_id] = item
                keys = out.get("UnprocessedKeys", {}).get(table, {}).get("Keys", [])
                if not keys:
                    break
                _sleep(min(0.8, 0.05 * 2**attempt))
            if keys:
                raise UnavailableError("the library is throttling reads; some items could not be read",
                                       retryable=True, reason="storage_throttled",
                                       hint="Retry in a few seconds.")
        return found

    def list(self, *, collection: str | None = None, tag: str | None = None, limit: int = 50,
             cursor: str | None = None, year_start: int | None = None,
             year_end: int | None = None) -> tuple[list[LibraryItem], str | None]:
        """A page of the caller's items (in item id order) passing every filter given, and the next cursor.

        Raises:
            InvalidArgumentError: a cursor that this listing did not hand out (field ``cursor``).
        """
        filters = {"collection": collection, "tag": tag, "year_start": year_start, "year_end": year_end}
        fingerprint = hashlib.sha256(json.dumps(filters, sort_keys=True).encode()).hexdigest()[:12]
        after = _read_cursor(cursor, fingerprint) if cursor else None
        names: dict[str, str] = {}
        values: dict[str, Any] = {":p": {"S": self.principal}, ":item": {"S": ITEM}}
        parts: list[str] = []
        if collection is not None:
            names["#c"] = "collection"
            values[":c"] = {"S": collection}
            parts.append("#c = :c")
        if tag is not None:
            names["#t"] = "tags"
            values[":t"] = {"S": tag}
            parts.append("contains(#t, :t)")
        if year_start is not None or year_end is not None:
            names["#y"] = "year"
            if year_start is not None:
                values[":y0"] = {"N": str(year_start)}
                parts.append("#y >= :y0")
            if year_end is not None:
                values[":y1"] = {"N": str(year_end)}
                parts.append("#y <= :y1")
        query: dict[str, Any] = {"KeyConditionExpression": "pk = :p AND begins_with(sk, :item)",
                                 "ExpressionAttributeValues": values}
        if parts:
            query["FilterExpression"] = " AND ".join(parts)
            query["ExpressionAttributeNames"] = names
        table = self.table
        start = self._key(ITEM + after) if after else None
        page: list[LibraryItem] = []
        while True:
            extra = {"ExclusiveStartKey": start} if start else {}
            with boto_errors("listing the library"):
                out = self.client.query(TableName=table, ConsistentRead=True, Limit=max(limit * 2, 100),
                                        **query, **extra)
            rows = out.get("Items", [])
            for position, row in enumerate(rows):
                page.append(_decode(row).item)
                if len(page) == limit:
                    more = position < len(rows) - 1 or bool(out.get("LastEvaluatedKey"))
                    return page, (_make_cursor(page[-1].item_id, fingerprint) if more else None)
            start = out.get("LastEvaluatedKey")
            if not start:
                return page, None

    def iter_items(self) -> Iterator[LibraryItem]:
        """Every item of the caller's library, in item id order (read page by page)."""
        for row in self._query("reading the library", KeyConditionExpression="pk = :p AND begins_with(sk, :item)",
                               ExpressionAttributeValues={":p": {"S": self.principal}, ":item": {"S": ITEM}}):
            yield _decode(row).item

    def changes_since(self, revision: int) -> tuple[list[str], int]:
        """Item ids written or deleted after ``revision`` (first change first), and the latest revision."""
        latest = self._meta().revision
        if latest <= revision:
            return [], latest
        ids: dict[str, None] = {}
        for row in self._query("reading the library's changes",
                               KeyConditionExpression="pk = :p AND sk BETWEEN :a AND :b",
                               ExpressionAttributeValues={":p": {"S": self.principal},
                                                          ":a": {"S": _rev_key(max(revision, 0) + 1)},
                                                          ":b": {"S": _rev_key(latest)}}):
            for value in row.get("ids", {}).get("L", []):
                ids.setdefault(value["S"], None)
        return list(ids), latest

    def collections(self) -> list[Collection]:
        """The caller's collections with their item counts, by name."""
        rows = self._query("reading collections", KeyConditionExpression="pk = :p AND begins_with(sk, :c)",
                           ExpressionAttributeValues={":p": {"S": self.principal}, ":c": {"S": COLLECTION}})
        return sorted((_collection_of(row) for row in rows), key=lambda c: c.name)

    def collection(self, name: str) -> Collection | None:
        """One collection of the caller's, or None."""
        row = self._get_row(COLLECTION + name)
        return _collection_of(row) if row else None

    # ------------------------------------------------------------------ writes
    def put(self, item: LibraryItem, *, create_only: bool = False) -> LibraryItem:
        """Store ``item`` (a new one, or replacing the stored one); returns it as stored, at the new revision.

        ``rev`` and ``updated_at`` are set here; a replaced item keeps its ``added_at``.

        Raises:
            ItemExistsError: ``create_only`` and the item is stored already (carries the stored item).
            TooLargeError: the write would pass the item or byte limit (reason ``library_max_items`` / ``_bytes``),
                or the record alone is over DynamoDB's item size (``library_record_too_large``).
        """
        return self.put_many([item], create_only=create_only)[0]

    def put_many(self, items: Sequence[LibraryItem], *, create_only: bool = False) -> list[LibraryItem]:
        """Store many items, up to 30 (and 3 MB) per transaction, one revision per transaction.

        Each transaction is all or nothing; a failure after the first leaves the earlier ones stored.
        Raises as ``put``.
        """
        out: list[LibraryItem] = []
        for chunk in _chunks(items):
            ids = [i.item_id for i in chunk]

            def plan(meta: _Meta, chunk: Sequence[LibraryItem] = chunk,
                     ids: list[str] = ids) -> tuple[list[dict[str, Any]], list[LibraryItem]]:
                existing = self._stored_many(ids)
                if create_only and existing:
                    raise ItemExistsError(next(iter(existing.values())).item)
                return self._plan_writes(meta, chunk, existing)

            out += self._transact("saving to the library", plan)
        return out

    def update(self, item_id: str, change: Callable[[LibraryItem], LibraryItem]) -> LibraryItem:
        """Apply ``change`` to the stored item and store the result; on a lost race re-read and re-apply.

        Raises:
            NotFoundError: the caller has no such item.
            TooLargeError: as ``put``.
        """

        def plan(meta: _Meta) -> tuple[list[dict[str, Any]], LibraryItem]:
            old = self._stored(item_id)
            if old is None:
                raise _item_not_found(item_id)
            new = change(old.item.model_copy(deep=True))
            if new.item_id != item_id:
                raise InternalError("a library update changed the item id", reason="library_update")
            actions, stored = self._plan_writes(meta, [new], {item_id: old})
            return actions, stored[0]

        return self._transact("updating a library item", plan)

    def delete(self, item_id: str) -> bool:
        """Remove the caller's item; False when there is none (nothing is written then)."""

        def plan(meta: _Meta) -> tuple[list[dict[str, Any]], bool]:
            old = self._stored(item_id)
            if old is None:
                return [], False
            revision = meta.revision + 1
            actions = [
                {"Delete": {"Key": self._key(ITEM + item_id), "ConditionExpression": "rev = :old",
                            "ExpressionAttributeValues": {":old": {"N": str(old.item.rev)}}}},
                self._collection_action(old.item.collection, -1),
                self._meta_action(meta, revision, -1, -old.size),
                self._change_action(revision, [item_id]),
            ]
            return actions, True

        return self._transact("removing a library item", plan)

    def create_collection(self, name: str) -> Collection:
        """Create an empty collection (an existing one is returned as it is: creating is idempotent)."""
        _check_collection_name(name)
        table = self.table
        with boto_errors("creating a collection"):
            try:
                self.client.put_item(
                    TableName=table,
                    Item={**self._key(COLLECTION + name), "name": {"S": name}, "created_at": {"S": now_iso()},
                          "items": {"N": "0"}},
                    ConditionExpression="attribute_not_exists(sk)")
            except ClientError as exc:
                if error_code(exc) != "ConditionalCheckFailedException":
                    raise
        found = self.collection(name)
        if found is None:  # deleted between our two calls: report the race rather than a made-up record
            raise UnavailableError("the collection was deleted while it was created", retryable=True,
                                   reason="storage_conflict")
        return found

    def rename_collection(self, old: str, new: str) -> int:
        """Rename collection ``old`` to ``new`` (which must not exist), moving its items; returns how many moved.

        Each item moves in its own transaction, so a failure part-way leaves both collections consistent
        (calling again finishes the move).

        Raises:
            NotFoundError: no collection ``old``.
            InvalidArgumentError: ``new`` exists already (field ``new_name``), or is not a valid name.
        """
        _check_collection_name(new)
        if self.collection(old) is None:
            raise NotFoundError(f"you have no collection {old!r}", reason="collection_not_found",
                                hint="List your collections with library_collections (action list).")
        if old == new:
            return 0
        if self.collection(new) is not None:
            raise InvalidArgumentError(f"a collection {new!r} exists already; move items into it with library_update",
                                       field="new_name")
        self.create_collection(new)
        moved = 0
        while True:
            batch, _ = self.list(collection=old, limit=100)
            if not batch:
                break
            for item in batch:
                self.update(item.item_id, lambda i: i.model_copy(update={"collection": new}))
                moved += 1
        self._delete_empty_collection(old, missing_ok=True)
        return moved

    def delete_collection(self, name: str) -> None:
        """Delete an empty collection.

        Raises:
            NotFoundError: no such collection.
            InvalidArgumentError: it still holds items (field ``name``): move or remove them first.
        """
        self._delete_empty_collection(name, missing_ok=False)

    def _delete_empty_collection(self, name: str, *, missing_ok: bool) -> None:
        found = self.collection(name)
        if found is None:
            if missing_ok:
                return
            raise NotFoundError(f"you have no collection {name!r}", reason="collection_not_found",
                                hint="List your collections with library_collections (action list).")
        table = self.table
        with boto_errors("deleting a collection"):
            try:
                # Timeline guarded: an item added between our read and this delete raises the count above 0.
                self.client.delete_item(TableName=table, Key=self._key(COLLECTION + name),
                                        ConditionExpression="attribute_not_exists(#c) OR #c = :zero",
                                        ExpressionAttributeNames={"#c": "items"},
                                        ExpressionAttributeValues={":zero": {"N": "0"}})
            except ClientError as exc:
                if error_code(exc) != "ConditionalCheckFailedException":
                    raise
                current = self.collection(name)
                if current is None:
                    return
                raise InvalidArgumentError(
                    f"collection {name!r} still holds {current.items} items; move or remove them first",
                    field="name", reason="collection_not_empty",
                    hint="Move its items with library_update (collection) or rename the collection instead.",
                ) from exc

    def _stored_many(self, item_ids: Sequence[str]) -> dict[str, _Stored]:
        if len(item_ids) == 1:
            one = self._stored(item_ids[0])
            return {item_ids[0]: one} if one else {}
        table = self.table
        found: dict[str, _Stored] = {}
        keys = [self._key(ITEM + i) for i in item_ids]
        for attempt in range(UNPROCESSED_ROUNDS):
            with boto_errors("reading library items"):
                out = self.client.batch_get_item(RequestItems={table: {"Keys": keys, "ConsistentRead": True}})
            for row in out.get("Responses", {}).get(table, []):
                stored = _decode(row)
                found[stored.item.item_id] = stored
            keys = out.get("UnprocessedKeys", {}).get(table, {}).get("Keys", [])
            if not keys:
                return found
            _sleep(min(0.8, 0.05 * 2**attempt))
        raise UnavailableError("the library is throttling reads", retryable=True, reason="storage_throttled")


def _item_not_found(item_id: str) -> NotFoundError:
    return NotFoundError(f"your library has no item {item_id!r}", reason="library_item_not_found",
                         hint="List your items with library_list, or add the paper with library_add.")


def _collection_of(row: dict[str, Any]) -> Collection:
    return Collection(name=row["name"]["S"], created_at=row.get("created_at", {}).get("S", ""),
                      items=max(0, int(row.get("items", {}).get("N", 0))))


def _check_collection_name(name: str) -> None:
    try:
        Collection(name=name, created_at="")
    except ValidationError as exc:
        raise InvalidArgumentError(f"{name!r} is not a collection name: letters, digits, space and ._-/ "
                                   "up to 80 characters, starting with a letter or digit", field="name") from exc


def _chunks(items: Sequence[LibraryItem]) -> Iterator[list[LibraryItem]]:
    chunk: list[LibraryItem] = []
    size = 0
    for item in items:
        # A rough size (the JSON) keeps a transaction under DynamoDB's 4 MB; compression only helps.
        weight = len(item.model_dump_json())
        if chunk and (len(chunk) == _TX_ITEMS or size + weight > _TX_BYTES):
            yield chunk
            chunk, size = [], 0
        chunk.append(item)
        size += weight
    if chunk:
        yield chunk


def _make_cursor(after: str, fingerprint: str) -> str:
    return base64.urlsafe_b64encode(json.dumps({"a": after, "f": fingerprint}).encode()).decode().rstrip("=")


def _read_cursor(cursor: str, fingerprint: str) -> str:
    try:
        data = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        after, seen = data["a"], data["f"]
    except (binascii.Error, ValueError, KeyError, TypeError) as exc:
        raise InvalidArgumentError("cursor is not one this tool returned", field="cursor",
                                   reason="bad_cursor") from exc
    if not isinstance(after, str) or seen != fingerprint:
        raise InvalidArgumentError("cursor belongs to a listing with other filters; pass the same filters",
                                   field="cursor", reason="bad_cursor")
    return after
