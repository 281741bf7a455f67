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

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from botocore.exceptions import ClientError

from scholar.core.config import LIBRARY_TABLE_ENV
from scholar.core.errors import InternalError, InvalidArgumentError, NotFoundError, UnavailableError
from scholar.store import batch
from scholar.store.base import Store, awaitable
from scholar.store.boundary import boto_errors, error_code
from scholar.store.library.actions import FULL_BYTES, FULL_ITEMS, delete_actions, key, plan_writes
from scholar.store.library.models import Collection, LibraryItem
from scholar.store.library.rows import (
    COLLECTION,
    ITEM,
    META,
    Meta,
    Stored,
    check_collection_name,
    chunks,
    collection_of,
    decode,
    fingerprint,
    list_query,
    make_cursor,
    meta_of,
    now_iso,
    read_cursor,
    rev_key,
)
from scholar.store.library.transact import transact

__all__ = ["FULL_BYTES", "FULL_ITEMS", "ItemExistsError", "LibraryStore", "now_iso"]

# DynamoDB's limit: 100 keys per BatchGetItem.


class ItemExistsError(Exception):
    """``put(create_only=True)`` found the item already stored (a concurrent add won); ``item`` is it."""

    def __init__(self, item: LibraryItem) -> None:
        super().__init__(item.item_id)
        self.item = item


