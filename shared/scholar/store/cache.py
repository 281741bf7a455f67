"""The CacheTable (DESIGN §5): compressed JSON under ``<namespace>#<key>``, TTL per namespace.

DynamoDB deletes expired items lazily (and moto never does), so every read filters on
``expires_at``. Values over 350 KB compressed spill to S3 under ``cache/``; the item keeps a pointer.
Only complete answers are ever put here: callers must not cache partial or failed results.
"""

from __future__ import annotations

import errno
import hashlib
import json
import logging
import threading
import time
import zlib
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from scholar.core.backend import state as backend_state
from scholar.core.config import CACHE_TABLE_ENV
from scholar.core.errors import NotFoundError, ScholarError
from scholar.store import aws, batch
from scholar.store.base import Store, awaitable
from scholar.store.blobs import BlobStore
from scholar.store.boundary import DISK_FULL, boto_errors

DAY = 86_400
# Namespace → lifetime in seconds (None: no expiry).
_log = logging.getLogger(__name__)
NAMESPACE_TTL: dict[str, int | None] = {
    "record": 30 * DAY,  # upstream records: papers, authors, books, patents
    "alias": None,  # identifier → canonical id (DOI → S2 id …)
    "list": 3 * DAY,  # citation lists, references, editions
    "search": 1 * DAY,  # searches and recommendations
    "graph": 1 * DAY,  # graph traversals
    "negative": 1 * DAY,  # not_found answers
    "result": 7 * DAY,  # derived tool results (enrichment, excerpts)
    # merged records of recent search answers, by every identifier (scholar.services.paper_lookup.recent)
    "recent": 3600,
}
# A source's "no such thing" is remembered this long (DESIGN §4: briefly): a repeated call costs no request,
# and a record that appears upstream shows up within the hour.
NEGATIVE_TTL_S = 3600
SPILL_BYTES = 350 * 1024
# A warm function keeps recent values in memory for a short while: a repeated call costs no round trip.
MEMORY_TTL_S = 300.0
MEMORY_ENTRIES = 2048
MEMORY_STATE = "store.cache.memory"


class _Memory:
    """A backend's recent values (two backends of one process never see each other's), as JSON text: every reader
    gets its own copy, so no caller can alter another's."""

    def __init__(self) -> None:
        self.values: OrderedDict[tuple[str, str], tuple[float, str]] = OrderedDict()
        self.lock = threading.Lock()


def _held() -> _Memory:
    return backend_state(MEMORY_STATE, _Memory)


@aws.on_reset
def forget_memory() -> None:
    """Drop the current backend's in-memory copies (a new table, a test, a local stack restart)."""
    memory = _held()
    with memory.lock:
        memory.values.clear()


def _remember(table: str, pk: str, value: Any, expires_at: float | None) -> None:
    lifetime = MEMORY_TTL_S if expires_at is None else min(MEMORY_TTL_S, expires_at - time.time())
    if lifetime <= 0:
        return
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    memory = _held()
    with memory.lock:
        memory.values[(table, pk)] = (time.monotonic() + lifetime, text)
        memory.values.move_to_end((table, pk))
        while len(memory.values) > MEMORY_ENTRIES:
            memory.values.popitem(last=False)


def _recall(table: str, pk: str) -> Any | None:
    memory = _held()
    with memory.lock:
        hit = memory.values.get((table, pk))
        if hit is not None and hit[0] <= time.monotonic():
            del memory.values[(table, pk)]
            hit = None
    return json.loads(hit[1]) if hit is not None else None


def _forget(table: str, pk: str) -> None:
    memory = _held()
    with memory.lock:
        memory.values.pop((table, pk), None)


def _encode(value: Any) -> bytes:
    return zlib.compress(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode(), 6)


def _decode(data: bytes) -> Any:
    return json.loads(zlib.decompress(data))


def _expiry(item: dict[str, Any] | None) -> float | None:
    expires = (item or {}).get("expires_at")
    return float(expires["N"]) if expires else None


