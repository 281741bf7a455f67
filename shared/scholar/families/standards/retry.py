"""Retrying a body whose sync failed on the next call that needs it, instead of at the next scheduled run.

A call that meets a body with no data starts an on-demand sync of just that body (the sync function's
``{"bodies": [...]}`` event), at most once per ``RETRY_INTERVAL_S`` per body across every instance: the
attempt is remembered in the CacheTable before the sync is started, so a burst of calls starts one sync.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable

from scholar.core.errors import ScholarError
from scholar.families.standards import cold
from scholar.store.cache import Cache

logger = logging.getLogger(__name__)

RETRY_INTERVAL_S = 900
NAMESPACE = "result"
SOURCE = "scholar.families.standards.retry"


# This instance's own record too, so that the bound holds even where no CacheTable is configured.
_started: dict[str, float] = {}
_lock = threading.Lock()


def _key(body: str) -> str:
    return f"standards-sync-retry#{body.upper()}"


def reset() -> None:
    """Forget this instance's record of started retries (tests)."""
    with _lock:
        _started.clear()


def retry_bodies(bodies: Iterable[str], cache: Cache | None = None) -> list[str]:
    """Start one background sync of the ``bodies`` not retried in the last interval.

    Returns:
        The bodies a sync was started for (empty when every one was retried recently, or the start failed).
    """
    cache = cache or Cache()
    now = time.monotonic()
    with _lock:
        wanted = sorted({b.upper() for b in bodies} - {b for b, at in _started.items() if now - at < RETRY_INTERVAL_S})
        due = [b for b in wanted if cache.get(NAMESPACE, _key(b)) is None]
        for body in due:
            _started[body] = now
    if not due:
        return []
    for body in due:
        cache.put(NAMESPACE, _key(body), True, ttl_s=RETRY_INTERVAL_S)
    try:
        cold.start_sync({"source": SOURCE, "bodies": due})
    except ScholarError as err:
        # The call still answers (with the missing-body error); the next interval tries again.
        logger.warning("could not start a sync of %s: %s", ", ".join(due), err.code)
        return []
    return due