class LibraryStore(Store):
    """One caller's library: items, collections, the change log; every key starts from the principal."""

    RESOURCE = "library_table"
    ENV = LIBRARY_TABLE_ENV
    NOUN = "library table"

    def __init__(self, principal: str, table: str | None = None, *, client: Any = None) -> None:
        if not principal:
            raise InternalError("a library needs a caller (empty principal)")
        super().__init__(table, client)
        self.principal = principal

    # ------------------------------------------------------------------ plumbing
    @property
    def table(self) -> str:
        return self._required()

    def _unconfigured(self) -> UnavailableError:
        return UnavailableError(f"no {self.NOUN} is configured ({self.ENV})", reason="library_not_configured",
                                hint="The deployment has no LibraryTable; tell its operator.")

    def _key(self, sk: str) -> dict[str, Any]:
        return key(self.principal, sk)

    def _get_row(self, sk: str) -> dict[str, Any] | None:
        table = self.table
        with boto_errors("reading the library"):
            return self.client.get_item(TableName=table, Key=self._key(sk), ConsistentRead=True).get("Item")

    def _meta(self) -> Meta:
        return meta_of(self._get_row(META))

    def _stored(self, item_id: str) -> Stored | None:
        row = self._get_row(ITEM + item_id)
        return decode(row) if row else None

    def _query(self, what: str, start: dict[str, Any] | None = None, **kwargs: Any) -> Iterator[dict[str, Any]]:
        """Every row of a query in the caller's partition (after the key ``start``, if given), page by page."""
        table = self.table
        while True:
            extra = {"ExclusiveStartKey": start} if start else {}
            with boto_errors(what):
                page = self.client.query(TableName=table, ConsistentRead=True, **kwargs, **extra)
            yield from page.get("Items", [])
            start = page.get("LastEvaluatedKey")
            if not start:
                return

    def _transact(self, what: str, plan: Callable[[Meta], tuple[list[dict[str, Any]], Any]]) -> Any:
        """One write as one transaction on the revision it read (scholar.store.library.transact)."""
        return transact(self.client, self.table, what, self._meta, plan)

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
        return {item_id: stored.item for item_id, stored in self._stored_many(item_ids).items()}

    def list_items(self, *, collection: str | None = None, tag: str | None = None, limit: int = 50,
                   cursor: str | None = None, year_start: int | None = None,
                   year_end: int | None = None) -> tuple[list[LibraryItem], str | None]:
        """A page of the caller's items (in item id order) passing every filter given, and the next cursor.

        Raises:
            InvalidArgumentError: a cursor that this listing did not hand out (field ``cursor``).
        """
        filters = fingerprint(collection, tag, year_start, year_end)
        after = read_cursor(cursor, filters) if cursor else None
        query = list_query(self.principal, collection=collection, tag=tag, year_start=year_start, year_end=year_end)
        table = self.table
        start = self._key(ITEM + after) if after else None
        # Unfiltered, one row past the page tells whether there is more; filtered, DynamoDB's Limit counts the
        # rows it read before the filter, so read more per request.
        read = max(limit * 4, 100) if "FilterExpression" in query else limit + 1
        page: list[LibraryItem] = []
        while True:
            extra = {"ExclusiveStartKey": start} if start else {}
            with boto_errors("listing the library"):
                out = self.client.query(TableName=table, ConsistentRead=True, Limit=read, **query, **extra)
            rows = out.get("Items", [])
            for position, row in enumerate(rows):
                page.append(decode(row).item)
                if len(page) == limit:
                    more = position < len(rows) - 1 or bool(out.get("LastEvaluatedKey"))
                    return page, (make_cursor(page[-1].item_id, filters) if more else None)
            start = out.get("LastEvaluatedKey")
            if not start:
                return page, None

    @staticmethod
    def cursor_after(item_id: str, *, collection: str | None = None, tag: str | None = None,
                     year_start: int | None = None, year_end: int | None = None) -> str:
        """The cursor of the listing with these filters that continues after ``item_id`` (a page cut short)."""
        return make_cursor(item_id, fingerprint(collection, tag, year_start, year_end))

    def iter_items(self, after: str | None = None) -> Iterator[LibraryItem]:
        """Every item of the caller's library in item id order (after the item id ``after``), read page by page."""
        start = self._key(ITEM + after) if after else None
        for row in self._query("reading the library", start,
                               KeyConditionExpression="pk = :p AND begins_with(sk, :item)",
                               ExpressionAttributeValues={":p": {"S": self.principal}, ":item": {"S": ITEM}}):
            yield decode(row).item

    def tags(self) -> list[str]:
        """Every tag on the caller's items, once each, sorted (only the rows' ``tags`` attribute is read)."""
        found: set[str] = set()
        for row in self._query("reading the library's tags", ProjectionExpression="tags",
                               KeyConditionExpression="pk = :p AND begins_with(sk, :item)",
                               ExpressionAttributeValues={":p": {"S": self.principal}, ":item": {"S": ITEM}}):
            found.update(value["S"] for value in row.get("tags", {}).get("L", []))
        return sorted(found)

    def item_ids(self, prefix: str = "", *, limit: int = 100) -> tuple[list[str], bool]:
        """Up to ``limit`` of the caller's item ids starting with ``prefix`` (in id order), and whether there are more.

        Only the sort keys are read: the key condition does the matching.
        """
        table = self.table
        with boto_errors("listing the library's item ids"):
            out = self.client.query(TableName=table, ConsistentRead=True, Limit=limit + 1, ProjectionExpression="sk",
                                    KeyConditionExpression="pk = :p AND begins_with(sk, :item)",
                                    ExpressionAttributeValues={":p": {"S": self.principal},
                                                               ":item": {"S": ITEM + prefix}})
        ids = [row["sk"]["S"].removeprefix(ITEM) for row in out.get("Items", [])]
        return ids[:limit], len(ids) > limit

    def changes_since(self, revision: int, until: int | None = None) -> tuple[list[str], int]:
        """Item ids written or deleted after ``revision`` (first change first), and the revision they reach.

        That is the latest revision, or ``until`` when given and lower (a catch-up reads the log in slices).
        """
        latest = self._meta().revision
        if latest <= revision:
            return [], latest
        reached = latest if until is None else min(latest, until)
        ids: dict[str, None] = {}
        for row in self._query("reading the library's changes",
                               KeyConditionExpression="pk = :p AND sk BETWEEN :a AND :b",
                               ExpressionAttributeValues={":p": {"S": self.principal},
                                                          ":a": {"S": rev_key(max(revision, 0) + 1)},
                                                          ":b": {"S": rev_key(reached)}}):
            for value in row.get("ids", {}).get("L", []):
                ids.setdefault(value["S"], None)
        return list(ids), reached

    def collections(self) -> list[Collection]:
        """The caller's collections with their item counts, by name."""
        rows = self._query("reading collections", KeyConditionExpression="pk = :p AND begins_with(sk, :c)",
                           ExpressionAttributeValues={":p": {"S": self.principal}, ":c": {"S": COLLECTION}})
        return sorted((collection_of(row) for row in rows), key=lambda c: c.name)

    def collection(self, name: str) -> Collection | None:
        """One collection of the caller's, or None."""
        row = self._get_row(COLLECTION + name)
        return collection_of(row) if row else None

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

    def put_many(self, items: Sequence[LibraryItem], *, create_only: bool = False,
                 keep_times: bool = False) -> list[LibraryItem]:
        """Store many items, up to 30 (and 3 MB) per transaction, one revision per transaction.

        An item id given twice is stored once (its last version). Each transaction is all or nothing; a failure
        after the first leaves the earlier ones stored. ``keep_times`` keeps ``added_at`` and ``updated_at``
        as given (restoring a snapshot). Raises as ``put``.
        """
        out: list[LibraryItem] = []
        for chunk in chunks(list({i.item_id: i for i in items}.values())):
            ids = [i.item_id for i in chunk]

            def plan(meta: Meta, chunk: Sequence[LibraryItem] = chunk,
                     ids: list[str] = ids) -> tuple[list[dict[str, Any]], list[LibraryItem]]:
                existing = self._stored_many(ids)
                if create_only and existing:
                    raise ItemExistsError(next(iter(existing.values())).item)
                return plan_writes(self.principal, meta, chunk, existing, keep_times=keep_times)

            out += self._transact("saving to the library", plan)
        return out

    def update(self, item_id: str, change: Callable[[LibraryItem], LibraryItem]) -> LibraryItem:
        """Apply ``change`` to the stored item and store the result; on a lost race re-read and re-apply.

        Raises:
            NotFoundError: the caller has no such item.
            TooLargeError: as ``put``.
        """

        def plan(meta: Meta) -> tuple[list[dict[str, Any]], LibraryItem]:
            old = self._stored(item_id)
            if old is None:
                raise _item_not_found(item_id)
            new = change(old.item.model_copy(deep=True))
            if new.item_id != item_id:
                raise InternalError("a library update changed the item id", reason="library_update")
            actions, stored = plan_writes(self.principal, meta, [new], {item_id: old})
            return actions, stored[0]

        return self._transact("updating a library item", plan)

    def delete(self, item_id: str) -> bool:
        """Remove the caller's item; False when there is none (nothing is written then)."""

        def plan(meta: Meta) -> tuple[list[dict[str, Any]], bool]:
            old = self._stored(item_id)
            if old is None:
                return [], False
            return delete_actions(self.principal, meta, old), True

        return self._transact("removing a library item", plan)

    def create_collection(self, name: str) -> Collection:
        """Create an empty collection (an existing one is returned as it is: creating is idempotent)."""
        check_collection_name(name)
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
        check_collection_name(new)
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
            page, _ = self.list_items(collection=old, limit=100)
            if not page:
                break
            for item in page:
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

    def _stored_many(self, item_ids: Sequence[str]) -> dict[str, Stored]:
        if len(item_ids) == 1:
            one = self._stored(item_ids[0])
            return {item_ids[0]: one} if one else {}
        wanted = [self._key(ITEM + i) for i in dict.fromkeys(item_ids)]
        with boto_errors("reading library items"):
            rows, left = batch.get_items(self.client, self.table, wanted, consistent=True)
        if left:
            raise UnavailableError("the library is throttling reads; some items could not be read",
                                   retryable=True, reason="storage_throttled", hint="Retry in a few seconds.")
        found: dict[str, Stored] = {}
        for row in rows:
            stored = decode(row)
            found[stored.item.item_id] = stored
        return found

    ausage = awaitable(usage)
    aget = awaitable(get)
    aget_many = awaitable(get_many)
    alist_items = awaitable(list_items)
    acollections = awaitable(collections)
    aput = awaitable(put)
    aupdate = awaitable(update)
    adelete = awaitable(delete)
    acreate_collection = awaitable(create_collection)
    arename_collection = awaitable(rename_collection)
    adelete_collection = awaitable(delete_collection)


def _item_not_found(item_id: str) -> NotFoundError:
    return NotFoundError(f"your library has no item {item_id!r}", reason="library_item_not_found",
                         hint="List your items with library_list, or add the paper with library_add.")