class Cache(Store):
    """Get and put JSON values by namespace and normalised key."""

    RESOURCE = "cache_table"
    ENV = CACHE_TABLE_ENV
    NOUN = "cache table"

    def __init__(
        self, table: str | None = None, client: Any = None, blobs: BlobStore | None = None, *, memory: bool = True
    ) -> None:
        super().__init__(table, client)
        self._blobs = blobs
        # False for values another function rewrites and readers must see at once (e.g. sync runs).
        self._memory = memory

    @property
    def table(self) -> str | None:
        return self._configured()

    @property
    def blobs(self) -> BlobStore:
        return self._blobs or BlobStore()

    @staticmethod
    def pk(namespace: str, key: str) -> str:
        if namespace not in NAMESPACE_TTL:
            raise ValueError(f"unknown cache namespace {namespace!r}")
        return f"{namespace}#{key}"

    def get(self, namespace: str, key: str) -> Any | None:
        """The cached value, or None when absent or expired (or when no table is configured)."""
        table = self.table
        if not table:
            return None
        pk = self.pk(namespace, key)
        value = _recall(table, pk) if self._memory else None
        if value is not None:
            return value
        with boto_errors("reading the cache"):
            item = self.client.get_item(TableName=table, Key={"pk": {"S": pk}}).get("Item")
            value = self._value(item)
        if value is not None and self._memory:
            _remember(table, pk, value, _expiry(item))
        return value

    def get_first(self, *wanted: tuple[str, str]) -> tuple[str, Any] | None:
        """The first of several ``(namespace, key)`` entries that holds a value, as ``(namespace, value)``.

        Memory is asked for all of them before the table is asked for any, so a warm function that knows
        the second (e.g. a remembered "not found" behind a record it never had) makes no round trip.
        """
        table = self.table
        if not table:
            return None
        if self._memory:
            for namespace, key in wanted:
                value = _recall(table, self.pk(namespace, key))
                if value is not None:
                    return namespace, value
        for namespace, key in wanted:
            value = self.get(namespace, key)
            if value is not None:
                return namespace, value
        return None

    def get_many(self, namespace: str, keys: Iterable[str]) -> dict[str, Any]:
        """Cached values for many keys at once (BatchGetItem, scholar.store.batch)."""
        wanted = {self.pk(namespace, k): k for k in dict.fromkeys(keys)}
        found: dict[str, Any] = {}
        table = self.table
        if not table or not wanted:
            return found
        for pk in list(wanted) if self._memory else []:
            value = _recall(table, pk)
            if value is not None:
                found[wanted.pop(pk)] = value
        with boto_errors("reading the cache"):
            # Keys still unprocessed after the batch backoff are misses: the caller fetches them.
            items, _ = batch.get_items(self.client, table, [{"pk": {"S": pk}} for pk in wanted])
        for item in items:
            value = self._value(item)
            if value is not None:
                found[wanted[item["pk"]["S"]]] = value
                if self._memory:
                    _remember(table, item["pk"]["S"], value, _expiry(item))
        return found

    def put(self, namespace: str, key: str, value: Any, ttl_s: int | None = None) -> None:
        """Store ``value`` (JSON-serialisable); ``ttl_s`` overrides the namespace's lifetime."""
        if not self.table:
            return
        pk = self.pk(namespace, key)
        lifetime = NAMESPACE_TTL[namespace] if ttl_s is None else ttl_s
        data = _encode(value)
        item: dict[str, Any] = {"pk": {"S": pk}, "stored_at": {"N": str(int(time.time()))}}
        with _unless_disk_full(), boto_errors("writing the cache"):
            if len(data) > SPILL_BYTES:
                s3_key = f"cache/{hashlib.sha256(pk.encode()).hexdigest()}.json.z"
                self.blobs.put(s3_key, data, "application/octet-stream")
                item["s3_key"] = {"S": s3_key}
            else:
                item["v"] = {"B": data}
            if lifetime is not None:
                item["expires_at"] = {"N": str(int(time.time()) + lifetime)}
            self.client.put_item(TableName=self.table, Item=item)
        if self._memory:
            _remember(self.table, pk, value, _expiry(item))

    def put_many(self, namespace: str, values: dict[str, Any], ttl_s: int | None = None) -> None:
        """Store many small values at once (BatchWriteItem, scholar.store.batch); ``ttl_s`` as in ``put``.

        For values well under the spill size (records, not documents): one that would spill is stored alone
        through ``put``.
        """
        table = self.table
        if not table or not values:
            return
        lifetime = NAMESPACE_TTL[namespace] if ttl_s is None else ttl_s
        now = int(time.time())
        items: list[dict[str, Any]] = []
        for key, value in values.items():
            data = _encode(value)
            if len(data) > SPILL_BYTES:
                self.put(namespace, key, value, ttl_s=ttl_s)
                continue
            item: dict[str, Any] = {"pk": {"S": self.pk(namespace, key)}, "stored_at": {"N": str(now)},
                                    "v": {"B": data}}
            if lifetime is not None:
                item["expires_at"] = {"N": str(now + lifetime)}
            items.append(item)
            if self._memory:
                _remember(table, item["pk"]["S"], value, _expiry(item))
        with _unless_disk_full(), boto_errors("writing the cache"):
            # Items still unprocessed after the batch backoff are not cached: a later call fetches them again.
            batch.write_items(self.client, table, [{"PutRequest": {"Item": item}} for item in items])

    def delete(self, namespace: str, key: str) -> None:
        if self.table:
            pk = self.pk(namespace, key)
            _forget(self.table, pk)
            with boto_errors("deleting from the cache"):
                self.client.delete_item(TableName=self.table, Key={"pk": {"S": pk}})

    def _value(self, item: dict[str, Any] | None) -> Any | None:
        if not item:
            return None
        expires = item.get("expires_at")
        if expires is not None and float(expires["N"]) <= time.time():
            return None
        if "v" in item:
            return _decode(item["v"]["B"])
        data = self.blobs.get(item["s3_key"]["S"]) if "s3_key" in item else None
        return _decode(data) if data is not None else None

    aget = awaitable(get)
    aget_first = awaitable(get_first)
    aget_many = awaitable(get_many)
    aput = awaitable(put)
    aput_many = awaitable(put_many)
    adelete = awaitable(delete)


