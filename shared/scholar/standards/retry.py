"""Retrying a body whose sync failed on the next call that needs it, instead of at the next scheduled run.

A call that meets a body with no data starts an on-demand sync of just that body (the sync function's
``{"bodies": [...]}`` event), at most once per ``RETRY_INTERVAL_S`` per body across every instance: the
attempt is remembered in the CacheTable before the sync is started, so a burst of calls starts one sync.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from scholar.errors import ScholarError
from scholar.standards import cold
from scholar.store.cache import Cache

logger = logging.getLogger(__name__)

RETRY_INTERVAL_S = 900
NAMESPACE = "result"
SOURCE = "scholar.standards.retry"


def _key(body: str) -> str:
    return f"standards-sync-retry#{body.upper()}"


def retry_bodies(bodies: Iterable[str], cache: Cache | None = None) -> list[str]:
    """Start one background sync of the ``bodies`` not retried in the last interval.

    Returns:
        The bodies a sync was started for (empty when every one was retried recently, or the start failed).
    """
    cache = cache or Cache()
    wanted = sorted({b.upper() for b in bodies})
    due = [b for b in wanted if cache.get(NAMESPACE, _key(b)) is None]
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
