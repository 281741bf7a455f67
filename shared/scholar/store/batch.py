"""DynamoDB's batch calls, with the one retry of what it leaves unprocessed (issue #29: once, one backoff).

A throttled BatchGetItem / BatchWriteItem answers part of a request and hands the rest back (``UnprocessedKeys``,
``UnprocessedItems``). Asking again at once would be throttled again, so the rest is asked again after each wait
of ``UNPROCESSED_BACKOFF_S``; what is still unprocessed after the last is returned to the caller, who decides what
it means (the cache: misses; the library: a retryable error; usage: a failed write). Calls run inside the
caller's ``boto_errors``, so a refused batch leaves as our typed error.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

BATCH_GET = 100  # DynamoDB's BatchGetItem limit
BATCH_WRITE = 25  # DynamoDB's BatchWriteItem limit
UNPROCESSED_BACKOFF_S = (0.05, 0.1, 0.2, 0.4, 0.8)
_sleep = time.sleep  # tests replace it: no real waiting


def get_items(client: Any, table: str, keys: Sequence[Mapping[str, Any]], *,
              consistent: bool = False) -> tuple[list[dict[str, Any]], list[Mapping[str, Any]]]:
    """``(items found, keys still unprocessed after the backoff)`` for ``keys`` (any number, 100 a request)."""
    found: list[dict[str, Any]] = []
    left: list[Mapping[str, Any]] = []
    for start in range(0, len(keys), BATCH_GET):
        request: dict[str, Any] = {table: {"Keys": list(keys[start : start + BATCH_GET]), "ConsistentRead": consistent}}
        for backoff in (*UNPROCESSED_BACKOFF_S, None):
            out = client.batch_get_item(RequestItems=request)
            found += out.get("Responses", {}).get(table, [])
            request = out.get("UnprocessedKeys") or {}
            if not request or backoff is None:
                break
            _sleep(backoff)
        left += (request.get(table) or {}).get("Keys", [])
    return found, left


def write_items(client: Any, table: str, requests: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Send put/delete ``requests`` (any number, 25 a request); the requests still unprocessed after the backoff."""
    left: list[Mapping[str, Any]] = []
    for start in range(0, len(requests), BATCH_WRITE):
        request: dict[str, Any] = {table: list(requests[start : start + BATCH_WRITE])}
        for backoff in (*UNPROCESSED_BACKOFF_S, None):
            request = client.batch_write_item(RequestItems=request).get("UnprocessedItems") or {}
            if not request or backoff is None:
                break
            _sleep(backoff)
        left += request.get(table, [])
    return left