T = TypeVar("T")


async def unless_known_missing(cache: Cache, key: str, fetch: Callable[[], Awaitable[T]], *,
                               ttl_s: int = NEGATIVE_TTL_S) -> T:
    """``await fetch()``, remembering a ``NotFoundError`` under ``negative#<key>`` for ``ttl_s`` seconds.

    Only a source's own "no such thing" is remembered; any other failure is raised and never cached.

    Raises:
        NotFoundError: the source said so now, or said so within ``ttl_s`` (raised again without asking).
    """
    known = await cache.aget("negative", key)
    if isinstance(known, dict) and "message" in known:
        raise NotFoundError(str(known["message"]), source=known.get("source"), status=known.get("status"))
    try:
        return await fetch()
    except NotFoundError as err:
        known = {"message": err.message, "source": err.source, "status": err.status}
        await cache.aput("negative", key, known, ttl_s=ttl_s)
        raise


@contextmanager
def _unless_disk_full() -> Iterator[None]:
    """A cache write the full disk refuses is skipped (issue 40.3): the answer is whole, keeping it is a saving, and a
    read must not fail for it; the next call fetches again. Any other failure still fails the write."""
    try:
        yield
    except ScholarError as exc:
        if exc.reason != DISK_FULL:
            raise
        _log.warning("not cached: %s", exc.message)
    except OSError as exc:
        if exc.errno != errno.ENOSPC:
            raise
        _log.warning("not cached: the disk is full (%s)", exc)
