"""One request to a connector's service, sent again as its throttling asks: the sync clients' shared patience.

A library sync is a long series of writes to one service (Zotero, Notion) that rate-limits by answering 429 with
``Retry-After``. ``scholar.sources.http`` retries only within a call's time budget, which is seconds, while a sync
must wait as long as the service asks (within a cap) and go on. So the sync clients send with no budget and retry
here: 429 and 502/503/504 are sent again after ``Retry-After`` (else an exponential wait), a few attempts at most.

The non-obvious constraint: every wait goes through the ``sleep`` the client passes in (its module's ``_sleep``),
so tests see the waits the service asked for without waiting, and a benchmark can wait for real.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import httpx

from scholar.core.errors import RateLimitedError, UpstreamError
from scholar.sources import http

__all__ = ["ATTEMPTS", "MAX_WAIT_S", "Sleep", "send"]

ATTEMPTS = 5
MAX_WAIT_S = 60.0
_RETRIED_STATUSES = (502, 503, 504)

Sleep = Callable[[float], Awaitable[None]]


async def send(source: str, method: str, path: str, *, sleep: Sleep,
               before: Callable[[], Awaitable[None]] | None = None, params: Mapping[str, Any] | None = None,
               json_body: Any = None, headers: Mapping[str, str] | None = None,
               content: bytes | None = None) -> httpx.Response:
    """Send one request to ``source``; after a 429 or 502-504 wait as the service says and send it again.

    Args:
        source: a name from the source registry.
        method: HTTP method.
        path: the full public path.
        sleep: awaited with each wait in seconds (the client's own, so tests can record the waits).
        before: awaited before every attempt (a client's own Backoff wait, its request count).
        params: query parameters.
        json_body: a JSON body.
        headers: the request's headers (credentials go here only).
        content: a raw body.

    Returns:
        The response, for any status but 429 and 5xx.

    Raises:
        RateLimitedError: still throttled after the attempts (``retry_after_s`` as the service last said).
        UpstreamError: the service failed (5xx) after the attempts, or could not be reached.
    """
    for attempt in range(1, ATTEMPTS + 1):
        if before is not None:
            await before()
        try:
            return await http.request(source, method, path, params=params, json_body=json_body, headers=headers,
                                      content=content, budget_s=0)
        except (RateLimitedError, UpstreamError) as exc:
            if attempt == ATTEMPTS or not _retryable(exc):
                raise
            await sleep(min(MAX_WAIT_S, exc.retry_after_s if exc.retry_after_s is not None else 2.0 ** attempt))
    raise AssertionError("unreachable: the last attempt returns or raises")


def _retryable(exc: RateLimitedError | UpstreamError) -> bool:
    return isinstance(exc, RateLimitedError) or exc.status in _RETRIED_STATUSES
