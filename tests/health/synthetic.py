"""Synthetic usage histories for the doctor and source_health tests.

There is no recorded usage to replay (usage records are ours, not an upstream's): these follow the
shape ``scholar.services.health.records.UsageRecord`` defines, one record per call and source.
"""

from __future__ import annotations

import secrets
from typing import Any

from scholar.services.health.records import SourceStats, UsageRecord


def synthetic_call(
    source: str,
    at: float,
    *,
    status: int | str = 200,
    attempts: int = 1,
    latency_ms: int = 120,
    records: int | None = None,
    missing_abstracts: int | None = None,
    tool: str = "search_papers",
    family: str = "papers",
) -> UsageRecord:
    """One call that asked ``source`` ``attempts`` times, each answered ``status``."""
    failed = isinstance(status, str) or status == 429 or status >= 500
    stats = SourceStats(
        source=source,
        requests=attempts,
        failures=attempts if failed else 0,
        throttled=attempts if status == 429 else 0,
        statuses={str(status): attempts},
        latency_ms=latency_ms,
        bytes=0 if failed else 2048,
        records=records,
        missing_abstracts=missing_abstracts,
        empty=None if records is None else records == 0,
    )
    outcome = "ok" if not failed else ("rate_limited" if status == 429 else "upstream_error")
    return UsageRecord(
        at=at,
        request=secrets.token_hex(6),
        tool=tool,
        family=family,
        duration_ms=latency_ms + 5,
        outcome=outcome,
        principal="0123456789abcdef",
        sources=[stats],
    )


def synthetic_history(
    source: str, now: float, *, hours: int = 24, per_hour: int = 4, start_s: float = 7200, **kwargs: Any
) -> list[UsageRecord]:
    """``per_hour`` healthy calls in each of ``hours`` hours, the newest ``start_s`` seconds before ``now``."""
    return [
        synthetic_call(source, now - start_s - h * 3600 - i * 60, **kwargs)
        for h in range(hours)
        for i in range(per_hour)
    ]
